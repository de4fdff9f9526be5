package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/postgres"
)

// contractModels are models of every kind that writes a relation, each
// declaring narrower (or other) types of the family its query yields:
// SUM of an INTEGER is HUGEINT in DuckDB and BIGINT in PostgreSQL, AVG is
// DOUBLE or NUMERIC.
func contractModels(units, share string) map[string]string {
	cols := func(first string) string {
		return "columns (" + first + ", units " + units + ", share " + share + ")"
	}
	return map[string]string{
		"models/full.sql": "MODEL (name core.full, kind FULL, " + cols("id INTEGER") + ");\n" +
			"SELECT id, sum(units) AS units, avg(units) AS share FROM @ref(raw.sales) GROUP BY id\n",
		"models/view.sql": "MODEL (name core.view, kind VIEW, " + cols("id INTEGER") + ");\n" +
			"SELECT id, sum(units) AS units, avg(units) AS share FROM @ref(raw.sales) GROUP BY id\n",
		"models/inc.sql": "MODEL (name core.inc, kind INCREMENTAL_BY_TIME_RANGE (time_column day), " + cols("day TIMESTAMP") + ");\n" +
			"SELECT CAST(date_trunc('day', ts) AS TIMESTAMP) AS day, sum(units) AS units, avg(units) AS share FROM @ref(raw.sales)\n" +
			"WHERE ts >= @start AND ts < @end GROUP BY 1\n",
		"models/uk.sql": "MODEL (name core.uk, kind INCREMENTAL_BY_UNIQUE_KEY (key (id)), " + cols("id INTEGER") + ");\n" +
			"SELECT id, sum(units) AS units, avg(units) AS share FROM @ref(raw.sales) GROUP BY id\n",
		"models/scd.sql": "MODEL (name core.scd, kind SCD_TYPE_2 (key (id)), " + cols("id INTEGER") + ");\n" +
			"SELECT id, sum(units) AS units, avg(units) AS share FROM @ref(raw.sales) GROUP BY id\n",
	}
}

// TestContractPinsTypes: the physical relation of every kind that writes
// one has exactly the declared types, as the catalog says — after apply
// and after a run refreshed them in place.
func TestContractPinsTypes(t *testing.T) {
	files := contractModels("BIGINT", "DECIMAL(10,2)")
	files["efmesh.yaml"] = "name: typed\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n"
	files["data/sales.csv"] = "id,units,ts\n1,3,2026-01-01T10:00:00Z\n1,4,2026-01-02T10:00:00Z\n2,5,2026-01-02T11:00:00Z\n"
	files["models/raw.sql"] = `MODEL (
  name raw.sales,
  kind EXTERNAL (files 'data/sales.csv', format csv, header true),
  columns (id INTEGER, units INTEGER, ts TIMESTAMP)
);
`
	dir := writeProject(t, files)
	// The premise: what the queries yield is wider than declared.
	if got := query(t, dir, "SELECT typeof(sum(1::INTEGER)), typeof(avg(1::INTEGER))"); got != "[[HUGEINT DOUBLE]]" {
		t.Fatalf("DuckDB's SUM/AVG types: %s", got)
	}
	catalog := `SELECT regexp_replace(table_name, '__[0-9a-f]{8}$', ''), column_name, data_type FROM duckdb_columns()
		WHERE schema_name = '_efmesh' AND table_name LIKE 'core\_\_%' ESCAPE '\' AND column_name IN ('units', 'share') ORDER BY ALL`
	want := "[[core__full share DECIMAL(10,2)] [core__full units BIGINT] [core__inc share DECIMAL(10,2)] [core__inc units BIGINT] " +
		"[core__scd share DECIMAL(10,2)] [core__scd units BIGINT] [core__uk share DECIMAL(10,2)] [core__uk units BIGINT] " +
		"[core__view share DECIMAL(10,2)] [core__view units BIGINT]]"
	t.Setenv("EFMESH_NOW", "2026-01-03T07:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, catalog); got != want {
		t.Fatalf("catalog after apply:\n got %s\nwant %s", got, want)
	}
	if got := query(t, dir, "SELECT id, units, share FROM dev__core.full ORDER BY id"); got != "[[1 7 3.5] [2 5 5]]" {
		t.Fatalf("core.full rows: %s", got)
	}
	editFile(t, dir, "data/sales.csv", func(s string) string { return s + "2,6,2026-01-03T10:00:00Z\n" })
	t.Setenv("EFMESH_NOW", "2026-01-04T07:00:00Z")
	if r := runTick(t, dir, "dev", ExitOK); fmt.Sprint(r.Refreshed) != "[core.full]" {
		t.Fatalf("run: %+v", r)
	}
	if got := query(t, dir, catalog); got != want {
		t.Fatalf("catalog after run:\n got %s\nwant %s", got, want)
	}
	if got := query(t, dir, "SELECT id, units, share FROM dev__core.full ORDER BY id"); got != "[[1 7 3.5] [2 11 5.5]]" {
		t.Fatalf("core.full rows after run: %s", got)
	}
	// The family check stays an error: TEXT over an integer sum.
	editFile(t, dir, "models/full.sql", func(s string) string { return strings.Replace(s, "units BIGINT", "units TEXT", 1) })
	code, _, errs := run(t, dir, "plan", "dev")
	if code != ExitError || !strings.Contains(errs, `column "units" is declared TEXT (text) but the query yields HUGEINT (integer)`) {
		t.Fatalf("a family mismatch: exit %d\n%s", code, errs)
	}
}

