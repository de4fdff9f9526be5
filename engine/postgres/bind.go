package postgres

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/efmesh/efmesh/engine"
)

// This file is the server-less column binder for Postgres projects: what
// DESCRIBE against stand-in tables does for DuckDB, done over pg_query's
// parse tree. It follows PostgreSQL's own name resolution (parse_relation.c,
// parse_clause.c, parse_target.c) for the cases a model body meets, and
// says "unknown" rather than guess where only the catalog could tell.
//
// Every position is a 0-based byte offset into the SQL text: pg_query's
// node locations and scanner tokens are byte offsets (the server's error
// cursor is the one that counts characters; see parseError).

// Bind resolves every column reference of sql, which must be exactly one
// SELECT statement (VALUES and set operations included), against relations
// — the declared columns of each relation the body may read, keyed by the
// name as written in SQL: "schema.table", or "table" for an unqualified
// name — and returns the statement's output columns.
//
// Names are PostgreSQL's: an alias, else the column or function name, else
// "?column?". Types are the declared text for plain column references
// (through aliases, CTEs and subqueries), format_type-style names for
// casts, literals and common functions ("integer", "numeric(10,2)",
// "timestamp with time zone"), and "" where the binder cannot know without
// a server; callers skip type checks for "".
//
// When the output depends on something only a server could tell (a `*`
// over a function result in FROM, a data-modifying CTE), Bind returns nil
// columns and a nil error: no problem found, shape unknown.
//
// Problems are *engine.SQLError values with PostgreSQL's messages (a HINT
// on a second line), byte Positions, the offending Name and "did you mean"
// Candidates, by Type and Subtype:
//
//   - Parser, SYNTAX_ERROR: syntax errors, and what PostgreSQL files under
//     them: SELECT * without FROM, a non-integer constant in ORDER BY or
//     GROUP BY, set-operation arms of different widths. Parser without a
//     Subtype (Position -1): not exactly one SELECT.
//   - Catalog, UNDEFINED_TABLE: a relation missing from relations.
//   - Binder, COLUMN_NOT_FOUND or AMBIGUOUS_COLUMN: an unknown or ambiguous
//     column, including USING lists and ORDER BY output names.
//   - Binder, UNDEFINED_TABLE: a qualifier that names no FROM item ("missing
//     FROM-clause entry"), or one this part of the query cannot see.
//   - Binder, DUPLICATE_ALIAS, AMBIGUOUS_ALIAS, INVALID_COLUMN_REFERENCE: a
//     reference name used twice, a qualifier matching two items, an ordinal
//     out of range or more column aliases than columns.
//
// Names are never reported against what the binder cannot see into: the
// columns of a relation missing from relations or of a function in FROM.
// One problem is returned as the *engine.SQLError itself; several as an
// errors.Join of them in source order, one per position, so errors.As
// finds the first and Unwrap() []error yields all. Columns are nil whenever
// the error is not.
func (Parser) Bind(sql string, relations map[string][]engine.Column) ([]engine.Column, error) {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil, parseError(err, sql)
	}
	if len(tree.Stmts) != 1 {
		return nil, &engine.SQLError{Type: "Parser", Message: "a model body must be exactly one SELECT statement, found " + strconv.Itoa(len(tree.Stmts)), Position: -1}
	}
	stmt := tree.Stmts[0].GetStmt()
	sel := stmt.GetSelectStmt()
	if sel == nil {
		kind := "an empty statement"
		if stmt != nil && stmt.Node != nil {
			kind = strings.TrimPrefix(fmt.Sprintf("%T", stmt.Node), "*pg_query.Node_")
		}
		return nil, &engine.SQLError{Type: "Parser", Message: "a model body must be a SELECT statement, found " + kind, Position: -1}
	}
	b := &binder{sql: sql, relations: relations, sublinks: map[*pg_query.SubLink]string{}}
	out := b.query(sel, nil, false, nil)
	if err := b.err(); err != nil {
		return nil, err
	}
	if out.opaque {
		return nil, nil
	}
	cols := make([]engine.Column, len(out.cols))
	for i, c := range out.cols {
		cols[i] = engine.Column{Name: c.name, Type: c.typ}
	}
	return cols, nil
}

// Bind binds sql with the connection-free parser; see Parser.Bind.
func (d *DB) Bind(sql string, relations map[string][]engine.Column) ([]engine.Column, error) {
	return Parser{}.Bind(sql, relations)
}

// typUnknown is PostgreSQL's type of a string literal or bare NULL until
// context resolves it: it takes the other side's type in CASE, UNION,
// COALESCE and VALUES, and becomes text in a SELECT's output.
const typUnknown = "unknown"

type column struct {
	name string
	typ  string // "" when not known
	// src is the reference name that reaches the column qualified, for
	// "did you mean t.col" on an ambiguous name; "" when there is none.
	src string
}

// rel is one entry of a query level's namespace (PostgreSQL's
// ParseNamespaceItem): a FROM item, or a join's merged column list.
type rel struct {
	name    string // reference name: alias, CTE, table or function name; "" for none
	schema  string // an unaliased table's schema and catalog, for s.t.col
	catalog string
	// table marks an unaliased relation from the relations map: two of
	// them may share a name when their schemas differ.
	table bool
	cols  []column
	// opaque: the item may have columns beyond cols (a function result),
	// so an unknown name is not an error against it.
	opaque      bool
	qualified   bool // reachable as name.column and name.*
	unqualified bool // its columns resolve unqualified and expand in *
	loc         int32
}

