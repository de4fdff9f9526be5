package postgres

import (
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/efmesh/efmesh/engine"
)

// The binder's query levels: a SELECT, VALUES or set operation, its
// output clauses (ORDER BY, GROUP BY, windows) and its WITH queries.

// query binds a SELECT, VALUES or set operation as a new level below outer.
// leaf marks an arm of a set operation: its untyped literals stay
// typUnknown until the operation's common types are known. onLeft, for a
// set operation, is called once its left arm is bound (a recursive CTE's
// columns come from it).
func (b *binder) query(s *pg_query.SelectStmt, outer *scope, leaf bool, onLeft func(result)) result {
	if s == nil {
		return result{opaque: true}
	}
	sc := &scope{outer: outer}
	saved := b.ctx
	b.ctx = exprCtx{level: &levelState{}}
	defer func() { b.ctx = saved }()
	if s.WithClause != nil {
		b.with(s.WithClause, sc)
	}
	var out result
	switch {
	case s.Op != pg_query.SetOperation_SETOP_NONE && s.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED:
		out = b.setOp(s, sc, onLeft)
		b.outputClauses(s, sc, out)
	case len(s.ValuesLists) > 0:
		out = b.values(s, sc)
		b.outputClauses(s, sc, out)
	default:
		out = b.simple(s, sc)
	}
	if !leaf {
		for i := range out.cols {
			if out.cols[i].typ == typUnknown {
				out.cols[i].typ = "text"
			}
		}
	}
	return out
}

func (b *binder) setOp(s *pg_query.SelectStmt, sc *scope, onLeft func(result)) result {
	l := b.query(s.Larg, sc, true, nil)
	if onLeft != nil {
		onLeft(l)
	}
	r := b.query(s.Rarg, sc, true, nil)
	out := result{opaque: l.opaque || r.opaque}
	if !out.opaque && len(l.cols) != len(r.cols) {
		op := strings.TrimPrefix(s.Op.String(), "SETOP_")
		b.fail("Parser", "SYNTAX_ERROR", firstTargetLoc(s.Rarg), "", nil, "each %s query must have the same number of columns", op)
	}
	what := strings.TrimPrefix(s.Op.String(), "SETOP_")
	for i, c := range l.cols {
		if i < len(r.cols) && !out.opaque {
			c.typ = b.resolve(what, []string{c.typ, r.cols[i].typ}, []int32{-1, targetLoc(s.Rarg, i)})
		}
		out.cols = append(out.cols, c)
	}
	return out
}

// targetLoc is where a set operation's arm writes its i-th output column
// (the leftmost leaf's select-list item or first VALUES row); -1 where it
// cannot tell (a * before it).
func targetLoc(s *pg_query.SelectStmt, i int) int32 {
	for s != nil && s.Larg != nil {
		s = s.Larg
	}
	if s == nil {
		return -1
	}
	if len(s.ValuesLists) > 0 {
		if items := s.ValuesLists[0].GetList().GetItems(); i < len(items) {
			return minLoc(items[i])
		}
		return -1
	}
	for j, n := range s.TargetList {
		rt := n.GetResTarget()
		if rt == nil {
			return -1
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
			return -1
		}
		if j == i {
			return minLoc(rt.Val)
		}
	}
	return -1
}

// firstTargetLoc is where PostgreSQL points for a column-count mismatch: the
// first select-list item of the (leftmost leaf of the) right arm.
func firstTargetLoc(s *pg_query.SelectStmt) int32 {
	for s != nil && s.Larg != nil {
		s = s.Larg
	}
	if s != nil && len(s.TargetList) > 0 {
		return minLoc(s.TargetList[0])
	}
	if s != nil {
		return minLoc(s)
	}
	return -1
}

func (b *binder) values(s *pg_query.SelectStmt, sc *scope) result {
	var out result
	var types [][]string
	var locs [][]int32
	for _, row := range s.ValuesLists {
		for i, e := range row.GetList().GetItems() {
			if i >= len(out.cols) {
				out.cols = append(out.cols, column{name: "column" + strconv.Itoa(i+1)})
				types, locs = append(types, nil), append(locs, nil)
			}
			types[i] = append(types[i], b.expr(e, sc))
			locs[i] = append(locs[i], minLoc(e))
		}
	}
	for i := range out.cols {
		out.cols[i].typ = b.resolve("VALUES", types[i], locs[i])
	}
	return out
}

