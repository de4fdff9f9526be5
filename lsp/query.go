package lsp

import (
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// The structure of a SELECT body as far as navigation needs it: the CTEs,
// the select items with their output names, the FROM sources with their
// aliases, and nested queries as scopes. It is read from tokens, best
// effort, and tolerates text that does not parse.

type query struct {
	start, end int // byte span
	parent     *query
	ctes       []*cte
	items      []*selectItem
	sources    []*source
	refs       []colRef // column references outside the select list
	subs       []*query // nested queries: CTE bodies, subqueries
	branches   []*query // UNION / EXCEPT / INTERSECT operands after the first
}

type cte struct {
	name               string
	nameStart, nameEnd int
	q                  *query
	cols               []cteColumn // name(col, …): they rename the query's outputs in order
}

type selectItem struct {
	name               string // output name, lower case; "" when the engine invents one
	nameStart, nameEnd int    // where the name is written: the alias, or the column
	start, end         int
	star               bool
	starQual           string   // s in s.*
	exclude            []string // * EXCLUDE (a, b)
	// replaced: the columns a star's REPLACE (expr AS a) and RENAME (a AS
	// b) lists name, lower case.
	replaced []string
	refs     []colRef
	plain    bool // the expression is one column reference
}

type colRef struct {
	qual               string // alias or table, lower case; "" when bare
	qualStart, qualEnd int
	name               string // lower case
	start, end         int    // the column name
	// outer is the part before qual (p in p.s.f, where s may be a struct
	// column and f its field), lower case; "" when none.
	outer string
	// path is every part of the dotted name, lower case (p, s, a, b in
	// p.s.a.b).
	path []string
	// using marks a column of JOIN … USING (…): it names the column of
	// both joined sides.
	using bool
}

type source struct {
	alias                string // lower case
	aliasStart, aliasEnd int    // where the alias is written; 0,0 when implicit
	model                string // @ref(model)
	argStart, argEnd     int
	cte                  *cte
	sub                  *query
	table                string // any other relation or table function
	nameStart, nameEnd   int    // where a CTE or table name is written
	colAliases           []string
	start, end           int
}

// parseBody reads the SELECT body of a model file starting at from.
func parseBody(src []byte, from int) *query {
	p := &qparser{toks: scanSQL(src, from, len(src))}
	q := &p.query(nil).query
	// Text after a stray ')' is read as more of the top-level query so its
	// names still resolve.
	for !p.eof() {
		if p.peek().isPunct(")") || p.peek().isPunct(";") {
			p.next()
			continue
		}
		extra := p.query(q)
		if p.i == extra.startIdx {
			p.next()
		}
		q.subs = append(q.subs, &extra.query)
	}
	return q
}

type qparser struct {
	toks []sqlToken
	i    int
}

func (p *qparser) eof() bool { return p.i >= len(p.toks) }

func (p *qparser) peek() sqlToken { return p.at(p.i) }

func (p *qparser) at(i int) sqlToken {
	if i >= 0 && i < len(p.toks) {
		return p.toks[i]
	}
	return sqlToken{kind: tkPunct, val: ""}
}

func (p *qparser) next() sqlToken {
	t := p.peek()
	if !p.eof() {
		p.i++
	}
	return t
}

func (p *qparser) lastEnd() int {
	if p.i > 0 {
		return p.toks[min(p.i, len(p.toks))-1].end
	}
	return 0
}

// startsQuery reports whether the tokens at i begin a query.
func (p *qparser) startsQuery(i int) bool {
	t := p.at(i)
	return t.is("select") || t.is("with") || t.is("from") || t.is("values")
}

type parsedQuery struct {
	query
	startIdx int
}

// query parses [WITH …] SELECT … [set-op …] up to a closing ')' (not
// consumed), ';' or the end.
func (p *qparser) query(parent *query) *parsedQuery {
	pq := &parsedQuery{startIdx: p.i}
	q := &pq.query
	q.parent = parent
	q.start = p.peek().start
	if p.peek().is("with") {
		p.next()
		if p.peek().is("recursive") {
			p.next()
		}
		p.ctes(q)
	}
	p.core(q)
	for isSetOp(p.peek()) {
		p.next()
		for p.peek().is("all") || p.peek().is("distinct") || p.peek().is("by") || p.peek().is("name") {
			p.next()
		}
		b := &query{parent: q, start: p.peek().start}
		p.core(b)
		b.end = p.lastEnd()
		q.branches = append(q.branches, b)
	}
	q.end = max(p.lastEnd(), q.start)
	return pq
}

func (p *qparser) ctes(q *query) {
	for !p.eof() {
		t := p.peek()
		if !t.isIdent() {
			return
		}
		p.next()
		c := &cte{name: identName(t), nameStart: t.start, nameEnd: t.end}
		if p.peek().isPunct("(") { // name(col, …)
			c.cols = p.cteColumns()
		}
		if p.peek().is("as") {
			p.next()
		}
		for p.peek().is("not") || p.peek().is("materialized") {
			p.next()
		}
		if p.peek().isPunct("(") {
			p.next()
			sub := p.query(q)
			c.q = &sub.query
			renameOutputs(c.q, c.cols)
			q.subs = append(q.subs, c.q)
			if p.peek().isPunct(")") {
				p.next()
			}
		} else {
			c.q = &query{parent: q, start: p.peek().start, end: p.peek().start}
		}
		q.ctes = append(q.ctes, c)
		if !p.peek().isPunct(",") {
			return
		}
		p.next()
	}
}

// core parses SELECT … FROM … WHERE … and the clauses after it.
func (p *qparser) core(q *query) {
	if p.peek().isPunct("(") && p.startsQuery(p.i+1) {
		p.next()
		sub := p.query(q)
		q.subs = append(q.subs, &sub.query)
		q.items = sub.items
		if p.peek().isPunct(")") {
			p.next()
		}
	}
	if p.peek().is("from") { // DuckDB's FROM-first form
		p.next()
		p.from(q)
	}
	if p.peek().is("select") {
		p.next()
		switch {
		case p.peek().is("distinct"):
			p.next()
			if p.peek().is("on") {
				p.next()
				p.skipParens()
			}
		case p.peek().is("all"):
			p.next()
		}
		p.items(q)
	}
	if p.peek().is("from") {
		p.next()
		p.from(q)
	}
	for !p.eof() && !p.peek().isPunct(")") && !p.peek().isPunct(";") && !isSetOp(p.peek()) {
		toks := p.span(q, func(t sqlToken) bool { return isSetOp(t) })
		q.refs = append(q.refs, columnRefs(toks)...)
	}
}

func (p *qparser) items(q *query) {
	for !p.eof() {
		toks := p.span(q, func(t sqlToken) bool { return t.isPunct(",") || isClauseKeyword(t) })
		if len(toks) > 0 {
			q.items = append(q.items, makeItem(toks))
		}
		if !p.peek().isPunct(",") {
			return
		}
		p.next()
	}
}

func (p *qparser) from(q *query) {
	for !p.eof() {
		if s := p.source(q); s != nil {
			q.sources = append(q.sources, s)
		}
		for p.peek().is("on") || p.peek().is("using") {
			using := p.next().is("using")
			toks := p.span(q, func(t sqlToken) bool { return t.isPunct(",") || isJoinWord(t) || isClauseKeyword(t) })
			refs := columnRefs(toks)
			for i := range refs {
				refs[i].using = using
			}
			q.refs = append(q.refs, refs...)
		}
		switch {
		case p.peek().isPunct(","):
			p.next()
			continue
		case isJoinWord(p.peek()):
			for isJoinWord(p.peek()) {
				p.next()
			}
			continue
		}
		// Anything else up to the next clause (PIVOT, TABLESAMPLE, typos).
		if !p.eof() && !p.peek().isPunct(")") && !p.peek().isPunct(";") && !isClauseKeyword(p.peek()) {
			toks := p.span(q, func(t sqlToken) bool { return t.isPunct(",") || isJoinWord(t) || isClauseKeyword(t) })
			q.refs = append(q.refs, columnRefs(toks)...)
			if p.peek().isPunct(",") || isJoinWord(p.peek()) {
				continue
			}
		}
		return
	}
}

// source parses one FROM item and its alias.
func (p *qparser) source(q *query) *source {
	t := p.peek()
	s := &source{start: t.start}
	switch {
	case t.kind == tkMacro && t.val == "ref" && t.arg == "":
		p.next() // @ref( being typed
		return nil
	case t.kind == tkMacro && t.val == "ref":
		p.next()
		s.model, s.argStart, s.argEnd = t.arg, t.argStart, t.argEnd
		s.alias = t.arg
		if i := strings.LastIndexByte(t.arg, '.'); i >= 0 {
			s.alias = t.arg[i+1:]
		}
	case t.isPunct("(") && p.startsQuery(p.i+1):
		p.next()
		sub := p.query(q)
		s.sub = &sub.query
		q.subs = append(q.subs, s.sub)
		if p.peek().isPunct(")") {
			p.next()
		}
	case t.isPunct("("):
		p.skipParens()
	case t.is("lateral"):
		p.next()
		return p.source(q)
	case t.isIdent() && !isClauseKeyword(t) && !isJoinWord(t):
		first := p.next()
		parts := []string{identName(first)}
		s.nameStart, s.nameEnd = first.start, first.end
		for p.peek().isPunct(".") && p.at(p.i+1).isIdent() {
			p.next()
			last := p.next()
			parts = append(parts, identName(last))
			s.nameEnd = last.end
		}
		s.table = strings.Join(parts, ".")
		s.alias = parts[len(parts)-1]
		if p.peek().isPunct("(") { // table function
			p.skipParens()
		} else if len(parts) == 1 {
			s.cte = findCTE(q, parts[0])
		}
	default:
		return nil
	}
	if p.peek().is("as") {
		p.next()
	}
	if a := p.peek(); a.isIdent() && !(a.kind == tkIdent && isReserved(a.val)) {
		p.next()
		s.alias, s.aliasStart, s.aliasEnd = identName(a), a.start, a.end
		if p.peek().isPunct("(") {
			p.next()
			for !p.eof() && !p.peek().isPunct(")") {
				if c := p.next(); c.isIdent() {
					s.colAliases = append(s.colAliases, identName(c))
				}
			}
			if p.peek().isPunct(")") {
				p.next()
			}
		}
	}
	s.end = p.lastEnd()
	return s
}

// span collects the tokens of one expression at this query's level up to
// a token at depth 0 for which stop holds (not consumed), a ')' closing an
// enclosing group, ';' or the end. Nested queries are parsed as scopes of
// their own and left out of the result.
func (p *qparser) span(q *query, stop func(sqlToken) bool) []sqlToken {
	var out []sqlToken
	depth := 0
	for !p.eof() {
		t := p.peek()
		if depth == 0 && (stop(t) || t.isPunct(")") || t.isPunct(";")) {
			break
		}
		if t.isPunct("(") && p.startsQuery(p.i+1) {
			p.next()
			sub := p.query(q)
			q.subs = append(q.subs, &sub.query)
			if p.peek().isPunct(")") {
				p.next()
			}
			out = append(out, sqlToken{kind: tkPunct, val: "?", start: t.start, end: p.lastEnd()})
			continue
		}
		switch {
		case t.isPunct("(") || t.isPunct("[") || t.isPunct("{"):
			depth++
		case t.isPunct(")") || t.isPunct("]") || t.isPunct("}"):
			depth--
		}
		out = append(out, p.next())
	}
	return out
}

func (p *qparser) skipParens() {
	if !p.peek().isPunct("(") {
		return
	}
	depth := 0
	for !p.eof() {
		t := p.next()
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
			if depth == 0 {
				return
			}
		}
	}
}