// cte is a WITH query visible by name.
type cte struct {
	name   string
	cols   []column
	opaque bool
}

// scope is one query level's namespace; outer is the enclosing level (or
// the items a LATERAL item may see), whose columns correlated references
// reach.
type scope struct {
	outer *scope
	rels  []*rel
	ctes  []*cte
	// hidden are items of the same level this scope may not reference
	// (a non-LATERAL subquery's siblings, the FROM items outside a JOIN
	// condition's join): a reference to one gets PostgreSQL's "cannot be
	// referenced from this part of the query" instead of "missing".
	// needsLateral says adding LATERAL would make them visible.
	hidden       []*rel
	needsLateral bool
}

// sibling returns a level that sees rels and this level's CTEs and outer
// levels, but not this level's own FROM items: the scope of a subquery in
// FROM, of a LATERAL item (rels: the items to its left) and of a JOIN
// condition (rels: the join's two sides).
func (s *scope) sibling(rels, hidden []*rel, needsLateral bool) *scope {
	return &scope{outer: s.outer, ctes: s.ctes, rels: append([]*rel(nil), rels...),
		hidden: append([]*rel(nil), hidden...), needsLateral: needsLateral}
}

// own marks r's columns as reached through r's name.
func (r *rel) own() *rel {
	src := ""
	if r.qualified {
		src = r.name
	}
	r.cols = append([]column(nil), r.cols...)
	for i := range r.cols {
		r.cols[i].src = src
	}
	return r
}

func (s *scope) cte(name string) *cte {
	for ; s != nil; s = s.outer {
		for i := len(s.ctes) - 1; i >= 0; i-- {
			if s.ctes[i].name == name {
				return s.ctes[i]
			}
		}
	}
	return nil
}

// result is what a query yields.
type result struct {
	cols []column
	// opaque: cols is incomplete (a * over an opaque item).
	opaque bool
}

type binder struct {
	sql       string
	relations map[string][]engine.Column
	errs      []*engine.SQLError
	// sublinks holds each scalar subquery's first output name, which
	// PostgreSQL uses as the subquery expression's column name.
	sublinks map[*pg_query.SubLink]string
	using    *usingIndex
}

func (b *binder) fail(typ, sub string, pos int32, name string, cands []string, format string, args ...any) {
	b.errs = append(b.errs, &engine.SQLError{Type: typ, Subtype: sub, Message: fmt.Sprintf(format, args...),
		Position: int(pos), Name: name, Candidates: cands})
}

