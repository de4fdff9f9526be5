package postgres

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/efmesh/efmesh/engine"
)

// This file converts pg_query's canonical form to an engine.Outline. The
// canonical JSON is pg_query's protobuf JSON, so it is read back into the
// parser's own message types.

var (
	_ engine.Outliner = Parser{}
	_ engine.Outliner = (*DB)(nil)
)

// Outline reads a canonical form of this engine; see Parser.Outline.
func (d *DB) Outline(canonical []byte) (*engine.Outline, error) { return Parser{}.Outline(canonical) }

// Outline converts a canonical form (see Canonicalize) to an
// engine.Outline. It needs no server.
//
// The parts of Query.Rest carry the names DuckDB's serializer gives the
// same clauses, so explanations read alike on both engines: from_table,
// where_clause, group_expressions, having, window, modifiers (DISTINCT,
// ORDER BY, LIMIT, OFFSET, FOR UPDATE), cte_map, values, and left, right,
// setop_type and setop_all for a set operation.
func (Parser) Outline(canonical []byte) (*engine.Outline, error) {
	var n pg_query.Node
	if err := protojson.Unmarshal(canonical, &n); err != nil {
		return nil, fmt.Errorf("postgres: outline: %w", err)
	}
	s := n.GetSelectStmt()
	if s == nil {
		return nil, fmt.Errorf("postgres: outline: not a SELECT statement")
	}
	o := &engine.Outline{Query: outlineQuery(s)}
	visit(s.ProtoReflect(), true, func(m proto.Message) bool {
		if fc, ok := m.(*pg_query.FuncCall); ok && fc.Over != nil {
			o.Windows = addName(o.Windows, lastName(fc.Funcname))
		}
		return true
	})
	slices.Sort(o.Windows)
	visit(s.ProtoReflect(), true, func(m proto.Message) bool {
		var name string
		switch x := m.(type) {
		case *pg_query.FuncCall:
			name = lastName(x.Funcname)
		case *pg_query.SQLValueFunction:
			// CURRENT_TIMESTAMP, CURRENT_DATE, LOCALTIME, … written bare.
			name = strings.TrimSuffix(strings.TrimPrefix(x.Op.String(), "SVFOP_"), "_N")
		}
		if name = strings.ToLower(name); name != "" && !slices.Contains(o.Calls, name) {
			o.Calls = append(o.Calls, name)
		}
		return true
	})
	slices.Sort(o.Calls)
	return o, nil
}

// restPart names the parts of a SelectStmt outside its target list (by
// JSON field name); a field not listed is a part of its own name.
var restPart = map[string]string{
	"fromClause": "from_table", "whereClause": "where_clause",
	"groupClause": "group_expressions", "groupDistinct": "group_expressions",
	"havingClause": "having", "windowClause": "window",
	"distinctClause": "modifiers", "sortClause": "modifiers", "limitCount": "modifiers",
	"limitOffset": "modifiers", "limitOption": "modifiers", "lockingClause": "modifiers",
	"withClause": "cte_map", "valuesLists": "values", "intoClause": "into",
	"larg": "left", "rarg": "right", "op": "setop_type", "all": "setop_all",
	"targetList": "select_list",
}

