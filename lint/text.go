package lint

import (
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// text is a model's body as sqlscan's tokens (comments left out), with the
// paren depth of each token, so that the parts of the outline can be found
// in it. It reads tokens only: what the query means comes from the outline.
type text struct {
	src   []byte
	toks  []sqlscan.Token
	depth []int // of each token: "(" and ")" are at the depth outside them
	match []int // for "(" and ")", the index of the other one; -1 otherwise
}

func newText(src []byte, from int) *text {
	t := &text{src: src, toks: sqlscan.Tokens(src, from)}
	t.depth = make([]int, len(t.toks))
	t.match = make([]int, len(t.toks))
	var open []int
	for i, tok := range t.toks {
		t.match[i] = -1
		t.depth[i] = len(open)
		switch {
		case t.punct(i, "("):
			open = append(open, i)
		case t.punct(i, ")") && len(open) > 0:
			o := open[len(open)-1]
			open = open[:len(open)-1]
			t.depth[i] = len(open)
			t.match[i], t.match[o] = o, i
		}
		_ = tok
	}
	return t
}

// span is the tokens [lo, hi).
type span struct{ lo, hi int }

func (s span) empty() bool { return s.lo >= s.hi }

func (t *text) punct(i int, p string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].Kind == sqlscan.Punct && t.toks[i].Text(t.src) == p
}

func (t *text) op(i int, p string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].Kind == sqlscan.Op && t.toks[i].Text(t.src) == p
}

// kw reports whether token i is the bare word w (any case).
func (t *text) kw(i int, w string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].Kind == sqlscan.Ident && t.toks[i].Is(t.src, w)
}

// kwIn reports whether token i is one of the bare words ws.
func (t *text) kwIn(i int, ws ...string) bool {
	for _, w := range ws {
		if t.kw(i, w) {
			return true
		}
	}
	return false
}

// name is the identifier token i denotes ("" for other tokens): a bare
// word as written, a quoted one unquoted.
func (t *text) name(i int) string {
	if i < 0 || i >= len(t.toks) {
		return ""
	}
	switch t.toks[i].Kind {
	case sqlscan.Ident:
		return t.toks[i].Text(t.src)
	case sqlscan.QuotedIdent:
		return t.toks[i].Value(t.src)
	}
	return ""
}

// isName reports whether token i is an identifier naming n. A quoted
// identifier keeps its case; a bare word matches in any case.
func (t *text) isName(i int, n string) bool {
	if i < 0 || i >= len(t.toks) {
		return false
	}
	switch t.toks[i].Kind {
	case sqlscan.Ident:
		return strings.EqualFold(t.toks[i].Text(t.src), n)
	case sqlscan.QuotedIdent:
		return t.toks[i].Value(t.src) == n || strings.EqualFold(t.toks[i].Value(t.src), n)
	}
	return false
}

// find is the first token of s at depth d for which f holds; -1 for none.
func (t *text) find(s span, d int, f func(i int) bool) int {
	for i := s.lo; i < s.hi; i++ {
		if t.depth[i] == d && f(i) {
			return i
		}
	}
	return -1
}

// start and end are the byte offsets of token i.
func (t *text) start(i int) int { return t.toks[i].Start }
func (t *text) end(i int) int   { return t.toks[i].End }

// word is token i folded to lower case when it is a bare word; "" for
// other tokens.
func (t *text) word(i int) string {
	if i < 0 || i >= len(t.toks) || t.toks[i].Kind != sqlscan.Ident {
		return ""
	}
	return sqlscan.FoldName(t.toks[i].Text(t.src))
}

// endsFrom reports whether token i is a keyword that ends a FROM clause or
// a WHERE clause: a later clause or a set operation
// (sqlread.IsClauseAfterFrom). USING is not one: it belongs to a join.
func (t *text) endsFrom(i int) bool { return sqlread.IsClauseAfterFrom(t.word(i)) }

// cteDef is where a CTE of a WITH clause is written.
type cteDef struct {
	cte          engine.CTE
	name         int // the name's token
	open, close  int // the parens around its query
	first, final bool
}

// place is where one Select query of the outline is written.
type place struct {
	q       *engine.Query
	sel     span // the select list, after SELECT (and DISTINCT …)
	from    span // the FROM clause, after FROM
	where   span // the WHERE clause, after WHERE
	rest    span // the clauses after FROM's: WHERE, GROUP BY, … ORDER BY
	ctes    []cteDef
	visible []engine.CTE // the CTEs its FROM may name, nearest last
	withAt  int          // the WITH token when the query has CTEs; -1 otherwise
}

