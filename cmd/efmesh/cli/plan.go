package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

// changeFlags are the plan options plan and apply share.
type changeFlags struct {
	forwardOnly    []string
	reclassify     []string
	rebuildHistory []string
	restate        string
	from, to       string
	start, end     string
	allowLarge     bool
}

func (f *changeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&f.forwardOnly, "forward-only", nil, "change these incremental models without recomputing history (m1,m2)")
	cmd.Flags().StringSliceVar(&f.reclassify, "reclassify", nil, "override a change category: model=breaking|non-breaking (repeatable)")
	cmd.Flags().StringSliceVar(&f.rebuildHistory, "rebuild-history", nil, "rebuild these SCD_TYPE_2 models' history from scratch (m1,m2); their accumulated versions are lost")
	cmd.Flags().StringVar(&f.restate, "restate", "", "recompute [--from, --to) of this INCREMENTAL_BY_TIME_RANGE model and its incremental descendants, in the versions the plan promotes")
	cmd.Flags().StringVar(&f.from, "from", "", "with --restate: start of the range (inclusive), UTC")
	cmd.Flags().StringVar(&f.to, "to", "", "with --restate: end of the range (exclusive), UTC")
	cmd.Flags().StringVar(&f.start, "start", "", "preview: compute incremental models only from this time on (not on prod; default the project's start)")
	cmd.Flags().StringVar(&f.end, "end", "", "preview: compute incremental models only before this time (exclusive; not on prod)")
	cmd.Flags().BoolVar(&f.allowLarge, "allow-large-backfill", false,
		fmt.Sprintf("plan a backfill of more than %s intervals (without it, such a plan is refused)", planner.Thousands(planner.DefaultBackfillLimit)))
}

// options turns the flags into plan options, with the clock.
func (f *changeFlags) options(now time.Time) ([]planner.PlanOption, error) {
	opts := []planner.PlanOption{planner.PlanAt(now), planner.WithUser(appliedBy())}
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
	if f.start != "" || f.end != "" {
		var start, end time.Time
		var err error
		if f.start != "" {
			if start, err = parseBound("start", f.start); err != nil {
				return nil, err
			}
		}
		if f.end != "" {
			if end, err = parseBound("end", f.end); err != nil {
				return nil, err
			}
		}
		opts = append(opts, planner.WithPreview(start, end))
	}
	return opts, nil
}