// outlineQuery converts one SELECT (a set operation, a VALUES list); nil
// for none.
func outlineQuery(s *pg_query.SelectStmt) *engine.Query {
	if s == nil {
		return nil
	}
	q := &engine.Query{Rest: map[string]string{}}
	if w := s.WithClause; w != nil {
		for _, c := range w.Ctes {
			if ce := c.GetCommonTableExpr(); ce != nil {
				q.CTEs = append(q.CTEs, engine.CTE{Name: ce.Ctename, Query: outlineQuery(ce.Ctequery.GetSelectStmt()), Columns: nodeNames(ce.Aliascolnames)})
			}
		}
	}
	switch {
	case s.Op != pg_query.SetOperation_SETOP_NONE:
		q.Kind = engine.SetOperation
		q.Branches = []*engine.Query{outlineQuery(s.Larg), outlineQuery(s.Rarg)}
	case len(s.ValuesLists) > 0:
		q.Kind = "values"
	default:
		q.Kind = engine.Select
		for _, t := range s.TargetList {
			if rt := t.GetResTarget(); rt != nil {
				q.Items = append(q.Items, outlineItem(rt))
			}
		}
		for i, f := range s.FromClause {
			src := sources(f)
			if i > 0 && len(src) > 0 {
				src[0].Join = "cross" // a comma
			}
			q.From = append(q.From, src...)
		}
		q.Where = columnRefs(s.WhereClause)
		q.WhereEqual = equalities(s.WhereClause)
		q.Distinct = len(s.DistinctClause) > 0
		q.Grouped = len(s.GroupClause) > 0
		// PostgreSQL has no GROUP BY ALL or ORDER BY ALL: a position
		// (GROUP BY 1) names an existing item, which an appended one
		// does not move.
		q.Limited = s.LimitCount != nil || s.LimitOffset != nil
		clauses := clauseNodes(s)
		for _, c := range clauses {
			q.Reads = append(q.Reads, columnRefs(c)...)
			q.Stars = append(q.Stars, nestedStars(c)...)
		}
		for _, t := range s.TargetList {
			if rt := t.GetResTarget(); rt != nil && !isStarItem(rt) {
				q.Stars = append(q.Stars, nestedStars(rt.Val)...)
			}
		}
		subs := append(slices.Clip(clauses), s.TargetList...)
		for _, f := range s.FromClause {
			subs = append(subs, joinQuals(f)...)
		}
		for _, n := range subs {
			q.Subqueries = append(q.Subqueries, subqueries(n)...)
		}
	}
	parts := map[string]protoreflect.Message{}
	s.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.JSONName() == "targetList" && q.Kind == engine.Select {
			return true
		}
		name := restPart[fd.JSONName()]
		if name == "" {
			name = fd.JSONName()
		}
		p := parts[name]
		if p == nil {
			p = (&pg_query.SelectStmt{}).ProtoReflect()
			parts[name] = p
		}
		p.Set(fd, v)
		return true
	})
	for name, p := range parts {
		q.Rest[name] = hash(p.Interface())
	}
	return q
}

// clauseNodes are the parts of a plain SELECT outside its select list
// and FROM clause that read columns: WHERE, GROUP BY, HAVING, WINDOW,
// DISTINCT ON, ORDER BY, LIMIT and OFFSET.
func clauseNodes(s *pg_query.SelectStmt) []*pg_query.Node {
	var out []*pg_query.Node
	out = append(out, s.WhereClause)
	out = append(out, s.GroupClause...)
	out = append(out, s.HavingClause)
	out = append(out, s.WindowClause...)
	out = append(out, s.DistinctClause...)
	out = append(out, s.SortClause...)
	out = append(out, s.LimitCount, s.LimitOffset)
	return slices.DeleteFunc(out, func(n *pg_query.Node) bool { return n == nil })
}

// isStarItem reports whether a select item is a * or rel.* of its own.
func isStarItem(rt *pg_query.ResTarget) bool {
	cr := rt.Val.GetColumnRef()
	return cr != nil && isStar(cr)
}

// nestedStars lists the relation names of the stars inside an expression
// ("" for an unqualified *), outside subqueries: row_to_json(p.*),
// ROW(p.*), count(DISTINCT (p.*)). count(*) is no star: it reads no
// column.
func nestedStars(n *pg_query.Node) []string {
	if n == nil {
		return nil
	}
	var out []string
	visit(n.ProtoReflect(), false, func(m proto.Message) bool {
		cr, ok := m.(*pg_query.ColumnRef)
		if !ok {
			return true
		}
		if isStar(cr) {
			qual, _ := refParts(cr)
			name := ""
			if len(qual) > 0 {
				name = qual[len(qual)-1]
			}
			out = append(out, name)
		}
		return false
	})
	return out
}

