package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// changeFlags are the plan options plan and apply share.
type changeFlags struct {
	forwardOnly    []string
	reclassify     []string
	rebuildHistory []string
	restate        string
	from, to       string
	allowLarge     bool
}

func (f *changeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&f.forwardOnly, "forward-only", nil, "change these incremental models without recomputing history (m1,m2)")
	cmd.Flags().StringSliceVar(&f.reclassify, "reclassify", nil, "override a change category: model=breaking|non-breaking (repeatable)")
	cmd.Flags().StringSliceVar(&f.rebuildHistory, "rebuild-history", nil, "rebuild these SCD_TYPE_2 models' history from scratch (m1,m2); their accumulated versions are lost")
	cmd.Flags().StringVar(&f.restate, "restate", "", "recompute [--from, --to) of this INCREMENTAL_BY_TIME_RANGE model and its incremental descendants, in the versions the plan promotes")
	cmd.Flags().StringVar(&f.from, "from", "", "with --restate: start of the range (inclusive), UTC")
	cmd.Flags().StringVar(&f.to, "to", "", "with --restate: end of the range (exclusive), UTC")
	cmd.Flags().BoolVar(&f.allowLarge, "allow-large-backfill", false,
		fmt.Sprintf("plan a backfill of more than %s intervals (without it, such a plan is refused)", planner.Thousands(planner.DefaultBackfillLimit)))
}

// options turns the flags into plan options, with the clock.
func (f *changeFlags) options(now time.Time) ([]planner.PlanOption, error) {
	opts := []planner.PlanOption{planner.PlanAt(now)}
	if !f.allowLarge {
		opts = append(opts, planner.WithBackfillLimit(planner.DefaultBackfillLimit))
	}
	if len(f.forwardOnly) > 0 {
		opts = append(opts, planner.WithForwardOnly(f.forwardOnly...))
	}
	for _, r := range f.reclassify {
		name, verdict, ok := strings.Cut(r, "=")
		c := planner.Change(strings.TrimSpace(verdict))
		if !ok || c != planner.Breaking && c != planner.NonBreaking {
			return nil, fmt.Errorf("--reclassify %q: want model=breaking or model=non-breaking", r)
		}
		opts = append(opts, planner.WithReclassify(strings.TrimSpace(name), c))
	}
	if len(f.rebuildHistory) > 0 {
		opts = append(opts, planner.WithRebuildHistory(f.rebuildHistory...))
	}
	switch {
	case f.restate == "" && (f.from != "" || f.to != ""):
		return nil, fmt.Errorf("--from and --to go with --restate <model>")
	case f.restate != "":
		if f.from == "" || f.to == "" {
			return nil, fmt.Errorf("--restate %s needs --from and --to", f.restate)
		}
		from, err := parseBound("from", f.from)
		if err != nil {
			return nil, err
		}
		to, err := parseBound("to", f.to)
		if err != nil {
			return nil, err
		}
		opts = append(opts, planner.WithRestate(f.restate, from, to))
	}
	return opts, nil
}

func (a *app) planCmd() *cobra.Command {
	var explain bool
	var cf changeFlags
	cmd := &cobra.Command{
		Use:   "plan <env>",
		Short: "Show what apply would change in an environment",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := a.load(true)
			if err != nil {
				return err
			}
			defer w.Close()
			opts, err := cf.options(a.now())
			if err != nil {
				return err
			}
			wh, err := a.warehouseToCheck(w.proj)
			if err != nil {
				return err
			}
			if wh != nil {
				defer wh.Close()
			}
			opts = append(opts, planner.WithWarehouse(wh), planner.WithWorkbench(w.wb))
			p, err := planner.MakePlan(a.ctx, w.analysis, w.store, args[0], opts...)
			if err != nil {
				return confirmHint(err, cmd, args[0])
			}
			if a.json {
				a.writeJSON(planJSON(p))
				return nil
			}
			printPlan(a.stdout, p)
			if explain {
				printExplain(a.stdout, p)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&explain, "explain", false, "say why each model got its category (the parse-tree paths that changed)")
	cf.register(cmd)
	return cmd
}

func printExplain(w io.Writer, p *planner.Plan) {
	for _, m := range p.Models {
		if len(m.Explain) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s):\n", m.Name, m.Change)
		for _, e := range m.Explain {
			fmt.Fprintf(w, "  - %s\n", e)
		}
	}
}

// planPayload is the --json shape of a plan.
type planPayload struct {
	APIVersion int                 `json:"apiVersion"`
	Env        string              `json:"env"`
	HasChanges bool                `json:"hasChanges"`
	Models     []planner.ModelPlan `json:"models"`
}

func planJSON(p *planner.Plan) planPayload {
	return planPayload{APIVersion: APIVersion, Env: p.Env, HasChanges: p.HasChanges, Models: p.Models}
}

var changeMark = map[planner.Change]string{
	planner.Added: "+", planner.Breaking: "~", planner.NonBreaking: "~", planner.Indirect: "~",
	planner.ForwardOnly: "~", planner.MetadataOnly: "~", planner.Removed: "-", planner.Unchanged: "=",
}

