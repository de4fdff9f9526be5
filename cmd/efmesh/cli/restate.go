package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

// parseBound reads a --from/--to bound with the project's one time reader.
func parseBound(flag, s string) (time.Time, error) {
	t, err := project.ParseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s %q is not a time: write %s", flag, s, project.TimeForms)
	}
	return t, nil
}

func (a *app) restateCmd() *cobra.Command {
	var (
		model, from, to string
		dryRun          bool
		sel             selection
	)
	cmd := &cobra.Command{
		Use: "restate <env> (--model m | --select s) --from t --to t",
		Example: `  efmesh restate prod --model core.events --from 2026-03-01 --to 2026-03-08
  efmesh restate dev --model core.events --from 2026-03-01 --to 2026-03-02 --dry-run
  efmesh restate prod --select 'tag:nightly' --exclude core.big --from 2026-03-01 --to 2026-03-02`,
		Short: "Mark a past time range of a model and its descendants for recomputation",
		Long: `Restate clears the computed intervals of an INCREMENTAL_BY_TIME_RANGE model
and of its incremental descendants over [--from, --to), for the versions the
environment points at. The next apply or run recomputes exactly that range.
A FULL model (the one named or a descendant) has its last refresh cleared:
the next run rebuilds its whole table, whatever its cron says.
Only the ledger changes, under the environment's lock; the warehouse is
untouched until the recomputation replaces the rows.

With --select (and --exclude) instead of --model, exactly the selected
models are restated (no descendant unless the selection says so, as in
core.events+), the selectors evaluated on the environment's models as they
were applied; selected models of other kinds are passed over.

Bounds are UTC and must be aligned to an incremental model's interval (day
or hour).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if model != "" && sel.active() {
				return fmt.Errorf("restate takes --model or --select, not both")
			}
			if model == "" && !sel.active() || from == "" || to == "" {
				return fmt.Errorf("restate needs --model (or --select), --from and --to")
			}
			f, err := parseBound("from", from)
			if err != nil {
				return err
			}
			t, err := parseBound("to", to)
			if err != nil {
				return err
			}
			if !f.Before(t) {
				return fmt.Errorf("restate %s: --from %s is not before --to %s", model, f.Format(time.RFC3339), t.Format(time.RFC3339))
			}
			_, st, err := a.loadStore(args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			env := args[0]
			var rs []planner.Restated
			if sel.active() {
				rs, err = planner.RestateSelected(a.ctx, st, env, sel.selects, sel.excludes, f, t, planner.RestateOptions{DryRun: dryRun})
			} else {
				rs, err = planner.Restate(a.ctx, st, env, model, f, t, planner.RestateOptions{DryRun: dryRun})
			}
			if err != nil {
				return err
			}
			if a.json {
				payload := jsonapi.Restate{APIVersion: APIVersion, DryRun: dryRun, Env: env, From: rfc(f), Model: model,
					Models: workspace.JSONRestated(rs), To: rfc(t)}
				if sel.active() {
					payload.Model = ""
					payload.Select, payload.Exclude = nonNil(sel.selects), nonNil(sel.excludes)
				}
				a.writeJSON(payload)
				return nil
			}
			verb := "Cleared"
			if dryRun {
				verb = "Would clear"
			}
			intervals := false
			for _, r := range rs {
				if r.Rebuild {
					fmt.Fprintf(a.stdout, "%s the last refresh of %s (FULL): the next run of %s rebuilds its table\n", verb, r.Name, env)
				} else {
					intervals = true
					fmt.Fprintf(a.stdout, "%s %d interval(s) of %s in %s\n", verb, r.Intervals, r.Name, r.Range)
				}
				if t := r.SharedText(); t != "" {
					fmt.Fprintf(a.stdout, "  %s\n", t)
				}
			}
			if !dryRun && intervals {
				fmt.Fprintf(a.stdout, "The next apply or run of %s recomputes them.\n", env)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "the model to restate")
	cmd.Flags().StringVar(&from, "from", "", "start of the range (inclusive), UTC")
	cmd.Flags().StringVar(&to, "to", "", "end of the range (exclusive), UTC")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be cleared, change nothing")
	a.registerVars(cmd)
	sel.register(cmd)
	return cmd
}
