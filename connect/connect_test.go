package connect

import (
	"context"
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

// The warehouse file and the workbench are capped by default; efmesh.yaml
// raises the cap for both.
func TestMemoryLimit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ yaml, warehouse, workbench string }{
		{"name: t\nengine: {type: duckdb, path: wh.duckdb}\n", "953.6 MiB", "953.6 MiB"},
		{"name: t\nengine: {type: duckdb, path: wh.duckdb, threads: 1, memory_limit: 4GB}\n", "3.7 GiB", "3.7 GiB"},
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
		// A plan reads the file read-only, under the same cap.
		ro, err := ReadWarehouse(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ro.Query(ctx, "SELECT current_setting('memory_limit')")
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Values[0][0]; got != tc.warehouse {
			t.Errorf("read-only warehouse with %q: memory_limit = %v, want %s", tc.yaml, got, tc.warehouse)
		}
		ro.Close()
	}
}

// A query that needs more memory than the cap still succeeds: a
// warehouse file spills to <file>.tmp. Without the temp directory the same
// queries run out of memory, so they do need more than the cap.
func TestSpillPastMemoryLimit(t *testing.T) {
	ctx := context.Background()
	p := loadProject(t, "name: t\nengine: {type: duckdb, path: wh.duckdb, threads: 2, memory_limit: 64MB}\n")
	wh, err := Warehouse(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	r, err := wh.Query(ctx, "SELECT current_setting('temp_directory')")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Values[0][0], TempDirectory(WarehousePath(p)); got != want {
		t.Errorf("temp_directory = %v, want %s", got, want)
	}
	if err := wh.Exec(ctx, "CREATE TABLE big AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(2000000)"); err != nil {
		t.Fatal(err)
	}
	queries := map[string]string{
		"hash aggregate": "SELECT count(*), max(n) FROM (SELECT s, count(*) AS n FROM big GROUP BY s)",
		"order by":       "SELECT sum(hash(i)) FROM (SELECT i, s FROM big ORDER BY s DESC LIMIT 10000000)",
	}
	// DuckDB takes a new temp directory only before it spilled once.
	if err := wh.Exec(ctx, "SET temp_directory = ''"); err != nil {
		t.Fatal(err)
	}
	if _, err := wh.Query(ctx, queries["hash aggregate"]); err == nil || !strings.Contains(err.Error(), "Out of Memory") {
		t.Errorf("without a temp directory the aggregate should run out of memory, got %v", err)
	}
	if err := wh.Exec(ctx, "SET temp_directory = "+engine.QuoteString(TempDirectory(WarehousePath(p)))); err != nil {
		t.Fatal(err)
	}
	for what, q := range queries {
		r, err := wh.Query(ctx, q)
		if err != nil {
			t.Errorf("%s past the cap: %v", what, err)
			continue
		}
		if r.Values[0][0] == nil {
			t.Errorf("%s past the cap: no result", what)
		}
	}
	if _, err := os.Stat(TempDirectory(WarehousePath(p))); err != nil {
		t.Errorf("nothing spilled: %v", err)
	}
}