func printPlan(w io.Writer, p *planner.Plan) {
	defer printWarnings(w, p)
	if !p.HasChanges {
		fmt.Fprintf(w, "No changes: environment %s is up to date (%d models).\n", p.Env, len(p.Models))
		return
	}
	fmt.Fprintf(w, "Plan for environment %s:\n\n", p.Env)
	width := 0
	for _, m := range p.Models {
		width = max(width, len(m.Name))
	}
	unchanged := 0
	for _, m := range p.Models {
		if m.Change == planner.Unchanged && !m.Build && len(m.Backfill) == 0 && len(m.Refill) == 0 && !m.Missing && m.StaleView == "" {
			unchanged++
			continue
		}
		action, mark := "", changeMark[m.Change]
		switch {
		case m.Missing && m.Build:
			action, mark = "missing → rebuild "+m.PhysicalTable, "!"
		case m.Missing:
			action, mark = "missing → recreate the view", "!"
		case m.Change == planner.Removed && m.StaleView != "":
			action = "forget, drop stale view " + m.StaleView
		case m.StaleView != "":
			action, mark = "drop stale view "+m.StaleView, "-"
		case m.Change == planner.Removed && project.KindName(m.Kind).Virtual():
			action = "forget"
		case m.Change == planner.Removed:
			action = "drop view"
		case m.Build && m.CopiesHistoryFrom != "":
			action = "build " + m.PhysicalTable + ", copies history from " + m.CopiesHistoryFrom
		case m.Build:
			action = "build " + m.PhysicalTable
		case len(m.Backfill) > 0 && m.ReusedFrom != "":
			action = "inherit " + m.PhysicalTable + ", compute new intervals"
		case len(m.Backfill) > 0:
			action = "compute in " + m.PhysicalTable
		case len(m.Refill) > 0:
			action = "refill " + m.PhysicalTable
		case m.Kind == string(project.KindEmbedded):
			action = "inlined"
		case m.Kind == string(project.KindExternal):
			action = "read in place"
		case m.ReusedFrom != "":
			action = "inherit " + m.PhysicalTable
		default:
			action = "reuse " + m.PhysicalTable
		}
		line := fmt.Sprintf("  %s %-*s  %-13s %s", mark, width, m.Name, m.Change, action)
		if m.ReclassifiedFrom != "" && m.ReclassifiedFrom != m.Change {
			line += "  (was " + string(m.ReclassifiedFrom) + ")"
		}
		if len(m.Cause) > 0 {
			line += "  (via " + strings.Join(m.Cause, ", ") + ")"
		}
		if len(m.Backfill) > 0 {
			line += "  intervals " + backfillText(m.Backfill)
		}
		if len(m.Refill) > 0 && !m.Build {
			line += "  (restated: " + strings.Join(m.Refill, ", ") + ")"
		}
		if m.RebuildsHistory {
			line += "  (rebuilds history: the versions so far are not carried over)"
		}
		if len(m.Redacted) > 0 {
			line += "  (without " + strings.Join(m.Redacted, ", ") + ": redacted)"
		}
		if m.Reason != "" {
			line += "  (" + m.Reason + ")"
		}
		fmt.Fprintln(w, line)
	}
	if unchanged > 0 {
		fmt.Fprintf(w, "  = %d unchanged\n", unchanged)
	}
	// As apply counts: a virtual model (EMBEDDED, EXTERNAL) has no view to
	// promote, and a removed model's view is dropped.
	promote, remove, stale := p.Promotes(), 0, 0
	for _, m := range p.Models {
		if m.Change == planner.Removed {
			remove++
		}
		if m.StaleView != "" {
			stale++
		}
	}
	summary := fmt.Sprintf("%d to build, %d to promote", p.Builds(), promote)
	if remove > 0 {
		summary += fmt.Sprintf(", %d to remove", remove)
	}
	if stale > 0 {
		summary += fmt.Sprintf(", %d stale view(s) to drop", stale)
	}
	fmt.Fprintf(w, "\n%s.\n", summary)
}

