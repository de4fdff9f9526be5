package postgres

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The binder's expressions: binding the column references inside them
// and figuring each one's output name.

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
		local := b.refsLocal
		t, h := b.columnRef(x.ColumnRef, sc)
		if h != nil && b.refsLocal > local && b.ctx.clause == "HAVING" && !b.ctx.inAgg && b.ctx.level != nil {
			// Outside an aggregate, HAVING reads only grouped columns.
			b.ctx.level.having = append(b.ctx.level.having, refAt{h: *h, loc: x.ColumnRef.Location})
		}
		return t
	case *pg_query.Node_AConst:
		return constType(x.AConst)
	case *pg_query.Node_TypeCast:
		b.expr(x.TypeCast.Arg, sc)
		typ := formatType(x.TypeCast.TypeName)
		b.literal(x.TypeCast.Arg.GetAConst(), typ)
		return typ
	case *pg_query.Node_FuncCall:
		fc := x.FuncCall
		kind := callKind(fc)
		saved := b.ctx
		local, outer := b.refsLocal, b.refsOuter
		switch kind {
		case "aggregate":
			b.ctx.inAgg = true
			b.ctx = b.ctx.banSRF("aggregate function calls cannot contain set-returning function calls"+srfHint, -1)
		case "window":
			b.ctx.inWindow = true
			b.ctx = b.ctx.banSRF("window function calls cannot contain set-returning function calls"+srfHint, -1)
		}
		args := make([]string, len(fc.Args))
		for i, a := range fc.Args {
			args[i] = b.expr(a, sc)
		}
		var within []string // WITHIN GROUP (ORDER BY …): the sorted values' types
		for _, o := range fc.AggOrder {
			if sb := o.GetSortBy(); sb != nil && fc.AggWithinGroup {
				within = append(within, b.expr(sb.Node, sc))
				continue
			}
			b.expr(o, sc)
		}
		if fc.AggFilter != nil {
			b.ctx = exprCtx{clause: "FILTER"}
			b.expr(fc.AggFilter, sc)
		}
		b.ctx = saved
		b.place(saved, kind, fc.Location, b.refsLocal == local && b.refsOuter > outer)
		if w := fc.Over; w != nil && b.ctx.level != nil {
			// OVER w, OVER (w …): a window of the level's WINDOW clause.
			if name := w.Name + w.Refname; name != "" && (w.Name == "" || w.Refname == "") {
				b.ctx.level.windowRefs = append(b.ctx.level.windowRefs, windowRef{name: name, loc: w.Location})
			}
		}
		b.window(fc.Over, sc)
		if len(functionSchema(fc.Funcname)) > 0 {
			return ""
		}
		if fc.AggWithinGroup {
			return withinGroupType(lastName(fc.Funcname), args, within)
		}
		return funcType(lastName(fc.Funcname), args)
	case *pg_query.Node_AExpr:
		return b.aExpr(x.AExpr, sc)
	case *pg_query.Node_BoolExpr:
		op := strings.TrimSuffix(x.BoolExpr.Boolop.String(), "_EXPR") // AND, OR, NOT
		saved := b.ctx
		for _, a := range x.BoolExpr.Args {
			b.ctx = saved.banSRF("argument of "+op+" must not return a set", minLoc(a))
			b.expr(a, sc)
		}
		b.ctx = saved
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
		if !sub.opaque && len(sub.cols) > 1 {
			switch sl.SubLinkType {
			case pg_query.SubLinkType_EXPR_SUBLINK, pg_query.SubLinkType_ARRAY_SUBLINK:
				b.fail("Binder", "SYNTAX_ERROR", sl.Location, "", nil, "subquery must return only one column")
			case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
				if sl.Testexpr.GetRowExpr() == nil {
					b.fail("Binder", "SYNTAX_ERROR", sl.Location, "", nil, "subquery has too many columns")
				}
			}
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
		saved := b.ctx
		inCase := saved.banSRF("set-returning functions are not allowed in CASE"+srfHint, -1)
		b.ctx = inCase
		defer func() { b.ctx = saved }()
		b.expr(ce.Arg, sc)
		var results []string
		var locs []int32
		for _, w := range ce.Args {
			cw := w.GetCaseWhen()
			if cw == nil {
				b.expr(w, sc)
				continue
			}
			// The condition must be one boolean, not a set of them.
			b.ctx = inCase.banSRF("argument of CASE/WHEN must not return a set", minLoc(cw.Expr))
			b.expr(cw.Expr, sc)
			b.ctx = inCase
			results = append(results, b.expr(cw.Result, sc))
			locs = append(locs, minLoc(cw.Result))
		}
		// The ELSE comes first (without one, PostgreSQL's ELSE NULL).
		def := typUnknown
		if ce.Defresult != nil {
			def = b.expr(ce.Defresult, sc)
		}
		t := b.resolve("CASE", append([]string{def}, results...), append([]int32{minLoc(ce.Defresult)}, locs...))
		nodes := []*pg_query.Node{ce.Defresult}
		for _, w := range ce.Args {
			if cw := w.GetCaseWhen(); cw != nil {
				nodes = append(nodes, cw.Result)
			}
		}
		b.literals(nodes, t)
		if t == typUnknown {
			t = "text" // all untyped: PostgreSQL resolves them as text
		}
		return t
	case *pg_query.Node_CoalesceExpr:
		saved := b.ctx
		b.ctx = saved.banSRF("set-returning functions are not allowed in COALESCE"+srfHint, -1)
		defer func() { b.ctx = saved }()
		return b.common("COALESCE", x.CoalesceExpr.Args, sc)
	case *pg_query.Node_MinMaxExpr:
		what := "GREATEST"
		if x.MinMaxExpr.Op == pg_query.MinMaxOp_IS_LEAST {
			what = "LEAST"
		}
		return b.common(what, x.MinMaxExpr.Args, sc)
	case *pg_query.Node_AArrayExpr:
		if len(x.AArrayExpr.Elements) == 0 {
			return ""
		}
		t := b.common("ARRAY", x.AArrayExpr.Elements, sc)
		if t == typUnknown {
			t = "text" // ARRAY['a', 'b'] is text[]
		}
		return arrayOf(t)
	case *pg_query.Node_RowExpr:
		b.exprs(x.RowExpr.Args, sc)
		return "record"
	case *pg_query.Node_AIndirection:
		ai := x.AIndirection
		t := b.expr(ai.Arg, sc)
		elem, slice := true, false
		for _, ind := range ai.Indirection {
			if idx := ind.GetAIndices(); idx != nil {
				b.expr(idx.Lidx, sc)
				b.expr(idx.Uidx, sc)
				slice = slice || idx.IsSlice
				continue
			}
			elem = false // a field selection
		}
		switch {
		case !strings.HasSuffix(t, "[]") || len(ai.Indirection) == 0:
		case elem && slice:
			return noMods(t) // a[1:2] (any subscript a slice) is an array
		case elem:
			return noMods(strings.TrimSuffix(t, "[]"))
		}
		if len(ai.Indirection) > 0 {
			return ""
		}
		return t
	case *pg_query.Node_CollateClause:
		return b.expr(x.CollateClause.Arg, sc)
	case *pg_query.Node_GroupingFunc:
		gc := groupingCall{args: x.GroupingFunc.Args, hits: make([]*hit, len(x.GroupingFunc.Args))}
		local, outer := b.refsLocal, b.refsOuter
		for i, a := range x.GroupingFunc.Args {
			if cr := a.GetColumnRef(); cr != nil && !isStar(cr) {
				_, gc.hits[i] = b.columnRef(cr, sc)
			} else {
				b.expr(a, sc)
			}
		}
		// One reading an outer level's columns is that level's.
		if b.ctx.level != nil && !(b.refsOuter > outer && b.refsLocal == local) {
			b.ctx.level.groupings = append(b.ctx.level.groupings, gc)
		}
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

// common binds ns and resolves their common type, as what (COALESCE,
// ARRAY, …) does.
func (b *binder) common(what string, ns []*pg_query.Node, sc *scope) string {
	types := make([]string, len(ns))
	locs := make([]int32, len(ns))
	for i, a := range ns {
		types[i], locs[i] = b.expr(a, sc), minLoc(a)
	}
	t := b.resolve(what, types, locs)
	b.literals(ns, t)
	if t == typUnknown {
		t = "text" // all untyped: PostgreSQL resolves them as text
	}
	return t
}

// literals checks the untyped string literals among ns as the server reads
// them once their common type is t.
func (b *binder) literals(ns []*pg_query.Node, t string) {
	for _, n := range ns {
		b.literal(n.GetAConst(), t)
	}
}

// resolve is commonOf(types), refusing as PostgreSQL's select_common_type
// does two types of different categories (integer and text), at the
// offending value's location; "" then.
func (b *binder) resolve(what string, types []string, locs []int32) string {
	first := ""
	for i, t := range types {
		if t == "" {
			break // past a type not known, what is matched is not known
		}
		if t == typUnknown {
			continue
		}
		if first == "" {
			first = t
			continue
		}
		if cf, ct := category(first), category(t); cf != 0 && ct != 0 && cf != ct {
			b.fail("Binder", "DATATYPE_MISMATCH", locs[i], "", nil, "%s types %s and %s cannot be matched", what, typeName(first), typeName(t))
			return ""
		}
	}
	return commonOf(types)
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
		b.operator(op, lt, rt, e.Location)
		if comparison[op] {
			// An untyped literal compared with a number is read as one.
			if rt == typUnknown {
				b.literal(e.Rexpr.GetAConst(), lt)
			}
			if lt == typUnknown {
				b.literal(e.Lexpr.GetAConst(), rt)
			}
		}
		return opType(op, lt, rt)
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		if strings.HasSuffix(rt, "[]") {
			b.operator(lastName(e.Name), lt, strings.TrimSuffix(rt, "[]"), e.Location)
		}
		return "boolean"
	case pg_query.A_Expr_Kind_AEXPR_IN:
		// x IN ('a', 'b'): each literal is compared with x.
		b.literals(e.Rexpr.GetList().GetItems(), lt)
		return "boolean"
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		// NULLIF(a, b) is a, as the = operator it resolves to reads a.
		cl, cr := canonType(lt), canonType(rt)
		switch {
		case lt == "" || lt == typUnknown:
			return ""
		case cl == "character varying":
			return "text" // varchar = … is text's operator
		case rt == typUnknown || cl == cr || isInt(cl) && isInt(cr):
			return lt
		}
		return ""
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
