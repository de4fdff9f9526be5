package postgres

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Where PostgreSQL allows aggregates, window functions and set-returning
// functions (parse_agg.c, parse_func.c's check_srf_call_placement): not in
// WHERE or a JOIN condition, not nested in one another, a set-returning
// function not in CASE or COALESCE. The binder reports what the server
// would, at the call, with the server's message.

// exprCtx is where the expression being bound sits within its query level.
type exprCtx struct {
	// clause is the clause of the level being bound ("WHERE", "JOIN
	// conditions", "GROUP BY", "HAVING"); "" where everything is allowed
	// (the select list, ORDER BY).
	clause string
	// inAgg, inWindow: inside an aggregate's or a window function's
	// arguments; windowDef: inside a window's PARTITION BY or ORDER BY.
	inAgg, inWindow, windowDef bool
	// srfBan is what the innermost construct around (an aggregate's or
	// window function's arguments, CASE, COALESCE, a condition that must
	// be one boolean) says of a set-returning function in it; srfAt is
	// where it says it, -1 at the call.
	srfBan string
	srfAt  int32
	// level collects what the level's GROUP BY decides, once bound.
	level *levelState
}

// levelState is what a query level collects for its GROUP BY to check.
type levelState struct {
	groupings []groupingCall
	// having are the columns HAVING reads outside aggregates.
	having []refAt
	// windowRefs are the windows calls name (OVER w).
	windowRefs []windowRef
}

// refAt is a column reference and where it is written.
type refAt struct {
	h   hit
	loc int32
}

// windowRef is a window name a call refers to, where it is written.
type windowRef struct {
	name string
	loc  int32
}

// groupingCall is a GROUPING(…) of the level: each argument, and the
// column it names when it is a plain column reference.
type groupingCall struct {
	args []*pg_query.Node
	hits []*hit
}

// banSRF returns c with the innermost construct's word on set-returning
// functions.
func (c exprCtx) banSRF(msg string, at int32) exprCtx {
	c.srfBan, c.srfAt = msg, at
	return c
}

// aggregateNames are PostgreSQL's built-in aggregates.
var aggregateNames = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "array_agg": true, "string_agg": true,
	"bool_and": true, "bool_or": true, "every": true, "bit_and": true, "bit_or": true, "bit_xor": true,
	"json_agg": true, "jsonb_agg": true, "json_object_agg": true, "jsonb_object_agg": true,
	"stddev": true, "stddev_pop": true, "stddev_samp": true, "variance": true, "var_pop": true, "var_samp": true,
	"corr": true, "covar_pop": true, "covar_samp": true, "regr_avgx": true, "regr_avgy": true, "regr_count": true,
	"regr_intercept": true, "regr_r2": true, "regr_slope": true, "regr_sxx": true, "regr_sxy": true, "regr_syy": true,
	"percentile_cont": true, "percentile_disc": true, "mode": true, "xmlagg": true, "range_agg": true,
	"range_intersect_agg": true, "any_value": true,
}

// srfNames are PostgreSQL's built-in set-returning functions a select
// list commonly calls.
var srfNames = map[string]bool{
	"generate_series": true, "generate_subscripts": true, "unnest": true, "regexp_matches": true,
	"regexp_split_to_table": true, "string_to_table": true, "jsonb_array_elements": true,
	"json_array_elements": true, "jsonb_array_elements_text": true, "json_array_elements_text": true,
	"jsonb_each": true, "json_each": true, "jsonb_each_text": true, "json_each_text": true,
	"jsonb_object_keys": true, "json_object_keys": true, "jsonb_path_query": true,
}

// callKind is "window", "aggregate" or "srf" for a call that is one, else "".
func callKind(fc *pg_query.FuncCall) string {
	if fc.Over != nil {
		return "window"
	}
	// Only an aggregate takes *, DISTINCT, ORDER BY, FILTER or WITHIN GROUP.
	if fc.AggStar || fc.AggDistinct || len(fc.AggOrder) > 0 || fc.AggFilter != nil || fc.AggWithinGroup {
		return "aggregate"
	}
	if len(functionSchema(fc.Funcname)) > 0 {
		return ""
	}
	name := lastName(fc.Funcname)
	switch {
	case aggregateNames[name]:
		return "aggregate"
	case srfNames[name]:
		return "srf"
	}
	return ""
}

const srfHint = "\nHINT: You might be able to move the set-returning function into a LATERAL FROM item."

