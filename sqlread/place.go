package sqlread

import (
	"github.com/efmesh/efmesh/sqlscan"
)

// A Place is where a cursor stands in a body, as completion needs it: the
// clause it is in, and whether what comes next continues an expression
// (or a relation) that just ended or starts a new one. It is read from the
// tokens before the word being typed, tolerating any text after the
// cursor and text that does not parse yet.
type Place struct {
	// Clause is the clause of the innermost query the cursor is in: one
	// of the Clause constants.
	Clause Clause
	// After: an expression, a relation or a select item ends just before
	// the cursor (SELECT a |, FROM t o |), so what fits is a keyword
	// that continues or ends it, not a column.
	After bool
	// First: the cursor is right after the clause's keyword (SELECT |,
	// GROUP BY |).
	First bool
	// Alias: a name is being given (AS |); Type: a type is being written
	// (x::|, CAST(x AS |)).
	Alias, Type bool
	// Call is the function whose parentheses hold the cursor, lower case;
	// "" when none.
	Call string
	// InCase: the cursor is in a CASE expression that has not ended.
	InCase bool
	// Joined: in the FROM clause, the relation being written was joined
	// by a JOIN word (not a comma) and has no ON or USING yet.
	Joined bool
	// Comment: the cursor is in a comment or a string; nothing fits.
	Comment bool
}

// Clause is a clause of a query.
type Clause string

const (
	// ClauseNone is the start of a query (an empty body, after UNION or
	// a subquery's parenthesis).
	ClauseNone    Clause = ""
	ClauseWith    Clause = "with"
	ClauseSelect  Clause = "select"
	ClauseFrom    Clause = "from"
	ClauseOn      Clause = "on"
	ClauseUsing   Clause = "using"
	ClauseWhere   Clause = "where"
	ClauseGroupBy Clause = "group by"
	ClauseHaving  Clause = "having"
	ClauseQualify Clause = "qualify"
	ClauseWindow  Clause = "window"
	ClauseOrderBy Clause = "order by"
	ClauseLimit   Clause = "limit"
	ClauseValues  Clause = "values"
)

// Expression reports whether an expression is written in the clause (a
// column, a function, a literal may stand there).
func (c Clause) Expression() bool {
	switch c {
	case ClauseSelect, ClauseOn, ClauseWhere, ClauseGroupBy, ClauseHaving, ClauseQualify, ClauseOrderBy, ClauseValues:
		return true
	}
	return false
}

// WordStart is where the word that ends at off starts (off when none).
func WordStart(src []byte, from, off int) int {
	ws := off
	for ws > from && sqlscan.IsIdentByte(src[ws-1]) {
		ws--
	}
	return ws
}

