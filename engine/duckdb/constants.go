package duckdb

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/efmesh/efmesh/engine"
)

var _ engine.ConstantChecker = (*DB)(nil)

// CheckConstants evaluates the casts of constants in query that DuckDB
// binds without evaluating: DATE '2024-13-45' or n < 'x' (n an INTEGER)
// prepares, and the build fails on its first row with a Conversion Error.
//
// Explicit casts — typed literals (DATE '…', INTERVAL '…', UUID '…'),
// CAST or :: of a literal (or of a list, struct or map of literals) — are
// each evaluated on their own (json_execute_serialized_sql of a SELECT of
// it). A TRY_CAST is no error; a cast over a column is not a constant.
//
// Casts the binder adds are those of a string literal that meets another
// operand: a comparison (x = 'a', x IN (…), x BETWEEN 'a' AND 'b'), a
// subscript (x['a']) or a call. The other operands of each such
// expression in a SELECT node are bound in that node's place (its FROM,
// WHERE, grouping and the CTEs in scope) for their types, and the
// expression is evaluated over one row of NULLs of those types, so the
// literal is cast exactly as the query casts it. What does not bind so (an
// operand naming a select alias, a lambda parameter or an outer query's
// column) is not evaluated. A literal a row's evaluation never reaches
// (x IN (1, 'two') where every x is 1, the right of an AND that is always
// false) is reported all the same: other data reaches it.
//
// Each error is positioned at its literal's first byte in query.
// canonical, query's canonical form, answers a query with neither a cast
// nor a string literal without the engine.
func (d *DB) CheckConstants(ctx context.Context, canonical []byte, query string) []error {
	casts, strs := bytes.Contains(canonical, []byte(`"class":"CAST"`)), bytes.Contains(canonical, []byte(`"id":"VARCHAR"`))
	if !casts && !strs {
		return nil
	}
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return nil
	}
	defer conn.Close()
	ev := &evaluator{ctx: ctx, conn: conn, d: d, query: query}
	tree, ok := ev.parse(query)
	if !ok {
		return nil // the describe reports what does not parse
	}
	var errs []error
	at := map[int]bool{}
	consts := constantCasts(tree["statements"])
	all := make([]any, len(consts))
	for i, c := range consts {
		all[i] = c
	}
	if len(all) > 0 && ev.eval(all, "") == nil {
		consts = nil // all cast: none to evaluate alone
	}
	for _, c := range consts {
		if err := ev.eval([]any{c}, ""); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			pos := firstLocation(c, len(query))
			at[pos] = true
			errs = append(errs, &engine.SQLError{Type: "Conversion", Message: innerMessage(err), Position: pos})
		}
	}
	if strs {
		for _, e := range ev.impliedCasts(tree) {
			var se *engine.SQLError
			if errors.As(e, &se) && !at[se.Position] {
				at[se.Position] = true
				errs = append(errs, e)
			}
		}
	}
	return errs
}

// evaluator runs the pieces of one query CheckConstants evaluates.
type evaluator struct {
	ctx   context.Context
	conn  *sql.Conn
	d     *DB
	query string
}

// selectOne is json_serialize_sql's tree of SELECT 1, which every
// evaluation starts from, serialized once.
var selectOne atomic.Pointer[string]

// parse returns json_serialize_sql's tree of sql, numbers as json.Number.
func (ev *evaluator) parse(sql string) (map[string]any, bool) {
	var serialized string
	if p := selectOne.Load(); sql == "SELECT 1" && p != nil {
		serialized = *p
	} else if err := ev.conn.QueryRowContext(ev.ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", sql).Scan(&serialized); err != nil {
		return nil, false
	} else if sql == "SELECT 1" {
		selectOne.Store(&serialized)
	}
	var tree map[string]any
	dec := json.NewDecoder(strings.NewReader(serialized))
	dec.UseNumber()
	if dec.Decode(&tree) != nil || tree["error"] == true {
		return nil, false
	}
	return tree, true
}