func (a *app) planCmd() *cobra.Command {
	var explain bool
	var cf changeFlags
	var sel selection
	cmd := &cobra.Command{
		Use: "plan <env>",
		Example: `  efmesh plan dev
  efmesh plan dev --start 2026-03-01 --end 2026-03-08
  efmesh plan prod --explain --select 'core.orders+' --exclude tag:slow
  efmesh plan dev --restate core.events --from 2026-03-01 --to 2026-03-08`,
		Short: "Show what apply would change in an environment",
		Long: `Plan diffs the project against an environment and shows what apply would
build and promote.

With --select (and --exclude), the plan takes the direct changes of the
selected models (a changed definition, a new model, a deletion) and what
must be rebuilt below them; a direct change of an unselected model is left
out and listed: that model stays at the version the environment has, and
the selected models below it are built against that version.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.varEnv = args[0]
			now := a.now()
			l, vars, err := a.loading(&sel)
			if err != nil {
				return err
			}
			opts, err := cf.options(now)
			if err != nil {
				return err
			}
			// A plain plan may be answered from a digest (workspace.Plan).
			req := workspace.PlanRequest{Plan: opts, Text: !a.json}
			if cf.plain() && !explain {
				req.Noop = &workspace.NoopRequest{Env: args[0], Vars: vars, Now: now}
			}
			res, err := workspace.Plan(a.ctx, l, args[0], req)
			if err != nil {
				return confirmHint(phraseBusy(err), cmd, args[0])
			}
			if res.Plan == nil {
				fmt.Fprint(a.stdout, res.Text) // the no-op digest's text
				return nil
			}
			a.printPlan(res.Plan, explain)
			return nil
		},
	}
	cmd.Flags().BoolVar(&explain, "explain", false, "say why each model got its category (the parse-tree paths that changed)")
	a.registerVars(cmd)
	cf.register(cmd)
	sel.register(cmd)
	return cmd
}

// loading is the project the command acts on, loaded as a.load(true)
// loads it, and the --var overrides.
func (a *app) loading(sel *selection) (workspace.Loading, map[string]string, error) {
	vars, err := project.ParseVarFlags(a.varFlags)
	if err != nil {
		return workspace.Loading{}, nil, err
	}
	return workspace.Loading{
		Dir:        a.dir,
		Open:       workspace.OpenOptions{Options: a.workspaceOptions(), Vars: vars, InServer: true},
		Selection:  sel.workspace(),
		UnusedVars: a.warnUnusedVars,
		LeftAside:  a.warnOutOfScope,
	}, vars, nil
}

// plain reports whether the flags ask for nothing but the plan: no
// verdicts, restatement or preview.
func (f *changeFlags) plain() bool {
	return len(f.forwardOnly) == 0 && len(f.reclassify) == 0 && len(f.rebuildHistory) == 0 &&
		f.restate == "" && f.from == "" && f.to == "" && f.start == "" && f.end == ""
}

// printPlan writes p as efmesh plan does.
func (a *app) printPlan(p *planner.Plan, explain bool) {
	if a.json {
		a.writeJSON(workspace.JSONPlan(p))
		return
	}
	workspace.WritePlan(a.stdout, p)
	if explain {
		workspace.WriteExplain(a.stdout, p)
	}
}

func (a *app) applyCmd() *cobra.Command {
	var cf changeFlags
	var sel selection
	var (
		yes       bool
		skipTests bool
		retries   int
		jobs      int
		expectEnv string
		force     bool
	)
	cmd := &cobra.Command{
		Use: "apply <env>",
		Example: `  efmesh apply dev
  efmesh apply dev --yes --start 2026-03-01 --end 2026-03-08
  efmesh apply prod --yes --jobs 8 --select 'mart.*+'
  efmesh apply dev --yes --json --metrics /var/lib/node_exporter/efmesh.prom`,
		Short: "Build what the plan needs and point the environment at it",
		Long: `Apply shows the plan, asks for confirmation at a terminal, builds the
snapshots it needs and swaps the environment's views.

Without a terminal and without --yes, apply prints the plan and exits 2.
--select and --exclude apply a part of the plan, as efmesh plan shows it.

Before building, apply runs the unit tests (tests/*.yaml) of the models it
builds, a changed model's dependants included, as efmesh test does: a
failing test prints what differs and stops the apply, exit 1, with nothing
built. --skip-tests builds without running them. An apply that builds
nothing runs none.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.varEnv = args[0]
			now := a.now()
			opts, err := cf.options(now)
			if err != nil {
				return err
			}
			var payload *jsonapi.Apply
			live := a.newLiveProgress("apply " + args[0])
			a.live = live // applied erases it before the summary
			defer live.Stop()
			l, vars, err := a.loading(&sel)
			if err != nil {
				return err
			}
			// A plain apply may be answered from a digest, and leaves the
			// environment's no-op digest behind (workspace.Apply).
			var noop *workspace.NoopRequest
			if cf.plain() {
				noop = &workspace.NoopRequest{Env: args[0], Vars: vars, Now: now}
			}
			req := workspace.ApplyRequest{
				Noop:      noop,
				SkipTests: skipTests,
				Plan:      opts,
				Review: func(p *planner.Plan) error {
					metricsOf(a.ctx).planned(p)
					payload = &jsonapi.Apply{APIVersion: APIVersion, Env: p.Env, Plan: workspace.JSONPlan(p),
						Built: []string{}, Computed: []string{}, Promoted: []string{}}
					if !p.HasChanges && a.json {
						a.writeJSON(payload)
						return nil
					}
					if !a.json {
						workspace.WritePlan(a.stdout, p)
					}
					if !p.HasChanges || yes {
						return nil
					}
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
					return nil
				},
				Apply: planner.ApplyOptions{AppliedBy: appliedBy(), ExpectEnv: expectEnv, OverwriteUnrecorded: force, Started: live.Started, Progress: live.Built(metricsOf(a.ctx).progressed(nil)),
					Retries: retries, Jobs: jobs, BatchProgress: live.Batch(a.batchProgress()), BatchFailed: a.batchFailed()},
			}
			if !a.json && metricsOf(a.ctx) == nil {
				// A plan without changes answered from the no-op digest
				// is printed as Review prints it: its text as kept.
				req.ReviewText = func(text string) error {
					fmt.Fprint(a.stdout, text)
					return nil
				}
			}
			res, err := workspace.Apply(a.ctx, l, args[0], req)
			return a.applied(cmd, args[0], payload, res, err)
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "apply without asking")
	cmd.Flags().BoolVar(&skipTests, "skip-tests", false, "build without running the unit tests of the models the apply builds first")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite the views of an environment the warehouse serves and the state store does not know (a state store deleted; see efmesh state adopt)")
	cmd.Flags().StringVar(&expectEnv, "expect-env", "", "refuse to apply unless the environment's last applied plan is this id (status --json: lastPlan.id), for pipelines")
	cf.register(cmd)
	cmd.Flags().IntVar(&retries, "retries", 0, "retry a failed interval batch write N times (exponential backoff)")
	jobs = 4
	cmd.Flags().Var(jobsFlag{&jobs}, "jobs", jobsUsage)
	a.registerVars(cmd)
	sel.register(cmd)
	return a.withMetrics(cmd)
}

// applied reports an apply's outcome: res and err as workspace.Apply
// returned them, payload the --json report its Review started (nil when
// no plan was made).
func (a *app) applied(cmd *cobra.Command, env string, payload *jsonapi.Apply, res *workspace.ApplyResult, err error) error {
	a.live.Stop()
	var failed *workspace.TestsFailedError
	if errors.As(err, &failed) {
		return a.testsFailed(env, res, failed)
	}
	if err != nil {
		if payload == nil { // no plan was made
			return confirmHint(phraseBusy(err), cmd, env)
		}
		return a.applyFailed(payload, &res.ApplyResult, phraseBusy(err))
	}
	if !res.Applied {
		return nil
	}
	if a.json {
		payload.Applied = true
		if res.Tests != nil {
			payload.Tests = nonNilOf(workspace.JSONTestResults(res.Tests.Tests))
		}
		payload.Built = nonNil(res.Built)
		payload.Computed = nonNil(res.Computed)
		payload.Promoted = nonNil(res.Promoted)
		payload.Removed = nonNil(res.Removed)
		payload.Exported = nonNil(res.Exported)
		payload.DroppedViews = nonNil(res.DroppedViews)
		payload.PlanID = res.PlanID
		a.writeJSON(payload)
		return nil
	}
	fmt.Fprint(a.stdout, workspace.AppliedText(res.Plan.Env, &res.ApplyResult))
	return nil
}

// testsFailed reports an apply its unit tests stopped before anything was
// built: each failing test as efmesh test prints it, or with --json the
// plan, every test run and the error; exit 1.
func (a *app) testsFailed(env string, res *workspace.ApplyResult, failed *workspace.TestsFailedError) error {
	if a.json {
		payload := jsonapi.Apply{APIVersion: APIVersion, Env: env, Plan: workspace.JSONPlan(res.Plan),
			Built: []string{}, Computed: []string{}, Promoted: []string{},
			Tests: nonNilOf(workspace.JSONTestResults(failed.Report.Tests)), FailedTests: failed.Report.Failed, Error: failed.Error()}
		a.writeJSON(payload)
		return &exitError{code: ExitError}
	}
	for _, t := range failed.Failing() {
		workspace.WriteTestResult(a.stdout, t)
	}
	return fmt.Errorf("%w; to apply anyway: efmesh apply %s --skip-tests", failed, env)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// jobsUsage documents --jobs of apply and run.
const jobsUsage = "run up to N builds at once: models as soon as their parents are done, and the batches of an incremental backfill (DuckDB: always 1)"

// jobsFlag is --jobs: a count of builds at once, 1 or more. Zero or a
// negative count is refused when the flag is parsed, before anything runs.
type jobsFlag struct{ n *int }

func (f jobsFlag) String() string {
	if f.n == nil {
		return "0"
	}
	return strconv.Itoa(*f.n)
}

func (f jobsFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("builds at once must be 1 or more")
	}
	*f.n = n
	return nil
}

func (jobsFlag) Type() string { return "int" }

// confirmHint adds to a plan refused for its size how to confirm it.
func confirmHint(err error, cmd *cobra.Command, env string) error {
	var large *planner.LargeBackfillError
	if !errors.As(err, &large) {
		return err
	}
	return fmt.Errorf("%w; if it is meant, confirm with: efmesh %s %s --allow-large-backfill", err, cmd.Name(), env)
}