// err returns the collected problems in source order, one per position
// (the first found, as PostgreSQL stops at it); problems without a
// position come last.
func (b *binder) err() error {
	if len(b.errs) == 0 {
		return nil
	}
	for _, e := range b.errs {
		if e.Position < 0 || e.Position > len(b.sql) {
			e.Position = -1
		}
	}
	sort.SliceStable(b.errs, func(i, j int) bool {
		pi, pj := b.errs[i].Position, b.errs[j].Position
		if (pi < 0) != (pj < 0) {
			return pj < 0
		}
		return pi < pj
	})
	var errs []error
	for i, e := range b.errs {
		if i > 0 && e.Position == b.errs[i-1].Position && (e.Position >= 0 || e.Message == b.errs[i-1].Message) {
			continue
		}
		errs = append(errs, e)
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// ---- statements ----

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
	for i, c := range l.cols {
		if i < len(r.cols) && !out.opaque {
			c.typ = commonType(c.typ, r.cols[i].typ)
		}
		out.cols = append(out.cols, c)
	}
	return out
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
	for _, row := range s.ValuesLists {
		for i, e := range row.GetList().GetItems() {
			t := b.expr(e, sc)
			if i >= len(out.cols) {
				out.cols = append(out.cols, column{name: "column" + strconv.Itoa(i+1), typ: t})
				continue
			}
			out.cols[i].typ = commonType(out.cols[i].typ, t)
		}
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
	b.expr(s.WhereClause, sc)
	for _, g := range s.GroupClause {
		b.groupItem(g, sc, targets, out.opaque)
	}
	b.expr(s.HavingClause, sc)
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
	return out
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

// groupItem binds a GROUP BY item: a bare name is a FROM column of this
// level first, then an output column, then an outer reference.
func (b *binder) groupItem(n *pg_query.Node, sc *scope, targets []target, opaque bool) {
	if gs := n.GetGroupingSet(); gs != nil {
		for _, c := range gs.Content {
			b.groupItem(c, sc, targets, opaque)
		}
		return
	}
	if name, loc, ok := bareName(n); ok {
		if hits, maybe := sc.find(name); len(hits) == 0 && !maybe {
			if b.matchTarget(name, loc, targets, "GROUP BY") {
				return
			}
		}
	}
	if c := n.GetAConst(); c != nil {
		b.ordinal(c, len(targets), opaque, "GROUP BY")
		return
	}
	b.expr(n, sc)
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
	b.exprs(w.PartitionClause, sc)
	b.exprs(w.OrderClause, sc) // SortBy nodes: the generic walk binds their expressions
	b.expr(w.StartOffset, sc)
	b.expr(w.EndOffset, sc)
}

// ---- WITH ----

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
	if recursive {
		onLeft = shape
	}
	res := b.query(q, csc, false, onLeft)
	shape(res)
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

// ---- FROM ----

// fromItem binds one FROM item of level sc; left are the items it may
// reference laterally. It returns the namespace entries the item adds and
// the entry whose columns are the item's output (for a join, its merged
// column list).
func (b *binder) fromItem(n *pg_query.Node, sc *scope, left []*rel) ([]*rel, *rel) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		r := b.rangeVar(x.RangeVar, sc)
		return []*rel{r}, r
	case *pg_query.Node_RangeSubselect:
		rs := x.RangeSubselect
		outer := sc.sibling(nil, left, true)
		if rs.Lateral {
			outer = sc.sibling(left, nil, false)
		}
		res := b.query(rs.Subquery.GetSelectStmt(), outer, false, nil)
		r := &rel{cols: res.cols, opaque: res.opaque, unqualified: true, loc: minLoc(rs)}
		b.alias(r, rs.Alias, "table")
		return []*rel{r.own()}, r
	case *pg_query.Node_RangeFunction:
		r := b.rangeFunction(x.RangeFunction, sc.sibling(left, nil, false))
		return []*rel{r}, r
	case *pg_query.Node_JoinExpr:
		return b.join(x.JoinExpr, sc, left)
	case *pg_query.Node_RangeTableSample:
		ts := x.RangeTableSample
		ns, top := b.fromItem(ts.Relation, sc, left)
		lsc := sc.sibling(left, nil, false)
		b.exprs(ts.Args, lsc)
		b.expr(ts.Repeatable, lsc)
		return ns, top
	}
	// XMLTABLE, JSON_TABLE and anything newer: bind the expressions, whose
	// references may reach the items to the left, and treat the output as
	// opaque.
	b.walk(n, sc.sibling(left, nil, false))
	r := &rel{opaque: true, unqualified: true, loc: minLoc(n)}
	var a *pg_query.Alias
	switch x := n.GetNode().(type) {
	case *pg_query.Node_RangeTableFunc:
		a = x.RangeTableFunc.Alias
	case *pg_query.Node_JsonTable:
		a = x.JsonTable.Alias
	}
	b.alias(r, a, "table")
	return []*rel{r.own()}, r
}

func (b *binder) rangeVar(rv *pg_query.RangeVar, sc *scope) *rel {
	r := &rel{name: rv.Relname, qualified: true, unqualified: true, loc: rv.Location}
	if rv.Schemaname == "" && rv.Catalogname == "" {
		if c := sc.cte(rv.Relname); c != nil {
			r.cols = append([]column(nil), c.cols...)
			r.opaque = c.opaque
			b.alias(r, rv.Alias, "table")
			return r.own()
		}
	}
	key := rv.Relname
	if rv.Schemaname != "" {
		key = rv.Schemaname + "." + key
	}
	if rv.Catalogname != "" {
		key = rv.Catalogname + "." + key
	}
	cols, ok := b.relations[key]
	if ok {
		r.table = true
		r.schema, r.catalog = rv.Schemaname, rv.Catalogname
		for _, c := range cols {
			r.cols = append(r.cols, column{name: c.Name, typ: c.Type})
		}
	} else {
		// Opaque from here on, so its columns raise nothing further.
		r.opaque = true
		pool := make([]string, 0, len(b.relations))
		for k := range b.relations {
			pool = append(pool, k)
		}
		sort.Strings(pool)
		b.fail("Catalog", "UNDEFINED_TABLE", rv.Location, key, closest(key, pool), "relation %q does not exist", key)
	}
	b.alias(r, rv.Alias, "table")
	return r.own()
}

// alias applies a table alias: the item is then known by that name only.
func (b *binder) alias(r *rel, a *pg_query.Alias, what string) {
	if a == nil {
		return
	}
	r.name, r.schema, r.catalog, r.table, r.qualified = a.Aliasname, "", "", false, true
	r.cols = b.renameCols(r.cols, a.Colnames, r.opaque, r.loc, what, a.Aliasname)
}

// scalarSRFs are set-returning functions in FROM with one output column,
// named after the function (or the table alias).
var scalarSRFs = map[string]bool{
	"generate_series": true, "generate_subscripts": true, "unnest": true,
	"regexp_split_to_table": true, "string_to_table": true,
}

func (b *binder) rangeFunction(rf *pg_query.RangeFunction, lsc *scope) *rel {
	// A function in FROM is implicitly LATERAL.
	var calls []*pg_query.FuncCall
	var types []string
	for _, f := range rf.Functions {
		items := f.GetList().GetItems()
		if len(items) == 0 {
			continue
		}
		types = append(types, b.expr(items[0], lsc))
		calls = append(calls, items[0].GetFuncCall())
	}
	r := &rel{qualified: true, unqualified: true, opaque: true, loc: -1}
	var fname string
	if len(calls) > 0 && calls[0] != nil {
		fname = lastName(calls[0].Funcname)
		r.name, r.loc = fname, calls[0].Location
	}
	switch {
	case len(rf.Coldeflist) > 0:
		r.opaque = false
		for _, n := range rf.Coldeflist {
			if cd := n.GetColumnDef(); cd != nil {
				r.cols = append(r.cols, column{name: cd.Colname, typ: formatType(cd.TypeName)})
			}
		}
	case len(calls) == 1 && calls[0] != nil && !rf.IsRowsfrom && scalarSRFs[fname] &&
		!(fname == "unnest" && len(calls[0].Args) != 1) && len(functionSchema(calls[0].Funcname)) == 0:
		r.opaque = false
		name := fname
		if rf.Alias != nil {
			name = rf.Alias.Aliasname
		}
		r.cols = []column{{name: name, typ: types[0]}}
	}
	if rf.Ordinality && !r.opaque {
		r.cols = append(r.cols, column{name: "ordinality", typ: "bigint"})
	}
	b.alias(r, rf.Alias, "table")
	return r.own()
}

func (b *binder) join(j *pg_query.JoinExpr, sc *scope, left []*rel) ([]*rel, *rel) {
	lns, ltop := b.fromItem(j.Larg, sc, left)
	rns, rtop := b.fromItem(j.Rarg, sc, append(append([]*rel(nil), left...), lns...))
	b.checkConflicts(lns, rns)
	both := append(append([]*rel(nil), lns...), rns...)
	if j.Quals != nil {
		b.expr(j.Quals, sc.sibling(both, left, false))
	}

	var using []string
	for _, n := range j.UsingClause {
		using = append(using, n.GetString_().GetSval())
	}
	var pos []int32
	if len(using) > 0 {
		pos = b.usingPositions(minLoc(j.Rarg), using)
	}
	at := func(i int) int32 {
		if i < len(pos) {
			return pos[i]
		}
		return minLoc(j.Rarg)
	}
	if j.IsNatural {
		for _, lc := range ltop.cols {
			if indexes(rtop.cols, lc.name) != nil && !contains(using, lc.name) {
				using = append(using, lc.name)
			}
		}
	}
	jr := &rel{unqualified: true, opaque: ltop.opaque || rtop.opaque, loc: -1}
	lrest, rrest := append([]column(nil), ltop.cols...), append([]column(nil), rtop.cols...)
	for i, u := range using {
		li, ri := indexes(ltop.cols, u), indexes(rtop.cols, u)
		var lt, rt string
		for _, side := range []struct {
			idx   []int
			top   *rel
			which string
			typ   *string
		}{{li, ltop, "left", &lt}, {ri, rtop, "right", &rt}} {
			switch {
			case len(side.idx) == 0 && !side.top.opaque:
				b.fail("Binder", "COLUMN_NOT_FOUND", at(i), u, closest(u, names(side.top.cols)),
					"column %q specified in USING clause does not exist in %s table", u, side.which)
			case len(side.idx) > 1:
				b.fail("Binder", "AMBIGUOUS_COLUMN", at(i), u, nil,
					"common column name %q appears more than once in %s table", u, side.which)
			case len(side.idx) == 1:
				*side.typ = side.top.cols[side.idx[0]].typ
			}
		}
		typ := lt
		switch j.Jointype {
		case pg_query.JoinType_JOIN_RIGHT:
			typ = rt
		case pg_query.JoinType_JOIN_FULL:
			typ = commonType(lt, rt)
		}
		jr.cols = append(jr.cols, column{name: u, typ: typ})
		lrest = without(lrest, u)
		rrest = without(rrest, u)
	}
	merged := append([]column(nil), jr.cols...)
	jr.cols = append(append(jr.cols, lrest...), rrest...)

	var ns []*rel
	if j.Alias != nil {
		jr.loc = minLoc(j.Larg)
		b.alias(jr, j.Alias, "table")
		ns = []*rel{jr.own()}
	} else {
		// Unaliased: the sides stay reachable by name, but unqualified
		// names and * go through the join's merged list.
		for _, r := range both {
			r.unqualified = false
		}
		ns = append(both, jr)
	}
	if a := j.JoinUsingAlias; a != nil {
		ua := (&rel{name: a.Aliasname, cols: merged, qualified: true, loc: at(0)}).own()
		b.checkConflicts(ns, []*rel{ua})
		ns = append(ns, ua)
	}
	return ns, jr
}

// checkConflicts reports a reference name that added repeats from existing
// at the same level, as PostgreSQL's checkNameSpaceConflicts does.
func (b *binder) checkConflicts(existing, added []*rel) {
	for _, x := range added {
		if !x.qualified || x.name == "" {
			continue
		}
		for _, y := range existing {
			if !y.qualified || y.name != x.name {
				continue
			}
			if x.table && y.table && (x.schema != y.schema || x.catalog != y.catalog) {
				continue
			}
			b.fail("Binder", "DUPLICATE_ALIAS", x.loc, x.name, nil, "table name %q specified more than once", x.name)
			break
		}
	}
}

// usingIndex is every USING (…) list of the statement, found with
// pg_query's scanner: the parse tree keeps no position for the names.
type usingIndex struct {
	clauses []*usingClause
}

type usingClause struct {
	start   int32
	names   []string
	pos     []int32
	claimed bool
}

// usingPositions returns the positions of a join's USING names. A join's
// USING list follows its right side immediately, and joins nested inside
// that side are bound (and claim their lists) first, so the join's list is
// the first unclaimed one with these names after the right side starts.
func (b *binder) usingPositions(rargStart int32, names []string) []int32 {
	if b.using == nil {
		b.using = scanUsing(b.sql)
	}
	for _, c := range b.using.clauses {
		if c.claimed || c.start < rargStart || !equalStrings(c.names, names) {
			continue
		}
		c.claimed = true
		return c.pos
	}
	return nil
}

func scanUsing(sql string) *usingIndex {
	idx := &usingIndex{}
	res, err := pg_query.Scan(sql)
	if err != nil {
		return idx
	}
	toks := res.Tokens
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].Token != pg_query.Token_USING || toks[i+1].Token != pg_query.Token_ASCII_40 {
			continue
		}
		c := &usingClause{start: toks[i].Start}
		for k := i + 2; k < len(toks) && toks[k].Token != pg_query.Token_ASCII_41; k++ {
			if toks[k].Token == pg_query.Token_ASCII_44 {
				continue
			}
			c.names = append(c.names, identText(sql[toks[k].Start:toks[k].End]))
			c.pos = append(c.pos, toks[k].Start)
		}
		idx.clauses = append(idx.clauses, c)
	}
	return idx
}