// outputClauses binds the ORDER BY and LIMIT of a set operation or VALUES,
// which see only the result columns.
func (b *binder) outputClauses(s *pg_query.SelectStmt, sc *scope, out result) {
	osc := &scope{outer: sc, rels: []*rel{{cols: out.cols, opaque: out.opaque, unqualified: true}}}
	for _, n := range s.SortClause {
		e := n.GetSortBy().GetNode()
		if c := e.GetAConst(); c != nil {
			b.ordinal(c, len(out.cols), out.opaque, "ORDER BY")
			continue
		}
		b.expr(e, osc)
	}
	b.expr(s.LimitOffset, sc)
	b.expr(s.LimitCount, sc)
}

// target is one select-list entry, for ORDER BY and GROUP BY lookups by
// output name.
type target struct {
	name string
	hit  *hit           // the column a plain reference or * entry reads
	expr *pg_query.Node // otherwise the expression
}

func (b *binder) simple(s *pg_query.SelectStmt, sc *scope) result {
	for _, item := range s.FromClause {
		ns, _ := b.fromItem(item, sc, sc.rels)
		b.checkConflicts(sc.rels, ns)
		sc.rels = append(sc.rels, ns...)
	}
	var out result
	var targets []target
	for _, n := range s.TargetList {
		rt := n.GetResTarget()
		if rt == nil || rt.Val == nil {
			continue
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
			cols, hits, opaque := b.expandStar(cr, sc)
			out.cols = append(out.cols, cols...)
			out.opaque = out.opaque || opaque
			for i, c := range cols {
				targets = append(targets, target{name: c.name, hit: &hits[i]})
			}
			continue
		}
		t := target{expr: rt.Val}
		var typ string
		if cr := rt.Val.GetColumnRef(); cr != nil {
			typ, t.hit = b.columnRef(cr, sc)
		} else {
			typ = b.expr(rt.Val, sc)
		}
		t.name = rt.Name
		if t.name == "" {
			t.name = b.colname(rt.Val)
		}
		targets = append(targets, t)
		out.cols = append(out.cols, column{name: t.name, typ: typ})
	}
	b.inClause("WHERE", s.WhereClause, sc)
	g := &grouping{hits: map[hit]bool{}}
	for _, n := range s.GroupClause {
		b.groupItem(n, sc, targets, out.opaque, g)
	}
	if len(s.GroupClause) > 0 && !g.other {
		b.ungrouped(sc, targets, g)
	}
	b.inClause("HAVING", s.HavingClause, sc)
	if len(s.GroupClause) > 0 {
		b.havingUngrouped(b.ctx.level, g)
	}
	for _, w := range s.WindowClause {
		b.window(w.GetWindowDef(), sc)
	}
	for _, d := range s.DistinctClause {
		if d != nil && d.Node != nil { // plain DISTINCT is one empty node
			b.sortItem(d, sc, targets, out.opaque, "DISTINCT ON")
		}
	}
	for _, n := range s.SortClause {
		b.sortItem(n.GetSortBy().GetNode(), sc, targets, out.opaque, "ORDER BY")
	}
	b.expr(s.LimitOffset, sc)
	b.expr(s.LimitCount, sc)
	b.groupingArgs(b.ctx.level, g)
	b.windowNames(b.ctx.level, s)
	if len(s.DistinctClause) > 0 && len(s.SortClause) > 0 && !out.opaque {
		if s.DistinctClause[0] != nil && s.DistinctClause[0].Node != nil {
			b.distinctOn(s, sc, targets)
		} else {
			b.distinctOrder(s, sc, targets)
		}
	}
	return out
}

