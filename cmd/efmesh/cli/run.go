package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) runCmd() *cobra.Command {
	var retries, jobs int
	var sel selection
	cmd := &cobra.Command{
		Use: "run <env>",
		Example: `  efmesh run prod
  efmesh run dev --jobs 2 --retries 3 --select 'tag:nightly'
  efmesh run prod --metrics /var/lib/node_exporter/efmesh.prom`,
		Short: "One scheduler tick: compute the intervals that came due",
		Long: `Run computes the intervals of incremental models that came due since the
last tick, for the versions the environment already points at. Before the
models that read them, it rebuilds the FULL models whose cron (the header's
cron, else efmesh.yaml's defaults: {cron: ...}, else @daily) fired since
their last refresh, and merges INCREMENTAL_BY_UNIQUE_KEY and SCD_TYPE_2
models again. It never
applies a change of the project: when the project differs from the
environment it computes nothing and exits 2 naming the changed models; so
it does when a relation the state store trusts is missing from the
warehouse (a table or view dropped by hand): efmesh apply rebuilds it.

Run shares the environment's lock with apply; a tick that meets it held
waits for it up to --lock-timeout (else engine lock_timeout in
efmesh.yaml, else 10s), as for a DuckDB file another process writes; one
that still meets it held computes nothing and exits 1 (outcome lock-held). Every tick is recorded in
the runs journal (see efmesh status).

With --select (and --exclude), the tick computes only the selected models'
due intervals and refreshes, and a change of the project that the
selection leaves out (as efmesh plan --select lists it) does not block it.

An EXTERNAL model that declares a freshness has the newest value of its
column read before anything is computed: older than its warn_after is a
warning; older than its error_after, the source counts as a failed model
(--json: freshness per source).

A model that fails stops only itself and the models that read it: every
model whose parents all succeeded is computed all the same, the failed
ones and those skipped because of them ("skipped: parent x failed") are
listed in the report (--json: failed, skipped, succeeded), and the tick
exits 1. Apply keeps all-or-nothing: its first failure stops it, and it
promotes nothing.

Exit codes: 0 the tick ran (possibly with nothing due), 1 an error (a model
failed) or a held lock, 2 awaiting a human (unapplied changes, missing relations), 130 interrupted (SIGINT or
SIGTERM: committed intervals stay, the batch in flight is rolled back).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := args[0]
			if err := analysis.ValidateEnv(env); err != nil {
				return err
			}
			a.varEnv = env
			w, err := a.load(true)
			if err != nil {
				a.journalLoadFailure(env, err)
				return err
			}
			defer w.Close()
			w.Selection = sel.workspace()
			open := func() (engine.Engine, error) { return a.warehouse(w.Project, false) }
			live := a.newLiveProgress("run " + env)
			res, err := w.Run(a.ctx, env, open, a.tickOptions(w.Project, retries, jobs, live))
			live.Stop()
			if res == nil { // the selection could not be made; no tick ran
				return err
			}
			metricsOf(a.ctx).setOutcome(res.Outcome)
			// A source past its warn_after is a warning; one past its
			// error_after is a failed model (its readers skipped).
			for _, f := range res.Freshness {
				if f.Status == planner.FreshWarn {
					fmt.Fprintf(a.stderr, "efmesh: warning: source %s\n", f.Text())
				}
			}
			code := tickExitCode(res.Outcome)
			if a.json {
				payload := jsonapi.Run{APIVersion: APIVersion, Env: env, Outcome: res.Outcome,
					Processed: nonNil(res.Processed), Refreshed: nonNil(res.Refreshed), Merged: nonNil(res.Merged),
					Computed: nonNil(res.Computed), Intervals: res.Intervals, Succeeded: nonNil(res.Processed),
					Failed: nonNilOf(workspace.JSONModelFailures(res.Failed)), Skipped: nonNilOf(workspace.JSONSkippedModels(res.Skipped)),
					BlockedBy: res.BlockedBy, Exported: res.Exported, Freshness: workspace.JSONFreshness(res.Freshness)}
				if err != nil {
					payload.Error = err.Error()
				}
				// The failed and skipped models go to stderr with --json
				// too, as logs do: stdout holds the payload only.
				fmt.Fprint(a.stderr, workspace.RunFailuresText(res))
				a.writeJSON(payload)
				if code != ExitOK {
					return &exitError{code: code}
				}
				return nil
			}
			a.printTick(env, res, err)
			if code != ExitOK {
				return &exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&retries, "retries", 0, "retry a failed interval batch write N times (exponential backoff)")
	jobs = 4
	cmd.Flags().Var(jobsFlag{&jobs}, "jobs", jobsUsage)
	sel.register(cmd)
	a.registerVars(cmd)
	return a.withMetrics(cmd)
}

// tickOptions are the options of a run tick on project: the environment's
// lock is waited for as the DuckDB file is (--lock-timeout, else engine
// lock_timeout in efmesh.yaml), the wait said on stderr.
func (a *app) tickOptions(p *project.Project, retries, jobs int, live *liveProgress) planner.ApplyOptions {
	lockWait := connect.LockTimeoutOf(p)
	if a.lockTimeout != nil {
		lockWait = *a.lockTimeout
	}
	return planner.ApplyOptions{AppliedBy: appliedBy(),
		LockWait: lockWait, OnLockWait: func(held state.Lock, wait time.Duration) {
			fmt.Fprintf(a.stderr, "efmesh: %v; waiting up to %s for it to finish\n", &planner.LockHeldError{Held: held}, wait)
		},
		Logger: a.log, Now: a.now, Retries: retries, Jobs: jobs, BatchProgress: live.Batch(a.batchProgress()), BatchFailed: a.batchFailed(),
		Started: live.Started, Progress: live.Built(metricsOf(a.ctx).progressed(nil))}
}

// tickExitCode is the exit code of a tick with outcome o: 2 awaiting a
// human, 1 an error or a held lock, 130 interrupted.
func tickExitCode(o string) int {
	switch o {
	case state.RunAwaitingHuman:
		return ExitAwaiting
	case state.RunLockHeld, state.RunError:
		return ExitError
	case state.RunInterrupted:
		return ExitInterrupted
	}
	return ExitOK
}

// printTick prints a tick's report (without --json): what it computed on
// stdout, what failed, blocked or stopped it on stderr.
func (a *app) printTick(env string, res *planner.RunResult, err error) {
	switch {
	case res.Outcome == state.RunOK:
		fmt.Fprint(a.stdout, workspace.RunText(res))
	case len(res.Failed) > 0:
		// What succeeded was computed all the same: the report
		// lists it beside what failed and what was skipped.
		fmt.Fprint(a.stdout, workspace.RunText(res))
		fmt.Fprint(a.stderr, workspace.RunFailuresText(res))
		fmt.Fprintf(a.stderr, "efmesh: run %s: %s: %v\n", env, res.Outcome, err)
	case res.Outcome == state.RunAwaitingHuman:
		fmt.Fprintf(a.stderr, "efmesh: run %s: the environment needs an apply first (efmesh apply %s):\n", env, env)
		for _, b := range res.BlockedBy {
			fmt.Fprintf(a.stderr, "  %s\n", b)
		}
	case res.Outcome == state.RunInterrupted:
		why := "interrupted"
		if ie, ok := interrupted(a.ctx); ok {
			why = ie.Error()
		}
		fmt.Fprintf(a.stderr, "efmesh: run %s: %s; the batch in flight was rolled back; the next run resumes\n", env, why)
	default:
		var corrupt *engine.CorruptError
		if errors.As(err, &corrupt) { // positioned: the warehouse file
			a.printCorrupt(corrupt)
			break
		}
		var pe *planner.ProblemsError
		if errors.As(err, &pe) { // positioned: the project's own problems
			a.printDiagnostics(pe.Diagnostics)
		}
		var held *planner.LockHeldError
		if errors.As(err, &held) && held.Waited > 0 {
			err = fmt.Errorf("%w (wait longer with --lock-timeout 1m, or engine lock_timeout in efmesh.yaml)", err)
		}
		fmt.Fprintf(a.stderr, "efmesh: run %s: %s: %v\n", env, res.Outcome, err)
	}
}

// journalLoadFailure records a tick that could not start because the
// project does not load, when the store itself can be opened.
func (a *app) journalLoadFailure(env string, cause error) {
	var pe *planner.ProblemsError
	msg := cause
	if errors.As(cause, &pe) {
		msg = fmt.Errorf("the project has problems: %w", cause)
	}
	root, err := project.FindRoot(a.dir)
	if err != nil {
		return
	}
	proj, err := project.Load(root)
	if err != nil {
		return
	}
	st, err := openStore(a.ctx, proj)
	if err != nil {
		return
	}
	defer st.Close()
	if err := planner.JournalFailure(a.ctx, st, env, a.now(), msg); err != nil {
		a.log.Warn("the runs journal could not record the tick", "env", env, "err", err)
	}
}

// applyFailed reports a failed apply. With --json, failed intervals are
// listed as data ("failedIntervals": model -> [[start, end]]) and blocking
// audit failures too ("auditFailures": the audit results) beside the
// error, in the apply payload (applied false); other errors print as usual.
func (a *app) applyFailed(payload *jsonapi.Apply, res *planner.ApplyResult, err error) error {
	var ie *planner.IntervalsError
	var af *planner.AuditFailure
	hasIE, hasAF := errors.As(err, &ie), errors.As(err, &af)
	if !a.json || !hasIE && !hasAF {
		return err
	}
	if hasIE {
		payload.FailedIntervals = map[string][][]string{ie.Model: workspace.JSONRanges(ie.Failed)}
	}
	if hasAF {
		payload.AuditFailures = nonNilOf(workspace.JSONAuditResults(af.Results))
	}
	payload.Error = err.Error()
	if res != nil {
		payload.Built = nonNil(res.Built)
		payload.Computed = nonNil(res.Computed)
	}
	a.writeJSON(payload)
	return &exitError{code: ExitError}
}

// nonNilOf is s, or an empty list where s is nil (JSON [] rather than null).
func nonNilOf[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
