package duckdb

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

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
// subscript (x['a']) or a call. The sites of a SELECT node are evaluated
// in one statement over its FROM clause's row of NULLs (LEFT JOIN … ON
// false, the CTEs in scope): each operand is NULL of the type it has in
// the query, so the literal is cast exactly as the query casts it. What
// does not bind so (an operand naming a select alias, a lambda parameter
// or an outer query's column) is not evaluated. A literal a row's evaluation never reaches
// (x IN (1, 'two') where every x is 1, the right of an AND that is always
// false) is reported all the same: other data reaches it.
//
// Each error is positioned at its literal's first byte in query.
// canonical, query's canonical form, answers a query with neither a cast
// nor a string literal without the engine.
func (d *DB) CheckConstants(ctx context.Context, canonical []byte, query string) (errs []error) {
	casts, strs := bytes.Contains(canonical, []byte(`"class":"CAST"`)), bytes.Contains(canonical, []byte(`"id":"VARCHAR"`))
	if !casts && !strs {
		return nil
	}
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return nil
	}
	defer conn.Close()
	// Long literals are parsed as placeholders and put back in the tree:
	// positions are the placeholders' query's until the end.
	text := query
	s, shrank := shrinkLiterals(query)
	if shrank {
		text = s.sql
	}
	ev := &evaluator{ctx: ctx, conn: conn, d: d, query: text}
	tree, ok := ev.parse(text)
	if !ok {
		return nil // the describe reports what does not parse
	}
	if shrank {
		s.restoreTree(tree)
		defer func() {
			for _, err := range errs {
				var se *engine.SQLError
				if errors.As(err, &se) {
					se.Position = s.original(se.Position)
				}
			}
		}()
	}
	consts := constantCasts(tree["statements"])
	all := make([]any, len(consts))
	for i, c := range consts {
		all[i] = c
	}
	var nodes []nodeSites
	if strs {
		nodes = ev.nodesWithSites(tree)
	}
	// The common case, nothing that fails: every probe in two statements.
	var probes []map[string]any
	if len(all) > 0 {
		probes = append(probes, ev.probe(all, nil, nil))
	}
	for _, n := range nodes {
		probes = append(probes, ev.probe(n.exprs(), n.node["from_table"], n.ctes))
	}
	if len(probes) == 0 || ev.allRun(probes) {
		return nil
	}
	at := map[int]bool{}
	if len(all) > 0 && ev.eval(all) == nil {
		consts = nil // all cast: none to evaluate alone
	}
	for _, c := range consts {
		if err := ev.eval([]any{c}); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			pos := firstLocation(c, len(text))
			at[pos] = true
			errs = append(errs, &engine.SQLError{Type: "Conversion", Message: innerMessage(err), Position: pos})
		}
	}
	for _, n := range nodes {
		for _, e := range ev.checkNode(n) {
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

// templates holds json_serialize_sql's trees of the fixed statements every
// evaluation starts from (SELECT 1, the NULL row's join), serialized once.
var templates sync.Map // SQL text → serialized tree

// parse returns json_serialize_sql's tree of sql, numbers as json.Number;
// a template's is serialized once.
func (ev *evaluator) parse(sql string) (map[string]any, bool) {
	var serialized string
	if v, ok := templates.Load(sql); ok {
		serialized = v.(string)
	} else if err := ev.conn.QueryRowContext(ev.ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", sql).Scan(&serialized); err != nil {
		return nil, false
	} else if sql == selectOne || sql == nullRow {
		templates.Store(sql, serialized)
	}
	var tree map[string]any
	dec := json.NewDecoder(strings.NewReader(serialized))
	dec.UseNumber()
	if dec.Decode(&tree) != nil || tree["error"] == true {
		return nil, false
	}
	return tree, true
}

// The templates: SELECT 1, and the row where every column of a FROM clause
// is NULL (its FROM's right side is replaced by that clause).
const (
	selectOne = "SELECT 1"
	nullRow   = "SELECT 1 FROM (SELECT 1) AS _efmesh_one LEFT JOIN (SELECT 1) AS _efmesh_from ON false"
)

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

// eval runs SELECT items (FROM nothing) and returns its error.
func (ev *evaluator) eval(items []any) error { return ev.run(ev.probe(items, nil, nil)) }

// probe is the tree of SELECT items over one row where every column of
// from (a SELECT node's FROM clause; nil for none) is NULL, with ctes in
// scope: each operand is NULL of the type it has in the query, so a
// literal it meets is cast as the query casts it. nil when the templates
// do not parse.
func (ev *evaluator) probe(items []any, from any, ctes []any) map[string]any {
	f, _ := from.(map[string]any)
	tmpl := nullRow
	if f == nil || f["type"] == "EMPTY" {
		tmpl = selectOne
	}
	tree, node := ev.statement(tmpl)
	if node == nil {
		return nil
	}
	if tmpl == nullRow {
		join, _ := node["from_table"].(map[string]any)
		if join == nil || join["right"] == nil {
			return nil
		}
		join["right"] = f
	}
	node["select_list"] = items
	if len(ctes) > 0 {
		node["cte_map"] = map[string]any{"map": ctes}
	}
	return tree
}

// allRun reports whether every probe runs without an error, in two
// statements: one turns the probes into SQL, the other runs them all (each
// yields one row: their cross join is one row of every column).
func (ev *evaluator) allRun(probes []map[string]any) bool {
	var b strings.Builder
	b.WriteString("SELECT json_deserialize_sql(j::JSON) FROM (VALUES ")
	for i, p := range probes {
		if p == nil {
			return false
		}
		js, err := json.Marshal(unlocated(p))
		if err != nil {
			return false
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %s)", i, engine.QuoteString(string(js)))
	}
	b.WriteString(") AS t(i, j) ORDER BY i")
	rows, err := ev.conn.QueryContext(ev.ctx, b.String())
	if err != nil {
		return false
	}
	var sqls []string
	for rows.Next() {
		var s string
		if rows.Scan(&s) != nil {
			break
		}
		sqls = append(sqls, s)
	}
	err = rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil || len(sqls) != len(probes) {
		return false
	}
	var q strings.Builder
	q.WriteString("SELECT * FROM ")
	for i, s := range sqls {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "(%s) AS _efmesh_p%d", s, i)
	}
	rows, err = ev.conn.QueryContext(ev.ctx, q.String())
	if err != nil {
		return false
	}
	for rows.Next() {
	}
	err = rows.Err()
	rows.Close()
	return err == nil
}

// run executes a statement's tree and returns its error (none for no
// tree).
func (ev *evaluator) run(tree map[string]any) error {
	if tree == nil {
		return nil
	}
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

// A site is an expression whose operands meet a string literal: a
// comparison (x = 'a', x IN ('a'), x BETWEEN 'a' AND 'b'), a subscript
// (x['a']) or a call. The binder casts the literal to what the operand
// asks for, and only execution evaluates that cast.
type site struct {
	expr     map[string]any
	operands []map[string]any // the operands that are not literals
	literals []map[string]any // its string literals
}

// nodeSites is a SELECT node of the query, the CTEs in its scope and its
// sites (not those of its subqueries, which are nodes of their own).
type nodeSites struct {
	node  map[string]any
	ctes  []any
	sites []site
}

func (n nodeSites) exprs() []any {
	out := make([]any, len(n.sites))
	for i, s := range n.sites {
		out[i] = s.expr
	}
	return out
}

// nodesWithSites lists the tree's SELECT nodes that have sites.
func (ev *evaluator) nodesWithSites(tree map[string]any) []nodeSites {
	var out []nodeSites
	var visit func(v any, ctes []any)
	visit = func(v any, ctes []any) {
		switch t := v.(type) {
		case map[string]any:
			if cm, ok := t["cte_map"].(map[string]any); ok {
				ctes = append(ctes[:len(ctes):len(ctes)], anyList(cm["map"])...)
			}
			if t["type"] == "SELECT_NODE" {
				var sites []site
				for _, k := range []string{"select_list", "where_clause", "having", "qualify", "group_expressions", "from_table"} {
					sites = append(sites, sitesIn(t[k])...)
				}
				if len(sites) > 0 {
					out = append(out, nodeSites{node: t, ctes: ctes, sites: sites})
				}
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
	return out
}

// checkNode evaluates the sites of one SELECT node (not those of its
// subqueries, which are nodes of their own) over its FROM clause's NULL
// row: all at once, then one by one when that fails. What does not bind
// so (an operand naming a select alias, a lambda parameter or an outer
// query's column, a bare column beside an aggregate of a grouped query)
// is no finding.
func (ev *evaluator) checkNode(n nodeSites) []error {
	exprs, from := n.exprs(), n.node["from_table"]
	if ev.run(ev.probe(exprs, from, n.ctes)) == nil {
		return nil
	}
	var errs []error
	for i, s := range n.sites {
		err := ev.run(ev.probe(exprs[i:i+1], from, n.ctes))
		if ev.ctx.Err() != nil {
			return nil
		}
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
	walkTree(v, func(m map[string]any) bool {
		switch m["class"] {
		case "SUBQUERY", "WINDOW", "LAMBDA":
			return false
		}
		if s, ok := siteOf(m); ok {
			out = append(out, s)
		}
		return true
	})
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
	walkTree(v, func(m map[string]any) bool {
		switch m["class"] {
		case "SUBQUERY", "WINDOW", "LAMBDA", "STAR", "PARAMETER", "LAMBDA_REF":
			found = true
		}
		return !found
	})
	return found
}

// constantCasts lists the outermost CAST nodes in v whose operand is a
// constant (a literal, a cast of one, a list, struct or map of them).
func constantCasts(v any) []map[string]any {
	var out []map[string]any
	walkTree(v, func(m map[string]any) bool {
		if m["class"] == "CAST" && m["try_cast"] != true && constant(m["child"]) {
			out = append(out, m)
			return false
		}
		return true
	})
	return out
}

// walkTree calls visit on every object of a json_serialize_sql tree,
// parents first and keys in order; visit returns false to skip what is
// below the object.
func walkTree(v any, visit func(m map[string]any) bool) {
	switch t := v.(type) {
	case map[string]any:
		if !visit(t) {
			return
		}
		for _, k := range (*tree)(nil).sortedKeys(t) {
			walkTree(t[k], visit)
		}
	case []any:
		for _, c := range t {
			walkTree(c, visit)
		}
	}
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
	walkTree(v, func(m map[string]any) bool {
		if l, ok := m["query_location"].(json.Number); ok {
			if i, err := strconv.ParseInt(string(l), 10, 64); err == nil && i >= 0 && int(i) < n && (best < 0 || int(i) < best) {
				best = int(i)
			}
		}
		return true
	})
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