// identText is the name an identifier token denotes: quoted text with
// doubled quotes undone, or the text with ASCII letters folded to lower
// case, as PostgreSQL's scanner does.
func identText(tok string) string {
	if len(tok) >= 2 && tok[0] == '"' && tok[len(tok)-1] == '"' {
		return strings.ReplaceAll(tok[1:len(tok)-1], `""`, `"`)
	}
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, tok)
}

// ---- column references ----

type hit struct {
	r *rel
	i int
}

// find returns the columns called name that level s exposes unqualified,
// and whether an opaque item might have one too.
func (s *scope) find(name string) (hits []hit, maybe bool) {
	for _, r := range s.rels {
		if !r.unqualified {
			continue
		}
		for i, c := range r.cols {
			if c.name == name {
				hits = append(hits, hit{r, i})
			}
		}
		maybe = maybe || r.opaque
	}
	return hits, maybe
}

func isStar(cr *pg_query.ColumnRef) bool {
	n := len(cr.Fields)
	return n > 0 && cr.Fields[n-1].GetAStar() != nil
}

// refParts splits a column reference into its qualifier and final name.
func refParts(cr *pg_query.ColumnRef) (qual []string, name string) {
	for i, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			continue
		}
		if i == len(cr.Fields)-1 {
			name = s.Sval
		} else {
			qual = append(qual, s.Sval)
		}
	}
	return qual, name
}

