package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
)

// TestExport: a model with export lands in the attached DuckDB file after
// an apply to prod (not after one to dev); a run tick refreshes it; a
// SQLite target fails clearly, naming the missing extension.
func TestExport(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": "name: x\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n" +
			"attach: {app: {type: duckdb, path: out/app.duckdb}, lite: {type: sqlite, path: out/app.sqlite}}\n",
		"data/events.csv": "id,ts\ne1,2026-01-01T10:00:00Z\ne2,2026-01-02T10:00:00Z\n",
		"models/raw.sql": `MODEL (
  name raw.events,
  kind EXTERNAL (files 'data/events.csv', format csv, header true),
  columns (id TEXT, ts TIMESTAMP)
);
`,
		"models/daily.sql": `MODEL (
  name mart.daily,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day),
  audits (not_null(day)),
  export (attach app, table public.daily)
);
SELECT date_trunc('day', ts)::TIMESTAMP AS day, count(*) AS n FROM @ref(raw.events)
WHERE ts >= @start AND ts < @end GROUP BY ALL
`,
	})
	exported := func() string {
		t.Helper()
		db, err := duckdb.Open(filepath.Join(dir, "out", "app.duckdb"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rows, err := db.Query(context.Background(), "SELECT strftime(day, '%m-%d'), n FROM public.daily ORDER BY day")
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprint(rows.Values)
	}
	t.Setenv("EFMESH_NOW", "2026-01-02T12:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	if matches, _ := filepath.Glob(filepath.Join(dir, "out", "*")); len(matches) != 0 {
		t.Fatalf("an apply to dev exported: %v", matches)
	}
	if out := mustRun(t, dir, "apply", "prod", "--yes"); !strings.Contains(out, "Exported mart.daily.") {
		t.Fatalf("apply prod:\n%s", out)
	}
	if got := exported(); got != "[[01-01 1]]" {
		t.Fatalf("exported after apply: %s", got)
	}
	t.Setenv("EFMESH_NOW", "2026-01-03T12:00:00Z")
	code, out, _ := run(t, dir, "run", "prod", "--json")
	if code != ExitOK || !strings.Contains(out, `"exported": [`) {
		t.Fatalf("run prod --json: exit %d\n%s", code, out)
	}
	if got := exported(); got != "[[01-01 1] [01-02 1]]" {
		t.Fatalf("exported after run: %s", got)
	}

	editFile(t, dir, "models/daily.sql", func(s string) string { return strings.Replace(s, "attach app", "attach lite", 1) })
	code, _, errs := run(t, dir, "apply", "prod", "--yes")
	if code != ExitError || !strings.Contains(errs, "sqlite_scanner") || !strings.Contains(errs, "export mart.daily to lite") {
		t.Fatalf("export to SQLite: exit %d\n%s", code, errs)
	}
}
