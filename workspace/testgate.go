package workspace

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
)

// TestsFailedError stops an apply whose unit tests fail, before anything
// is built: Report holds every test the apply ran, Failed those that
// failed.
type TestsFailedError struct {
	Env    string
	Report *TestReport
}

func (e *TestsFailedError) Error() string {
	n := e.Report.Failed
	s := "s"
	if n == 1 {
		s = ""
	}
	return fmt.Sprintf("apply to %s stopped: %d unit test%s of the models it builds failed; nothing was built", e.Env, n, s)
}

// Failing are the tests of the report that failed.
func (e *TestsFailedError) Failing() []planner.TestResult {
	var out []planner.TestResult
	for _, t := range e.Report.Tests {
		if !t.Passed {
			out = append(out, t)
		}
	}
	return out
}

// gateTests runs the unit tests of the models p builds or computes into
// (planner.Plan.Runs: a changed model and the dependants rebuilt with it),
// as sqlmesh's plan runs them before anything is built. A failing test is
// a *TestsFailedError. No test of those models runs no workbench query; a
// workbench that cannot run unit tests (PostgreSQL) skips them with a
// warning in the log rather than stopping every apply of the project.
func (w *Workspace) gateTests(ctx context.Context, p *planner.Plan, wb analysis.Workbench) (*TestReport, error) {
	r, err := w.testsOfPlan(ctx, p, wb)
	if err != nil || r == nil {
		return r, err
	}
	if r.Failed > 0 {
		return r, &TestsFailedError{Env: p.Env, Report: r}
	}
	return r, nil
}

// PlanTests runs the unit tests an apply of p would run before building
// (ApplyRequest.SkipTests), for a plan shown before it is applied (the
// editor's efmesh.plan): nil when p has no changes or those models have
// no test. A failing test is in the report, not an error.
func (w *Workspace) PlanTests(ctx context.Context, p *planner.Plan) (*TestReport, error) {
	if !p.HasChanges {
		return nil, nil
	}
	wb, err := w.workbench()
	if err != nil {
		return nil, err
	}
	return w.testsOfPlan(ctx, p, wb)
}

// testsOfPlan runs the unit tests of the models p builds or computes into
// on wb: nil when there is none, or wb cannot run them.
func (w *Workspace) testsOfPlan(ctx context.Context, p *planner.Plan, wb analysis.Workbench) (*TestReport, error) {
	runs := p.Runs()
	var names []string
	for _, t := range w.Project.Tests {
		if slices.Contains(runs, t.Model) {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	if _, ok := wb.(engine.Engine); !ok {
		w.opts.logger().Warn("unit tests not run before apply: they run on an embedded engine ("+planner.InProcessTitles()+")", "tests", len(names))
		return nil, nil
	}
	results, err := planner.RunTests(ctx, w.Analysis, wb, names)
	if err != nil {
		return nil, err
	}
	return report(results), nil
}

// report counts results.
func report(results []planner.TestResult) *TestReport {
	r := &TestReport{Tests: results}
	if r.Tests == nil {
		r.Tests = []planner.TestResult{}
	}
	for _, t := range results {
		if t.Passed {
			r.Passed++
		} else {
			r.Failed++
		}
	}
	return r
}

// WriteTestResult writes one unit test's outcome as `efmesh test` prints
// it: PASS or FAIL, and for a failure its error or the rows that differ.
func WriteTestResult(w io.Writer, r planner.TestResult) {
	if r.Passed {
		fmt.Fprintf(w, "PASS %s (%s)\n", r.Name, r.File)
		return
	}
	fmt.Fprintf(w, "FAIL %s (%s)\n", r.Name, r.File)
	if r.Error != "" {
		fmt.Fprintf(w, "  %s\n", r.Error)
		return
	}
	table := func(title string, rows [][]string) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(w, "  %s:\n", title)
		for _, row := range rows {
			cells := make([]string, len(row))
			for i, c := range row {
				cells[i] = r.Columns[i] + "=" + c
			}
			fmt.Fprintf(w, "    %s\n", strings.Join(cells, "  "))
		}
	}
	table("expected, not produced", r.Missing)
	table("produced, not expected", r.Extra)
}