// distinctOn reports, as PostgreSQL's transformDistinctOnClause does, DISTINCT
// ON expressions that are not the leftmost ORDER BY expressions (in any
// order): at the DISTINCT ON expression that comes after an ORDER BY item
// of its own, or is missing from the ORDER BY.
func (b *binder) distinctOn(s *pg_query.SelectStmt, sc *scope, targets []target) {
	key := b.sortKeys(sc, targets)
	var dkeys []string
	where := map[string]int32{} // each DISTINCT ON key's first expression
	for _, d := range s.DistinctClause {
		k := key(d)
		if k == "" {
			return
		}
		if _, ok := where[k]; !ok {
			where[k] = minLoc(d)
			dkeys = append(dkeys, k)
		}
	}
	const msg = "SELECT DISTINCT ON expressions must match initial ORDER BY expressions"
	placed := map[string]bool{}
	skipped := false
	for _, n := range s.SortClause {
		k := key(n.GetSortBy().GetNode())
		if k == "" {
			return
		}
		if _, ok := where[k]; !ok {
			skipped = true
			continue
		}
		if skipped {
			b.fail("Binder", "INVALID_COLUMN_REFERENCE", where[k], "", nil, msg)
			return
		}
		placed[k] = true
	}
	for _, k := range dkeys {
		if !placed[k] && skipped {
			b.fail("Binder", "INVALID_COLUMN_REFERENCE", where[k], "", nil, msg)
			return
		}
	}
}

