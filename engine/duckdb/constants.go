package duckdb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/engine"
)

var _ engine.ConstantChecker = (*DB)(nil)

// CheckConstants evaluates the casts of constants in query — typed
// literals (DATE '…', INTERVAL '…', UUID '…') and CASTs or :: of literals
// — which DuckDB binds without evaluating: DATE '2024-13-45' prepares, and
// the build fails on its first row with a Conversion Error. Each cast is
// evaluated on its own (json_execute_serialized_sql of a SELECT of it), so
// an error is that cast's, positioned at its first byte in query. A TRY_CAST
// is no error; a cast over a column, a parameter or a function call is not
// a constant (only list, struct and map literals of constants are).
func (d *DB) CheckConstants(ctx context.Context, canonical []byte, query string) []error {
	if !bytes.Contains(canonical, []byte(`"class":"CAST"`)) {
		return nil
	}
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return nil
	}
	defer conn.Close()
	var serialized string
	if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", query).Scan(&serialized); err != nil {
		return nil
	}
	var tree map[string]any
	dec := json.NewDecoder(strings.NewReader(serialized))
	dec.UseNumber()
	if dec.Decode(&tree) != nil || tree["error"] == true {
		return nil // the describe reports what does not parse
	}
	casts := constantCasts(tree["statements"])
	if len(casts) == 0 {
		return nil
	}
	var tmpl string
	if err := conn.QueryRowContext(ctx, "SELECT CAST(json_serialize_sql('SELECT 1') AS VARCHAR)").Scan(&tmpl); err != nil {
		return nil
	}
	eval := func(items []any) error {
		var t map[string]any
		if err := json.Unmarshal([]byte(tmpl), &t); err != nil {
			return nil
		}
		stmts, _ := t["statements"].([]any)
		if len(stmts) != 1 {
			return nil
		}
		node, _ := stmts[0].(map[string]any)["node"].(map[string]any)
		node["select_list"] = items
		b, err := json.Marshal(unlocated(t))
		if err != nil {
			return nil
		}
		rows, err := conn.QueryContext(ctx, "SELECT * FROM json_execute_serialized_sql(?)", string(b))
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		return err
	}
	all := make([]any, len(casts))
	for i, c := range casts {
		all[i] = c
	}
	if eval(all) == nil || ctx.Err() != nil {
		return nil
	}
	var errs []error
	for _, c := range casts {
		err := eval([]any{c})
		if err == nil || ctx.Err() != nil {
			continue
		}
		se := &engine.SQLError{Type: "Conversion", Message: innerMessage(err), Position: firstLocation(c, len(query))}
		errs = append(errs, se)
	}
	return errs
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