// makeItem reads one select item.
func makeItem(toks []sqlToken) *selectItem {
	it := &selectItem{start: toks[0].start, end: toks[len(toks)-1].end}
	expr := toks
	n := len(toks)
	switch {
	case n >= 3 && toks[n-2].is("as") && toks[n-1].isIdent():
		a := toks[n-1]
		it.name, it.nameStart, it.nameEnd = identName(a), a.start, a.end
		expr = toks[:n-2]
	case n >= 2 && toks[n-1].isIdent() && !(toks[n-1].kind == tkIdent && isKeyword(toks[n-1].val)) && canPrecedeAlias(toks[n-2]):
		a := toks[n-1]
		it.name, it.nameStart, it.nameEnd = identName(a), a.start, a.end
		expr = toks[:n-1]
	}
	switch {
	case len(expr) >= 1 && expr[0].kind == tkOp && expr[0].val == "*":
		it.star = true
	case len(expr) >= 3 && expr[0].isIdent() && expr[1].isPunct(".") && expr[2].kind == tkOp && expr[2].val == "*":
		it.star, it.starQual = true, identName(expr[0])
	}
	if it.star {
		it.name = ""
		for i, t := range expr {
			if (t.is("replace") || t.is("rename")) && i+1 < len(expr) && expr[i+1].isPunct("(") {
				// Each entry of the list, to its comma at depth 1: REPLACE
				// names the column after its last AS, RENAME before it.
				depth, entry := 0, []sqlToken(nil)
				for _, e := range expr[i+1:] {
					switch {
					case e.isPunct("(") || e.isPunct("[") || e.isPunct("{"):
						depth++
					case e.isPunct(")") || e.isPunct("]") || e.isPunct("}"):
						depth--
					}
					if depth == 1 && !e.isPunct("(") && !e.isPunct(",") || depth > 1 {
						entry = append(entry, e)
						continue
					}
					for k := len(entry) - 1; k >= 0; k-- {
						if entry[k].is("as") {
							if n := k + 1; t.is("replace") && n < len(entry) && entry[n].isIdent() {
								it.replaced = append(it.replaced, identName(entry[n]))
							} else if t.is("rename") && k > 0 && entry[k-1].isIdent() {
								it.replaced = append(it.replaced, identName(entry[k-1]))
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
			if t.is("exclude") {
				for _, e := range expr[i+1:] {
					if e.isIdent() {
						it.exclude = append(it.exclude, identName(e))
					}
					if e.isPunct(")") || (e.isIdent() && !expr[i+1].isPunct("(")) {
						break
					}
				}
			}
		}
		return it
	}
	it.refs = columnRefs(expr)
	if len(it.refs) == 1 {
		r := it.refs[0]
		first := r.start
		if r.qual != "" {
			first = r.qualStart
		}
		if expr[0].start == first && expr[len(expr)-1].end == r.end {
			it.plain = true
			if it.name == "" {
				it.name, it.nameStart, it.nameEnd = r.name, r.start, r.end
			}
		}
	}
	return it
}

// columnRefs finds the column references among expression tokens: names
// and dotted names that are not functions, types, keywords or lambda
// parameters.
func columnRefs(toks []sqlToken) []colRef {
	var out []colRef
	// inBrace[i] tells whether toks[i] is directly inside { } (a struct
	// literal), where `name: value` names a key, not a column.
	inBrace := make([]bool, len(toks))
	var open []string
	for i, t := range toks {
		switch {
		case t.isPunct("(") || t.isPunct("[") || t.isPunct("{"):
			open = append(open, t.val)
		case (t.isPunct(")") || t.isPunct("]") || t.isPunct("}")) && len(open) > 0:
			open = open[:len(open)-1]
		}
		inBrace[i] = len(open) > 0 && open[len(open)-1] == "{"
	}
	params := lambdaParams(toks)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !t.isIdent() {
			continue
		}
		if i > 0 {
			prev := toks[i-1]
			// After '.', a type cast or AS: part of a name, or a type. After
			// a literal: a unit, as in INTERVAL 1 DAY.
			if prev.isPunct(".") || (prev.kind == tkOp && prev.val == "::") || prev.is("as") ||
				prev.kind == tkNumber || prev.kind == tkString {
				continue
			}
		}
		chain := []sqlToken{t}
		j := i
		for j+2 < len(toks) && toks[j+1].isPunct(".") && toks[j+2].isIdent() {
			chain = append(chain, toks[j+2])
			j += 2
		}
		next := sqlToken{}
		if j+1 < len(toks) {
			next = toks[j+1]
		}
		i = j
		switch {
		case next.isPunct("("): // function call
			continue
		case next.isPunct(".") && j+2 < len(toks) && toks[j+2].kind == tkOp && toks[j+2].val == "*":
			continue // s.*
		case next.kind == tkOp && next.val == "->": // lambda parameter
			continue
		case len(chain) == 1 && next.kind == tkOp && (next.val == ":=" || next.val == "=>"):
			continue // a named argument: f(name := expr)
		case len(chain) == 1 && next.kind == tkOp && next.val == ":" && inBrace[i] && i > 0 && (toks[i-1].isPunct("{") || toks[i-1].isPunct(",")):
			continue // a struct literal's key: {name: expr}
		case next.isPunct("."): // "o." being typed: a qualifier, not a column
			continue
		case len(chain) == 1 && t.kind == tkIdent && isKeyword(t.val):
			continue
		}
		if bound(params, identName(chain[0]), i-len(chain)*2+2) {
			continue // a lambda's parameter or a comprehension's variable
		}
		last := chain[len(chain)-1]
		r := colRef{name: identName(last), start: last.start, end: last.end}
		if len(chain) >= 2 {
			q := chain[len(chain)-2]
			r.qual, r.qualStart, r.qualEnd = identName(q), q.start, q.end
		}
		if len(chain) >= 3 {
			r.outer = identName(chain[len(chain)-3])
		}
		for _, c := range chain {
			r.path = append(r.path, identName(c))
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
func lambdaParams(toks []sqlToken) []lambdaParam {
	opener := func(t sqlToken) bool { return t.isPunct("(") || t.isPunct("[") || t.isPunct("{") }
	closer := func(t sqlToken) bool { return t.isPunct(")") || t.isPunct("]") || t.isPunct("}") }
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
		case t.kind == tkOp && t.val == "->" && i > 0 && toks[i-1].isIdent():
			out = append(out, lambdaParam{identName(toks[i-1]), i - 1, end(i)})
		case t.kind == tkOp && t.val == "->" && i > 0 && toks[i-1].isPunct(")"):
			k := start(i - 1)
			for j := k + 1; j < i-1; j++ {
				if toks[j].isIdent() {
					out = append(out, lambdaParam{identName(toks[j]), k, end(i)})
				}
			}
		case t.is("lambda"):
			for j := i + 1; j < len(toks) && !(toks[j].kind == tkOp && toks[j].val == ":"); j++ {
				if toks[j].isIdent() {
					out = append(out, lambdaParam{identName(toks[j]), i, end(i)})
				}
			}
		case t.is("for") && i+1 < len(toks) && toks[i+1].isIdent():
			if k := start(i); toks[k].isPunct("[") {
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
func identName(t sqlToken) string { return sqlscan.FoldName(t.val) }

func canPrecedeAlias(t sqlToken) bool {
	switch t.kind {
	case tkIdent, tkQuoted, tkString, tkNumber, tkParam, tkMacro:
		return true
	case tkPunct:
		return t.val == ")" || t.val == "]" || t.val == "?"
	}
	return false
}

func findCTE(q *query, name string) *cte {
	for s := q; s != nil; s = s.parent {
		for _, c := range s.ctes {
			if c.name == name {
				return c
			}
		}
	}
	return nil
}

// scopeAt returns the innermost query whose span holds off.
func (q *query) scopeAt(off int) *query {
	for _, s := range append(q.subs, q.branches...) {
		if off >= s.start && off <= s.end && s.end > s.start {
			return s.scopeAt(off)
		}
	}
	return q
}

// sourceByAlias finds the source an alias (or a table name) names, in q
// and then in the enclosing queries.
func (q *query) sourceByAlias(alias string) *source {
	for s := q; s != nil; s = s.parent {
		for _, src := range s.sources {
			if src.alias == alias {
				return src
			}
		}
	}
	return nil
}

func isSetOp(t sqlToken) bool { return t.is("union") || t.is("except") || t.is("intersect") }

// isClauseKeyword reports the keywords that end a select list or a FROM
// clause.
func isClauseKeyword(t sqlToken) bool {
	if t.kind != tkIdent {
		return false
	}
	switch t.val {
	case "from", "where", "group", "having", "qualify", "window", "order", "limit", "offset",
		"union", "except", "intersect", "using", "on":
		return true
	}
	return false
}

func isJoinWord(t sqlToken) bool {
	if t.kind != tkIdent {
		return false
	}
	switch t.val {
	case "join", "left", "right", "full", "inner", "outer", "cross", "natural", "asof", "positional", "semi", "anti":
		return true
	}
	return false
}

// isReserved lists words that cannot be an implicit alias after a table.
func isReserved(w string) bool {
	switch w {
	case "on", "using", "where", "join", "left", "right", "full", "inner", "outer", "cross", "natural",
		"asof", "positional", "semi", "anti", "group", "order", "limit", "offset", "union", "except",
		"intersect", "window", "qualify", "having", "select", "from", "tablesample", "pivot", "unpivot", "as", "lateral":
		return true
	}
	return false
}

// isKeyword lists words that are never a bare column name in practice.
func isKeyword(w string) bool {
	_, ok := sqlKeywords[w]
	return ok
}

var sqlKeywords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`
select from where and or not null is in as on case when then else end distinct all by group order
having limit offset join left right inner outer full cross union except intersect with interval
true false asc desc nulls first last over partition rows range groups between unbounded preceding
following current row exclude replace like ilike glob similar escape cast try_cast exists any some filter
within qualify window using natural lateral values recursive materialized collate default
current_date current_time current_timestamp localtime localtimestamp
integer int int4 int8 int2 bigint smallint tinyint hugeint uinteger ubigint usmallint utinyint
double float float4 float8 real decimal numeric varchar char text string boolean bool blob bytea uuid json
date time timestamp timestamptz zone at struct map list array union_by_name`) {
		m[w] = struct{}{}
	}
	return m
}()
