package ops

import (
	"context"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
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
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wb.Close() })
	a, err := analysis.Analyze(context.Background(), p, wb)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