// placeQuery finds q in the tokens s and calls visit for it and every
// query below it (CTEs, set operation branches, FROM subqueries), in text
// order. What cannot be found is skipped: a rule then says nothing rather
// than something wrong.
func (t *text) placeQuery(q *engine.Query, s span, visible []engine.CTE, visit func(*place)) {
	if q == nil {
		return
	}
	for !s.empty() && t.punct(s.lo, "(") && t.match[s.lo] == s.hi-1 {
		s = span{s.lo + 1, s.hi - 1}
	}
	if s.empty() {
		return
	}
	base := t.depth[s.lo]
	p := &place{q: q, withAt: -1}
	own := s
	if len(q.CTEs) > 0 {
		if !t.kw(s.lo, "with") {
			return
		}
		p.withAt = s.lo
		i := s.lo + 1
		if t.kw(i, "recursive") {
			i++
		}
		for k, c := range q.CTEs {
			if !t.isName(i, c.Name) {
				return
			}
			def := cteDef{cte: c, name: i, first: k == 0, final: k == len(q.CTEs)-1}
			j := t.find(span{i + 1, s.hi}, base, func(j int) bool {
				return t.punct(j, "(") && t.kwIn(j-1, "as", "materialized")
			})
			if j < 0 || t.match[j] < 0 {
				return
			}
			def.open, def.close = j, t.match[j]
			t.placeQuery(c.Query, span{j + 1, def.close}, append(visible, q.CTEs[:k]...), visit)
			p.ctes = append(p.ctes, def)
			i = def.close + 1
			if t.punct(i, ",") {
				i++
			}
		}
		own = span{i, s.hi}
		visible = append(visible[:len(visible):len(visible)], q.CTEs...)
	}
	p.visible = visible
	switch q.Kind {
	case engine.SetOperation:
		if len(q.Branches) != 2 {
			return
		}
		k := -1
		for i := own.lo; i < own.hi; i++ {
			if t.depth[i] == base && sqlread.IsSetOperation(t.word(i)) {
				k = i
			}
		}
		if k < 0 {
			return
		}
		r := k + 1
		for t.kwIn(r, "all", "distinct", "by", "name") {
			r++
		}
		t.placeQuery(q.Branches[0], span{own.lo, k}, visible, visit)
		t.placeQuery(q.Branches[1], span{r, own.hi}, visible, visit)
	case engine.Select:
		if t.kw(own.lo, "from") {
			if !t.placeFromFirst(p, own, base) {
				return
			}
			visit(p)
			t.placeFromSubqueries(q, p, base, visible, visit)
			return
		}
		sel := t.find(own, base, func(i int) bool { return t.kw(i, "select") })
		if sel < 0 {
			return
		}
		lo := sel + 1
		if t.kw(lo, "distinct") {
			lo++
			if t.kw(lo, "on") && t.punct(lo+1, "(") && t.match[lo+1] > 0 {
				lo = t.match[lo+1] + 1
			}
		} else if t.kw(lo, "all") {
			lo++
		}
		// The FROM of IS [NOT] DISTINCT FROM is an operator's.
		from := t.find(span{lo, own.hi}, base, func(i int) bool { return t.kw(i, "from") && !t.kw(i-1, "distinct") })
		if from < 0 {
			p.sel = span{lo, own.hi}
		} else {
			p.sel = span{lo, from}
			end := t.find(span{from + 1, own.hi}, base, t.endsFrom)
			if end < 0 {
				end = own.hi
			}
			p.from = span{from + 1, end}
			p.rest = span{end, own.hi}
			if t.kw(end, "where") {
				wend := t.find(span{end + 1, own.hi}, base, t.endsFrom)
				if wend < 0 {
					wend = own.hi
				}
				p.where = span{end + 1, wend}
			}
		}
		visit(p)
		t.placeFromSubqueries(q, p, base, visible, visit)
	}
}

// placeFromSubqueries places the subqueries of p's FROM clause, in order.
func (t *text) placeFromSubqueries(q *engine.Query, p *place, base int, visible []engine.CTE, visit func(*place)) {
	var subs []span
	for i := p.from.lo; i < p.from.hi; i++ {
		if t.depth[i] == base && t.punct(i, "(") && t.match[i] > 0 && t.kwIn(i+1, "select", "with", "from", "values") {
			subs = append(subs, span{i + 1, t.match[i]})
		}
	}
	k := 0
	for _, src := range q.From {
		if src.Query == nil {
			continue
		}
		if k < len(subs) {
			t.placeQuery(src.Query, subs[k], visible, visit)
		}
		k++
	}
}

// placeFromFirst places DuckDB's FROM-first query, own starting at its
// FROM: FROM x [SELECT …] [WHERE …] […]. Without a SELECT the select list
// is empty (the query is SELECT *).
func (t *text) placeFromFirst(p *place, own span, base int) bool {
	end := t.find(span{own.lo + 1, own.hi}, base, func(i int) bool {
		return t.kw(i, "select") || t.endsFrom(i)
	})
	if end < 0 {
		end = own.hi
	}
	p.from = span{own.lo + 1, end}
	if t.kw(end, "select") {
		lo := end + 1
		if t.kwIn(lo, "distinct", "all") {
			return false // (placed by the rules of a plain SELECT only)
		}
		send := t.find(span{lo, own.hi}, base, t.endsFrom)
		if send < 0 {
			send = own.hi
		}
		p.sel = span{lo, send}
		end = send
	} else {
		p.sel = span{end, end}
	}
	p.rest = span{end, own.hi}
	if t.kw(end, "where") {
		wend := t.find(span{end + 1, own.hi}, base, t.endsFrom)
		if wend < 0 {
			wend = own.hi
		}
		p.where = span{end + 1, wend}
	}
	return true
}
