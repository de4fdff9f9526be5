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
		var results []string
		for _, w := range ce.Args {
			cw := w.GetCaseWhen()
			if cw == nil {
				b.expr(w, sc)
				continue
			}
			b.expr(cw.Expr, sc)
			results = append(results, b.expr(cw.Result, sc))
		}
		// Without ELSE, PostgreSQL adds ELSE NULL: a result of its own.
		results = append(results, typUnknown)
		if ce.Defresult != nil {
			results[len(results)-1] = b.expr(ce.Defresult, sc)
		}
		return commonOf(results)
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
	types := make([]string, len(ns))
	for i, a := range ns {
		types[i] = b.expr(a, sc)
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
		return opType(op, lt, rt)
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