// statement returns the SELECT node of sql's tree, and the tree to run it.
func (ev *evaluator) statement(sql string) (tree, node map[string]any) {
	tree, ok := ev.parse(sql)
	if !ok {
		return nil, nil
	}
	stmts, _ := tree["statements"].([]any)
	if len(stmts) != 1 {
		return nil, nil
	}
	node, _ = stmts[0].(map[string]any)["node"].(map[string]any)
	return tree, node
}

// eval runs SELECT items FROM (from) — FROM nothing when from is "" —
// and returns its error.
func (ev *evaluator) eval(items []any, from string) error {
	q := "SELECT 1"
	if from != "" {
		q += " FROM (" + from + ") AS _efmesh_t"
	}
	tree, node := ev.statement(q)
	if node == nil {
		return nil
	}
	node["select_list"] = items
	b, err := json.Marshal(unlocated(tree))
	if err != nil {
		return nil
	}
	rows, err := ev.conn.QueryContext(ev.ctx, "SELECT * FROM json_execute_serialized_sql(?)", string(b))
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	return err
}

// types binds SELECT items in node's place (its FROM, WHERE, grouping,
// the CTEs in scope) and returns the items' types; nil when that does not
// bind (an operand naming a select alias, a lambda parameter, an outer
// query's column). Without its grouping when it does not bind with it (a
// WHERE operand of a grouped query).
func (ev *evaluator) types(node map[string]any, ctes []any, items []any) []string {
	tree, tmpl := ev.statement("SELECT 1")
	if tmpl == nil {
		return nil
	}
	stmts := tree["statements"].([]any)
	for attempt := 0; attempt < 2; attempt++ {
		probe := make(map[string]any, len(node))
		for k, v := range node {
			probe[k] = v
		}
		probe["select_list"] = items
		probe["modifiers"] = []any{}
		probe["cte_map"] = map[string]any{"map": ctes}
		if attempt == 1 {
			probe["group_expressions"], probe["group_sets"] = []any{}, []any{}
			probe["aggregate_handling"], probe["having"], probe["qualify"] = "STANDARD_HANDLING", nil, nil
		}
		stmts[0].(map[string]any)["node"] = probe
		b, err := json.Marshal(unlocated(tree))
		if err != nil {
			return nil
		}
		var sqlText string
		if err := ev.conn.QueryRowContext(ev.ctx, "SELECT json_deserialize_sql(?::JSON)", string(b)).Scan(&sqlText); err != nil {
			continue
		}
		cols, done, err := prepared(ev.conn, sqlText)
		if !done || err != nil {
			if cols, err = describe(ev.ctx, ev.conn, sqlText); err != nil {
				continue
			}
		}
		if len(cols) != len(items) {
			return nil
		}
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = c.Type
		}
		return out
	}
	return nil
}

// A site is an expression whose operands meet a string literal: a
// comparison (x = 'a', x IN ('a'), x BETWEEN 'a' AND 'b'), a subscript
// (x['a']) or a call. The binder casts the literal to what the operand
// asks for, and only execution evaluates that cast.
type site struct {
	expr     map[string]any
	operands []map[string]any // the operands that are not literals
	literals []map[string]any // its string literals
}

// impliedCasts evaluates each site of the tree's SELECT nodes with its
// other operands NULL of their bound types: the literal is cast as the
// query casts it, and a Conversion Error is the query's on its first row.
func (ev *evaluator) impliedCasts(tree map[string]any) []error {
	var errs []error
	var visit func(v any, ctes []any)
	visit = func(v any, ctes []any) {
		switch t := v.(type) {
		case map[string]any:
			if cm, ok := t["cte_map"].(map[string]any); ok {
				ctes = append(ctes[:len(ctes):len(ctes)], anyList(cm["map"])...)
			}
			if t["type"] == "SELECT_NODE" {
				errs = append(errs, ev.checkNode(t, ctes)...)
			}
			for _, c := range t {
				visit(c, ctes)
			}
		case []any:
			for _, c := range t {
				visit(c, ctes)
			}
		}
	}
	visit(tree["statements"], nil)
	return errs
}