// columnRef resolves a reference and returns its type and, when it names
// one column of a FROM item, which.
func (b *binder) columnRef(cr *pg_query.ColumnRef, sc *scope) (string, *hit) {
	qual, name := refParts(cr)
	if isStar(cr) {
		if len(qual) > 0 {
			b.findRel(qual, cr.Location, sc) // t.* as a whole-row value
		}
		return "", nil
	}
	if len(qual) == 0 {
		return b.unqualified(name, cr.Location, sc)
	}
	if len(qual) > 3 {
		b.fail("Parser", "SYNTAX_ERROR", cr.Location, name, nil, "improper qualified name (too many dotted names)")
		return "", nil
	}
	r := b.findRel(qual, cr.Location, sc)
	if r == nil {
		return "", nil
	}
	idx := indexes(r.cols, name)
	switch {
	case len(idx) == 1:
		return r.cols[idx[0]].typ, &hit{r, idx[0]}
	case len(idx) > 1:
		b.fail("Binder", "AMBIGUOUS_COLUMN", cr.Location, name, nil, "column reference %q is ambiguous", qual[len(qual)-1]+"."+name)
	case !r.opaque:
		b.fail("Binder", "COLUMN_NOT_FOUND", cr.Location, name, closest(name, names(r.cols)),
			"column %s.%s does not exist", qual[len(qual)-1], name)
	}
	return "", nil
}

// unqualified resolves a bare name the way colNameToVar does: the
// innermost level that has the name wins, and two items of that level
// having it is ambiguous. A name no level has as a column may be a
// relation's name: a whole-row reference.
func (b *binder) unqualified(name string, loc int32, sc *scope) (string, *hit) {
	for s := sc; s != nil; s = s.outer {
		hits, maybe := s.find(name)
		if len(hits) > 1 {
			var cands []string
			for _, h := range hits {
				if src := h.r.cols[h.i].src; src != "" {
					cands = append(cands, src+"."+name)
				}
			}
			b.fail("Binder", "AMBIGUOUS_COLUMN", loc, name, cands, "column reference %q is ambiguous", name)
			return "", nil
		}
		if len(hits) == 1 {
			return hits[0].r.cols[hits[0].i].typ, &hits[0]
		}
		if maybe {
			return "", nil
		}
	}
	for s := sc; s != nil; s = s.outer {
		for _, r := range s.rels {
			if r.qualified && r.name == name {
				return "", nil
			}
		}
	}
	var pool []string
	for s := sc; s != nil; s = s.outer {
		for _, r := range s.rels {
			if r.unqualified {
				pool = append(pool, names(r.cols)...)
			}
		}
	}
	msg := fmt.Sprintf("column %q does not exist", name)
	if r, _ := sc.hiddenRel(func(r *rel) bool { return r.unqualified && indexes(r.cols, name) != nil }); r != nil {
		msg += fmt.Sprintf("\nHINT: There is a column named %q in table %q, but it cannot be referenced from this part of the query.", name, r.name)
	}
	b.fail("Binder", "COLUMN_NOT_FOUND", loc, name, closest(name, pool), "%s", msg)
	return "", nil
}

// hiddenRel finds an item a scope on the chain hides that matches.
func (sc *scope) hiddenRel(match func(*rel) bool) (*rel, *scope) {
	for s := sc; s != nil; s = s.outer {
		for _, r := range s.hidden {
			if match(r) {
				return r, s
			}
		}
	}
	return nil, nil
}

