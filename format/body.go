package format

import (
	"strings"

	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// keywords are upper-cased where they stand as words (not after or before
// a dot), with the clause keywords (sqlread.IsClauseStart), besides
// DuckDB's reserved keywords (sqlscan.IsReservedKeyword) not followed by
// "(" (LEFT(s, 2) and MAP(…) are functions). Only words that cannot be a
// column or function name written bare are listed, so that upper-casing
// never renames an output column; the unreserved words of a construct
// (ROWS BETWEEN UNBOUNDED PRECEDING, AT TIME ZONE, WITHIN GROUP, FILTER
// (…)) are upper-cased only inside it (contextKeyword).
var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`by as on join inner outer cross natural and or not in is null
		case when then else end distinct between like ilike over partition asc desc using
		lateral true false all any some exists interval exclude values recursive
		materialized escape similar collate`) {
		keywords[w] = true
	}
}

// callKeywords are written like functions: no space before their "(".
var callKeywords = map[string]bool{"cast": true, "try_cast": true, "exists": false}

// emitter writes the tokens toks[i:j] of a body or a header property.
type emitter struct {
	p      *printer
	toks   []tok
	indent int
	prev   *tok // the last non-comment token written
	// prevIndex is prev's index in toks.
	prevIndex int
	// header: toks are one header property, whose value's brackets follow
	// a space (kind FULL (…), columns (…)); kind: the property is the kind,
	// whose option names are followed by a space too (key (id)).
	header, kind bool
}

// isKeyword reports whether toks[i] is written as a keyword.
func (e *emitter) isKeyword(i int) bool {
	t := e.toks[i]
	if t.Kind != sqlscan.Ident || e.header {
		return false
	}
	w := strings.ToLower(t.text)
	if i > 0 && e.toks[i-1].text == "." && e.toks[i-1].Kind == sqlscan.Punct {
		return false
	}
	if n := next(e.toks, i); n < len(e.toks) && e.toks[n].text == "." {
		return false
	}
	switch w {
	case "left", "right", "full", "first", "last", "nulls", "ordinality", "semi", "anti", "asof", "positional", "grouping", "sets":
		// Join words and NULLS FIRST: only where they are one.
		n := next(e.toks, i)
		if n >= len(e.toks) || e.toks[n].text == "(" {
			return false
		}
		switch w {
		case "first", "last":
			return i > 0 && e.toks[i-1].is("nulls")
		case "nulls":
			m := e.toks[n]
			return m.is("first") || m.is("last")
		case "ordinality":
			return i > 0 && e.toks[i-1].is("with")
		case "grouping":
			return e.toks[n].is("sets")
		case "sets":
			return i > 0 && e.toks[i-1].is("grouping")
		}
		return e.joinAt(i) > 0
	}
	if keywords[w] || sqlread.IsClauseStart(w) || e.contextKeyword(i, w) {
		return true
	}
	n := next(e.toks, i)
	return sqlscan.IsReservedKeyword(w) && !(n < len(e.toks) && e.toks[n].text == "(")
}

// contextKeyword reports whether the unreserved word w at toks[i] is part
// of a construct that makes it a keyword there.
func (e *emitter) contextKeyword(i int, w string) bool {
	n := next(e.toks, i)
	var after tok
	if n < len(e.toks) {
		after = e.toks[n]
	}
	p := e.prevWord(i)
	var before tok
	if p >= 0 {
		before = e.toks[p]
	}
	switch w {
	case "rows", "range", "groups":
		// A window frame: ROWS BETWEEN …, ROWS UNBOUNDED PRECEDING, ROWS 3 PRECEDING.
		return after.is("between") || after.is("unbounded") || after.is("current") || after.Kind == sqlscan.Number
	case "unbounded":
		return after.is("preceding") || after.is("following")
	case "preceding", "following":
		return before.is("unbounded") || before.Kind == sqlscan.Number || before.is("row")
	case "current":
		return after.is("row")
	case "row":
		return before.is("current")
	case "within":
		return after.is("group")
	case "filter":
		return after.text == "(" && before.text == ")"
	case "time":
		return before.is("at") && after.is("zone")
	case "zone":
		if !before.is("time") {
			return false
		}
		b := e.prevWord(p)
		return b >= 0 && e.toks[b].is("at")
	case "ties", "others":
		return before.is("exclude") || before.is("no")
	}
	return false
}

