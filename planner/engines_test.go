package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// engines are the engines a rule table runs on: the same categorize and
// rebind code decides on each, from the engine's own outline.
var engines = []string{"duckdb", "postgres"}

// analyzeOn analyzes files as a project of the engine named: DuckDB in
// memory, or the Postgres server of EFMESH_TEST_POSTGRES_URL binding
// every body itself (as plan does).
func analyzeOn(t *testing.T, eng string, files map[string]string) *analysis.Analysis {
	t.Helper()
	if eng == "duckdb" {
		return analyzeFiles(t, files)
	}
	url := testkit.PostgresURL(t)
	files["efmesh.yaml"] = fmt.Sprintf("name: t\nstart: 2026-01-01\nengine: {type: postgres, url: %q}\n", url)
	p, err := project.Load(testkit.WriteProject(t, files))
	if err != nil {
		t.Fatal(err)
	}
	c, err := postgres.OpenChecker(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	a, err := analysis.Analyze(context.Background(), p, c)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// customerModel is the raw table the rule tables read: an EXTERNAL model
// with declared columns, which every engine binds without reading files.
const customerModel = "MODEL (name raw.customer, kind EXTERNAL (table src.customer), columns (c_id INT, c_name TEXT, c_nation TEXT));"
