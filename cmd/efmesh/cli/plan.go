package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
			// A plain plan of an unchanged project is answered from the
			// environment's no-op digest (workspace/noop.go).
			plain := cf.plain() && !sel.active() && !explain
			var req workspace.NoopRequest
			if plain {
				vars, err := project.ParseVarFlags(a.varFlags)
				if err != nil {
					return err
				}
				req = workspace.NoopRequest{Env: args[0], Vars: vars, Now: now}
				if hit, ok := workspace.QuickPlan(a.ctx, a.dir, req); ok {
					if answered := a.printNoopHit(hit); answered {
						return nil
					}
				}
				// The promotion of what another environment built, from
				// the fingerprints of the unchanged project
				// (workspace/promotion.go).
				if p, unused, ok := workspace.QuickPromotion(a.ctx, a.dir, req); ok {
					a.log.Debug("plan answered from the fingerprints digest: a promotion of built snapshots of an unchanged project")
					a.warnUnusedVars(unused)
					a.printPlan(p, false)
					return nil
				}
			}
			w, err := a.load(true)
			if err != nil {
				return err
			}
			defer w.Close()
			w.Selection = sel.workspace()
			opts, err := cf.options(now)
			if err != nil {
				return err
			}
			p, err := w.Plan(a.ctx, args[0], opts...)
			if err != nil {
				return confirmHint(phraseBusy(err), cmd, args[0])
			}
			if plain {
				if err := w.RememberNoop(req, p); err != nil {
					a.log.Debug("could not save the no-op digest", "err", err)
				}
			}
			a.printPlan(p, explain)
			return nil
		},
	}
	cmd.Flags().BoolVar(&explain, "explain", false, "say why each model got its category (the parse-tree paths that changed)")
	a.registerVars(cmd)
	cf.register(cmd)
	sel.register(cmd)
	return cmd
}

// printNoopHit prints the plan the no-op digest answered: its text as
// kept, or its decoded plan for --json. false: the digest's plan cannot be
// decoded, and the full path answers.
func (a *app) printNoopHit(hit workspace.NoopHit) bool {
	if hit.ByStamps {
		a.log.Debug("the state file is as the no-op digest stamped it: no token read")
	}
	if a.json {
		p, err := hit.Plan()
		if err != nil {
			a.log.Debug("the no-op digest's plan", "err", err)
			return false
		}
		a.log.Debug("plan answered from the no-op digest: the files, the state store and the warehouse are as the last plan saw them")
		a.warnUnusedVars(hit.UnusedVars)
		a.printPlan(p, false)
		return true
	}
	a.log.Debug("plan answered from the no-op digest: the files, the state store and the warehouse are as the last plan saw them")
	a.warnUnusedVars(hit.UnusedVars)
	fmt.Fprint(a.stdout, hit.Text)
	return true
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
		a.writeJSON(planJSON(p))
		return
	}
	workspace.WritePlan(a.stdout, p)
	if explain {
		workspace.WriteExplain(a.stdout, p)
	}
}

// planPayload is the --json shape of a plan.
type planPayload struct {
	APIVersion int    `json:"apiVersion"`
	Env        string `json:"env"`
	HasChanges bool   `json:"hasChanges"`
	// Summary: the totals of the plan's text, as apply reports them.
	Summary planner.Summary     `json:"summary"`
	Models  []planner.ModelPlan `json:"models"`
	Preview *planner.Preview    `json:"preview,omitempty"`
	// LeftOut: the direct changes a plan of a selection did not take.
	LeftOut []planner.LeftOut `json:"leftOut,omitempty"`
	// LeftOutFrom: the environment the left-out models are taken from when
	// it is not env (prod, for a new environment).
	LeftOutFrom string `json:"leftOutFrom,omitempty"`
	// DueRefresh: the FULL models whose cron is due, which only run refreshes.
	DueRefresh []string `json:"dueRefresh,omitempty"`
	// Reverts: the models the plan moves back to a version someone else
	// applied over since.
	Reverts []planner.Revert `json:"reverts,omitempty"`
	// Warnings: findings on the whole plan that do not stop it (each
	// model's are in its line).
	Warnings []planner.Warning `json:"warnings,omitempty"`
	// Unrecorded: efmesh relations the warehouse holds that the state
	// store does not know (a state store deleted), when the store knows
	// nothing of the environment.
	Unrecorded *planner.Unrecorded `json:"unrecorded,omitempty"`
}