// prevWord returns the index of the last non-comment token before i, -1
// when none.
func (e *emitter) prevWord(i int) int {
	for i--; i >= 0 && e.toks[i].Kind == sqlscan.Comment; i-- {
	}
	return i
}

// word returns how toks[i] is written.
func (e *emitter) word(i int) string {
	t := e.toks[i]
	if e.isKeyword(i) {
		return strings.ToUpper(t.text)
	}
	return t.text
}

// joinAt returns the number of words of the join keyword starting at i (LEFT
// OUTER JOIN: 3), 0 when none starts there.
func (e *emitter) joinAt(i int) int {
	n := 0
	for k := i; k < len(e.toks) && n < 4; k = next(e.toks, k) {
		t := e.toks[k]
		if t.Kind != sqlscan.Ident {
			return 0
		}
		n++
		switch w := strings.ToLower(t.text); {
		case w == "join":
			return n
		case !sqlread.IsJoinWord(w):
			return 0
		}
	}
	return 0
}

// clauseAt returns the number of words of the clause keyword starting at
// toks[i] at a query's own level (SELECT, GROUP BY, LEFT JOIN, …), 0 when
// none starts there.
func (e *emitter) clauseAt(i int) int {
	t := e.toks[i]
	if t.Kind == sqlscan.Macro && ifClause(t.text) {
		return 1
	}
	if t.Kind != sqlscan.Ident {
		return 0
	}
	if i > 0 && e.toks[i-1].text == "." {
		return 0
	}
	// The clause keywords (sqlread.IsClauseStart), and VALUES, which is a
	// query of its own; OFFSET stays on the line of its LIMIT.
	switch w := strings.ToLower(t.text); {
	case w == "from":
		// IS [NOT] DISTINCT FROM is an operator.
		if p := e.prevWord(i); p >= 0 && e.toks[p].is("distinct") {
			return 0
		}
		return 1
	case w == "with":
		// WITH ORDINALITY belongs to a table function.
		if k := next(e.toks, i); k < len(e.toks) && e.toks[k].is("ordinality") {
			return 0
		}
		return 1
	case w == "offset":
		return 0
	case sqlread.IsSetOperation(w):
		n := 1
		if k := next(e.toks, i); k < len(e.toks) && (e.toks[k].is("all") || e.toks[k].is("distinct")) {
			n = 2
		}
		return n
	case sqlread.ClauseSecondWord(w) != "": // GROUP BY, ORDER BY
		if k := next(e.toks, i); k < len(e.toks) && e.toks[k].is(sqlread.ClauseSecondWord(w)) {
			return 2
		}
		return 0
	case sqlread.IsClauseStart(w), w == "values":
		return 1
	}
	return e.joinAt(i)
}

// clauseWords start a clause of a query.
var clauseWords = map[string]bool{
	"select": true, "from": true, "where": true, "group": true, "having": true, "qualify": true, "window": true,
	"order": true, "limit": true, "offset": true, "union": true, "except": true, "intersect": true, "join": true,
	"inner": true, "left": true, "right": true, "full": true, "cross": true, "natural": true, "semi": true,
	"anti": true, "asof": true, "positional": true,
}

// ifClause reports whether the macro call call (its text) is an @IF whose
// then-part is a clause, @IF(cond, WHERE …): it starts a line as the
// clause would.
func ifClause(call string) bool {
	if len(call) < 4 || !strings.EqualFold(call[:4], "@if(") {
		return false
	}
	src := []byte(call)
	depth := 0
	s := sqlscan.NewScanner(src, 3)
	for t := s.Next(); t.Kind != sqlscan.EOF; t = s.Next() {
		switch {
		case t.Kind == sqlscan.Comment:
		case t.Kind == sqlscan.Punct && strings.Contains("([{", t.Text(src)):
			depth++
		case t.Kind == sqlscan.Punct && strings.Contains(")]}", t.Text(src)):
			depth--
		case t.Kind == sqlscan.Punct && t.Text(src) == "," && depth == 1:
			for n := s.Next(); n.Kind != sqlscan.EOF; n = s.Next() {
				if n.Kind != sqlscan.Comment {
					return n.Kind == sqlscan.Ident && clauseWords[strings.ToLower(n.Text(src))]
				}
			}
			return false
		}
	}
	return false
}