// place reports a call of kind at loc that PostgreSQL refuses where c
// says it sits. outerOnly: the call's arguments read only columns of
// outer levels, so an aggregate is the outer level's, not this one's.
func (b *binder) place(c exprCtx, kind string, loc int32, outerOnly bool) {
	switch kind {
	case "aggregate":
		switch {
		case outerOnly:
		case c.inAgg:
			b.fail("Binder", "GROUPING_ERROR", loc, "", nil, "aggregate function calls cannot be nested")
		case c.clause == "WHERE" || c.clause == "JOIN conditions" || c.clause == "GROUP BY" || c.clause == "FILTER":
			b.fail("Binder", "GROUPING_ERROR", loc, "", nil, "aggregate functions are not allowed in %s", c.clause)
		}
	case "window":
		switch {
		case c.inAgg:
			b.fail("Binder", "GROUPING_ERROR", loc, "", nil, "aggregate function calls cannot contain window function calls")
		case c.inWindow:
			b.fail("Binder", "WINDOWING_ERROR", loc, "", nil, "window function calls cannot be nested")
		case c.windowDef:
			b.fail("Binder", "WINDOWING_ERROR", loc, "", nil, "window functions are not allowed in window definitions")
		case c.clause != "":
			b.fail("Binder", "WINDOWING_ERROR", loc, "", nil, "window functions are not allowed in %s", c.clause)
		}
	case "srf":
		// The clause is checked as the call is bound; the constructs
		// around it afterwards, the innermost first.
		switch {
		case c.clause == "WHERE" || c.clause == "JOIN conditions" || c.clause == "HAVING" || c.clause == "FILTER":
			b.fail("Binder", "FEATURE_NOT_SUPPORTED", loc, "", nil, "set-returning functions are not allowed in %s", c.clause)
		case c.srfBan != "":
			if c.srfAt >= 0 {
				loc = c.srfAt
			}
			b.fail("Binder", "FEATURE_NOT_SUPPORTED", loc, "", nil, "%s", c.srfBan)
		}
	}
}

// inClause binds n as part of clause of the current level.
func (b *binder) inClause(clause string, n *pg_query.Node, sc *scope) {
	saved := b.ctx
	b.ctx.clause = clause
	b.expr(n, sc)
	b.ctx = saved
}

// groupingArgs reports, as PostgreSQL does, a GROUPING argument that is
// none of the level's GROUP BY expressions. g is what the GROUP BY
// groups; a GROUP BY naming output columns or positions is not checked.
func (b *binder) groupingArgs(level *levelState, g *grouping) {
	if level == nil || g.unsure {
		return
	}
	for _, gc := range level.groupings {
		for i, a := range gc.args {
			ok := false
			if h := gc.hits[i]; h != nil {
				ok = g.hits[*h]
			}
			for _, ge := range g.exprs {
				ok = ok || sameExpr(a, ge)
			}
			if !ok {
				b.fail("Binder", "GROUPING_ERROR", minLoc(a), "", nil, "arguments to GROUPING must be grouping expressions of the associated query level")
				return
			}
		}
	}
}

// havingUngrouped reports, as PostgreSQL does, a column HAVING reads
// outside an aggregate that the GROUP BY does not group, when the GROUP BY
// names only columns.
func (b *binder) havingUngrouped(level *levelState, g *grouping) {
	if level == nil || g.other {
		return
	}
	grouped := map[string]bool{}
	for h := range g.hits {
		grouped[h.r.cols[h.i].name] = true
	}
	for _, ra := range level.having {
		if g.hits[ra.h] || grouped[ra.h.r.cols[ra.h.i].name] || ra.h.r.opaque {
			continue
		}
		col := ra.h.r.cols[ra.h.i].name
		name := col
		if ra.h.r.name != "" {
			name = ra.h.r.name + "." + col
		}
		b.fail("Binder", "NOT_GROUPED", ra.loc, col, nil,
			"column %q must appear in the GROUP BY clause or be used in an aggregate function", name)
		return
	}
}

// windowNames reports, as PostgreSQL does, a call over a window the
// level's WINDOW clause does not define.
func (b *binder) windowNames(level *levelState, s *pg_query.SelectStmt) {
	if level == nil {
		return
	}
	defined := map[string]bool{}
	for _, w := range s.WindowClause {
		defined[w.GetWindowDef().GetName()] = true
	}
	for _, wr := range level.windowRefs {
		if !defined[wr.name] {
			b.fail("Binder", "UNDEFINED_OBJECT", wr.loc, wr.name, nil, "window %q does not exist", wr.name)
			return
		}
	}
}