// subqueries outlines the queries of the subquery expressions (EXISTS,
// IN, ANY, a scalar subquery, ARRAY(…)) in n, not entering them; the
// compared expression of x IN (SELECT …) is searched too (it is n's).
func subqueries(n *pg_query.Node) []*engine.Query {
	if n == nil {
		return nil
	}
	var out []*engine.Query
	visit(n.ProtoReflect(), true, func(m proto.Message) bool {
		sl, ok := m.(*pg_query.SubLink)
		if !ok {
			return true
		}
		if sub := sl.Subselect.GetSelectStmt(); sub != nil {
			out = append(out, outlineQuery(sub))
		}
		out = append(out, subqueries(sl.Testexpr)...)
		return false
	})
	return out
}

// joinQuals lists the ON conditions of a FROM item's joins, not
// entering its subqueries (their expressions belong to their own scope).
func joinQuals(n *pg_query.Node) []*pg_query.Node {
	j := n.GetJoinExpr()
	if j == nil {
		return nil
	}
	out := joinQuals(j.Larg)
	if j.Quals != nil {
		out = append(out, j.Quals)
	}
	return append(out, joinQuals(j.Rarg)...)
}

// sources lists what one FROM item binds, joins flattened.
func sources(n *pg_query.Node) []engine.Source {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		rv := x.RangeVar
		return []engine.Source{{Schema: rv.Schemaname, Table: rv.Relname, Alias: rv.GetAlias().GetAliasname(), Columns: nodeNames(rv.GetAlias().GetColnames())}}
	case *pg_query.Node_RangeSubselect:
		rs := x.RangeSubselect
		return []engine.Source{{Alias: rs.GetAlias().GetAliasname(), Query: outlineQuery(rs.Subquery.GetSelectStmt()), Columns: nodeNames(rs.GetAlias().GetColnames())}}
	case *pg_query.Node_JoinExpr:
		j := x.JoinExpr
		right := sources(j.Rarg)
		if len(right) > 0 {
			switch {
			case j.IsNatural:
				right[0].Join = "natural"
			case j.Quals == nil && len(j.UsingClause) == 0:
				right[0].Join = "cross"
			default:
				right[0].Join = "regular"
			}
			for _, u := range j.UsingClause {
				if sv := u.GetString_(); sv != nil {
					right[0].Using = append(right[0].Using, sv.Sval)
				}
			}
			right[0].On = columnRefs(j.Quals)
			right[0].Equal = equalities(j.Quals)
		}
		return append(sources(j.Larg), right...)
	case *pg_query.Node_RangeFunction:
		return []engine.Source{rangeFunction(x.RangeFunction)}
	case *pg_query.Node_RangeTableFunc:
		return []engine.Source{{Alias: x.RangeTableFunc.GetAlias().GetAliasname()}}
	}
	return []engine.Source{{}}
}

// nodeNames reads a list of names (an alias's column list, a CTE's); nil
// for none.
func nodeNames(list []*pg_query.Node) []string {
	var out []string
	for _, n := range list {
		if sv := n.GetString_(); sv != nil {
			out = append(out, sv.Sval)
		}
	}
	return out
}

// rangeFunction outlines a table function of a FROM clause (unnest(x),
// generate_series(…), jsonb_array_elements(x), ROWS FROM (…)): its name,
// the columns its arguments read, and the names AS f(a, b) gives its
// columns.
func rangeFunction(rf *pg_query.RangeFunction) engine.Source {
	src := engine.Source{Alias: rf.GetAlias().GetAliasname(), Columns: nodeNames(rf.GetAlias().GetColnames())}
	for _, f := range rf.Functions {
		// Each function is a list: the call, then its column definitions.
		items := f.GetList().GetItems()
		if len(items) == 0 {
			continue
		}
		fc := items[0].GetFuncCall()
		if fc == nil {
			continue
		}
		if src.Function == "" {
			src.Function = strings.ToLower(lastName(fc.Funcname))
		}
		for _, a := range fc.Args {
			src.Args = append(src.Args, columnRefs(a)...)
		}
	}
	if out, ok := srfOutName[src.Function]; ok && len(src.Columns) == 0 && len(rf.Functions) == 1 {
		// An OUT parameter names the column, whatever the alias.
		src.Columns = []string{out}
	}
	return src
}

