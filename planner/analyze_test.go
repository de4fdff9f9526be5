package planner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state/sqlite"
)

// analyzeFiles writes a project into a temporary folder and analyzes it.
func analyzeFiles(t *testing.T, files map[string]string) *analysis.Analysis {
	t.Helper()
	if _, ok := files["efmesh.yaml"]; !ok {
		files["efmesh.yaml"] = "name: t\nstart: 2026-01-01\n"
	}
	p, err := project.Load(testkit.WriteProject(t, files))
	if err != nil {
		t.Fatal(err)
	}
	a, err := analysis.Analyze(context.Background(), p, realdb.DuckDB(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustClean(t *testing.T, a *analysis.Analysis) {
	t.Helper()
	if len(a.Diagnostics) > 0 {
		var b strings.Builder
		for _, d := range a.Diagnostics {
			b.WriteString(d.String() + "\n")
		}
		t.Fatalf("unexpected diagnostics:\n%s", b.String())
	}
}

// TestStandInErrorIsReported: a model whose columns cannot make a table
// (SELECT * over a join repeating a name) is an error of the project, and a
// plan refuses it instead of reaching its children.
func TestStandInErrorIsReported(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/o.sql": "MODEL (name m.o);\nSELECT 1 AS id, 2 AS amount",
		"models/c.sql": "MODEL (name m.c);\nSELECT 1 AS id, 'x' AS name",
		"models/j.sql": "MODEL (name m.j);\nSELECT * FROM @ref(m.o) AS o JOIN @ref(m.c) AS c ON o.id = c.id",
		"models/r.sql": "MODEL (name m.r);\nSELECT amount FROM @ref(m.j)",
	})
	if !a.Models["m.j"].Broken || !a.Errors() {
		t.Fatalf("m.j broken %v, analysis errors %v: %v", a.Models["m.j"].Broken, a.Errors(), a.Diagnostics)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var pe *ProblemsError
	if _, err := MakePlan(context.Background(), a, st, "dev"); !errors.As(err, &pe) {
		t.Fatalf("MakePlan = %v, want the project's problems", err)
	}
}
