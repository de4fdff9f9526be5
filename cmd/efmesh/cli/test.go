package cli

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) testCmd() *cobra.Command {
	var sel selection
	cmd := &cobra.Command{
		Use: "test [name…] | --select <selector>",
		Example: `  efmesh test
  efmesh test test_daily_metrics
  efmesh test --json
  efmesh test --select 'tag:finance'`,
		Short: "Run the project's unit tests on an in-memory DuckDB",
		Long: `Test runs models on fixture rows (tests/*.yaml) in an in-memory DuckDB and
compares what they produce with the expected rows. It never touches the
warehouse or the state store. Exit 1 when a test fails. With --select (and
--exclude), the tests of the selected models.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if sel.active() && len(args) > 0 {
				return fmt.Errorf("test takes test names or --select, not both")
			}
			names := args
			var selErr error
			load := func(scope func(p *project.Project) project.Scope) (*workspace.Workspace, error) {
				return a.loadScoped(false, scope)
			}
			if sel.usesState() {
				// state:modified compares every model's fingerprint: the
				// whole project is analyzed, then the tests picked.
				load = func(func(p *project.Project) project.Scope) (*workspace.Workspace, error) {
					w, err := a.load(false)
					if err != nil {
						return nil, err
					}
					models, err := w.Select(a.ctx, sel.workspace())
					if err != nil {
						w.Close()
						return nil, err
					}
					names = testsOf(w.Project, models)
					return w, nil
				}
			}
			w, err := load(func(p *project.Project) project.Scope {
				if sel.active() {
					names, selErr = selectedTests(p, &sel)
					if selErr != nil || len(names) == 0 {
						sc, _ := p.ScopeOf(nil, nil)
						return sc
					}
				}
				sc, _ := p.TestScope(names)
				return sc
			})
			if selErr != nil {
				if w != nil {
					w.Close()
				}
				return selErr
			}
			if err != nil {
				return err
			}
			defer w.Close()
			r := &workspace.TestReport{Tests: []planner.TestResult{}}
			if !sel.active() || len(names) > 0 {
				if r, err = w.Test(a.ctx, names); err != nil {
					return err
				}
			}
			if a.json {
				a.writeJSON(jsonapi.Test{APIVersion: APIVersion, Failed: r.Failed, Passed: r.Passed, Tests: workspace.JSONTestResults(r.Tests)})
			} else {
				for _, t := range r.Tests {
					workspace.WriteTestResult(a.stdout, t)
				}
				if len(r.Tests) == 0 && sel.active() {
					fmt.Fprintln(a.stdout, "No unit tests of the selected models.")
				} else if len(r.Tests) == 0 {
					fmt.Fprintln(a.stdout, "No unit tests: they live in the files the tests globs of efmesh.yaml name (tests/**/*.yaml by default).")
				} else {
					fmt.Fprintf(a.stdout, "\n%d passed, %d failed\n", r.Passed, r.Failed)
				}
			}
			if r.Failed > 0 {
				return &exitError{code: ExitError}
			}
			return nil
		},
	}
	sel.register(cmd)
	a.registerVars(cmd)
	return cmd
}

// selectedTests names the unit tests whose model the selection holds.
func selectedTests(p *project.Project, sel *selection) ([]string, error) {
	models, err := p.Select(sel.selects, sel.excludes)
	if err != nil {
		return nil, err
	}
	return testsOf(p, models), nil
}

// testsOf names the unit tests of models.
func testsOf(p *project.Project, models []string) []string {
	var names []string
	for _, t := range p.Tests {
		if slices.Contains(models, t.Model) {
			names = append(names, t.Name)
		}
	}
	return names
}
