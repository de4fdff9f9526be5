package workspace

import (
	"context"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/planner"
)

// Render returns the SQL model runs, its macros expanded: refs resolve to
// the physical tables of the project's snapshots, or with env to that
// environment's views; intervals as of now.
func (w *Workspace) Render(model, env string, now time.Time) (string, error) {
	if env != "" {
		if err := analysis.ValidateEnv(env); err != nil {
			return "", err
		}
	}
	wb, err := w.workbench()
	if err != nil {
		return "", err
	}
	return planner.Render(w.Analysis, wb, model, env, now)
}

// Lineage traces a model, or one of its columns when column is set, down
// to the models that read no other model.
func (w *Workspace) Lineage(model, column string) (*analysis.LineageNode, error) {
	return analysis.Lineage(w.Analysis, model, column)
}

// TestReport is the outcome of a test run.
type TestReport struct {
	Passed int                  `json:"passed"`
	Failed int                  `json:"failed"`
	Tests  []planner.TestResult `json:"tests"`
}

// Test runs the named unit tests (every test when names is empty) on the
// workbench.
func (w *Workspace) Test(ctx context.Context, names []string) (*TestReport, error) {
	wb, err := w.workbench()
	if err != nil {
		return nil, err
	}
	results, err := planner.RunTests(ctx, w.Analysis, wb, names)
	if err != nil {
		return nil, err
	}
	return report(results), nil
}

// TestsOf names the unit tests of a model.
func (w *Workspace) TestsOf(model string) []string {
	var names []string
	for _, t := range w.Project.Tests {
		if t.Model == model {
			names = append(names, t.Name)
		}
	}
	return names
}