// TestPostgresContractPinsTypes: the same on PostgreSQL, where SUM of an
// integer is BIGINT and AVG is NUMERIC: declared INTEGER and NUMERIC(10,2)
// are what the catalog holds, and a run refills the FULL table in place
// (the environment's views depend on it, so it is never dropped).
func TestPostgresContractPinsTypes(t *testing.T) {
	dbURL := freshDatabase(t)
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(context.Background(), `CREATE SCHEMA src; CREATE TABLE src.sales (id integer, units integer, ts timestamp);
INSERT INTO src.sales VALUES (1, 3, '2026-01-01 10:00'), (1, 4, '2026-01-02 10:00'), (2, 5, '2026-01-02 11:00')`); err != nil {
		t.Fatal(err)
	}
	files := contractModels("INTEGER", "NUMERIC(10,2)")
	files["efmesh.yaml"] = fmt.Sprintf("name: typed\nstart: 2026-01-01\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL)
	files["models/raw.sql"] = "MODEL (name raw.sales, kind EXTERNAL (table src.sales), columns (id INTEGER, units INTEGER, ts TIMESTAMP));\n"
	dir := writeProject(t, files)
	if got := pgQuery(t, dbURL, "SELECT pg_typeof(sum(1::integer))::text, pg_typeof(avg(1::integer))::text"); got != "[[bigint numeric]]" {
		t.Fatalf("PostgreSQL's SUM/AVG types: %s", got)
	}
	catalog := `SELECT regexp_replace(c.relname, '__[0-9a-f]{8}$', ''), a.attname::text, format_type(a.atttypid, a.atttypmod)
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = '_efmesh' AND c.relname LIKE 'core%' AND a.attname IN ('units', 'share') ORDER BY 1, 2`
	want := "[[core__full share numeric(10,2)] [core__full units integer] [core__inc share numeric(10,2)] [core__inc units integer] " +
		"[core__scd share numeric(10,2)] [core__scd units integer] [core__uk share numeric(10,2)] [core__uk units integer] " +
		"[core__view share numeric(10,2)] [core__view units integer]]"
	t.Setenv("EFMESH_NOW", "2026-01-03T07:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := pgQuery(t, dbURL, catalog); got != want {
		t.Fatalf("catalog after apply:\n got %s\nwant %s", got, want)
	}
	if err := db.Exec(context.Background(), `INSERT INTO src.sales VALUES (2, 6, '2026-01-03 10:00')`); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EFMESH_NOW", "2026-01-04T07:00:00Z")
	if r := runTick(t, dir, "dev", ExitOK); fmt.Sprint(r.Refreshed) != "[core.full]" {
		t.Fatalf("run: %+v", r)
	}
	if got := pgQuery(t, dbURL, catalog); got != want {
		t.Fatalf("catalog after run:\n got %s\nwant %s", got, want)
	}
	if got := pgQuery(t, dbURL, "SELECT id, units, share::text FROM dev__core.full ORDER BY id"); got != "[[1 7 3.50] [2 11 5.50]]" {
		t.Fatalf("core.full rows after run: %s", got)
	}
}

// TestTimestampsAreUTC: the warehouse works in UTC whatever the machine's
// zone, so a contract's TIMESTAMP over a TIMESTAMPTZ (one family) keeps the
// instant's UTC wall time, and an incremental model's @start/@end bound the
// same UTC days as the plan's intervals.
func TestTimestampsAreUTC(t *testing.T) {
	t.Setenv("TZ", "America/New_York")
	t.Setenv("EFMESH_NOW", "2026-01-03T00:00:00Z")
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":  "name: tz\nstart: 2026-01-01\n",
		"models/a.sql": "MODEL (name core.a, kind FULL, columns (ts TIMESTAMP));\nSELECT TIMESTAMPTZ '2026-01-01 10:00:00+00' AS ts\n",
		"models/d.sql": `MODEL (name core.d, kind INCREMENTAL_BY_TIME_RANGE (time_column ts, batch_size 1), interval day, columns (ts TIMESTAMPTZ, day DATE));
SELECT ts, @start::DATE AS day FROM (VALUES (TIMESTAMPTZ '2026-01-01 23:30:00+00'), (TIMESTAMPTZ '2026-01-02 01:00:00+00')) AS v(ts)
WHERE ts >= @start AND ts < @end
`,
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT strftime(ts, '%Y-%m-%d %H:%M') FROM dev__core.a"); got != "[[2026-01-01 10:00]]" {
		t.Fatalf("TIMESTAMP of 10:00 UTC: %s", got)
	}
	if got := query(t, dir, "SELECT strftime(day, '%Y-%m-%d') FROM dev__core.d ORDER BY ts"); got != "[[2026-01-01] [2026-01-02]]" {
		t.Fatalf("days of 23:30 and 01:00 UTC: %s", got)
	}
}