// opensQuery reports whether the bracket toks[i] holds a query.
func (e *emitter) opensQuery(i int) bool {
	if e.toks[i].text != "(" || e.toks[i].match < 0 {
		return false
	}
	k := next(e.toks, i)
	if k >= len(e.toks) {
		return false
	}
	t := e.toks[k]
	if t.is("from") {
		// TRIM(FROM s) is a call; (FROM t) after a keyword or a bracket is a query.
		if p := e.prevWord(i); p >= 0 && e.toks[p].Kind == sqlscan.Ident && !e.isKeyword(p) {
			return false
		}
	}
	return t.is("select") || t.is("with") || t.is("from") || t.is("values")
}

// skip returns the index after the token at i, a bracket with its contents.
func (e *emitter) skip(i int) int {
	if m := e.toks[i].match; m > i {
		return m + 1
	}
	return i + 1
}

// query writes toks[i:j] as a query at the given indent: each clause on a
// line of its own.
func (e *emitter) query(i, j, indent int) {
	// Clause starts at this level.
	var starts []int
	for k := i; k < j; k = e.skip(k) {
		if e.toks[k].Kind == sqlscan.Comment {
			continue
		}
		if n := e.clauseAt(k); n > 0 {
			starts = append(starts, k)
			// GROUP BY: BY is not a clause of its own.
			for ; n > 1; n-- {
				k = next(e.toks, k)
			}
		}
	}
	if len(starts) == 0 || starts[0] != i {
		starts = append([]int{i}, starts...)
	}
	for s, from := range starts {
		to := j
		if s+1 < len(starts) {
			to = starts[s+1]
		}
		// Comments on their own lines before a clause belong to it.
		for s+1 < len(starts) && to > from+1 && e.toks[to-1].Kind == sqlscan.Comment && e.toks[to-1].nlBefore {
			to--
			starts[s+1] = to
		}
		e.p.newline(indent)
		e.clause(from, to, indent)
	}
}

// clause writes one clause: its keyword, then its contents on the same
// line when they fit, else broken as the clause wants.
func (e *emitter) clause(i, j, indent int) {
	// Leading comments.
	for i < j && e.toks[i].Kind == sqlscan.Comment {
		e.comment(i)
		i++
	}
	if i >= j {
		return
	}
	if e.p.brk {
		// The clause starts the line after its comments, at its indent.
		e.p.newline(indent)
	}
	n := e.clauseAt(i)
	if n == 0 {
		e.indent = indent + 2
		e.flat(i, j)
		return
	}
	kw := i
	for ; n > 0; n-- {
		kw = next(e.toks, kw)
	}
	e.indent = indent + 2
	if e.toks[i].is("select") {
		// SELECT DISTINCT [ON (…)] stays on the SELECT line.
		if kw < j && e.toks[kw].is("distinct") {
			kw = next(e.toks, kw)
			if kw < j && e.toks[kw].is("on") {
				kw = next(e.toks, kw)
				if kw < j && e.toks[kw].text == "(" {
					kw = e.skip(kw)
				}
			}
		}
		if kw < j && e.toks[kw].is("all") {
			kw = next(e.toks, kw)
		}
	}
	e.flat(i, min(kw, j))
	if kw >= j {
		return
	}
	if e.fits(kw, j) {
		e.flat(kw, j)
		return
	}
	switch {
	case e.toks[i].is("select"), e.toks[i].is("with"):
		e.list(kw, j, indent+2, e.toks[i].is("select"))
	case e.toks[i].is("where"), e.toks[i].is("having"), e.toks[i].is("qualify"), e.joinAt(i) > 0:
		e.conditions(kw, j, indent+2)
	default:
		e.flat(kw, j)
	}
}