// checkNode evaluates the sites of one SELECT node (not those of its
// subqueries, which are nodes of their own).
func (ev *evaluator) checkNode(node map[string]any, ctes []any) []error {
	var sites []site
	for _, k := range []string{"select_list", "where_clause", "having", "qualify", "group_expressions", "from_table"} {
		sites = append(sites, sitesIn(node[k])...)
	}
	if len(sites) == 0 {
		return nil
	}
	var items []any
	for _, s := range sites {
		for _, o := range s.operands {
			items = append(items, o)
		}
	}
	types := ev.types(node, ctes, items)
	if types == nil {
		return nil
	}
	// The sites whose literal is cast, over one row of NULLs of every
	// operand's type: all at once, then one by one when that fails.
	cols := make([]string, len(types))
	for i, t := range types {
		cols[i] = "CAST(NULL AS " + t + ") AS _efmesh_c" + strconv.Itoa(i)
	}
	from := "SELECT " + strings.Join(cols, ", ")
	var cast []site
	var exprs []any
	k := 0
	for _, s := range sites {
		ts := types[k : k+len(s.operands)]
		expr := replaceOperands(s.expr, s.operands, k)
		k += len(s.operands)
		typ, _ := s.expr["type"].(string)
		if strings.HasPrefix(typ, "COMPARE_") && !slices.ContainsFunc(ts, func(t string) bool { return t != "VARCHAR" }) {
			continue // a string compared with strings: no cast
		}
		cast, exprs = append(cast, s), append(exprs, expr)
	}
	if len(exprs) == 0 || ev.eval(exprs, from) == nil {
		return nil
	}
	var errs []error
	for i, s := range cast {
		err := ev.eval(exprs[i:i+1], from)
		var se *engine.SQLError
		if err == nil || !errors.As(convertError(err, 0), &se) || !strings.Contains(se.Message, "Conversion Error") && se.Type != "Conversion" {
			continue
		}
		msg := innerMessage(err)
		lit := s.literals[0]
		for _, l := range s.literals {
			if v, _ := l["value"].(map[string]any); v != nil && strings.Contains(msg, fmt.Sprint(v["value"])) {
				lit = l
				break
			}
		}
		errs = append(errs, &engine.SQLError{Type: "Conversion", Message: msg, Position: firstLocation(lit, len(ev.query))})
	}
	return errs
}