func planJSON(p *planner.Plan) planPayload {
	return planPayload{APIVersion: APIVersion, Env: p.Env, HasChanges: p.HasChanges, Summary: p.Summary(), Models: p.Models, Preview: p.Preview, LeftOut: p.LeftOut, LeftOutFrom: p.LeftOutFrom, DueRefresh: p.DueRefresh, Reverts: p.Reverts, Warnings: p.Warnings, Unrecorded: p.Unrecorded}
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
			var payload map[string]any
			progress := func(done, total int, model string) {}
			if isTTY(a.stdin) && !a.json {
				progress = func(done, total int, model string) {
					fmt.Fprintf(a.stderr, "\r[%d/%d] built %s\033[K", done, total, model)
					if done == total {
						fmt.Fprintln(a.stderr)
					}
				}
			}
			// A plain apply leaves the environment's no-op digest behind,
			// so the plan after it is answered without loading anything.
			var noop *workspace.NoopRequest
			if cf.plain() && !sel.active() {
				vars, err := project.ParseVarFlags(a.varFlags)
				if err != nil {
					return err
				}
				noop = &workspace.NoopRequest{Env: args[0], Vars: vars, Now: now}
			}
			req := workspace.ApplyRequest{
				Noop:      noop,
				SkipTests: skipTests,
				Plan:      opts,
				Review: func(p *planner.Plan) error {
					metricsOf(a.ctx).planned(p)
					payload = map[string]any{"apiVersion": APIVersion, "env": p.Env, "applied": false, "plan": planJSON(p), "built": []string{}, "computed": []string{}, "promoted": []string{}}
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
				Apply: planner.ApplyOptions{AppliedBy: appliedBy(), ExpectEnv: expectEnv, OverwriteUnrecorded: force, Progress: metricsOf(a.ctx).progressed(progress),
					Retries: retries, Jobs: jobs, BatchProgress: a.batchProgress(), BatchFailed: a.batchFailed()},
			}
			// An unchanged project's apply is its no-op plan, reviewed,
			// under the environment's lock: answered from the no-op
			// digest, as efmesh plan answers it (workspace/applynoop.go).
			if noop != nil {
				if hit, ok := workspace.QuickApply(a.ctx, a.dir, *noop, expectEnv); ok {
					if !a.json && metricsOf(a.ctx) == nil {
						// Review prints the plan without changes and
						// nothing else: its text as the digest keeps it.
						a.log.Debug("apply answered from the no-op digest: the files, the state store and the warehouse are as the last plan saw them")
						a.warnUnusedVars(hit.UnusedVars)
						fmt.Fprint(a.stdout, hit.Text)
						return nil
					}
					if p, err := hit.Plan(); err == nil {
						a.log.Debug("apply answered from the no-op digest: the files, the state store and the warehouse are as the last plan saw them")
						a.warnUnusedVars(hit.UnusedVars)
						err := req.Review(p)
						return a.applied(cmd, args[0], payload, &workspace.ApplyResult{Plan: p}, err)
					}
				}
			}
			// The promotion of what another environment built, from the
			// fingerprints of the unchanged project, without loading it:
			// the plan efmesh plan answers the same way
			// (workspace/promotion.go).
			if noop != nil {
				if res, ok, err := workspace.QuickApplyPromotion(a.ctx, a.dir, *noop, a.workspaceOptions(), req); ok {
					a.log.Debug("apply answered from the fingerprints digest: a promotion of built snapshots of an unchanged project")
					return a.applied(cmd, args[0], payload, res, err)
				}
			}
			w, err := a.load(true)
			if err != nil {
				return err
			}
			defer w.Close()
			w.Selection = sel.workspace()
			res, err := w.Apply(a.ctx, args[0], req)
			if err == nil && noop != nil {
				// The store closed, as the next process finds it: the
				// digest keeps its file's stamps, so the next plan reads
				// no token.
				w.Close()
				workspace.SettleNoop(a.ctx, a.dir, *noop)
			}
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

// applied reports an apply's outcome: res and err as Workspace.Apply
// (or QuickApplyPromotion) returned them, payload the --json report its
// Review started (nil when no plan was made).
func (a *app) applied(cmd *cobra.Command, env string, payload map[string]any, res *workspace.ApplyResult, err error) error {
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
		payload["applied"] = true
		if res.Tests != nil {
			payload["tests"] = res.Tests.Tests
		}
		payload["built"] = nonNil(res.Built)
		payload["computed"] = nonNil(res.Computed)
		payload["promoted"] = nonNil(res.Promoted)
		payload["removed"] = nonNil(res.Removed)
		payload["exported"] = nonNil(res.Exported)
		payload["droppedViews"] = nonNil(res.DroppedViews)
		payload["planId"] = res.PlanID
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
		payload := map[string]any{"apiVersion": APIVersion, "env": env, "applied": false, "plan": planJSON(res.Plan),
			"built": []string{}, "computed": []string{}, "promoted": []string{},
			"tests": failed.Report.Tests, "failedTests": failed.Report.Failed, "error": failed.Error()}
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