// PlaceAt reads where the cursor at off stands in the body src[from:],
// the word being typed before it left out.
func PlaceAt(src []byte, from, off int) Place {
	off = min(off, len(src))
	var p Place
	if inCommentOrString(src, from, off) {
		p.Comment = true
		return p
	}
	toks := Scan(src, from, WordStart(src, from, off))
	// The unmatched parentheses before the cursor split the tokens into
	// levels; the innermost level that is a query gives the clause.
	var open []int
	for i, t := range toks {
		switch {
		case t.IsPunct("("):
			open = append(open, i)
		case t.IsPunct(")") && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	hi := len(toks)
	lo := 0
	if len(open) > 0 {
		lo = open[len(open)-1] + 1
	}
	p.After = endsValue(toks, lo, hi)
	if hi > 0 {
		prev := toks[hi-1]
		switch {
		case prev.Kind == sqlscan.Op && prev.Val == "::":
			p.Type = true
		case prev.Is("as"):
			p.Alias = true
		}
	}
	for k := len(open) - 1; ; k-- {
		lo := 0
		if k >= 0 {
			lo = open[k] + 1
		}
		if k < 0 || opensQuery(toks, open[k], hi) {
			clauseIn(toks, lo, hi, &p)
			return p
		}
		// An expression's parentheses: a call's arguments, a list, a
		// window: the clause is the enclosing level's.
		if p.Call == "" && open[k] > 0 && toks[open[k]-1].Kind == sqlscan.Ident {
			p.Call = toks[open[k]-1].Val
			if p.Alias && (p.Call == "cast" || p.Call == "try_cast") {
				p.Alias, p.Type = false, true
			}
		}
		hi = open[k]
	}
}

// opensQuery reports whether the parenthesis at i opens a query: its
// first token starts one, or nothing is written in it yet after a word
// that a subquery follows (FROM (, JOIN (, AS ( of a CTE, IN (, EXISTS ().
func opensQuery(toks []Token, i, hi int) bool {
	if i+1 < hi {
		t := toks[i+1]
		return t.Is("select") || t.Is("with") || t.Is("from") || t.Is("values")
	}
	if i == 0 {
		return true
	}
	b := toks[i-1]
	return b.Is("from") || b.Is("join") || b.Is("as") || b.Is("lateral") || b.Is("exists")
}

// clauseIn finds the clause of the query level toks[lo:hi] at its end.
func clauseIn(toks []Token, lo, hi int, p *Place) {
	depth := 0
	ends := 0 // CASE … END pairs closed before the cursor
	joined := false
	for i := hi - 1; i >= lo; i-- {
		t := toks[i]
		switch {
		case t.IsPunct(")"):
			depth++
			continue
		case t.IsPunct("("):
			depth--
			continue
		case depth > 0 || t.Kind != sqlscan.Ident:
			continue
		}
		first := i == hi-1
		switch t.Val {
		case "end":
			ends++
		case "case":
			if ends == 0 {
				p.InCase = true
			} else {
				ends--
			}
		case "select":
			p.Clause, p.First = ClauseSelect, first
			return
		case "distinct", "all":
			if i > lo && toks[i-1].Is("select") {
				p.Clause, p.First = ClauseSelect, first
				return
			}
			if i > lo && toks[i-1].Is("by") {
				continue
			}
			if i > lo && sqlscanSetOp(toks[i-1]) {
				p.Clause = ClauseNone
				return
			}
		case "from":
			if i > lo && toks[i-1].Is("distinct") {
				continue // IS DISTINCT FROM
			}
			p.Clause, p.First = ClauseFrom, first
			p.Joined = joined
			return
		case "join":
			p.Clause, p.First = ClauseFrom, first
			p.Joined = !first
			return
		case "on":
			p.Clause, p.First = ClauseOn, first
			return
		case "using":
			p.Clause, p.First = ClauseUsing, first
			return
		case "where", "having", "qualify", "window", "limit", "offset", "values":
			p.Clause, p.First = map[string]Clause{"where": ClauseWhere, "having": ClauseHaving, "qualify": ClauseQualify,
				"window": ClauseWindow, "limit": ClauseLimit, "offset": ClauseLimit, "values": ClauseValues}[t.Val], first
			return
		case "by":
			if i > lo && (toks[i-1].Is("group") || toks[i-1].Is("order")) {
				p.Clause, p.First = ClauseGroupBy, first
				if toks[i-1].Is("order") {
					p.Clause = ClauseOrderBy
				}
				return
			}
		case "with":
			p.Clause = ClauseWith
			return
		default:
			if IsSetOperation(t.Val) {
				p.Clause, p.First = ClauseNone, true
				return
			}
		}
	}
	p.Clause, p.First = ClauseNone, true
}

func sqlscanSetOp(t Token) bool { return t.Kind == sqlscan.Ident && IsSetOperation(t.Val) }

// endsValue reports whether toks[lo:hi] ends with something complete: a
// name, a literal, a closing parenthesis, a star, a macro call; not an
// operator, a comma or a keyword that wants more.
func endsValue(toks []Token, lo, hi int) bool {
	if hi <= lo {
		return false
	}
	t := toks[hi-1]
	switch t.Kind {
	case sqlscan.QuotedIdent, sqlscan.String, sqlscan.Number, sqlscan.Macro, sqlscan.Param:
		return true
	case sqlscan.Punct:
		return t.Val == ")" || t.Val == "]" || t.Val == "}"
	case sqlscan.Op:
		// A star select item (SELECT *, t.*), not a product.
		return t.Val == "*" && (hi-1 == lo || toks[hi-2].IsPunct(",") || toks[hi-2].IsPunct(".") || toks[hi-2].Is("select"))
	case sqlscan.Ident:
		if hi-2 >= lo && toks[hi-2].Kind == sqlscan.Op && toks[hi-2].Val == "::" {
			return true // a type after ::
		}
		switch t.Val {
		case "null", "true", "false", "end", "current_date", "current_time", "current_timestamp", "localtime", "localtimestamp", "asc", "desc", "first", "last":
			return true
		}
		return !IsKeyword(t.Val) && !IsReserved(t.Val) && !isWantingWord(t.Val)
	}
	return false
}

// isWantingWord reports the words after which an expression or a name
// must follow, besides the keywords.
func isWantingWord(w string) bool {
	switch w {
	case "when", "then", "else", "and", "or", "not", "is", "in", "like", "ilike", "between", "case", "distinct", "by", "over", "partition", "having", "limit", "offset", "qualify", "window":
		return true
	}
	return false
}

// inCommentOrString reports whether off is inside a comment, a string or
// a quoted name of src[from:].
func inCommentOrString(src []byte, from, off int) bool {
	for s := sqlscan.NewScanner(src, from); ; {
		t := s.Next()
		if t.Kind == sqlscan.EOF || t.Start >= off {
			return false
		}
		if off < t.End || off == t.End && t.End == len(src) && unclosed(src, t) {
			switch t.Kind {
			case sqlscan.Comment, sqlscan.String, sqlscan.QuotedIdent:
				return true
			}
		}
		if t.Kind == sqlscan.Comment && off == t.End && src[t.Start] == '-' {
			return true // the end of a line comment
		}
	}
}

// unclosed reports whether a string, quoted name or block comment token
// runs to the end of src without its closing quote.
func unclosed(src []byte, t sqlscan.Token) bool {
	switch t.Kind {
	case sqlscan.String, sqlscan.QuotedIdent:
		_, ok := sqlscan.QuotedEnd(src, t.Start)
		return !ok || t.End-t.Start < 2
	case sqlscan.Comment:
		if src[t.Start] == '/' {
			_, ok := sqlscan.BlockCommentEnd(src, t.Start)
			return !ok
		}
		return true
	}
	return false
}

// Keywords are the keywords that fit at p, in the order a user most
// likely wants them; with extensions, DuckDB's too (QUALIFY, ASOF JOIN,
// GROUP BY ALL, …). A clause keyword of two words is one entry.
func (p Place) Keywords(extensions bool) []string {
	if p.Comment || p.Alias || p.Type {
		return nil
	}
	ext := func(words ...string) []string {
		if extensions {
			return words
		}
		return nil
	}
	joins := append([]string{"JOIN", "LEFT JOIN", "INNER JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"}, ext("ASOF JOIN", "POSITIONAL JOIN", "SEMI JOIN", "ANTI JOIN")...)
	// The clauses that may follow each clause, in order.
	after := func(c Clause) []string {
		var out []string
		switch c {
		case ClauseFrom, ClauseOn, ClauseUsing:
			out = append(out, "WHERE")
			fallthrough
		case ClauseWhere:
			out = append(out, "GROUP BY")
			fallthrough
		case ClauseGroupBy:
			out = append(out, "HAVING")
			fallthrough
		case ClauseHaving:
			out = append(out, ext("QUALIFY")...)
			fallthrough
		case ClauseQualify:
			out = append(out, "WINDOW")
			fallthrough
		case ClauseWindow:
			out = append(out, "ORDER BY")
			fallthrough
		case ClauseOrderBy:
			out = append(out, "LIMIT")
			fallthrough
		case ClauseLimit:
			out = append(out, "OFFSET")
		}
		if c != ClauseOrderBy && c != ClauseLimit {
			out = append(out, "UNION", "UNION ALL", "EXCEPT", "INTERSECT")
		}
		return out
	}
	operators := []string{"AND", "OR", "NOT", "IS", "IN", "LIKE", "ILIKE", "BETWEEN"}
	var out []string
	switch {
	case p.InCase && p.After:
		return []string{"WHEN", "THEN", "ELSE", "END", "AND", "OR", "IS", "IN", "LIKE", "BETWEEN"}
	case p.InCase:
		return []string{"WHEN", "THEN", "ELSE", "END", "CASE", "NOT", "NULL", "EXISTS"}
	case p.Call != "" && p.After:
		return []string{"AND", "OR", "IS", "IN", "LIKE", "BETWEEN", "AS", "FROM", "ORDER BY"}
	case p.Call != "":
		return []string{"DISTINCT", "CASE", "NOT", "NULL", "EXISTS", "SELECT"}
	case p.Clause == ClauseNone:
		return []string{"SELECT", "WITH", "FROM", "VALUES"}
	case p.Clause == ClauseWith && p.After:
		return []string{"SELECT", "FROM", "AS"}
	case p.Clause == ClauseWith:
		return []string{"RECURSIVE"}
	case p.Clause == ClauseSelect && p.After:
		return append([]string{"AS", "FROM", "OVER", "FILTER"}, append(operators, after(ClauseWhere)...)...)
	case p.Clause == ClauseSelect && p.First:
		return []string{"DISTINCT", "CASE", "NOT", "NULL", "EXISTS", "INTERVAL"}
	case p.Clause == ClauseFrom && p.After:
		if p.Joined {
			out = append(out, "ON", "USING")
		}
		out = append(out, "AS")
		out = append(out, joins...)
		return append(out, after(ClauseFrom)...)
	case p.Clause == ClauseFrom:
		return []string{"LATERAL"}
	case p.Clause == ClauseOn && p.After:
		return append(append(append([]string{}, operators...), joins...), after(ClauseOn)...)
	case p.Clause == ClauseWhere && p.After, p.Clause == ClauseHaving && p.After, p.Clause == ClauseQualify && p.After:
		return append(append([]string{}, operators...), after(p.Clause)...)
	case p.Clause == ClauseGroupBy && p.After:
		return after(ClauseGroupBy)
	case p.Clause == ClauseGroupBy && p.First:
		return append(ext("ALL"), "ROLLUP", "CUBE", "GROUPING SETS", "CASE")
	case p.Clause == ClauseOrderBy && p.After:
		return append([]string{"ASC", "DESC", "NULLS FIRST", "NULLS LAST"}, after(ClauseOrderBy)...)
	case p.Clause == ClauseOrderBy && p.First:
		return append(ext("ALL"), "CASE")
	case p.Clause == ClauseLimit && p.After:
		return after(ClauseLimit)
	case p.Clause == ClauseWindow && p.After:
		return append([]string{"AS"}, after(ClauseWindow)...)
	case p.Clause.Expression():
		return []string{"CASE", "NOT", "NULL", "EXISTS", "INTERVAL"}
	}
	return out
}
