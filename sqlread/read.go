package sqlread

import (
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// Parse reads the SELECT body in src from the offset from on (a model
// file's body, after its header). It never fails: what it cannot read is
// skipped, and text after a stray ')' is read as more of the top-level
// query.
func Parse(src []byte, from int) *Query {
	p := &qparser{toks: Scan(src, from, len(src))}
	q := &p.query(nil).Query
	// Text after a stray ')' is read as more of the top-level query so its
	// names still resolve.
	for !p.eof() {
		if p.peek().IsPunct(")") || p.peek().IsPunct(";") {
			p.next()
			continue
		}
		extra := p.query(q)
		if p.i == extra.startIdx {
			p.next()
		}
		q.Subs = append(q.Subs, &extra.Query)
	}
	return q
}

type qparser struct {
	toks []Token
	i    int
}

func (p *qparser) eof() bool { return p.i >= len(p.toks) }

func (p *qparser) peek() Token { return p.at(p.i) }

func (p *qparser) at(i int) Token {
	if i >= 0 && i < len(p.toks) {
		return p.toks[i]
	}
	return Token{Kind: sqlscan.Punct, Val: ""}
}

func (p *qparser) next() Token {
	t := p.peek()
	if !p.eof() {
		p.i++
	}
	return t
}

// here is where the next token starts; at the end, where the last one
// ends.
func (p *qparser) here() int {
	if p.eof() {
		return p.lastEnd()
	}
	return p.peek().Start
}

func (p *qparser) lastEnd() int {
	if p.i > 0 {
		return p.toks[min(p.i, len(p.toks))-1].End
	}
	return 0
}

// startsQuery reports whether the tokens at i begin a query.
func (p *qparser) startsQuery(i int) bool {
	t := p.at(i)
	return t.Is("select") || t.Is("with") || t.Is("from") || t.Is("values")
}

type parsedQuery struct {
	Query
	startIdx int
}

// query parses [WITH …] SELECT … [set-op …] up to a closing ')' (not
// consumed), ';' or the end.
func (p *qparser) query(parent *Query) *parsedQuery {
	pq := &parsedQuery{startIdx: p.i}
	q := &pq.Query
	q.Parent = parent
	q.Start = p.peek().Start
	if p.peek().Is("with") {
		p.next()
		if p.peek().Is("recursive") {
			p.next()
		}
		p.ctes(q)
	}
	p.core(q)
	for isSetOp(p.peek()) {
		p.next()
		for p.peek().Is("all") || p.peek().Is("distinct") || p.peek().Is("by") || p.peek().Is("name") {
			p.next()
		}
		b := &Query{Parent: q, Start: p.peek().Start}
		p.core(b)
		b.End = p.lastEnd()
		q.Branches = append(q.Branches, b)
	}
	q.End = max(p.lastEnd(), q.Start)
	return pq
}

func (p *qparser) ctes(q *Query) {
	for !p.eof() {
		t := p.peek()
		if !t.IsIdent() {
			return
		}
		p.next()
		c := &CTE{Name: identName(t), NameStart: t.Start, NameEnd: t.End}
		if p.peek().IsPunct("(") { // name(col, …)
			c.Cols = p.cteColumns()
		}
		if p.peek().Is("as") {
			p.next()
		}
		for p.peek().Is("not") || p.peek().Is("materialized") {
			p.next()
		}
		if p.peek().IsPunct("(") {
			p.next()
			sub := p.query(q)
			c.Query = &sub.Query
			renameOutputs(c.Query, c.Cols)
			q.Subs = append(q.Subs, c.Query)
			if p.peek().IsPunct(")") {
				p.next()
			}
		} else {
			c.Query = &Query{Parent: q, Start: p.peek().Start, End: p.peek().Start}
		}
		c.End = max(p.lastEnd(), c.NameEnd)
		q.CTEs = append(q.CTEs, c)
		if !p.peek().IsPunct(",") {
			return
		}
		p.next()
	}
}

// core parses SELECT … FROM … WHERE … and the clauses after it.
func (p *qparser) core(q *Query) {
	if p.peek().IsPunct("(") && p.startsQuery(p.i+1) {
		p.next()
		sub := p.query(q)
		q.Subs = append(q.Subs, &sub.Query)
		q.Items = sub.Items
		q.Inner = &sub.Query
		if p.peek().IsPunct(")") {
			p.next()
		}
	}
	if p.peek().Is("from") { // DuckDB's FROM-first form
		p.next()
		p.fromClause(q)
	}
	if p.peek().Is("select") {
		p.next()
		switch {
		case p.peek().Is("distinct"):
			p.next()
			if p.peek().Is("on") {
				p.next()
				p.skipParens()
			}
		case p.peek().Is("all"):
			p.next()
		}
		q.Select.Start = p.here()
		p.items(q)
		q.Select.End = max(p.lastEnd(), q.Select.Start)
	}
	if p.peek().Is("from") {
		p.next()
		p.fromClause(q)
	}
	q.Rest.Start = p.here()
	for !p.eof() && !p.peek().IsPunct(")") && !p.peek().IsPunct(";") && !isSetOp(p.peek()) {
		toks := p.span(q, func(t Token) bool { return isSetOp(t) })
		q.Refs = append(q.Refs, columnRefs(toks)...)
	}
	q.Rest.End = max(p.lastEnd(), q.Rest.Start)
}

// fromClause reads a FROM clause, its keyword read, and records its span.
func (p *qparser) fromClause(q *Query) {
	q.From.Start = p.here()
	p.from(q)
	q.From.End = max(p.lastEnd(), q.From.Start)
}

func (p *qparser) items(q *Query) {
	for !p.eof() {
		toks := p.span(q, func(t Token) bool { return t.IsPunct(",") || isClauseKeyword(t) })
		if len(toks) > 0 {
			q.Items = append(q.Items, makeItem(toks))
		}
		if !p.peek().IsPunct(",") {
			return
		}
		p.next()
	}
}

func (p *qparser) from(q *Query) {
	// A FROM item ends at a comma, a join, a clause, or the SELECT of
	// DuckDB's FROM-first form.
	ends := func(t Token) bool { return t.IsPunct(",") || isJoinWord(t) || isClauseKeyword(t) || t.Is("select") }
	var join string // how the next source is joined
	var joinStart, joinEnd int
	for !p.eof() {
		if s := p.source(q); s != nil {
			s.Join, s.JoinStart, s.JoinEnd = join, joinStart, joinEnd
			q.Sources = append(q.Sources, s)
		}
		join = ""
		for p.peek().Is("on") || p.peek().Is("using") {
			using := p.next().Is("using")
			toks := p.span(q, ends)
			refs := columnRefs(toks)
			for i := range refs {
				refs[i].Using = using
			}
			q.Refs = append(q.Refs, refs...)
		}
		switch {
		case p.peek().IsPunct(","):
			t := p.next()
			join, joinStart, joinEnd = ",", t.Start, t.End
			continue
		case isJoinWord(p.peek()):
			joinStart = p.peek().Start
			var words []string
			for isJoinWord(p.peek()) {
				words = append(words, p.next().Val)
			}
			join, joinEnd = strings.Join(words, " "), p.lastEnd()
			continue
		}
		// Anything else up to the next clause (PIVOT, TABLESAMPLE, typos).
		if !p.eof() && !p.peek().IsPunct(")") && !p.peek().IsPunct(";") && !isClauseKeyword(p.peek()) && !p.peek().Is("select") {
			toks := p.span(q, ends)
			q.Refs = append(q.Refs, columnRefs(toks)...)
			if p.peek().IsPunct(",") || isJoinWord(p.peek()) {
				continue
			}
		}
		return
	}
}

// source parses one FROM item and its alias.
func (p *qparser) source(q *Query) *Source {
	t := p.peek()
	s := &Source{Start: t.Start}
	switch {
	case t.Kind == sqlscan.Macro && t.Val == "ref" && t.Arg == "":
		p.next() // @ref( being typed
		return nil
	case t.Kind == sqlscan.Macro && t.Val == "ref":
		p.next()
		s.Model, s.ArgStart, s.ArgEnd = t.Arg, t.ArgStart, t.ArgEnd
		s.Alias = t.Arg
		if i := strings.LastIndexByte(t.Arg, '.'); i >= 0 {
			s.Alias = t.Arg[i+1:]
		}
	case t.IsPunct("(") && p.startsQuery(p.i+1):
		p.next()
		sub := p.query(q)
		s.Sub = &sub.Query
		q.Subs = append(q.Subs, s.Sub)
		if p.peek().IsPunct(")") {
			p.next()
		}
	case t.IsPunct("("):
		p.skipParens()
	case t.Is("lateral"):
		p.next()
		return p.source(q)
	case t.IsIdent() && !isClauseKeyword(t) && !isJoinWord(t):
		first := p.next()
		parts := []string{identName(first)}
		s.NameStart, s.NameEnd = first.Start, first.End
		for p.peek().IsPunct(".") && p.at(p.i+1).IsIdent() {
			p.next()
			last := p.next()
			parts = append(parts, identName(last))
			s.NameEnd = last.End
		}
		s.Table = strings.Join(parts, ".")
		s.Alias = parts[len(parts)-1]
		if p.peek().IsPunct("(") { // table function
			p.skipParens()
		} else if len(parts) == 1 {
			s.CTE = findCTE(q, parts[0])
		}
	default:
		return nil
	}
	if p.peek().Is("as") {
		p.next()
	}
	if a := p.peek(); a.IsIdent() && !(a.Kind == sqlscan.Ident && IsReserved(a.Val)) {
		p.next()
		s.Alias, s.AliasStart, s.AliasEnd = identName(a), a.Start, a.End
		if p.peek().IsPunct("(") {
			p.next()
			for !p.eof() && !p.peek().IsPunct(")") {
				if c := p.next(); c.IsIdent() {
					s.ColAliases = append(s.ColAliases, identName(c))
				}
			}
			if p.peek().IsPunct(")") {
				p.next()
			}
		}
	}
	s.End = p.lastEnd()
	return s
}

// span collects the tokens of one expression at this query's level up to
// a token at depth 0 for which stop holds (not consumed), a ')' closing an
// enclosing group, ';' or the end. Nested queries are parsed as scopes of
// their own and left out of the result.
func (p *qparser) span(q *Query, stop func(Token) bool) []Token {
	var out []Token
	depth := 0
	for !p.eof() {
		t := p.peek()
		if depth == 0 && (stop(t) && !p.operatorFrom(p.i) || t.IsPunct(")") || t.IsPunct(";")) {
			break
		}
		if t.IsPunct("(") && p.startsQuery(p.i+1) {
			p.next()
			sub := p.query(q)
			q.Subs = append(q.Subs, &sub.Query)
			if p.peek().IsPunct(")") {
				p.next()
			}
			out = append(out, Token{Kind: sqlscan.Punct, Val: "?", Start: t.Start, End: p.lastEnd()})
			continue
		}
		switch {
		case t.IsPunct("(") || t.IsPunct("[") || t.IsPunct("{"):
			depth++
		case t.IsPunct(")") || t.IsPunct("]") || t.IsPunct("}"):
			depth--
		}
		out = append(out, p.next())
	}
	return out
}

// operatorFrom reports whether token i is the FROM of IS [NOT] DISTINCT
// FROM, an operator's, which ends no clause.
func (p *qparser) operatorFrom(i int) bool {
	return p.at(i).Is("from") && p.at(i-1).Is("distinct") && (p.at(i-2).Is("is") || p.at(i-2).Is("not"))
}

func (p *qparser) skipParens() {
	if !p.peek().IsPunct("(") {
		return
	}
	depth := 0
	for !p.eof() {
		t := p.next()
		switch {
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			depth--
			if depth == 0 {
				return
			}
		}
	}
}

// makeItem reads one select item.
func makeItem(toks []Token) *SelectItem {
	it := &SelectItem{Start: toks[0].Start, End: toks[len(toks)-1].End}
	expr := toks
	n := len(toks)
	switch {
	case n >= 3 && toks[n-2].Is("as") && toks[n-1].IsIdent():
		a := toks[n-1]
		it.Name, it.NameStart, it.NameEnd = identName(a), a.Start, a.End
		expr = toks[:n-2]
	case n >= 2 && toks[n-1].IsIdent() && !(toks[n-1].Kind == sqlscan.Ident && IsKeyword(toks[n-1].Val)) && canPrecedeAlias(toks[n-2]):
		a := toks[n-1]
		it.Name, it.NameStart, it.NameEnd = identName(a), a.Start, a.End
		expr = toks[:n-1]
	}
	switch {
	case len(expr) >= 1 && expr[0].Kind == sqlscan.Op && expr[0].Val == "*":
		it.Star, it.StarEnd = true, expr[0].End
	case len(expr) >= 3 && expr[0].IsIdent() && expr[1].IsPunct(".") && expr[2].Kind == sqlscan.Op && expr[2].Val == "*":
		it.Star, it.StarQual, it.StarEnd = true, identName(expr[0]), expr[2].End
	}
	if it.Star {
		it.Name = ""
		for i, t := range expr {
			if (t.Is("replace") || t.Is("rename")) && i+1 < len(expr) && expr[i+1].IsPunct("(") {
				// Each entry of the list, to its comma at depth 1: REPLACE
				// names the column after its last AS, RENAME before it.
				depth, entry := 0, []Token(nil)
				for _, e := range expr[i+1:] {
					switch {
					case e.IsPunct("(") || e.IsPunct("[") || e.IsPunct("{"):
						depth++
					case e.IsPunct(")") || e.IsPunct("]") || e.IsPunct("}"):
						depth--
					}
					if depth == 1 && !e.IsPunct("(") && !e.IsPunct(",") || depth > 1 {
						entry = append(entry, e)
						continue
					}
					for k := len(entry) - 1; k >= 0; k-- {
						if entry[k].Is("as") {
							if n := k + 1; t.Is("replace") && n < len(entry) && entry[n].IsIdent() {
								it.Replaced = append(it.Replaced, identName(entry[n]))
							} else if t.Is("rename") && k > 0 && entry[k-1].IsIdent() {
								it.Replaced = append(it.Replaced, identName(entry[k-1]))
							}
							break
						}
					}
					entry = nil
					if depth == 0 {
						break
					}
				}
			}
			if t.Is("exclude") {
				for _, e := range expr[i+1:] {
					if e.IsIdent() {
						it.Exclude = append(it.Exclude, identName(e))
					}
					if e.IsPunct(")") || (e.IsIdent() && !expr[i+1].IsPunct("(")) {
						break
					}
				}
			}
		}
		return it
	}
	it.Refs = columnRefs(expr)
	if len(it.Refs) == 1 {
		r := it.Refs[0]
		first := r.Start
		if r.Qual != "" {
			first = r.QualStart
		}
		if expr[0].Start == first && expr[len(expr)-1].End == r.End {
			it.Plain = true
			if it.Name == "" {
				it.Name, it.NameStart, it.NameEnd = r.Name, r.Start, r.End
			}
		}
	}
	return it
}

// columnRefs finds the column references among expression tokens: names
// and dotted names that are not functions, types, keywords or lambda
// parameters.
func columnRefs(toks []Token) []ColRef {
	var out []ColRef
	// inBrace[i] tells whether toks[i] is directly inside { } (a struct
	// literal), where `name: value` names a key, not a column.
	inBrace := make([]bool, len(toks))
	var open []string
	for i, t := range toks {
		switch {
		case t.IsPunct("(") || t.IsPunct("[") || t.IsPunct("{"):
			open = append(open, t.Val)
		case (t.IsPunct(")") || t.IsPunct("]") || t.IsPunct("}")) && len(open) > 0:
			open = open[:len(open)-1]
		}
		inBrace[i] = len(open) > 0 && open[len(open)-1] == "{"
	}
	params := lambdaParams(toks)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !t.IsIdent() {
			continue
		}
		if i > 0 {
			prev := toks[i-1]
			// After '.', a type cast or AS: part of a name, or a type. After
			// a literal: a unit, as in INTERVAL 1 DAY.
			if prev.IsPunct(".") || (prev.Kind == sqlscan.Op && prev.Val == "::") || prev.Is("as") ||
				prev.Kind == sqlscan.Number || prev.Kind == sqlscan.String {
				continue
			}
		}
		chain := []Token{t}
		j := i
		for j+2 < len(toks) && toks[j+1].IsPunct(".") && toks[j+2].IsIdent() {
			chain = append(chain, toks[j+2])
			j += 2
		}
		next := Token{}
		if j+1 < len(toks) {
			next = toks[j+1]
		}
		i = j
		switch {
		case next.IsPunct("("): // function call
			continue
		case next.IsPunct(".") && j+2 < len(toks) && toks[j+2].Kind == sqlscan.Op && toks[j+2].Val == "*":
			continue // s.*
		case next.Kind == sqlscan.Op && next.Val == "->": // lambda parameter
			continue
		case len(chain) == 1 && next.Kind == sqlscan.Op && (next.Val == ":=" || next.Val == "=>"):
			continue // a named argument: f(name := expr)
		case len(chain) == 1 && next.Kind == sqlscan.Op && next.Val == ":" && inBrace[i] && i > 0 && (toks[i-1].IsPunct("{") || toks[i-1].IsPunct(",")):
			continue // a struct literal's key: {name: expr}
		case next.IsPunct("."): // "o." being typed: a qualifier, not a column
			continue
		case len(chain) == 1 && t.Kind == sqlscan.Ident && IsKeyword(t.Val):
			continue
		}
		if bound(params, identName(chain[0]), i-len(chain)*2+2) {
			continue // a lambda's parameter or a comprehension's variable
		}
		last := chain[len(chain)-1]
		r := ColRef{Name: identName(last), Start: last.Start, End: last.End}
		if len(chain) >= 2 {
			q := chain[len(chain)-2]
			r.Qual, r.QualStart, r.QualEnd = identName(q), q.Start, q.End
		}
		if len(chain) >= 3 {
			r.Outer = identName(chain[len(chain)-3])
		}
		for _, c := range chain {
			r.Path = append(r.Path, identName(c))
		}
		out = append(out, r)
	}
	return out
}