// columnRefs lists the columns an expression reads, outside subqueries. A
// field read of a composite or JSON value ((c).f, c.f, c->'f', c->>'f')
// is given as the dotted name would be: Path c, f.
// equalities are the conjuncts of a condition (AND-ed at its top) that
// compare two expressions reading one column each with =.
func equalities(n *pg_query.Node) []engine.Equality {
	if b := n.GetBoolExpr(); b != nil {
		if b.Boolop != pg_query.BoolExprType_AND_EXPR {
			return nil
		}
		var out []engine.Equality
		for _, a := range b.Args {
			out = append(out, equalities(a)...)
		}
		return out
	}
	x := n.GetAExpr()
	if x == nil || x.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(x.Name) != 1 || x.Name[0].GetString_().GetSval() != "=" {
		return nil
	}
	l, r := columnRefs(x.Lexpr), columnRefs(x.Rexpr)
	if len(l) == 1 && len(r) == 1 {
		return []engine.Equality{{Left: l[0], Right: r[0]}}
	}
	return nil
}

func columnRefs(n *pg_query.Node) []engine.ColumnRef {
	if n == nil {
		return nil
	}
	var refs []engine.ColumnRef
	visit(n.ProtoReflect(), false, func(m proto.Message) bool {
		switch x := m.(type) {
		case *pg_query.ColumnRef:
			if path := refPath(x); len(path) > 0 && !isStar(x) {
				refs = append(refs, pathRef(path))
			}
			return false
		case *pg_query.A_Indirection, *pg_query.A_Expr:
			if path := pathOf(x); len(path) > 0 {
				refs = append(refs, pathRef(path))
				return false
			}
		}
		return true
	})
	return refs
}

// refPath is the names of a column reference, qualifiers first; nil for
// a star or a reference with a non-name part.
func refPath(cr *pg_query.ColumnRef) []string {
	var path []string
	for _, f := range cr.Fields {
		sv := f.GetString_()
		if sv == nil {
			return nil
		}
		path = append(path, sv.Sval)
	}
	return path
}

// fieldPath is pathOf the expression of node n.
func fieldPath(n *pg_query.Node) []string {
	switch {
	case n.GetColumnRef() != nil:
		return pathOf(n.GetColumnRef())
	case n.GetAIndirection() != nil:
		return pathOf(n.GetAIndirection())
	case n.GetAExpr() != nil:
		return pathOf(n.GetAExpr())
	}
	return nil
}

// pathOf reads a field access on a column reference as a path: (c).f
// and (t.c).f.g, c->'f' and c->>'f' (chained); nil for anything else.
func pathOf(m proto.Message) []string {
	switch x := m.(type) {
	case *pg_query.ColumnRef:
		return refPath(x)
	case *pg_query.A_Indirection:
		path := fieldPath(x.Arg)
		if path == nil {
			return nil
		}
		for _, i := range x.Indirection {
			sv := i.GetString_()
			if sv == nil {
				return nil // a subscript [i] or .*
			}
			path = append(path, sv.Sval)
		}
		return path
	case *pg_query.A_Expr:
		if x.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(x.Name) != 1 {
			return nil
		}
		if op := x.Name[0].GetString_().GetSval(); op != "->" && op != "->>" {
			return nil
		}
		key := x.Rexpr.GetAConst().GetSval()
		path := fieldPath(x.Lexpr)
		if key == nil || path == nil {
			return nil
		}
		return append(path, key.Sval)
	}
	return nil
}

