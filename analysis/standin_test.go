package analysis

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// standInProject is four models: two chains' heads of one shape, a child
// of each, and a leaf with a type the engine does not know.
var standInProject = map[string]string{
	"efmesh.yaml":  "name: t\nstart: 2026-01-01\n",
	"models/a.sql": "MODEL (name s.a, kind FULL, columns (id BIGINT, v TEXT));\nSELECT 1::BIGINT AS id, 'x' AS v\n",
	"models/b.sql": "MODEL (name s.b, kind FULL, columns (id BIGINT, v TEXT));\nSELECT 2::BIGINT AS id, 'y' AS v\n",
	"models/c.sql": "MODEL (name s.c, kind FULL);\nSELECT a.id, b.v FROM @ref(s.a) AS a JOIN @ref(s.b) AS b USING (id)\n",
	"models/d.sql": "MODEL (name s.d, kind FULL);\nSELECT id, v, id + 1 AS n FROM @ref(s.c)\n",
	"models/e.sql": "MODEL (name s.e, kind FULL, columns (id NOTATYPE));\nSELECT 1 AS id\n",
}

func analyzeIn(t *testing.T, files map[string]string) (*Analysis, *duckdb.DB) {
	t.Helper()
	dir := testkit.WriteProject(t, files)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wb.Close() })
	a, err := Analyze(context.Background(), p, wb)
	if err != nil {
		t.Fatal(err)
	}
	return a, wb
}

// standInTables counts the stand-in tables in the workbench's catalog.
func standInTables(t *testing.T, wb *duckdb.DB) int {
	t.Helper()
	rows, err := wb.Query(context.Background(), "SELECT count(*) FROM duckdb_tables() WHERE database_name = '"+standInCatalog+"' AND table_name LIKE 'standin_%'")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := rows.Values[0][0].(int64)
	return int(n)
}

// Models of one shape share a stand-in, and a model nothing reads gets
// none: the engine makes a table per shape read, not per model.
func TestStandInsPerShapeRead(t *testing.T) {
	a, wb := analyzeIn(t, standInProject)
	// s.a and s.b share (id BIGINT, v VARCHAR); s.c has its own; s.d
	// and s.e are read by nobody.
	if got := standInTables(t, wb); got != 2 {
		t.Errorf("stand-in tables = %d, want 2", got)
	}
	for _, name := range []string{"s.a", "s.b", "s.c", "s.d"} {
		if info := a.Models[name]; info.Fingerprint == "" || info.Columns == nil {
			t.Errorf("%s: fingerprint %q, columns %v", name, info.Fingerprint, info.Columns)
		}
	}
	if got := a.Models["s.d"].Columns; len(got) != 3 || got[2].Name != "n" {
		t.Errorf("s.d columns = %v", got)
	}
	// A type the engine refuses is still reported on a model nobody reads.
	var found bool
	for _, d := range a.Diagnostics {
		if strings.HasSuffix(d.File, "e.sql") && strings.Contains(d.Message, "unknown column type") {
			found = true
		}
	}
	if !found || a.Models["s.e"].Fingerprint != "" {
		t.Errorf("s.e: want an unknown column type diagnostic, got %v", a.Diagnostics)
	}
}

// A model rechecked with new columns binds its children against them,
// even when its stand-in was not made before the edit.
func TestStandInAfterEdit(t *testing.T) {
	a, wb := analyzeIn(t, standInProject)
	files := map[string]string{}
	for k, v := range standInProject {
		files[k] = v
	}
	dir := a.Project.Root
	// s.d gains a child; s.c changes shape, so s.d must see w.
	files["models/c.sql"] = "MODEL (name s.c, kind FULL);\nSELECT a.id, b.v, 'w' AS w FROM @ref(s.a) AS a JOIN @ref(s.b) AS b USING (id)\n"
	files["models/f.sql"] = "MODEL (name s.f, kind FULL);\nSELECT n, w FROM @ref(s.d)\n"
	files["models/d.sql"] = "MODEL (name s.d, kind FULL);\nSELECT id, v, w, id + 1 AS n FROM @ref(s.c)\n"
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Reanalyze(context.Background(), a, p, wb)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s.c", "s.d", "s.f"} {
		if b.Models[name].Fingerprint == "" {
			t.Errorf("%s is broken after the edit: %v", name, b.Diagnostics)
		}
	}
	if got := b.Models["s.f"].Columns; len(got) != 2 || got[1].Name != "w" {
		t.Errorf("s.f columns = %v", got)
	}
}

// cancelling is the real workbench, whose first statement is cut short by
// its caller's cancellation (as an edit cancels the editor's check).
type cancelling struct {
	*duckdb.DB
	cancel context.CancelFunc
}

func (c *cancelling) Exec(ctx context.Context, q string) error {
	c.cancel()
	return c.DB.Exec(ctx, q)
}

// A stand-in whose creation was cancelled is no finding of the model (its
// error's text once read as an "unknown column type": "con-text"): the
// check returns the cancellation and reports nothing.
func TestCancelledStandInIsNoDiagnostic(t *testing.T) {
	dir := testkit.WriteProject(t, standInProject)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := Analyze(ctx, p, &cancelling{DB: db, cancel: cancel})
	if !errors.Is(err, context.Canceled) {
		var diags []string
		if a != nil {
			for _, d := range a.Diagnostics {
				diags = append(diags, d.Message)
			}
		}
		t.Fatalf("Analyze = %v (diagnostics %q), want context.Canceled", err, diags)
	}
}