// findRel finds the item a qualifier names, innermost level first:
// name, schema.name or catalog.schema.name.
func (b *binder) findRel(qual []string, loc int32, sc *scope) *rel {
	name := qual[len(qual)-1]
	var schema, catalog string
	if len(qual) >= 2 {
		schema = qual[len(qual)-2]
	}
	if len(qual) >= 3 {
		catalog = qual[len(qual)-3]
	}
	for s := sc; s != nil; s = s.outer {
		var found []*rel
		for _, r := range s.rels {
			if !r.qualified || r.name != name {
				continue
			}
			if schema != "" && (!r.table || r.schema != schema) {
				continue
			}
			if catalog != "" && r.catalog != "" && r.catalog != catalog {
				continue
			}
			found = append(found, r)
		}
		if len(found) > 1 {
			b.fail("Binder", "AMBIGUOUS_ALIAS", loc, name, nil, "table reference %q is ambiguous", name)
			return nil
		}
		if len(found) == 1 {
			return found[0]
		}
	}
	var pool []string
	for s := sc; s != nil; s = s.outer {
		for _, r := range s.rels {
			if r.qualified && r.name != "" {
				pool = append(pool, r.name)
			}
		}
	}
	if r, s := sc.hiddenRel(func(r *rel) bool { return r.qualified && r.name == name }); r != nil {
		hint := fmt.Sprintf("There is an entry for table %q, but it cannot be referenced from this part of the query.", name)
		if s.needsLateral {
			hint = "To reference that table, you must mark this subquery with LATERAL."
		}
		b.fail("Binder", "UNDEFINED_TABLE", loc, name, nil, "invalid reference to FROM-clause entry for table %q\nHINT: %s", name, hint)
		return nil
	}
	b.fail("Binder", "UNDEFINED_TABLE", loc, name, closest(name, pool), "missing FROM-clause entry for table %q", name)
	return nil
}

// expandStar expands * (this level's items in FROM order) or t.*.
func (b *binder) expandStar(cr *pg_query.ColumnRef, sc *scope) ([]column, []hit, bool) {
	var cols []column
	var hits []hit
	opaque := false
	add := func(r *rel) {
		for i, c := range r.cols {
			cols = append(cols, c)
			hits = append(hits, hit{r, i})
		}
		opaque = opaque || r.opaque
	}
	qual, _ := refParts(cr)
	if len(qual) > 0 {
		if r := b.findRel(qual, cr.Location, sc); r != nil {
			add(r)
		} else {
			opaque = true
		}
		return cols, hits, opaque
	}
	any := false
	for _, r := range sc.rels {
		if r.unqualified {
			any = true
			add(r)
		}
	}
	if !any {
		b.fail("Parser", "SYNTAX_ERROR", cr.Location, "", nil, "SELECT * with no tables specified is not valid")
	}
	return cols, hits, opaque
}

// ---- expressions ----

func (b *binder) exprs(ns []*pg_query.Node, sc *scope) {
	for _, n := range ns {
		b.expr(n, sc)
	}
}

// expr binds the column references in n and returns its type, "" when not
// known.
func (b *binder) expr(n *pg_query.Node, sc *scope) string {
	if n == nil || n.Node == nil {
		return ""
	}
	switch x := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		t, _ := b.columnRef(x.ColumnRef, sc)
		return t
	case *pg_query.Node_AConst:
		return constType(x.AConst)
	case *pg_query.Node_TypeCast:
		b.expr(x.TypeCast.Arg, sc)
		return formatType(x.TypeCast.TypeName)
	case *pg_query.Node_FuncCall:
		fc := x.FuncCall
		args := make([]string, len(fc.Args))
		for i, a := range fc.Args {
			args[i] = b.expr(a, sc)
		}
		b.exprs(fc.AggOrder, sc)
		b.expr(fc.AggFilter, sc)
		b.window(fc.Over, sc)
		if len(functionSchema(fc.Funcname)) > 0 {
			return ""
		}
		return funcType(lastName(fc.Funcname), args)
	case *pg_query.Node_AExpr:
		return b.aExpr(x.AExpr, sc)
	case *pg_query.Node_BoolExpr:
		b.exprs(x.BoolExpr.Args, sc)
		return "boolean"
	case *pg_query.Node_NullTest:
		b.expr(x.NullTest.Arg, sc)
		return "boolean"
	case *pg_query.Node_BooleanTest:
		b.expr(x.BooleanTest.Arg, sc)
		return "boolean"
	case *pg_query.Node_SubLink:
		sl := x.SubLink
		b.expr(sl.Testexpr, sc)
		sub := b.query(sl.Subselect.GetSelectStmt(), sc, false, nil)
		var first column
		if len(sub.cols) > 0 {
			first = sub.cols[0]
			b.sublinks[sl] = first.name
		}
		switch sl.SubLinkType {
		case pg_query.SubLinkType_EXPR_SUBLINK:
			return first.typ
		case pg_query.SubLinkType_ARRAY_SUBLINK:
			return arrayOf(first.typ)
		case pg_query.SubLinkType_MULTIEXPR_SUBLINK, pg_query.SubLinkType_CTE_SUBLINK:
			return ""
		}
		return "boolean"
	case *pg_query.Node_CaseExpr:
		ce := x.CaseExpr
		b.expr(ce.Arg, sc)
		t := typUnknown
		for _, w := range ce.Args {
			cw := w.GetCaseWhen()
			if cw == nil {
				b.expr(w, sc)
				continue
			}
			b.expr(cw.Expr, sc)
			t = commonType(t, b.expr(cw.Result, sc))
		}
		if ce.Defresult != nil {
			t = commonType(t, b.expr(ce.Defresult, sc))
		}
		return t
	case *pg_query.Node_CoalesceExpr:
		return b.common(x.CoalesceExpr.Args, sc)
	case *pg_query.Node_MinMaxExpr:
		return b.common(x.MinMaxExpr.Args, sc)
	case *pg_query.Node_AArrayExpr:
		if len(x.AArrayExpr.Elements) == 0 {
			return ""
		}
		return arrayOf(b.common(x.AArrayExpr.Elements, sc))
	case *pg_query.Node_RowExpr:
		b.exprs(x.RowExpr.Args, sc)
		return "record"
	case *pg_query.Node_AIndirection:
		ai := x.AIndirection
		t := b.expr(ai.Arg, sc)
		elem := true
		for _, ind := range ai.Indirection {
			if idx := ind.GetAIndices(); idx != nil {
				b.expr(idx.Lidx, sc)
				b.expr(idx.Uidx, sc)
				elem = elem && !idx.IsSlice
				continue
			}
			elem = false // a field selection
		}
		if elem && strings.HasSuffix(t, "[]") {
			return strings.TrimSuffix(t, "[]")
		}
		if len(ai.Indirection) > 0 && !elem {
			return ""
		}
		return t
	case *pg_query.Node_CollateClause:
		return b.expr(x.CollateClause.Arg, sc)
	case *pg_query.Node_GroupingFunc:
		b.exprs(x.GroupingFunc.Args, sc)
		return "integer"
	case *pg_query.Node_SqlvalueFunction:
		return sqlValueType(x.SqlvalueFunction)
	case *pg_query.Node_SelectStmt:
		b.query(x.SelectStmt, sc, false, nil)
		return ""
	}
	b.walk(n, sc)
	return ""
}

