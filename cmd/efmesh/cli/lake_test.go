package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// lakeFiles lists the data files under the project's lake, relative to it
// (manifests aside: manifest_test.go reads them).
func lakeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(dir, "lake")
	filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Name() != "manifest.json" {
			rel, _ := filepath.Rel(root, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestParquetTarget: an incremental model with target parquet writes one
// partition file per interval and a FULL one a file per version; views
// and refs read them; a run adds a partition; a restate rewrites one in
// place; the ducklake target fails before anything is built.
func TestParquetTarget(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("id,amount,ts\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&csv, "o%02d,%d,2026-01-%02dT%02d:00:00Z\n", i, i*10, 1+i/10, i%10)
	}
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     "name: lake\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\nlake: lake\n",
		"data/orders.csv": csv.String(),
		"models/raw.sql": `MODEL (
  name raw.orders,
  kind EXTERNAL (files 'data/orders.csv', format csv, header true),
  columns (id TEXT, amount INTEGER, ts TIMESTAMP)
);
`,
		"models/orders.sql": `MODEL (
  name core.orders,
  kind INCREMENTAL_BY_TIME_RANGE (time_column ts, batch_size 2),
  target parquet,
  columns (id TEXT, amount INTEGER, ts TIMESTAMP)
);
SELECT id, amount, ts FROM @ref(raw.orders) WHERE ts >= @start AND ts < @end
`,
		"models/totals.sql": `MODEL (
  name mart.totals,
  kind FULL,
  target parquet,
  columns (day TIMESTAMP, amount BIGINT)
);
SELECT date_trunc('day', ts)::TIMESTAMP AS day, sum(amount)::BIGINT AS amount FROM @ref(core.orders) GROUP BY ALL
`,
	})
	t.Setenv("EFMESH_NOW", "2026-01-03T12:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	files := lakeFiles(t, dir)
	if len(files) != 3 || !strings.HasSuffix(files[0], "/interval=2026-01-01/data.parquet") || !strings.HasPrefix(files[0], "core/orders/fp=") ||
		!strings.HasPrefix(files[2], "mart/totals/fp=") || !strings.HasSuffix(files[2], "/data.parquet") {
		t.Fatalf("lake after apply: %v", files)
	}
	if got := query(t, dir, "SELECT count(*), sum(amount) FROM dev__core.orders"); got != "[[20 1900]]" {
		t.Fatalf("dev__core.orders: %s", got)
	}
	if got := query(t, dir, "SELECT amount FROM dev__mart.totals ORDER BY day"); got != "[[450] [1450]]" {
		t.Fatalf("dev__mart.totals: %s", got)
	}

	t.Setenv("EFMESH_NOW", "2026-01-04T12:00:00Z")
	if r := runTick(t, dir, "dev", ExitOK); r.Intervals != 1 {
		t.Fatalf("run: %+v", r)
	}
	if got := query(t, dir, "SELECT count(*) FROM dev__core.orders"); got != "[[30]]" {
		t.Fatalf("after run: %s", got)
	}
	mustRun(t, dir, "restate", "dev", "--model", "core.orders", "--from", "2026-01-02", "--to", "2026-01-03")
	if r := runTick(t, dir, "dev", ExitOK); r.Intervals != 1 {
		t.Fatalf("run after restate: %+v", r)
	}
	if got := query(t, dir, "SELECT count(*), count(DISTINCT id) FROM dev__core.orders"); got != "[[30 30]]" {
		t.Fatalf("after restate: %s", got)
	}
	for _, f := range lakeFiles(t, dir) {
		if strings.HasSuffix(f, ".tmp") {
			t.Fatalf("a temporary file was left: %s", f)
		}
	}
	if n := len(lakeFiles(t, dir)); n != 4 {
		t.Fatalf("lake has %d files, want 4: %v", n, lakeFiles(t, dir))
	}

	editFile(t, dir, "models/totals.sql", func(s string) string { return strings.Replace(s, "target parquet", "target ducklake", 1) })
	code, _, errs := run(t, dir, "apply", "dev", "--yes")
	if code != ExitError || !strings.Contains(errs, "target ducklake") {
		t.Fatalf("ducklake target: exit %d\n%s", code, errs)
	}
}