// pathRef is the reference a dotted path reads: its last two parts as
// qualifier and column, the whole path where it has more than one part.
func pathRef(path []string) engine.ColumnRef {
	ref := engine.ColumnRef{Column: path[len(path)-1]}
	if len(path) >= 2 {
		ref.Qualifier = path[len(path)-2]
		ref.Path = path
	}
	return ref
}

// outlineItem converts one target-list entry.
func outlineItem(rt *pg_query.ResTarget) engine.Item {
	it := engine.Item{Hash: hash(rt), Name: rt.Name}
	if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
		it.Star = true
		if qual, _ := refParts(cr); len(qual) > 0 {
			it.StarOf = qual[len(qual)-1]
		}
		return it
	}
	if it.Name == "" {
		// PostgreSQL's FigureColname, as the binder names the column.
		if name, strength := (&binder{}).figure(rt.Val); strength > 0 {
			it.Name = name
		}
	}
	if rt.Val == nil {
		return it
	}
	// Column references and windows, outside subqueries.
	it.Refs = columnRefs(rt.Val)
	it.Plain = rt.Val.GetColumnRef() != nil
	visit(rt.Val.ProtoReflect(), true, func(m proto.Message) bool {
		_, sub := m.(*pg_query.SubLink)
		it.Subquery = it.Subquery || sub
		return !it.Subquery
	})
	it.Fields = builtFields(rt.Val)
	visit(rt.Val.ProtoReflect(), false, func(m proto.Message) bool {
		if x, ok := m.(*pg_query.FuncCall); ok && x.Over != nil {
			it.Windows = addName(it.Windows, lastName(x.Funcname))
		}
		return true
	})
	// Calls, outside windows and subqueries.
	visit(rt.Val.ProtoReflect(), false, func(m proto.Message) bool {
		if fc, ok := m.(*pg_query.FuncCall); ok {
			if fc.Over != nil {
				return false
			}
			if name := strings.ToLower(lastName(fc.Funcname)); name != "" && !slices.Contains(it.Calls, name) {
				it.Calls = append(it.Calls, name)
			}
		}
		return true
	})
	return it
}

// builtFields are the fields of a JSON object an item builds at its top
// (jsonb_build_object('first', a.fn, …), json_build_object), each with the
// columns its value reads: Postgres' struct, read back with ->'first'.
func builtFields(n *pg_query.Node) []engine.Field {
	fc := n.GetFuncCall()
	if fc == nil {
		return nil
	}
	switch strings.ToLower(lastName(fc.Funcname)) {
	case "jsonb_build_object", "json_build_object":
	default:
		return nil
	}
	var out []engine.Field
	for i := 0; i+1 < len(fc.Args); i += 2 {
		if key := fc.Args[i].GetAConst().GetSval(); key != nil {
			out = append(out, engine.Field{Name: key.Sval, Refs: columnRefs(fc.Args[i+1])})
		}
	}
	return out
}

// visit calls f on m and every message below it, parents first, fields in
// declaration order, descending into a message when f returns true.
// Without subqueries a sublink's subquery is not entered (its test
// expression is).
func visit(m protoreflect.Message, subqueries bool, f func(proto.Message) bool) {
	if !m.IsValid() {
		return
	}
	if sl, ok := m.Interface().(*pg_query.SubLink); ok && !subqueries {
		if sl.Testexpr != nil {
			visit(sl.Testexpr.ProtoReflect(), false, f)
		}
		return
	}
	if !f(m.Interface()) {
		return
	}
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Message() == nil || fd.IsMap() || !m.Has(fd) {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for j := 0; j < l.Len(); j++ {
				visit(l.Get(j).Message(), subqueries, f)
			}
			continue
		}
		visit(m.Get(fd).Message(), subqueries, f)
	}
}

// addName adds a function name to names unless present ("?" for none).
func addName(names []string, name string) []string {
	if name == "" {
		name = "?"
	}
	if slices.Contains(names, name) {
		return names
	}
	return append(names, name)
}

// hash hashes a message's deterministic binary encoding.
func hash(m proto.Message) string {
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	return engine.Hash(b)
}