func (b *binder) common(ns []*pg_query.Node, sc *scope) string {
	t := typUnknown
	for _, a := range ns {
		t = commonType(t, b.expr(a, sc))
	}
	return t
}

// walk binds every expression below m, for node types expr does not know.
func (b *binder) walk(m proto.Message, sc *scope) {
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		visit := func(pm protoreflect.Message) {
			switch c := pm.Interface().(type) {
			case *pg_query.Node:
				b.expr(c, sc)
			case *pg_query.SelectStmt:
				b.query(c, sc, false, nil)
			case *pg_query.WindowDef:
				b.window(c, sc)
			default:
				b.walk(c, sc)
			}
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visit(l.Get(i).Message())
			}
			return true
		}
		visit(v.Message())
		return true
	})
}

func (b *binder) aExpr(e *pg_query.A_Expr, sc *scope) string {
	lt := b.expr(e.Lexpr, sc)
	rt := b.expr(e.Rexpr, sc)
	switch e.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		op := lastName(e.Name)
		if e.Lexpr == nil { // prefix operator
			switch op {
			case "-", "+", "@", "~":
				return canonType(rt)
			}
			return ""
		}
		return opType(op, lt, rt)
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		return lt
	}
	return "boolean" // IN, LIKE, BETWEEN, IS DISTINCT FROM, op ANY/ALL
}

// colname is PostgreSQL's FigureColname: the name an output column gets
// without an alias.
func (b *binder) colname(n *pg_query.Node) string {
	if name, strength := b.figure(n); strength > 0 {
		return name
	}
	return "?column?"
}