// A lambdaParam is a name that stands for a lambda's parameter (x -> …,
// (a, b) -> …, lambda a, b: …) or a list comprehension's variable
// ([… FOR x IN …]) in tokens from..to, not for a column.
type lambdaParam struct {
	name     string
	from, to int
}

// lambdaParams lists the lambda parameters among toks, each bound from the
// parentheses or brackets around its lambda (a comprehension's, around the
// brackets) to their end.
func lambdaParams(toks []Token) []lambdaParam {
	opener := func(t Token) bool { return t.IsPunct("(") || t.IsPunct("[") || t.IsPunct("{") }
	closer := func(t Token) bool { return t.IsPunct(")") || t.IsPunct("]") || t.IsPunct("}") }
	// start and end of the innermost group around toks[i].
	start := func(i int) int {
		depth := 0
		for j := i - 1; j >= 0; j-- {
			switch {
			case closer(toks[j]):
				depth++
			case opener(toks[j]):
				if depth == 0 {
					return j
				}
				depth--
			}
		}
		return 0
	}
	end := func(i int) int {
		depth := 0
		for j := i + 1; j < len(toks); j++ {
			switch {
			case opener(toks[j]):
				depth++
			case closer(toks[j]):
				if depth == 0 {
					return j
				}
				depth--
			}
		}
		return len(toks)
	}
	var out []lambdaParam
	for i, t := range toks {
		switch {
		case t.Kind == sqlscan.Op && t.Val == "->" && i > 0 && toks[i-1].IsIdent():
			out = append(out, lambdaParam{identName(toks[i-1]), i - 1, end(i)})
		case t.Kind == sqlscan.Op && t.Val == "->" && i > 0 && toks[i-1].IsPunct(")"):
			k := start(i - 1)
			for j := k + 1; j < i-1; j++ {
				if toks[j].IsIdent() {
					out = append(out, lambdaParam{identName(toks[j]), k, end(i)})
				}
			}
		case t.Is("lambda"):
			for j := i + 1; j < len(toks) && !(toks[j].Kind == sqlscan.Op && toks[j].Val == ":"); j++ {
				if toks[j].IsIdent() {
					out = append(out, lambdaParam{identName(toks[j]), i, end(i)})
				}
			}
		case t.Is("for") && i+1 < len(toks) && toks[i+1].IsIdent():
			if k := start(i); toks[k].IsPunct("[") {
				out = append(out, lambdaParam{identName(toks[i+1]), k, end(i)})
			}
		}
	}
	return out
}

