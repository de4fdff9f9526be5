package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// RunResult is the outcome of one scheduler tick.
type RunResult struct {
	ID        string
	Env       string
	Outcome   string   // state.RunOK | RunAwaitingHuman | RunLockHeld | RunError | RunInterrupted
	Processed []string // models whose intervals were computed, merged or refreshed
	// Refreshed names the FULL models whose cron fired since their last
	// refresh: their tables were refilled (refresh.go), before the models
	// that read them.
	Refreshed []string
	// Merged names the INCREMENTAL_BY_UNIQUE_KEY and SCD_TYPE_2 models
	// whose query was merged again; Computed the INCREMENTAL_BY_TIME_RANGE
	// models that had intervals computed (Intervals of them in all). Only
	// time-range models have intervals: Processed is the three lists.
	Merged    []string
	Computed  []string
	Intervals int // intervals computed, over all models
	// BlockedBy names the models whose project version differs from the
	// environment ("name: change"), when the tick refused to run.
	BlockedBy []string
	Exported  []string // models copied into an attached database (export.go)
	// Failed lists the models the tick could not compute, Skipped those it
	// did not compute because a model they read failed: the others were
	// computed all the same, and the outcome is "error".
	Failed  []ModelFailure
	Skipped []SkippedModel
	// Freshness is what the tick found of the sources that declare a
	// freshness (CheckFreshness): one past its error_after is in Failed
	// too, and the models that read it in Skipped.
	Freshness []SourceFreshness
	Err       error // the error of an outcome "error" or "lock-held"
}

// ModelsFailedError is a run tick's error when models failed: the models
// that do not read them were computed all the same.
type ModelsFailedError struct {
	Failed  []ModelFailure
	Skipped []SkippedModel
}

func (e *ModelsFailedError) Error() string {
	names := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		names[i] = f.Model
	}
	return fmt.Sprintf("%d model(s) failed (%s), %d skipped", len(e.Failed), strings.Join(names, ", "), len(e.Skipped))
}

// runDetail is the runs journal's JSON of a tick.
type runDetail struct {
	Processed []string       `json:"processed"`
	Refreshed []string       `json:"refreshed"`
	Merged    []string       `json:"merged,omitempty"`
	Computed  []string       `json:"computed,omitempty"`
	Intervals int            `json:"intervals"`
	BlockedBy []string       `json:"blockedBy,omitempty"`
	Failed    []ModelFailure `json:"failed,omitempty"`
	Skipped   []SkippedModel `json:"skipped,omitempty"`
	Error     string         `json:"error,omitempty"`
}