func (b *binder) figure(n *pg_query.Node) (string, int) {
	if n == nil {
		return "", 0
	}
	switch x := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		for i := len(x.ColumnRef.Fields) - 1; i >= 0; i-- {
			if s := x.ColumnRef.Fields[i].GetString_(); s != nil {
				return s.Sval, 2
			}
		}
	case *pg_query.Node_AIndirection:
		ind := x.AIndirection.Indirection
		for i := len(ind) - 1; i >= 0; i-- {
			if s := ind[i].GetString_(); s != nil {
				return s.Sval, 2
			}
		}
		return b.figure(x.AIndirection.Arg)
	case *pg_query.Node_FuncCall:
		return lastName(x.FuncCall.Funcname), 2
	case *pg_query.Node_AExpr:
		if x.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case *pg_query.Node_TypeCast:
		if name, s := b.figure(x.TypeCast.Arg); s > 0 {
			return name, s
		}
		if tn := x.TypeCast.TypeName; tn != nil {
			return lastName(tn.Names), 1
		}
	case *pg_query.Node_CollateClause:
		return b.figure(x.CollateClause.Arg)
	case *pg_query.Node_GroupingFunc:
		return "grouping", 2
	case *pg_query.Node_SubLink:
		switch x.SubLink.SubLinkType {
		case pg_query.SubLinkType_EXISTS_SUBLINK:
			return "exists", 2
		case pg_query.SubLinkType_ARRAY_SUBLINK:
			return "array", 2
		case pg_query.SubLinkType_EXPR_SUBLINK:
			if name, ok := b.sublinks[x.SubLink]; ok {
				return name, 2
			}
		}
	case *pg_query.Node_CaseExpr:
		if name, s := b.figure(x.CaseExpr.Defresult); s > 1 {
			return name, s
		}
		return "case", 1
	case *pg_query.Node_AArrayExpr:
		return "array", 2
	case *pg_query.Node_RowExpr:
		return "row", 2
	case *pg_query.Node_CoalesceExpr:
		return "coalesce", 2
	case *pg_query.Node_MinMaxExpr:
		if x.MinMaxExpr.Op == pg_query.MinMaxOp_IS_LEAST {
			return "least", 2
		}
		return "greatest", 2
	case *pg_query.Node_SqlvalueFunction:
		return sqlValueName(x.SqlvalueFunction.Op), 2
	case *pg_query.Node_XmlExpr:
		if op := x.XmlExpr.Op; op >= pg_query.XmlExprOp_IS_XMLCONCAT && op <= pg_query.XmlExprOp_IS_XMLSERIALIZE {
			return strings.ToLower(strings.TrimPrefix(op.String(), "IS_")), 2
		}
	case *pg_query.Node_XmlSerialize:
		return "xmlserialize", 2
	case *pg_query.Node_JsonParseExpr:
		return "json", 2
	case *pg_query.Node_JsonScalarExpr:
		return "json_scalar", 2
	case *pg_query.Node_JsonSerializeExpr:
		return "json_serialize", 2
	case *pg_query.Node_JsonFuncExpr:
		switch x.JsonFuncExpr.Op {
		case pg_query.JsonExprOp_JSON_EXISTS_OP:
			return "json_exists", 2
		case pg_query.JsonExprOp_JSON_QUERY_OP:
			return "json_query", 2
		case pg_query.JsonExprOp_JSON_VALUE_OP:
			return "json_value", 2
		}
	case *pg_query.Node_JsonObjectConstructor:
		return "json_object", 2
	case *pg_query.Node_JsonArrayConstructor, *pg_query.Node_JsonArrayQueryConstructor:
		return "json_array", 2
	case *pg_query.Node_JsonObjectAgg:
		return "json_objectagg", 2
	case *pg_query.Node_JsonArrayAgg:
		return "json_arrayagg", 2
	}
	return "", 0
}

// ---- small helpers ----

func lastName(ns []*pg_query.Node) string {
	if len(ns) == 0 {
		return ""
	}
	return ns[len(ns)-1].GetString_().GetSval()
}

// functionSchema is a function name's qualifier unless it is pg_catalog.
func functionSchema(ns []*pg_query.Node) []string {
	var q []string
	for _, n := range ns[:max(len(ns)-1, 0)] {
		q = append(q, n.GetString_().GetSval())
	}
	if len(q) == 1 && q[0] == "pg_catalog" {
		return nil
	}
	return q
}

// bareName reports whether n is a one-part column reference.
func bareName(n *pg_query.Node) (string, int32, bool) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 {
		return "", 0, false
	}
	s := cr.Fields[0].GetString_()
	if s == nil {
		return "", 0, false
	}
	return s.Sval, cr.Location, true
}

func indexes(cols []column, name string) []int {
	var out []int
	for i, c := range cols {
		if c.name == name {
			out = append(out, i)
		}
	}
	return out
}

func names(cols []column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

// without removes the first column called name.
func without(cols []column, name string) []column {
	for i, c := range cols {
		if c.name == name {
			return append(cols[:i:i], cols[i+1:]...)
		}
	}
	return cols
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// minLoc is the smallest source location in m's subtree, -1 for none.
func minLoc(m proto.Message) int32 {
	best := int32(-1)
	if m == nil || !m.ProtoReflect().IsValid() {
		return best
	}
	eachMessage(m.ProtoReflect(), func(pm protoreflect.Message) {
		if fd := pm.Descriptor().Fields().ByName("location"); fd != nil && fd.Kind() == protoreflect.Int32Kind {
			if l := int32(pm.Get(fd).Int()); l >= 0 && (best < 0 || l < best) && pm.Has(fd) {
				best = l
			}
		}
	})
	return best
}

// sameExpr compares two expressions ignoring where they are written.
func sameExpr(a, b *pg_query.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	ca, cb := proto.Clone(a), proto.Clone(b)
	clearLocations(ca.ProtoReflect())
	clearLocations(cb.ProtoReflect())
	return proto.Equal(ca, cb)
}

func clearLocations(pm protoreflect.Message) {
	eachMessage(pm, func(pm protoreflect.Message) {
		if fd := pm.Descriptor().Fields().ByName("location"); fd != nil {
			pm.Clear(fd)
		}
	})
}

// eachMessage calls fn on pm and every message below it, parents first.
func eachMessage(pm protoreflect.Message, fn func(protoreflect.Message)) {
	fn(pm)
	pm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				eachMessage(l.Get(i).Message(), fn)
			}
			return true
		}
		eachMessage(v.Message(), fn)
		return true
	})
}

// closest returns the names of pool nearest to name, for "did you mean",
// by PostgreSQL's rule for its column hints: at most three edits and at
// most half the candidate's length, best distance only (up to three ties).
// The distance ignores case and counts a transposition as one edit.
func closest(name string, pool []string) []string {
	best := 4
	var out []string
	seen := map[string]bool{name: true}
	for _, p := range pool {
		if seen[p] {
			continue
		}
		seen[p] = true
		d := editDistance(strings.ToLower(name), strings.ToLower(p))
		if d > len([]rune(p))/2 || d > best {
			continue
		}
		if d < best {
			best, out = d, nil
		}
		if len(out) < 3 {
			out = append(out, p)
		}
	}
	return out
}

// editDistance is the optimal string alignment distance over runes.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
