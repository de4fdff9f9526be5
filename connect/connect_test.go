package connect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

func loadProject(t *testing.T, yaml string) *project.Project {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "efmesh.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if project.HasErrors(p.Diagnostics) {
		t.Fatal(p.Diagnostics)
	}
	return p
}

// The warehouse file and the workbench are capped by default (the
// warehouse lower: an apply writes tables it seldom reads back); efmesh.yaml
// raises the cap for both.
func TestMemoryLimit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ yaml, warehouse, workbench string }{
		{"name: t\nengine: {type: duckdb, path: wh.duckdb, threads: 1}\n", "61.0 MiB", "953.6 MiB"},
		{"name: t\nengine: {type: duckdb, path: wh.duckdb, threads: 2}\n", "61.0 MiB", "953.6 MiB"},
		{"name: t\nengine: {type: duckdb, path: wh.duckdb, threads: 16}\n", "488.2 MiB", "953.6 MiB"},
		{"name: t\nengine: {type: duckdb, path: wh.duckdb, memory_limit: 4GB}\n", "3.7 GiB", "3.7 GiB"},
	} {
		p := loadProject(t, tc.yaml)
		wh, err := Warehouse(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		wb, err := Workbench(p)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"warehouse": tc.warehouse, "workbench": tc.workbench}
		for what, e := range map[string]any{"warehouse": wh, "workbench": wb} {
			r, err := e.(engine.Engine).Query(ctx, "SELECT current_setting('memory_limit')")
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Values[0][0]; got != want[what] {
				t.Errorf("%s with %q: memory_limit = %v, want %s", what, tc.yaml, got, want[what])
			}
		}
		wb.Close()
		wh.Close()
	}
}

// A query that holds more than the default cap (a join of two 2M-row
// tables, ~200 MB of strings, and a sort as big) still succeeds on a
// default warehouse: DuckDB spills to the warehouse's temp directory.
// Without a temp directory the same join runs out of memory, so it is
// indeed bigger than the cap. With sixteen threads (what DuckDB takes on
// sixteen cores) the per-thread cap leaves each its share.
func TestQueryBiggerThanTheDefaultMemoryLimitSpills(t *testing.T) {
	ctx := context.Background()
	const join = `SELECT count(*), max(l.s || r.s) FROM (
	  SELECT i, 'left ' || i || repeat('x', 40) AS s FROM range(2000000) t(i)) l
	JOIN (SELECT i, 'right ' || i || repeat('y', 40) AS s FROM range(2000000) t(i)) r USING (i)`
	const sorted = `SELECT count(*) FROM (SELECT * FROM (SELECT 'k' || (i * 7919 % 2000000) || repeat('z', 60) AS s FROM range(2000000) t(i)) ORDER BY s)`
	for _, threads := range []int{2, 16} {
		p := loadProject(t, fmt.Sprintf("name: t\nengine: {type: duckdb, path: wh.duckdb, threads: %d}\n", threads))
		wh, err := Warehouse(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{join, sorted} {
			r, err := wh.Query(ctx, q)
			if err != nil {
				wh.Close()
				t.Fatalf("%d threads, the default memory_limit: %v", threads, err)
			}
			if got := fmt.Sprint(r.Values[0][0]); got != "2000000" {
				t.Fatalf("count = %s", got)
			}
		}
		wh.Close()
	}

	p := loadProject(t, "name: t\nengine: {type: duckdb, path: wh.duckdb, threads: 2}\n")
	nospill, err := Warehouse(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer nospill.Close()
	e := nospill
	if err := e.Exec(ctx, "SET temp_directory = ''"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Query(ctx, join); err == nil || !strings.Contains(err.Error(), "Out of Memory") {
		t.Fatalf("without spilling, the join did not run out of memory (%v): it does not prove spilling", err)
	}
}
