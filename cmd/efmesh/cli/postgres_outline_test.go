package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/postgres"
)

// shopOnPostgres is a small shop whose raw tables live in Postgres: orders
// and customers read through EXTERNAL models, a mart joining them with a
// CTE, and a view over a subquery's * in a UNION.
func shopOnPostgres(t *testing.T) string {
	t.Helper()
	dbURL := freshDatabase(t)
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(context.Background(), `CREATE SCHEMA src;
CREATE TABLE src.orders (order_id text, customer_id text, amount numeric(12, 2), placed_at timestamp);
CREATE TABLE src.customers (customer_id text, name text, region text);
INSERT INTO src.customers VALUES ('c1', 'ada', 'north'), ('c2', 'bob', 'south');
INSERT INTO src.orders VALUES ('o1', 'c1', 10, '2026-01-01 10:00'), ('o2', 'c1', 5, '2026-01-02 10:00'), ('o3', 'c2', 7, '2026-01-02 11:00');`); err != nil {
		t.Fatal(err)
	}
	return writeProject(t, map[string]string{
		"efmesh.yaml": fmt.Sprintf("name: pgshop\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL),
		"models/raw/orders.sql": `MODEL (name raw.orders, kind EXTERNAL (table src.orders),
  columns (order_id TEXT, customer_id TEXT, amount NUMERIC(12, 2), placed_at TIMESTAMP));
`,
		"models/raw/customers.sql": `MODEL (name raw.customers, kind EXTERNAL (table src.customers),
  columns (customer_id TEXT, name TEXT, region TEXT));
`,
		"models/mart/revenue.sql": `MODEL (name mart.revenue, kind FULL);
WITH firsts AS (
  SELECT customer_id, min(placed_at) AS first_at FROM @ref(raw.orders) GROUP BY customer_id
)
SELECT c.name AS customer, c.region, sum(o.amount) AS revenue, f.first_at
FROM @ref(raw.orders) AS o
JOIN @ref(raw.customers) AS c ON c.customer_id = o.customer_id
JOIN firsts AS f ON f.customer_id = o.customer_id
WHERE o.amount > 0
GROUP BY c.name, c.region, f.first_at
`,
		"models/mart/top.sql": `MODEL (name mart.top, kind FULL);
SELECT t.customer, t.revenue * 2 AS doubled FROM (SELECT * FROM @ref(mart.revenue)) AS t
UNION ALL
SELECT name, 0 FROM @ref(raw.customers)
`,
	})
}

// TestPostgresLineage: column lineage on a Postgres project follows
// aliases, joins, a CTE, a subquery's * and a UNION to the raw tables, as
// it does on DuckDB.
func TestPostgresLineage(t *testing.T) {
	dir := shopOnPostgres(t)
	for col, want := range map[string]string{
		"mart.revenue.first_at": "mart.revenue.first_at (FULL)\n  raw.orders.placed_at (EXTERNAL)\n",
		"mart.revenue.region":   "mart.revenue.region (FULL)\n  raw.customers.region (EXTERNAL)\n",
		"mart.top.customer": "mart.top.customer (FULL)\n  mart.revenue.customer (FULL)\n    raw.customers.name (EXTERNAL)\n" +
			"  raw.customers.name (EXTERNAL)\n",
		"mart.top.doubled": "mart.top.doubled (FULL)\n  mart.revenue.revenue (FULL)\n    raw.orders.amount (EXTERNAL)\n",
	} {
		if got := mustRun(t, dir, "lineage", col); got != want {
			t.Errorf("lineage %s:\n%s\nwant:\n%s", col, got, want)
		}
	}
}

// TestPostgresChangeCategories: the categories of TestChangeCategories on
// Postgres. Appending a column is non-breaking (its child keeps its
// table); other edits name the part of the query that changed.
func TestPostgresChangeCategories(t *testing.T) {
	dir := shopOnPostgres(t)
	mustRun(t, dir, "apply", "dev", "--yes")
	for _, tc := range []struct {
		name, from, to string
		change, path   string
	}{
		{"append a column", "f.first_at\nFROM", "f.first_at, count(*) AS orders\nFROM", "non-breaking", "select_list[4] (added)"},
		{"change an expression", "sum(o.amount)", "sum(o.amount * 2)", "breaking", "select_list[2]"},
		{"change the where clause", "o.amount > 0", "o.amount > 1", "breaking", "where_clause"},
		{"change the join", "c.customer_id = o.customer_id", "o.customer_id = c.customer_id", "breaking", "from_table"},
		{"drop a column", ", f.first_at\nFROM", "\nFROM", "breaking", "select_list[3] (removed)"},
		{"reorder columns", "c.name AS customer, c.region", "c.region, c.name AS customer", "breaking", "select_list[0]"},
		{"append a set-returning function", "f.first_at\nFROM", "f.first_at, generate_series(1, 2) AS k\nFROM", "breaking", "select_list[4] (added)"},
		{"reformat", "WHERE o.amount > 0", "where   o.amount>0 -- positive", "unchanged", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := editFile(t, dir, "models/mart/revenue.sql", func(s string) string {
				if !strings.Contains(s, tc.from) {
					t.Fatalf("edit %q does not apply", tc.from)
				}
				return strings.Replace(s, tc.from, tc.to, 1)
			})
			defer restore()
			p := explained(t, dir, "--explain")
			for _, m := range p.Models {
				if m.Name != "mart.revenue" {
					continue
				}
				if m.Change != tc.change || !strings.Contains(strings.Join(m.Explain, "\n"), tc.path) {
					t.Fatalf("mart.revenue: %s %q, want %s with %q", m.Change, m.Explain, tc.change, tc.path)
				}
			}
		})
	}
	// Applied, the non-breaking change builds mart.revenue alone: mart.top
	// keeps its table.
	editFile(t, dir, "models/mart/revenue.sql", func(s string) string {
		return strings.Replace(s, "f.first_at\nFROM", "f.first_at, count(*) AS orders\nFROM", 1)
	})
	var res struct {
		Built []string `json:"built"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "apply", "dev", "--yes", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Built) != "[mart.revenue]" {
		t.Fatalf("built %v, want [mart.revenue]", res.Built)
	}
}

// TestPostgresWindowOverBatch: the window-over-batch warning of
// TestWindowOverBatch, on Postgres.
func TestPostgresWindowOverBatch(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := pgProject(t, dbURL)
	editFile(t, dir, "efmesh.yaml", func(s string) string { return s + "start: 2026-01-01\n" })
	writeFile(t, dir, "models/med/ranked.sql", `MODEL (
  name med.ranked,
  kind INCREMENTAL_BY_TIME_RANGE (time_column moved_at, batch_size 7)
);
SELECT m.move_id, m.moved_at, row_number() OVER (ORDER BY m.moved_at) AS n,
       (SELECT lag(x.dept) OVER (ORDER BY x.moved_at) FROM @ref(raw.moves) AS x
        WHERE x.moved_at < m.moved_at ORDER BY x.moved_at DESC LIMIT 1) AS before
FROM @ref(raw.moves) AS m WHERE m.moved_at >= @start AND m.moved_at < @end
`)
	t.Setenv("EFMESH_NOW", "2026-01-03T00:00:00Z")
	out := mustRun(t, dir, "plan", "dev")
	want := "warning: med.ranked: window-over-batch: window function(s) lag, row_number run over batches of up to 7 days (batch_size 7)"
	if !strings.Contains(out, want) || strings.Count(out, "window-over-batch") != 1 {
		t.Fatalf("plan lacks the warning %q:\n%s", want, out)
	}
}