// bound reports whether name at token i is one of params.
func bound(params []lambdaParam, name string, i int) bool {
	for _, p := range params {
		if p.from <= i && i <= p.to && sqlscan.SameName(p.name, name) {
			return true
		}
	}
	return false
}

// identName is the name an identifier token denotes, folded as the
// engine compares names: ASCII letters to lower case (sqlscan.FoldName).
func identName(t Token) string { return sqlscan.FoldName(t.Val) }

// canPrecedeAlias reports whether t may end an expression that a bare
// alias follows.
func canPrecedeAlias(t Token) bool {
	switch t.Kind {
	case sqlscan.Ident, sqlscan.QuotedIdent, sqlscan.String, sqlscan.Number, sqlscan.Param, sqlscan.Macro:
		return true
	case sqlscan.Punct:
		return t.Val == ")" || t.Val == "]" || t.Val == "?"
	}
	return false
}

// cteColumns reads a CTE's column list, from its "(" to its ")"; a list
// that is not plain names is skipped whole and yields nothing.
func (p *qparser) cteColumns() []CTEColumn {
	save := p.i
	p.next() // (
	var cols []CTEColumn
	for !p.eof() {
		t := p.next()
		if !t.IsIdent() {
			break
		}
		cols = append(cols, CTEColumn{Name: identName(t), Start: t.Start, End: t.End})
		if p.peek().IsPunct(",") {
			p.next()
			continue
		}
		if p.peek().IsPunct(")") {
			p.next()
			return cols
		}
		break
	}
	p.i = save
	p.skipParens()
	return nil
}

// renameOutputs gives a CTE's query the names of its column list, in
// order, as the engine does: `per_day(d, n) AS (SELECT x, count(*) …)`
// yields d and n. A star in the list's reach leaves the rest as they are
// (which columns it yields is not known here).
func renameOutputs(q *Query, cols []CTEColumn) {
	if q == nil {
		return
	}
	for i, c := range cols {
		if i >= len(q.Items) || q.Items[i].Star {
			return
		}
		q.Items[i].Name = c.Name
	}
}
