package duckdb

import (
	"context"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestStripLocations: every location member goes with its comma, string
// content that looks like one stays, and the result holds no spare
// capacity (a canonical form lives as long as its analysis).
func TestStripLocations(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"query_location":5,"b":2}`:                              `{"a":1,"b":2}`,
		`{"query_location":18446744073709551615,"b":2}`:                 `{"b":2}`,
		`{"a":1,"query_location":7}`:                                    `{"a":1}`,
		`{"s":"\"query_location\":5","query_location":-1}`:              `{"s":"\"query_location\":5"}`,
		`{"a":[{"query_location":1},{"x":1,"query_location":2,"y":3}]}`: `{"a":[{},{"x":1,"y":3}]}`,
		`{}`: `{}`,
	} {
		got := stripLocations(in)
		if string(got) != want {
			t.Errorf("stripLocations(%s) = %s, want %s", in, got, want)
		}
		if cap(got) != len(got) {
			t.Errorf("stripLocations(%s): cap %d, len %d", in, cap(got), len(got))
		}
	}
}

// TestStatementCount checks the shortcut of statementCount against the
// full walk, on trees nesting nodes every way a body can.
func TestStatementCount(t *testing.T) {
	db := open(t)
	for _, q := range []string{
		"SELECT 1",
		"SELECT 1; SELECT 2",
		"SELECT 1; SELECT 2; SELECT (SELECT 3) AS x",
		"SELECT (SELECT 2) AS x UNION ALL SELECT 3 FROM (VALUES (1), (2)) t(a)",
		"WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT * FROM a, b WHERE x IN (SELECT x FROM b) AND EXISTS (SELECT 1)",
		"SELECT '},{\"node\":' AS s, [{'node': 1}, {'node': 2}] AS l",
		"FROM (SELECT 1) t; WITH c AS (SELECT 2) SELECT * FROM c",
	} {
		rows, err := db.binderPool().QueryContext(context.Background(), "SELECT json_serialize_sql("+engine.QuoteString(q)+")::VARCHAR")
		if err != nil {
			t.Fatal(err)
		}
		var raw string
		for rows.Next() {
			if err := rows.Scan(&raw); err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
		const prefix = `{"error":false,"statements":[`
		if !strings.HasPrefix(raw, prefix) {
			t.Fatalf("%s: %s", q, raw)
		}
		body := raw[len(prefix) : len(raw)-2]
		want := strings.Count(q, ";") + 1
		if got, walked := statementCount(body), topLevelItems(body); got != want || walked != want {
			t.Errorf("%s: %d statements (walked: %d), want %d", q, got, walked, want)
		}
	}
}
