package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/internal/testkit"
)

// TestCheckerBindsWithTheServer: what the server refuses at apply the
// checker refuses, positioned in the body; valid Postgres SQL binds; the
// stand-ins are temporary tables no other session sees.
func TestCheckerBindsWithTheServer(t *testing.T) {
	ctx := context.Background()
	c, err := OpenChecker(ctx, testkit.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rels := map[string][]engine.Column{
		"raw.raw__customer": {{Name: "c_id", Type: "int"}, {Name: "c_name", Type: "text"}, {Name: "c_nation", Type: "text"}, {Name: "Käufer", Type: "text"}},
	}
	from := c.StandIn(rels["raw.raw__customer"]) + " AS customer"
	for _, tc := range []struct{ body, at, msg string }{
		{"SELECT c_name, count(*) AS n FROM " + from + " GROUP BY c_nation", "c_name", "must appear in the GROUP BY clause"},
		{"SELECT c_nation, c_name FROM " + from + " GROUP BY c_id", "c_nation", "must appear in the GROUP BY clause"},
		{"SELECT c_name + 1 AS x FROM " + from, "+", "operator does not exist"},
		{"SELECT c_id FROM " + from + " WHERE c_name = 5", "=", "operator does not exist"},
		{"SELECT sum(c_name) AS s FROM " + from, "sum", "function sum(text) does not exist"},
		{"SELECT foo_bar(c_id) AS f FROM " + from, "foo_bar", "function foo_bar(integer) does not exist"},
		{"SELECT c_id FROM " + from + " WHERE row_number() OVER () = 1", "row_number", "window functions are not allowed in WHERE"},
		{"SELECT c_id FROM " + from + " WHERE count(*) > 1", "count", "aggregate functions are not allowed in WHERE"},
	} {
		_, err := c.BindContext(ctx, tc.body, rels)
		var se *engine.SQLError
		if !errors.As(err, &se) {
			t.Errorf("%s: want an SQL error, got %v", tc.body, err)
			continue
		}
		if !strings.Contains(se.Message, tc.msg) || se.Position != strings.Index(tc.body, tc.at) {
			t.Errorf("%s: got %q at %d, want %q at %d", tc.body, se.Message, se.Position, tc.msg, strings.Index(tc.body, tc.at))
		}
		if strings.HasPrefix(se.Error(), "Binder") {
			t.Errorf("%s: labelled with DuckDB's word: %s", tc.body, se.Error())
		}
	}
	for _, body := range []string{
		"SELECT c_id, t.x, t.n FROM " + from + ", unnest(ARRAY[1,2]) WITH ORDINALITY AS t(x, n)",
		"SELECT DISTINCT ON (c_nation) c_nation, c_name FROM " + from + " ORDER BY c_nation, c_id",
		"SELECT c_nation, count(*) FILTER (WHERE c_id > 1) AS n FROM " + from + " GROUP BY c_nation",
		"SELECT c_nation, c_name, count(*) AS n FROM " + from + " GROUP BY GROUPING SETS ((c_nation), (c_name))",
		"SELECT customer AS whole FROM " + from,
		`SELECT "Käufer" FROM ` + from,
		"SELECT c_nation, c_name FROM " + from + " GROUP BY c_nation, c_name",
		// What only a table has: apply reads tables, so these bind.
		"SELECT c_id FROM " + from + " TABLESAMPLE BERNOULLI (50)",
		"SELECT c_id, customer.ctid AS row_at FROM " + from,
	} {
		if _, err := c.BindContext(ctx, body, rels); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
	cols, err := c.BindContext(ctx, "SELECT c_id, c_name || '!' AS shout FROM "+from+" WHERE c_id >= 1", rels)
	if err != nil || len(cols) != 2 || cols[0].Type != "integer" || cols[1].Name != "shout" || cols[1].Type != "text" {
		t.Fatalf("columns: %v %v", cols, err)
	}
	// Not a SELECT: refused before the server sees it.
	if _, err := c.BindContext(ctx, "DROP TABLE "+c.StandIn(rels["raw.raw__customer"]), rels); err == nil {
		t.Fatal("a DROP was bound")
	}
	// New columns for the same relation replace the stand-in.
	rels["raw.raw__customer"] = []engine.Column{{Name: "c_key", Type: "bigint"}}
	from = c.StandIn(rels["raw.raw__customer"]) + " AS customer"
	if cols, err := c.BindContext(ctx, "SELECT c_key FROM "+from, rels); err != nil || cols[0].Type != "bigint" {
		t.Fatalf("replaced stand-in: %v %v", cols, err)
	}
	// Nobody else sees the stand-ins.
	other := open(t)
	rows, err := other.Query(ctx, "SELECT count(*) FROM pg_class WHERE relname LIKE 'efmesh_standin%' AND relpersistence <> 't'")
	if err != nil || rows.Values[0][0] != int64(0) {
		t.Fatalf("stand-ins outside the session: %v %v", rows, err)
	}
}

// BenchmarkChecker200 is the server-bound check of a 200-model project:
// one session, each model's parents made once (in one round trip per
// model that needs new ones), one prepared statement per model.
func BenchmarkChecker200(b *testing.B) {
	ctx := context.Background()
	url := testkit.PostgresURL(b)
	cols := []engine.Column{{Name: "id", Type: "integer"}, {Name: "k", Type: "text"}, {Name: "v", Type: "numeric(10,2)"}, {Name: "at", Type: "timestamp"}}
	for b.Loop() {
		c, err := OpenChecker(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		for i := range 200 {
			// Every model a shape of its own (the worst case).
			own := append(slices.Clip(cols), engine.Column{Name: fmt.Sprintf("c%d", i), Type: "text"})
			rels := map[string][]engine.Column{fmt.Sprintf("m.m__p%d", i): own, fmt.Sprintf("m.m__q%d", i/2): cols}
			sql := fmt.Sprintf("SELECT a.id, a.k, sum(b.v) AS v, max(a.at) AS at FROM %s AS a JOIN %s AS b USING (id) WHERE a.at >= TIMESTAMP '2000-01-01' GROUP BY a.id, a.k",
				c.StandIn(rels[fmt.Sprintf("m.m__p%d", i)]), c.StandIn(rels[fmt.Sprintf("m.m__q%d", i/2)]))
			if _, err := c.BindContext(ctx, sql, rels); err != nil {
				b.Fatal(err)
			}
		}
		c.Close()
	}
}