func (a *app) applyCmd() *cobra.Command {
	var cf changeFlags
	var (
		yes     bool
		retries int
		jobs    int
	)
	cmd := &cobra.Command{
		Use:   "apply <env>",
		Short: "Build what the plan needs and point the environment at it",
		Long: `Apply shows the plan, asks for confirmation at a terminal, builds the
snapshots it needs and swaps the environment's views.

Without a terminal and without --yes, apply prints the plan and exits 2.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := a.load(true)
			if err != nil {
				return err
			}
			defer w.Close()
			opts, err := cf.options(a.now())
			if err != nil {
				return err
			}
			if err := planner.ValidateEnv(args[0]); err != nil {
				return err
			}
			// The environment's lock comes before the warehouse: a second
			// process must meet the lock, not DuckDB's file lock. The plan
			// is made under both, against what the warehouse really holds.
			lk, err := planner.AcquireLock(a.ctx, w.store, planner.EnvLock(args[0]), 0)
			if err != nil {
				return err
			}
			defer lk.Release()
			wh, err := a.openWarehouse(connect.WarehouseIfExists, w.proj)
			if err != nil {
				return err
			}
			defer func() {
				if wh != nil {
					wh.Close()
				}
			}()
			p, err := planner.MakePlan(a.ctx, w.analysis, w.store, args[0], append(opts, planner.WithWarehouse(wh), planner.WithWorkbench(w.wb))...)
			if err != nil {
				return confirmHint(err, cmd, args[0])
			}
			metricsOf(a.ctx).planned(p)
			payload := map[string]any{"apiVersion": APIVersion, "env": p.Env, "applied": false, "plan": planJSON(p), "built": []string{}, "promoted": []string{}}
			if !p.HasChanges {
				if a.json {
					a.writeJSON(payload)
				} else {
					printPlan(a.stdout, p)
				}
				return nil
			}
			if !a.json {
				printPlan(a.stdout, p)
			}
			if !yes {
				if !isTTY(a.stdin) {
					if a.json {
						a.writeJSON(payload)
					} else {
						fmt.Fprintln(a.stderr, "efmesh: not a terminal: pass --yes to apply this plan")
					}
					return &exitError{code: ExitAwaiting}
				}
				fmt.Fprintf(a.stdout, "Apply this plan to %s? [y/N] ", p.Env)
				line, _ := bufio.NewReader(a.stdin).ReadString('\n')
				if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
					fmt.Fprintln(a.stdout, "Nothing applied.")
					return &exitError{code: ExitError}
				}
			}
			if wh == nil { // the first apply creates the warehouse
				if wh, err = a.warehouse(w.proj, false); err != nil {
					return err
				}
			}
			progress := func(done, total int, model string) {}
			if isTTY(a.stdin) && !a.json {
				progress = func(done, total int, model string) {
					fmt.Fprintf(a.stderr, "\r[%d/%d] built %s\033[K", done, total, model)
					if done == total {
						fmt.Fprintln(a.stderr)
					}
				}
			}
			res, err := planner.Apply(a.ctx, p, wh, w.store, planner.ApplyOptions{AppliedBy: appliedBy(), Logger: a.log, Progress: metricsOf(a.ctx).progressed(progress),
				Now: a.now, Retries: retries, Jobs: jobs, Lock: lk, BatchProgress: a.batchProgress(), BatchFailed: a.batchFailed()})
			if err != nil {
				return a.applyFailed(payload, res, err)
			}
			if a.json {
				payload["applied"] = true
				payload["built"] = nonNil(res.Built)
				payload["promoted"] = nonNil(res.Promoted)
				payload["removed"] = nonNil(res.Removed)
				payload["exported"] = nonNil(res.Exported)
				payload["droppedViews"] = nonNil(res.DroppedViews)
				payload["planId"] = res.PlanID
				a.writeJSON(payload)
				return nil
			}
			if len(res.Removed) > 0 {
				fmt.Fprintf(a.stdout, "Applied to %s: built %d, promoted %d, removed %d.\n", p.Env, len(res.Built), len(res.Promoted), len(res.Removed))
			} else {
				fmt.Fprintf(a.stdout, "Applied to %s: built %d, promoted %d.\n", p.Env, len(res.Built), len(res.Promoted))
			}
			if len(res.DroppedViews) > 0 {
				fmt.Fprintf(a.stdout, "Dropped the stale view(s) %s.\n", strings.Join(res.DroppedViews, ", "))
			}
			if len(res.Exported) > 0 {
				fmt.Fprintf(a.stdout, "Exported %s.\n", strings.Join(res.Exported, ", "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "apply without asking")
	cf.register(cmd)
	cmd.Flags().IntVar(&retries, "retries", 0, "retry a failed interval batch write N times (exponential backoff)")
	cmd.Flags().IntVar(&jobs, "jobs", 4, jobsUsage)
	return a.withMetrics(cmd)
}

// warehouseToCheck opens the warehouse a plan or status checks the store
// against, read-only: nil when it does not exist yet (nothing is present).
// A DuckDB file another process is writing is waited for, as apply waits
// (--lock-timeout). One that cannot be opened (not a DuckDB file, or still
// busy after the wait) is an error: the store cannot be trusted unchecked.
func (a *app) warehouseToCheck(p *project.Project) (engine.Engine, error) {
	wh, err := a.openWarehouse(connect.ReadWarehouse, p)
	if err != nil {
		return nil, fmt.Errorf("the warehouse, which the state store is checked against, cannot be opened: %w", err)
	}
	return wh, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// jobsUsage documents --jobs of apply and run.
const jobsUsage = "run up to N builds at once: models as soon as their parents are done, and the batches of an incremental backfill (DuckDB: always 1)"

// confirmHint adds to a plan refused for its size how to confirm it.
func confirmHint(err error, cmd *cobra.Command, env string) error {
	var large *planner.LargeBackfillError
	if !errors.As(err, &large) {
		return err
	}
	return fmt.Errorf("%w; if it is meant, confirm with: efmesh %s %s --allow-large-backfill", err, cmd.Name(), env)
}