// sitesIn lists the sites in an expression, outside subqueries.
func sitesIn(v any) []site {
	var out []site
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			switch t["class"] {
			case "SUBQUERY", "WINDOW", "LAMBDA":
				return
			}
			if s, ok := siteOf(t); ok {
				out = append(out, s)
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}

// siteOf reads an expression as a site: an operand that is a string
// literal and one that is neither a literal nor holds a lambda, a window,
// a subquery, a star or a parameter.
func siteOf(m map[string]any) (site, bool) {
	var kids []any
	switch m["class"] {
	case "COMPARISON":
		kids = []any{m["left"], m["right"]}
	case "BETWEEN":
		kids = []any{m["input"], m["lower"], m["upper"]}
	case "OPERATOR":
		kids = anyList(m["children"])
	case "FUNCTION":
		if m["filter"] != nil || m["distinct"] == true {
			return site{}, false
		}
		if ob, _ := m["order_bys"].(map[string]any); ob != nil && len(anyList(ob["orders"])) > 0 {
			return site{}, false
		}
		kids = anyList(m["children"])
	default:
		return site{}, false
	}
	s := site{expr: m}
	for _, k := range kids {
		km, _ := k.(map[string]any)
		switch {
		case km == nil:
			return site{}, false
		case stringLiteral(km):
			s.literals = append(s.literals, km)
		case constant(km):
		case opaque(km):
			return site{}, false
		default:
			s.operands = append(s.operands, km)
		}
	}
	return s, len(s.literals) > 0 && len(s.operands) > 0
}

// stringLiteral reports a VARCHAR constant that is not NULL.
func stringLiteral(m map[string]any) bool {
	v, _ := m["value"].(map[string]any)
	typ, _ := v["type"].(map[string]any)
	return m["class"] == "CONSTANT" && typ["id"] == "VARCHAR" && v["is_null"] != true
}

// opaque reports an expression the probe cannot type on its own.
func opaque(v any) bool {
	found := false
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			switch t["class"] {
			case "SUBQUERY", "WINDOW", "LAMBDA", "STAR", "PARAMETER", "LAMBDA_REF":
				found = true
				return
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	return found
}

// replaceOperands is a copy of expr with operands[i] replaced by the column
// _efmesh_c<first+i>.
func replaceOperands(expr map[string]any, operands []map[string]any, first int) map[string]any {
	out := make(map[string]any, len(expr))
	for k, v := range expr {
		out[k] = v
	}
	sub := func(v any) any {
		if m, ok := v.(map[string]any); ok {
			for i, o := range operands {
				if reflect.ValueOf(m).UnsafePointer() == reflect.ValueOf(o).UnsafePointer() {
					return map[string]any{"class": "COLUMN_REF", "type": "COLUMN_REF", "alias": "", "query_location": 0,
						"column_names": []any{"_efmesh_c" + strconv.Itoa(first+i)}}
				}
			}
		}
		return v
	}
	for _, k := range []string{"left", "right", "input", "lower", "upper"} {
		if v, ok := out[k]; ok {
			out[k] = sub(v)
		}
	}
	if kids, ok := out["children"].([]any); ok {
		nk := make([]any, len(kids))
		for i, c := range kids {
			nk[i] = sub(c)
		}
		out["children"] = nk
	}
	return out
}

// constantCasts lists the outermost CAST nodes in v whose operand is a
// constant (a literal, a cast of one, a list, struct or map of them).
func constantCasts(v any) []map[string]any {
	var out []map[string]any
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if t["class"] == "CAST" && t["try_cast"] != true && constant(t["child"]) {
				out = append(out, t)
				return
			}
			for _, k := range (*tree)(nil).sortedKeys(t) {
				walk(t[k])
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}

// unlocated is a copy of an expression's tree with every query_location
// 0: DuckDB's "none" (2^64-1) does not read back.
func unlocated(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			if k == "query_location" {
				out[k] = 0
			} else {
				out[k] = unlocated(c)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = unlocated(c)
		}
		return out
	}
	return v
}

// constant reports whether an expression is made of literals only.
func constant(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	switch m["class"] {
	case "CONSTANT":
		return true
	case "CAST":
		return m["try_cast"] != true && constant(m["child"])
	case "FUNCTION":
		switch name, _ := m["function_name"].(string); name {
		case "list_value", "struct_pack", "row", "map":
		default:
			return false
		}
		if m["filter"] != nil {
			return false
		}
		kids, _ := m["children"].([]any)
		for _, k := range kids {
			if !constant(k) {
				return false
			}
		}
		return true
	}
	return false
}

// firstLocation is the least query_location in an expression's tree that
// falls in a query of n bytes (DuckDB gives a typed literal's cast none,
// only its string); 0 when there is none.
func firstLocation(v any, n int) int {
	best := -1
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if l, ok := t["query_location"].(json.Number); ok {
				if i, err := strconv.ParseInt(string(l), 10, 64); err == nil && i >= 0 && int(i) < n && (best < 0 || int(i) < best) {
					best = int(i)
				}
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	return max(best, 0)
}

// innerMessage is the message of the statement json_execute_serialized_sql
// ran, which DuckDB wraps in one of its own ("Attempting to fetch from an
// unsuccessful query result\nError: Conversion Error: …").
func innerMessage(err error) string {
	msg := err.Error()
	var se *engine.SQLError
	if e := convertError(err, 0); errors.As(e, &se) {
		msg = se.Message
	}
	if i := strings.LastIndex(msg, "Error: "); i >= 0 {
		msg = msg[i+len("Error: "):]
	}
	msg = strings.TrimPrefix(msg, "Conversion Error: ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}
