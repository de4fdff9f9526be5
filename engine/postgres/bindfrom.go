package postgres

import (
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// The binder's FROM clause: tables, subqueries, functions and joins, and
// the namespace entries they add.

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
			r.cols = append(r.cols, column{name: c.Name, typ: declaredType(c.Type)})
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
	"jsonb_array_elements": true, "json_array_elements": true,
	"jsonb_array_elements_text": true, "json_array_elements_text": true,
	"jsonb_object_keys": true, "json_object_keys": true,
}

// recordSRFs are set-returning functions in FROM with fixed output
// columns.
var recordSRFs = map[string][]column{
	"jsonb_each":      {{name: "key", typ: "text"}, {name: "value", typ: "jsonb"}},
	"json_each":       {{name: "key", typ: "text"}, {name: "value", typ: "json"}},
	"jsonb_each_text": {{name: "key", typ: "text"}, {name: "value", typ: "text"}},
	"json_each_text":  {{name: "key", typ: "text"}, {name: "value", typ: "text"}},
}

// allScalarSRFs reports whether every call is one of scalarSRFs (unnest
// of one array), unqualified.
func allScalarSRFs(calls []*pg_query.FuncCall) bool {
	for _, c := range calls {
		if c == nil || len(functionSchema(c.Funcname)) > 0 {
			return false
		}
		name := lastName(c.Funcname)
		if !scalarSRFs[name] || name == "unnest" && len(c.Args) != 1 {
			return false
		}
	}
	return len(calls) > 0
}

// srfOutName is the name of the one output column of a set-returning
// function declared with an OUT parameter: the parameter's, whatever the
// table alias.
var srfOutName = map[string]string{
	"jsonb_array_elements": "value", "json_array_elements": "value",
	"jsonb_array_elements_text": "value", "json_array_elements_text": "value",
}

func (b *binder) rangeFunction(rf *pg_query.RangeFunction, lsc *scope) *rel {
	// A function in FROM is implicitly LATERAL.
	var calls []*pg_query.FuncCall
	var types []string
	ownDefs := false // a ROWS FROM function with a column definition list of its own
	for _, f := range rf.Functions {
		items := f.GetList().GetItems()
		if len(items) == 0 {
			continue
		}
		types = append(types, b.expr(items[0], lsc))
		calls = append(calls, items[0].GetFuncCall())
		ownDefs = ownDefs || len(items) > 1 && len(items[1].GetList().GetItems()) > 0
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
		if out, ok := srfOutName[fname]; ok {
			name = out
		}
		r.cols = []column{{name: name, typ: types[0]}}
		r.scalar = !rf.Ordinality
	case len(calls) == 1 && calls[0] != nil && !rf.IsRowsfrom && recordSRFs[fname] != nil && len(functionSchema(calls[0].Funcname)) == 0:
		r.opaque = false
		r.cols = append([]column(nil), recordSRFs[fname]...)
	case rf.IsRowsfrom && !ownDefs && allScalarSRFs(calls):
		// ROWS FROM (f(…), g(…)): one column per function.
		r.opaque = false
		for i, c := range calls {
			name := lastName(c.Funcname)
			if out, ok := srfOutName[name]; ok {
				name = out
			}
			r.cols = append(r.cols, column{name: name, typ: types[i]})
		}
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
		b.inClause("JOIN conditions", j.Quals, sc.sibling(both, left, false))
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
