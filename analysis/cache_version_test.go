package analysis

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// TestCheckCacheKeyHasEngineVersion: the check cache's key covers the
// version of the engine library, so checks cached by one DuckDB are never
// answered to another (an upgrade checks everything again), while the same
// version keeps hitting.
func TestCheckCacheKeyHasEngineVersion(t *testing.T) {
	dir := testkit.WriteProject(t, map[string]string{
		"efmesh.yaml":  "name: v\n",
		"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id, 'x' AS name",
		"models/b.sql": "MODEL (name m.b);\nSELECT id FROM @ref(m.a)",
	})
	cachePath := filepath.Join(t.TempDir(), "check.gob")
	ctx := context.Background()
	analyze := func() *Analysis {
		t.Helper()
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		wb, err := duckdb.Open("")
		if err != nil {
			t.Fatal(err)
		}
		defer wb.Close()
		fc := OpenFileCache(cachePath)
		a, err := AnalyzeWith(ctx, p, wb, AnalyzeOptions{Cache: fc})
		if err != nil {
			t.Fatal(err)
		}
		if err := fc.Save(); err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := analyze(); len(a.Checked) != 2 {
		t.Fatalf("cold run checked %v", a.Checked)
	}
	v, ok := engineVersions.Load("duckdb")
	if !ok || !strings.HasPrefix(v.(string), "duckdb v") {
		t.Fatalf("the key's engine version is %v (%v), want DuckDB's version()", v, ok)
	}
	if a := analyze(); len(a.Checked) != 0 {
		t.Fatalf("same engine: checked %v again", a.Checked)
	}
	// The process now runs another DuckDB: nothing cached is reused.
	engineVersions.Store("duckdb", v.(string)+"-upgraded")
	t.Cleanup(func() { engineVersions.Store("duckdb", v) })
	if a := analyze(); len(a.Checked) != 2 {
		t.Fatalf("after an engine upgrade checked %v, want every model", a.Checked)
	}
	if a := analyze(); len(a.Checked) != 0 {
		t.Fatalf("upgraded engine, second run: checked %v again", a.Checked)
	}
}
