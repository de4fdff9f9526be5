package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) auditCmd() *cobra.Command {
	var models []string
	var sel selection
	cmd := &cobra.Command{
		Use: "audit <env>",
		Example: `  efmesh audit prod
  efmesh audit dev --model core.events,mart.daily_metrics
  efmesh audit prod --json`,
		Short: "Run the audits over what an environment serves now; changes nothing",
		Long: `Audit runs the audits of the environment's models as they were applied
(not the project's edited ones, which are a change plan shows) over the
environment's views — the whole view each time, as consumers see it — and
reports every result, naming the models whose project audits differ. It changes
and marks nothing. per_interval audits are reported as skipped: they check
each interval apply and run write, not the table.

Exit 1 when a blocking audit found violations or could not run; warnings
are reported and exit 0. --select and --exclude pick the audited models
as plan does (--model names them one by one).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := args[0]
			proj, st, err := a.loadStore(env)
			if err != nil {
				return err
			}
			defer st.Close()
			if sel.active() {
				if len(models) > 0 {
					return fmt.Errorf("audit takes --model or --select, not both")
				}
				if models, err = proj.Select(sel.selects, sel.excludes); err != nil {
					return err
				}
			}
			if ds := auditProblems(proj, models); len(ds) > 0 {
				return &planner.ProblemsError{Diagnostics: ds}
			}
			e, err := planner.ReadEnvironment(a.ctx, st, env)
			if err != nil {
				return err
			}
			ptrs := e.Pointers
			pointers := map[string]string{}
			for name, p := range ptrs {
				pointers[name] = p.Fingerprint
			}
			wh, err := a.warehouse(proj, true)
			if err != nil {
				return err
			}
			defer wh.Close()
			rep, err := planner.AuditEnvironment(a.ctx, proj, wh, st, pointers, env, models, a.log)
			if err != nil {
				return err
			}
			if a.json {
				a.writeJSON(jsonapi.Audit{APIVersion: APIVersion, AsApplied: nonNil(rep.AsApplied), EditedAudits: nonNil(rep.EditedAudits),
					Env: rep.Env, Passed: !rep.Blocked(), Results: workspace.JSONAuditResults(rep.Results)})
			} else {
				printAudit(a, rep)
			}
			if rep.Blocked() {
				return &exitError{code: ExitError}
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&models, "model", nil, "audit only these models (repeat or separate with commas)")
	sel.register(cmd)
	a.registerVars(cmd)
	return cmd
}

// auditProblems returns the errors of the files an audit run depends on:
// the audit files and the audited models. A broken model elsewhere in the
// project does not stop an audit.
func auditProblems(p *project.Project, models []string) []project.Diagnostic {
	files := map[string]bool{}
	for _, au := range p.Audits {
		files[au.File] = true
	}
	for _, m := range p.Models {
		if len(models) == 0 || slices.Contains(models, m.Name) {
			files[m.File] = true
		}
	}
	var out []project.Diagnostic
	for _, d := range p.Diagnostics {
		if d.Severity == project.SeverityError && (files[d.File] || d.File == project.ConfigFile) {
			out = append(out, d)
		}
	}
	return out
}

var auditMark = map[string]string{
	planner.AuditPassed: "ok  ", planner.AuditFailed: "FAIL", planner.AuditWarned: "warn",
	planner.AuditError: "ERR ", planner.AuditSkipped: "skip",
}

func printAudit(a *app, rep *planner.EnvAudit) {
	w := a.stdout
	fmt.Fprintf(w, "Audits of %s:\n", rep.Env)
	counts := map[string]int{}
	for _, r := range rep.Results {
		counts[r.Status]++
		line := fmt.Sprintf("  %s %s  %s", auditMark[r.Status], r.Model, r.Audit)
		switch r.Status {
		case planner.AuditFailed, planner.AuditWarned:
			line += fmt.Sprintf(": %d violation(s)", r.Violations)
			if r.Detail != "" {
				line += ": " + r.Detail
			}
		case planner.AuditError:
			line += ": " + r.Error
		case planner.AuditSkipped:
			line += ": " + r.Reason
		}
		fmt.Fprintln(w, line)
	}
	if len(rep.Results) == 0 {
		fmt.Fprintln(w, "  no audits")
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d warned, %d error(s), %d skipped.\n", counts[planner.AuditPassed],
		counts[planner.AuditFailed], counts[planner.AuditWarned], counts[planner.AuditError], counts[planner.AuditSkipped])
	for _, f := range rep.EditedAudits {
		fmt.Fprintf(w, "\n%s changed since %s was applied: audited as applied (efmesh plan %s shows the change).\n", f, rep.Env, rep.Env)
	}
	if len(rep.AsApplied) > 0 {
		fmt.Fprintf(w, "\nAudited as applied to %s: %s. The project's edited audits are a change (efmesh plan %s shows it; efmesh apply %s makes them %s's).\n",
			rep.Env, strings.Join(rep.AsApplied, ", "), rep.Env, rep.Env, rep.Env)
	}
}