// Run is one scheduler tick over env: for the versions the environment
// already points at, it refills the FULL models whose cron fired since
// their last refresh (refresh.go), merges the INCREMENTAL_BY_UNIQUE_KEY and
// SCD_TYPE_2 models again and computes the intervals that came due since
// the last tick (and any that are missing or failed), parents before
// children. It never applies a change of
// the project: when the project differs from the environment it computes
// nothing and the outcome is awaiting-human, naming the changed models;
// so it does when a relation the state store trusts is missing from the
// warehouse (checked with the plan's one catalog query), which only an
// apply rebuilds.
//
// Run takes the environment's lock (unless opt.Lock holds it) before it
// opens the warehouse with open, waiting up to opt.LockWait for a running
// apply or tick to release it; a tick that still meets it held never
// touches the warehouse: the outcome is lock-held. Every tick is
// journaled whatever its outcome; a journal failure is logged and never
// masks the outcome. The error is that of an outcome "error", "lock-held"
// or "interrupted" (ctx was cancelled; also in RunResult.Err).
func Run(ctx context.Context, a *analysis.Analysis, st state.Store, env string, open func() (engine.Engine, error), opt ApplyOptions) (*RunResult, error) {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The journal's times are the clock's of the tick (opt.Now, pinned by
	// EFMESH_NOW), as are its plan and intervals: status prints them.
	started := now().UTC()
	res := &RunResult{ID: newID(now()), Env: env, Processed: []string{}, Refreshed: []string{}}
	// The tick is journaled as started first, with its process, so that a
	// tick killed before it could record its outcome is seen by status.
	host, _ := os.Hostname()
	owner, _ := json.Marshal(tickOwner{Host: host, PID: os.Getpid()})
	if jerr := st.RecordRun(context.WithoutCancel(ctx), state.Run{ID: res.ID, Env: env, StartedAt: started,
		Outcome: state.RunStarted, Detail: owner}); jerr != nil {
		log.Warn("the runs journal could not record the tick's start", "env", env, "err", jerr)
	}
	err := runTick(ctx, a, st, env, open, opt, now, log, res)
	var held *LockHeldError
	switch {
	case errors.As(err, &held):
		res.Outcome, res.Err = state.RunLockHeld, err
	case err != nil && ctx.Err() != nil: // a signal or the caller stopped it
		res.Outcome, res.Err = state.RunInterrupted, err
	case err != nil:
		res.Outcome, res.Err = state.RunError, err
	case len(res.BlockedBy) > 0:
		res.Outcome = state.RunAwaitingHuman
	default:
		res.Outcome = state.RunOK
	}
	d := runDetail{Processed: res.Processed, Refreshed: res.Refreshed, Merged: res.Merged, Computed: res.Computed, Intervals: res.Intervals, BlockedBy: res.BlockedBy, Failed: res.Failed, Skipped: res.Skipped}
	if err != nil {
		d.Error = err.Error()
	}
	detail, _ := json.Marshal(d)
	if jerr := st.RecordRun(context.WithoutCancel(ctx), state.Run{ID: res.ID, Env: env, StartedAt: started,
		FinishedAt: now().UTC(), Outcome: res.Outcome, Detail: detail}); jerr != nil {
		log.Warn("the runs journal could not record the tick", "env", env, "err", jerr)
	}
	return res, err
}

func runTick(ctx context.Context, a *analysis.Analysis, st state.Store, env string, open func() (engine.Engine, error),
	opt ApplyOptions, now func() time.Time, log *slog.Logger, res *RunResult) error {
	if err := analysis.ValidateEnv(env); err != nil {
		return err
	}
	if opt.Lock == nil {
		lk, err := WaitLock(ctx, st, EnvLock(env), 0, opt.LockWait, opt.OnLockWait)
		if err != nil {
			return err
		}
		defer lk.Release()
	}
	p, err := MakePlan(ctx, a, st, env, PlanAt(now()))
	if err != nil {
		return err
	}
	for _, mp := range p.Models {
		if mp.Change != Unchanged || mp.Build {
			res.BlockedBy = append(res.BlockedBy, mp.Name+": "+string(mp.Change))
		}
	}
	if len(res.BlockedBy) > 0 {
		sort.Strings(res.BlockedBy)
		return nil
	}
	due, err := dueRefreshes(ctx, p, st, now(), nil)
	if err != nil {
		return err
	}
	p.only(opt.Only, due)
	work := len(due)
	for _, mp := range p.Models {
		if opt.Only != nil && !opt.Only[mp.Name] {
			continue
		}
		work += len(mp.Backfill)
		if info := p.analysis.Models[mp.Name]; info != nil && refreshed(info.Model.Kind.Name) {
			due[mp.Name] = true
			work++
		}
	}
	fresh := freshnessScope(p, opt.Only)
	if work == 0 && len(fresh) == 0 {
		return nil // a tick with nothing due never touches the warehouse
	}
	// Before computing, the warehouse is checked as a plan checks it: a
	// relation the store trusts but the warehouse lacks (dropped by hand, a
	// lost file) blocks the tick. Computing into it would re-create an
	// empty table while the ledger says its intervals are done; apply
	// rebuilds it instead.
	wh, err := open()
	if err != nil {
		return err
	}
	defer wh.Close()
	keep := &runOutcome{}
	if len(fresh) > 0 {
		res.Freshness = CheckFreshness(ctx, p.analysis.Project, wh, now(), fresh)
		for _, f := range res.Freshness {
			if f.Status == FreshError {
				keep.fail(f.Model, errors.New(f.Problem()))
			}
		}
	}
	if work == 0 {
		res.Failed = keep.Failed
		if len(res.Failed) > 0 {
			return &ModelsFailedError{Failed: res.Failed}
		}
		return nil
	}
	if p, err = MakePlan(ctx, a, st, env, PlanAt(now()), WithWarehouse(wh)); err != nil {
		return err
	}
	p.only(opt.Only, due)
	for _, mp := range p.Models {
		if mp.Missing {
			res.BlockedBy = append(res.BlockedBy, fmt.Sprintf("%s: %s (efmesh apply %s rebuilds it)", mp.Name, mp.Reason, env))
		}
	}
	if len(res.BlockedBy) > 0 {
		sort.Strings(res.BlockedBy)
		return nil
	}
	b := &builder{a: p.analysis, d: wh.Dialect(), wh: wh, root: a.Project.Root, now: now(), phys: p.physFP, copyHistory: p.copyHistory}
	ar := &ApplyResult{}
	// Intervals count as their batches commit, so a tick stopped half-way
	// journals what it did compute. Batches may commit side by side.
	var committed atomic.Int64
	progress := opt.BatchProgress
	opt.BatchProgress = func(model string, batch, batches int, r analysis.Range) {
		if info := p.analysis.Models[model]; info != nil {
			committed.Add(int64(analysis.GrainOf(info.Model).Count(r)))
		}
		if progress != nil {
			progress(model, batch, batches, r)
		}
	}
	err = execute(ctx, p, b, st, opt, ar, log, due, keep)
	// Side by side, models fail in any order: the report's is the names'.
	slices.SortFunc(keep.Failed, func(a, b ModelFailure) int { return strings.Compare(a.Model, b.Model) })
	slices.SortFunc(keep.Skipped, func(a, b SkippedModel) int { return strings.Compare(a.Model, b.Model) })
	res.Failed, res.Skipped = keep.Failed, keep.Skipped
	res.Intervals = int(committed.Load())
	done := slices.Concat(ar.Built, ar.Computed)
	res.Processed = append(res.Processed, done...)
	for _, n := range done {
		switch k := p.analysis.Models[n].Model.Kind.Name; {
		case k == project.KindIncrementalByTimeRange:
			res.Computed = append(res.Computed, n)
		case refreshed(k):
			res.Merged = append(res.Merged, n)
		default: // FULL: its cron came due
			res.Refreshed = append(res.Refreshed, n)
		}
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", env, err)
	}
	res.Exported, err = exportModels(ctx, p.analysis, wh, env, done)
	if err == nil && len(res.Failed) > 0 {
		err = &ModelsFailedError{Failed: res.Failed, Skipped: res.Skipped}
	}
	return err
}

// freshnessScope names the EXTERNAL models with a freshness a tick checks:
// every one, or with only (a selection) those the selected models read,
// directly or not. Nil when there is none.
func freshnessScope(p *Plan, only map[string]bool) map[string]bool {
	var out map[string]bool
	add := func(name string) {
		if info := p.analysis.Models[name]; info != nil && info.Model.Freshness != nil && info.Model.Kind.Name == project.KindExternal {
			if out == nil {
				out = map[string]bool{}
			}
			out[name] = true
		}
	}
	if only == nil {
		for name := range p.analysis.Models {
			add(name)
		}
		return out
	}
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		add(n)
		for _, parent := range dagParents(p, n) {
			walk(parent)
		}
	}
	for n := range only {
		walk(n)
	}
	return out
}

// JournalFailure records a tick of env that failed before Run could start
// (a project that does not load), so that the failure is in the journal,
// at now (the clock of the ticks: Run's opt.Now).
func JournalFailure(ctx context.Context, st state.Store, env string, now time.Time, cause error) error {
	detail, _ := json.Marshal(runDetail{Processed: []string{}, Refreshed: []string{}, Error: cause.Error()})
	now = now.UTC()
	return st.RecordRun(context.WithoutCancel(ctx), state.Run{ID: newID(now), Env: env, StartedAt: now, FinishedAt: now,
		Outcome: state.RunError, Detail: detail})
}

// only narrows a tick's plan to the selected models (ApplyOptions.Only):
// the others' due intervals and refreshes wait for another tick. A nil
// selection keeps everything.
func (p *Plan) only(sel map[string]bool, due map[string]bool) {
	if sel == nil {
		return
	}
	for i := range p.Models {
		if !sel[p.Models[i].Name] {
			p.Models[i].Backfill, p.Models[i].Intervals = nil, 0
		}
	}
	for name := range due {
		if !sel[name] {
			delete(due, name)
		}
	}
}