// distinctOrder reports, as PostgreSQL does, an ORDER BY item of a SELECT
// DISTINCT that is not in its select list.
func (b *binder) distinctOrder(s *pg_query.SelectStmt, sc *scope, targets []target) {
	key := b.sortKeys(sc, targets)
	for _, n := range s.SortClause {
		e := n.GetSortBy().GetNode()
		k := key(e)
		if k == "" {
			return
		}
		if !strings.HasPrefix(k, "t") {
			b.fail("Binder", "INVALID_COLUMN_REFERENCE", minLoc(e), "", nil, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
			return
		}
	}
}

// sortKeys returns what names what an ORDER BY or DISTINCT ON item sorts
// by, as PostgreSQL matches items to the select list: an output column
// ("t3"), another column ("c…"), another expression ("e…", the same for
// equal ones); "" when it cannot tell.
func (b *binder) sortKeys(sc *scope, targets []target) func(*pg_query.Node) string {
	var exprs []*pg_query.Node
	return func(n *pg_query.Node) string {
		if name, _, ok := bareName(n); ok {
			for i, t := range targets {
				if t.name == name {
					return "t" + strconv.Itoa(i)
				}
			}
		}
		if c := n.GetAConst(); c != nil {
			if iv, ok := c.Val.(*pg_query.A_Const_Ival); ok && int(iv.Ival.GetIval()) >= 1 && int(iv.Ival.GetIval()) <= len(targets) {
				return "t" + strconv.Itoa(int(iv.Ival.GetIval())-1)
			}
			return ""
		}
		if cr := n.GetColumnRef(); cr != nil {
			if isStar(cr) {
				return ""
			}
			_, h := b.columnRef(cr, sc)
			if h == nil {
				return ""
			}
			for i, t := range targets {
				if t.hit != nil && *t.hit == *h {
					return "t" + strconv.Itoa(i)
				}
			}
			return fmt.Sprintf("c%p.%d", h.r, h.i)
		}
		for i, t := range targets {
			if t.hit == nil && sameExpr(t.expr, n) {
				return "t" + strconv.Itoa(i)
			}
		}
		for i, e := range exprs {
			if sameExpr(e, n) {
				return "e" + strconv.Itoa(i)
			}
		}
		exprs = append(exprs, n)
		return "e" + strconv.Itoa(len(exprs)-1)
	}
}

// sortItem binds an ORDER BY or DISTINCT ON item by PostgreSQL's SQL92
// rules: a bare name is an output column first, an integer constant an
// output position, anything else an expression over the FROM items.
func (b *binder) sortItem(n *pg_query.Node, sc *scope, targets []target, opaque bool, clause string) {
	if name, loc, ok := bareName(n); ok {
		if b.matchTarget(name, loc, targets, clause) {
			return
		}
	}
	if c := n.GetAConst(); c != nil {
		b.ordinal(c, len(targets), opaque, clause)
		return
	}
	b.expr(n, sc)
}

// grouping is what a GROUP BY groups: the columns it names, and whether
// it groups by anything else (an expression, an output column, a
// position), which the not-grouped rule then leaves alone.
type grouping struct {
	hits  map[hit]bool
	other bool
	// exprs are the items that are expressions; unsure: an item names an
	// output column or position, whose expression is not compared.
	exprs  []*pg_query.Node
	unsure bool
}

// groupItem binds a GROUP BY item: a bare name is a FROM column of this
// level first, then an output column, then an outer reference.
func (b *binder) groupItem(n *pg_query.Node, sc *scope, targets []target, opaque bool, g *grouping) {
	if gs := n.GetGroupingSet(); gs != nil {
		for _, c := range gs.Content {
			b.groupItem(c, sc, targets, opaque, g)
		}
		return
	}
	if name, loc, ok := bareName(n); ok {
		if hits, maybe := sc.find(name); len(hits) == 0 && !maybe {
			if b.matchTarget(name, loc, targets, "GROUP BY") {
				g.other, g.unsure = true, true
				return
			}
		}
	}
	if c := n.GetAConst(); c != nil {
		b.ordinal(c, len(targets), opaque, "GROUP BY")
		g.other, g.unsure = true, true
		return
	}
	if cr := n.GetColumnRef(); cr != nil && !isStar(cr) {
		if _, h := b.columnRef(cr, sc); h != nil {
			g.hits[*h] = true
			return
		}
	}
	g.other = true
	g.exprs = append(g.exprs, n)
	b.inClause("GROUP BY", n, sc)
}

// ungrouped reports, as PostgreSQL does, a select-list entry that is a
// plain column of this level's FROM items when the GROUP BY names only
// columns and not that one. Efmesh's relations declare no primary key, so
// no column is functionally dependent on the grouped ones.
func (b *binder) ungrouped(sc *scope, targets []target, g *grouping) {
	local := map[*rel]bool{}
	for _, r := range sc.rels {
		local[r] = true
	}
	// A name grouped through another item (a USING column, an alias of
	// the same table) is let be: only a name grouped nowhere is reported.
	groupedNames := map[string]bool{}
	for h := range g.hits {
		groupedNames[h.r.cols[h.i].name] = true
	}
	for _, t := range targets {
		if t.hit == nil || t.expr == nil || !local[t.hit.r] || t.hit.r.opaque || g.hits[*t.hit] || groupedNames[t.hit.r.cols[t.hit.i].name] {
			continue
		}
		cr := t.expr.GetColumnRef()
		if cr == nil {
			continue
		}
		col := t.hit.r.cols[t.hit.i].name
		name := col
		if t.hit.r.name != "" {
			name = t.hit.r.name + "." + col
		}
		b.fail("Binder", engine.SubtypeNotGrouped, cr.Location, col, nil,
			"column %q must appear in the GROUP BY clause or be used in an aggregate function", name)
		return // the server stops at the first
	}
}

// matchTarget reports whether name is an output column; two output
// columns of that name reading different things make it ambiguous.
func (b *binder) matchTarget(name string, loc int32, targets []target, clause string) bool {
	var first *target
	for i := range targets {
		t := &targets[i]
		if t.name != name {
			continue
		}
		if first == nil {
			first = t
			continue
		}
		if !sameTarget(first, t) {
			var cands []string
			for _, u := range []*target{first, t} {
				if u.hit != nil && u.hit.r.cols[u.hit.i].src != "" {
					cands = append(cands, u.hit.r.cols[u.hit.i].src+"."+name)
				}
			}
			b.fail("Binder", "AMBIGUOUS_COLUMN", loc, name, cands, "%s %q is ambiguous", clause, name)
			return true
		}
	}
	return first != nil
}

func sameTarget(a, b *target) bool {
	if a.hit != nil && b.hit != nil {
		return a.hit.r == b.hit.r && a.hit.i == b.hit.i
	}
	return a.hit == nil && b.hit == nil && sameExpr(a.expr, b.expr)
}

// ordinal checks an ORDER BY / GROUP BY constant: an integer names an
// output position; anything else is an error.
func (b *binder) ordinal(c *pg_query.A_Const, n int, opaque bool, clause string) {
	iv, ok := c.Val.(*pg_query.A_Const_Ival)
	if !ok || c.Isnull {
		b.fail("Parser", "SYNTAX_ERROR", c.Location, "", nil, "non-integer constant in %s", clause)
		return
	}
	pos := int(iv.Ival.GetIval())
	if pos < 1 || pos > n && !opaque {
		b.fail("Binder", "INVALID_COLUMN_REFERENCE", c.Location, "", nil, "%s position %d is not in select list", clause, pos)
	}
}

func (b *binder) window(w *pg_query.WindowDef, sc *scope) {
	if w == nil {
		return
	}
	saved := b.ctx
	b.ctx.windowDef = true
	b.exprs(w.PartitionClause, sc)
	b.exprs(w.OrderClause, sc) // SortBy nodes: the generic walk binds their expressions
	b.expr(w.StartOffset, sc)
	b.expr(w.EndOffset, sc)
	b.ctx = saved
}

func (b *binder) with(w *pg_query.WithClause, sc *scope) {
	if w.Recursive {
		// Every CTE of a recursive WITH sees all of them; one not bound
		// yet is opaque to the others.
		start := len(sc.ctes)
		for _, n := range w.Ctes {
			sc.ctes = append(sc.ctes, &cte{name: n.GetCommonTableExpr().GetCtename(), opaque: true})
		}
		for i, n := range w.Ctes {
			b.cte(n.GetCommonTableExpr(), sc.ctes[start+i], &scope{outer: sc.outer, ctes: sc.ctes}, true)
		}
		return
	}
	for _, n := range w.Ctes {
		ce := n.GetCommonTableExpr()
		c := &cte{name: ce.GetCtename()}
		b.cte(ce, c, &scope{outer: sc.outer, ctes: append([]*cte(nil), sc.ctes...)}, false)
		sc.ctes = append(sc.ctes, c)
	}
}

func (b *binder) cte(ce *pg_query.CommonTableExpr, c *cte, csc *scope, recursive bool) {
	if ce == nil {
		return
	}
	q := ce.Ctequery.GetSelectStmt()
	if q == nil {
		// INSERT/UPDATE/DELETE … RETURNING: its target is outside what
		// we know.
		c.opaque = true
		return
	}
	shape := func(r result) {
		c.cols = b.renameCols(resolved(r.cols), ce.Aliascolnames, r.opaque, ce.Location, "WITH query", ce.Ctename)
		c.opaque = r.opaque
	}
	var onLeft func(result)
	var left []column
	if recursive {
		onLeft = func(r result) {
			left = resolved(r.cols)
			shape(r)
		}
	}
	res := b.query(q, csc, false, onLeft)
	shape(res)
	if recursive && q.Op == pg_query.SetOperation_SETOP_UNION && readsTable(q.Rarg, ce.Ctename) && !res.opaque {
		// A recursive query's columns are typed by its non-recursive
		// term: the union may not widen them.
		for i, l := range left {
			if i >= len(res.cols) {
				break
			}
			lt, ot := l.typ, res.cols[i].typ
			if lt == "" || ot == "" || lt == ot {
				continue // (its modifier too: varchar(20) is not varchar)
			}
			b.fail("Binder", "DATATYPE_MISMATCH", targetLoc(q.Larg, i), "", nil,
				"recursive query %q column %d has type %s in non-recursive term but type %s overall\nHINT: Cast the output of the non-recursive term to the correct type.",
				ce.Ctename, i+1, lt, ot)
			break
		}
	}
	if sc := ce.SearchClause; sc != nil && sc.SearchSeqColumn != "" {
		c.cols = append(c.cols, column{name: sc.SearchSeqColumn})
	}
	if cc := ce.CycleClause; cc != nil {
		c.cols = append(c.cols, column{name: cc.CycleMarkColumn}, column{name: cc.CyclePathColumn, typ: "record[]"})
	}
}

func resolved(cols []column) []column {
	out := append([]column(nil), cols...)
	for i := range out {
		if out[i].typ == typUnknown {
			out[i].typ = "text"
		}
	}
	return out
}

// renameCols applies a column alias list: the first names replace the
// first columns.
func (b *binder) renameCols(cols []column, names []*pg_query.Node, opaque bool, loc int32, what, name string) []column {
	if len(names) == 0 {
		return cols
	}
	out := append([]column(nil), cols...)
	if len(names) > len(out) && !opaque {
		b.fail("Binder", "INVALID_COLUMN_REFERENCE", loc, name, nil, "%s %q has %d columns available but %d columns specified", what, name, len(out), len(names))
	}
	for i, n := range names {
		if i < len(out) {
			out[i].name = n.GetString_().GetSval()
		} else if opaque {
			out = append(out, column{name: n.GetString_().GetSval()})
		}
	}
	return out
}

// readsTable reports whether s reads an unqualified relation named name
// (a recursive query's reference to itself).
func readsTable(s *pg_query.SelectStmt, name string) bool {
	found := false
	eachMessage(s.ProtoReflect(), func(pm protoreflect.Message) {
		if rv, ok := pm.Interface().(*pg_query.RangeVar); ok && rv.Schemaname == "" && rv.Relname == name {
			found = true
		}
	})
	return found
}
