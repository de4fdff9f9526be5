package lint

import (
	"sort"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// text is a model's body as sqlread reads it: its structure (the queries,
// their clauses, CTEs, select items and FROM sources, sqlread.Parse) and
// its tokens (comments left out) with their parens matched, so that
// the parts of the outline can be found in it. What the query means comes
// from the outline; the rules read tokens only inside the places sqlread
// gives them.
type text struct {
	src   []byte
	q     *sqlread.Query
	toks  []sqlread.Token
	match []int // for "(" and ")", the index of the other one; -1 otherwise
}

func newText(src []byte, from int) *text {
	t := &text{src: src, q: sqlread.Parse(src, from), toks: sqlread.Scan(src, from, len(src))}
	t.match = make([]int, len(t.toks))
	var open []int
	for i := range t.toks {
		t.match[i] = -1
		switch {
		case t.punct(i, "("):
			open = append(open, i)
		case t.punct(i, ")") && len(open) > 0:
			o := open[len(open)-1]
			open = open[:len(open)-1]
			t.match[i], t.match[o] = o, i
		}
	}
	return t
}

// span is the tokens [lo, hi).
type span struct{ lo, hi int }

func (s span) empty() bool { return s.lo >= s.hi }

// index is the first token that starts at or after the byte offset off.
func (t *text) index(off int) int {
	return sort.Search(len(t.toks), func(i int) bool { return t.toks[i].Start >= off })
}

// tokens are the tokens of the bytes s.
func (t *text) tokens(s sqlread.Span) span { return span{t.index(s.Start), t.index(s.End)} }

func (t *text) punct(i int, p string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].IsPunct(p)
}

// kw reports whether token i is the bare word w (lower case; written in
// any case).
func (t *text) kw(i int, w string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].Is(w)
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
		return t.written(i)
	case sqlscan.QuotedIdent:
		return t.toks[i].Val
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
		return strings.EqualFold(t.toks[i].Val, n)
	case sqlscan.QuotedIdent:
		return t.toks[i].Val == n || strings.EqualFold(t.toks[i].Val, n)
	}
	return false
}

// written is token i as written.
func (t *text) written(i int) string { return string(t.src[t.toks[i].Start:t.toks[i].End]) }

// start and end are the byte offsets of token i.
func (t *text) start(i int) int { return t.toks[i].Start }
func (t *text) end(i int) int   { return t.toks[i].End }

// cteDef is where a CTE of a WITH clause is written.
type cteDef struct {
	cte   engine.CTE
	name  int // the name's token
	close int // the ")" closing its query
	final bool
}

// place is where one Select query of the outline is written.
type place struct {
	q       *engine.Query
	r       *sqlread.Query // as sqlread reads it: its first operand's items and sources are the query's
	sel     span           // the select list, after SELECT (and DISTINCT …)
	from    span           // the FROM clause, after FROM
	rest    span           // the clauses after FROM's: WHERE, GROUP BY, … ORDER BY
	ctes    []cteDef
	visible []engine.CTE // the CTEs its FROM may name, nearest last
	withAt  int          // the WITH token when the query has CTEs; -1 otherwise
}

// A view is a query of sqlread as the outline splits it: r's first n+1
// operands (the outline nests A UNION B UNION C as (A UNION B) UNION C),
// with r's CTEs when ctes holds.
type view struct {
	r    *sqlread.Query
	n    int
	ctes bool
}

func whole(r *sqlread.Query) view { return view{r: r, n: len(r.Branches), ctes: true} }

// placeQuery finds q in v and calls visit for it and every query below it
// (CTEs, set operation branches, FROM subqueries), in text order. What
// sqlread read otherwise is skipped: a rule then says nothing rather than
// something wrong.
func (t *text) placeQuery(q *engine.Query, v view, visible []engine.CTE, visit func(*place)) {
	if q == nil || v.r == nil {
		return
	}
	r := v.r
	// A query in parentheses, whole: (SELECT …), ((…) UNION …).
	if v.n == 0 && r.Inner != nil && r.Rest.Empty() && (!v.ctes || len(r.CTEs) == 0) {
		t.placeQuery(q, whole(r.Inner), visible, visit)
		return
	}
	p := &place{q: q, r: r, withAt: -1}
	if len(q.CTEs) > 0 {
		if !v.ctes || len(r.CTEs) != len(q.CTEs) || !t.kw(t.index(r.Start), "with") {
			return
		}
		p.withAt = t.index(r.Start)
		for k, c := range q.CTEs {
			d := r.CTEs[k]
			name, close := t.index(d.NameStart), t.index(d.End)-1
			if !t.isName(name, c.Name) || close <= name || !t.punct(close, ")") {
				return
			}
			t.placeQuery(c.Query, whole(d.Query), append(visible, q.CTEs[:k]...), visit)
			p.ctes = append(p.ctes, cteDef{cte: c, name: name, close: close, final: k == len(q.CTEs)-1})
		}
		visible = append(visible[:len(visible):len(visible)], q.CTEs...)
	}
	p.visible = visible
	switch q.Kind {
	case engine.SetOperation:
		if len(q.Branches) != 2 || v.n == 0 {
			return
		}
		t.placeQuery(q.Branches[0], view{r: r, n: v.n - 1}, visible, visit)
		t.placeQuery(q.Branches[1], whole(r.Branches[v.n-1]), visible, visit)
	case engine.Select:
		none := sqlread.Span{}
		if r.Select == none && r.From == none {
			return
		}
		if r.From != none && r.Select != none && r.From.Start < r.Select.Start {
			// DuckDB's FROM-first form with DISTINCT or ALL is placed by
			// the rules of a plain SELECT only.
			if sel := t.index(r.From.End); t.kwIn(sel+1, "distinct", "all") {
				return
			}
		}
		p.sel, p.from, p.rest = t.tokens(r.Select), t.tokens(r.From), t.tokens(r.Rest)
		visit(p)
		// The subqueries of its FROM clause, in order.
		var subs []*sqlread.Query
		for _, s := range r.Sources {
			if s.Sub != nil {
				subs = append(subs, s.Sub)
			}
		}
		k := 0
		for _, src := range q.From {
			if src.Query == nil {
				continue
			}
			if k < len(subs) {
				t.placeQuery(src.Query, whole(subs[k]), visible, visit)
			}
			k++
		}
	}
}

// limitOne reports whether query r ends in LIMIT 1 at its own level.
func (t *text) limitOne(r *sqlread.Query) bool {
	if len(r.Branches) > 0 {
		return false
	}
	rest := t.tokens(r.Rest)
	for i := rest.lo; i < rest.hi; i++ {
		if t.punct(i, "(") && t.match[i] > i {
			i = t.match[i]
			continue
		}
		if t.kw(i, "limit") {
			return i+1 < rest.hi && t.toks[i+1].Kind == sqlscan.Number && t.toks[i+1].Val == "1" && (i+2 >= rest.hi || t.kw(i+2, "offset"))
		}
	}
	return false
}

// oneValuesRow reports whether query r is VALUES of one row: VALUES (…)
// and nothing after it.
func (t *text) oneValuesRow(r *sqlread.Query) bool {
	i := t.index(r.Start)
	if !t.kw(i, "values") || !t.punct(i+1, "(") || t.match[i+1] < 0 {
		return false
	}
	next := t.match[i+1] + 1
	return next >= len(t.toks) || t.toks[next].Start >= r.End
}
