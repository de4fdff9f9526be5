package connect

import (
	"context"
	"os"
	"path/filepath"
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
	for _, tc := range []struct{ yaml, want string }{
		{"name: t\nengine: {type: duckdb, path: wh.duckdb}\n", "953.6 MiB"},
		{"name: t\nengine: {type: duckdb, path: wh.duckdb, memory_limit: 4GB}\n", "3.7 GiB"},
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
		for what, e := range map[string]any{"warehouse": wh, "workbench": wb} {
			r, err := e.(engine.Engine).Query(ctx, "SELECT current_setting('memory_limit')")
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Values[0][0]; got != tc.want {
				t.Errorf("%s with %q: memory_limit = %v, want %s", what, tc.yaml, got, tc.want)
			}
		}
		wb.Close()
		wh.Close()
	}
}