// fits reports whether toks[i:j] can be written on the current line: no
// comment that breaks a line, no subquery, and short enough.
func (e *emitter) fits(i, j int) bool {
	for k := i; k < j; k++ {
		t := e.toks[k]
		if t.Kind == sqlscan.Comment && (t.nlBefore || t.nlAfter || strings.HasPrefix(t.text, "--")) {
			return false
		}
		if e.opensQuery(k) || strings.ContainsAny(t.text, "\n\r") {
			return false
		}
	}
	// Measure by writing the tokens on a scratch line.
	scratch := *e
	scratch.p = &printer{col: e.p.col, indent: e.p.indent, fresh: e.p.fresh}
	scratch.flat(i, j)
	return scratch.p.col <= Width
}

// list writes the comma-separated items of toks[i:j] one per line; for a
// select list every item on its own line, for WITH each CTE after a comma.
func (e *emitter) list(i, j, indent int, perLine bool) {
	if !perLine {
		e.flat(i, j)
		return
	}
	e.p.newline(indent)
	e.indent = indent + 2
	for k := i; k < j; {
		end := k
		for end < j && !(e.toks[end].text == "," && e.toks[end].Kind == sqlscan.Punct) {
			end = e.skip(end)
		}
		end = min(end, j)
		if k < end {
			// An item starts its own line, after any comment that follows
			// the previous comma on its line.
			for k < end && e.toks[k].Kind == sqlscan.Comment {
				if e.toks[k].nlBefore {
					e.p.newline(indent)
				}
				e.comment(k)
				k++
			}
			e.p.newline(indent)
			e.flat(k, end)
		}
		if end < j {
			e.flat(end, end+1)
		}
		k = end + 1
	}
}

// conditions writes a condition broken before its top-level AND and OR.
func (e *emitter) conditions(i, j, indent int) {
	from := i
	for k := i; k < j; k = e.skip(k) {
		t := e.toks[k]
		if k > i && (t.is("and") || t.is("or")) && !e.betweenAnd(i, k) {
			e.flat(from, k)
			e.p.newline(indent)
			from = k
		}
	}
	e.flat(from, j)
}

// betweenAnd reports whether the AND at k belongs to a BETWEEN in toks[i:k].
func (e *emitter) betweenAnd(i, k int) bool {
	for m := k - 1; m >= i; m-- {
		t := e.toks[m]
		if t.is("and") || t.is("or") {
			return false
		}
		if t.is("between") {
			return true
		}
		if t.match >= 0 && t.match < m {
			m = t.match
		}
	}
	return false
}

// comment writes the comment toks[i]; one right after an opening bracket
// stays glued to it, like the token it precedes would: sum(/* c */ x).
func (e *emitter) comment(i int) {
	e.breakLine()
	b := e.prevWord(i)
	glued := b >= 0 && b == i-1 && e.toks[b].Kind == sqlscan.Punct && strings.Contains("([{", e.toks[b].text) && e.prev == &e.toks[b]
	e.p.commentSpaced(e.toks[i], !glued)
}

// breakLine starts the line a line comment asked for, indented as a
// continuation of the clause.
func (e *emitter) breakLine() {
	if e.p.brk {
		e.p.newline(e.indent)
	}
}

// flat writes toks[i:j] with the canonical spaces between tokens; a
// bracket holding a query is laid out as a query, indented.
func (e *emitter) flat(i, j int) {
	for k := i; k < j; k++ {
		t := e.toks[k]
		if t.Kind == sqlscan.Comment {
			e.comment(k)
			continue
		}
		if e.opensQuery(k) && t.match < j {
			e.write(k)
			indent := e.p.indent + 2
			saved := e.indent
			e.query(k+1, t.match, indent)
			e.p.newline(indent - 2)
			e.prev = nil
			e.write(t.match)
			e.indent = saved
			k = t.match
			continue
		}
		e.write(k)
	}
}

// write writes toks[k] after the space the two tokens want between them.
func (e *emitter) write(k int) {
	t := e.toks[k]
	text := t.text
	if t.Kind == sqlscan.Ident {
		text = e.word(k)
	}
	e.breakLine()
	e.p.keepBlank(t)
	e.p.text(text, e.space(k))
	e.prev = &e.toks[k]
	e.prevIndex = k
}

// space reports whether a space goes between the previous token and
// toks[k].
func (e *emitter) space(k int) bool {
	pv := e.prev
	if pv == nil {
		return true
	}
	t := e.toks[k]
	c, p := t.text, pv.text
	punct := func(x *tok, s string) bool { return x.Kind == sqlscan.Punct && x.text == s }
	if k > 0 && e.toks[k-1].Kind == sqlscan.Comment && !e.toks[k-1].nlAfter {
		// After a /* comment */ on the line, a space, whatever came before it.
		return true
	}
	wordish := func(x *tok) bool {
		switch x.Kind {
		case sqlscan.Ident, sqlscan.QuotedIdent, sqlscan.String, sqlscan.Number, sqlscan.Param, sqlscan.Macro:
			return true
		}
		return false
	}
	switch {
	case pv.Kind == sqlscan.Macro && strings.Contains(p, "(") && !strings.HasSuffix(p, ")"):
		// An open @ref(name would take what is glued to it; an open @ref(
		// without a name would take the blanks (and holds those it took).
		if strings.TrimRight(p, " \t\r\n") != p {
			return false
		}
		return !strings.HasSuffix(p, "(")
	case t.Kind == sqlscan.Punct && (c == "," || c == ";" || c == ")" || c == "]" || c == "}"):
		return false
	case punct(pv, "(") || punct(pv, "[") || punct(pv, "{"):
		return false
	case punct(&t, ".") && (wordish(pv) || punct(pv, ")") || punct(pv, "]") || punct(pv, "}")):
		return false
	case punct(pv, "."):
		// 1. then 5 stays apart: glued, they would be the number 1.5.
		b := e.prevIndex - 1
		return b >= 0 && e.toks[b].Kind == sqlscan.Number && t.Kind == sqlscan.Number
	case t.Kind == sqlscan.Op && (c == "::" || c == ":"):
		return false
	case pv.Kind == sqlscan.Op && p == "::":
		return false
	case punct(&t, "("):
		if e.header && pv.Kind == sqlscan.Ident && (e.depth(k) == 0 || e.kind && e.listHead(e.prevIndex)) {
			return true
		}
		if n := next(e.toks, k); n < len(e.toks) && e.toks[n].is("where") {
			return true // FILTER (WHERE …)
		}
		if pv.Kind == sqlscan.Ident {
			w := strings.ToLower(pv.text)
			if callKeywords[w] {
				return false
			}
			return e.isKeyword(e.prevIndex)
		}
		return !(pv.Kind == sqlscan.QuotedIdent || pv.Kind == sqlscan.Macro || punct(pv, ")") || punct(pv, "]"))
	case punct(&t, "["):
		return !(pv.Kind == sqlscan.Ident && !e.isKeyword(e.prevIndex) || pv.Kind == sqlscan.QuotedIdent ||
			pv.Kind == sqlscan.Macro || punct(pv, ")") || punct(pv, "]"))
	case pv.Kind == sqlscan.Op && e.unary(e.prevIndex) && t.Kind != sqlscan.Op:
		return false
	}
	return true
}

// listHead reports whether toks[k] is the first token of a bracketed list's
// item (an option's name: key (id)).
func (e *emitter) listHead(k int) bool {
	m := k - 1
	for m >= 0 && e.toks[m].Kind == sqlscan.Comment {
		m--
	}
	return m >= 0 && e.toks[m].Kind == sqlscan.Punct && (e.toks[m].text == "(" || e.toks[m].text == ",")
}

// depth returns the number of brackets open around toks[k].
func (e *emitter) depth(k int) int {
	d := 0
	for i := 0; i < k; i++ {
		if m := e.toks[i].match; m > i && m > k {
			d++
		} else if m > i {
			i = m
		}
	}
	return d
}

// unary reports whether the operator toks[k] is a sign (-x, +x, ~x).
func (e *emitter) unary(k int) bool {
	c := e.toks[k].text
	if c != "-" && c != "+" && c != "~" {
		return false
	}
	m := k - 1
	for m >= 0 && e.toks[m].Kind == sqlscan.Comment {
		m--
	}
	if m < 0 {
		return true
	}
	b := e.toks[m]
	switch b.Kind {
	case sqlscan.Op:
		return true
	case sqlscan.Punct:
		return b.text == "(" || b.text == "," || b.text == "[" || b.text == "{"
	case sqlscan.Ident:
		return e.isKeyword(m) && !b.is("null") && !b.is("true") && !b.is("false") && !b.is("end")
	}
	return false
}
