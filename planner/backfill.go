package planner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// PlanOption tunes MakePlan.
type PlanOption func(*planConfig)

type planConfig struct {
	now           time.Time
	forwardOnly   map[string]bool
	reclassify    map[string]Change
	restate       []restateRequest
	rebuild       map[string]bool
	backfillLimit int // 0: none
	// checkWarehouse: compare the store with warehouse (WithWarehouse).
	checkWarehouse bool
	warehouse      engine.Engine
	// workbench: bind what a redacted environment changes (WithWorkbench).
	workbench Workbench
}

// WithBackfillLimit makes MakePlan refuse, with a *LargeBackfillError, a
// plan that computes more than n intervals over all models; n <= 0 sets
// no limit (the default).
func WithBackfillLimit(n int) PlanOption {
	return func(c *planConfig) { c.backfillLimit = max(n, 0) }
}

// restateRequest asks a plan to recompute [from, to) of a model.
type restateRequest struct {
	model    string
	from, to time.Time
}

// WithForwardOnly asks that the named incremental models change without
// recomputing history: they inherit their previous table and done
// intervals, new columns are added with ALTER.
func WithForwardOnly(models ...string) PlanOption {
	return func(c *planConfig) {
		if c.forwardOnly == nil {
			c.forwardOnly = map[string]bool{}
		}
		for _, m := range models {
			c.forwardOnly[m] = true
		}
	}
}

// WithReclassify states the operator's verdict (Breaking or NonBreaking) on a
// directly changed model. A verdict the AST contradicts (non-breaking for
// a change that drops or reorders columns) makes MakePlan fail.
func WithReclassify(model string, verdict Change) PlanOption {
	return func(c *planConfig) {
		if c.reclassify == nil {
			c.reclassify = map[string]Change{}
		}
		c.reclassify[model] = verdict
	}
}

// WithRestate makes the plan recompute [from, to) of an
// INCREMENTAL_BY_TIME_RANGE model and of its INCREMENTAL_BY_TIME_RANGE
// descendants, in the snapshots the plan is about to promote (new or
// not), whatever their ledgers say: the backfill's DELETE+INSERT replaces
// the range's rows. The bounds must be aligned to the model's intervals; a
// descendant of a coarser grain has its range widened to whole intervals.
// FULL descendants are refilled after them (ModelPlan.Refill).
func WithRestate(model string, from, to time.Time) PlanOption {
	return func(c *planConfig) {
		c.restate = append(c.restate, restateRequest{model: model, from: from.UTC(), to: to.UTC()})
	}
}

// PlanAt makes the plan as of now: intervals are due up to the last
// complete one before now. Tests and replays pin it; the default is the
// current time.
func PlanAt(now time.Time) PlanOption {
	return func(c *planConfig) { c.now = now }
}

func planConfigOf(opts []PlanOption) planConfig {
	var c planConfig
	for _, o := range opts {
		o(&c)
	}
	if c.now.IsZero() {
		c.now = time.Now()
	}
	return c
}

// fillBackfill lists, for every incremental model of the plan, the ranges
// its snapshot's ledger lacks between the model's start and now. A new
// snapshot has an empty ledger: its whole history is due. Ranges to compute
// are changes even when the model's version is not.
func (p *Plan) fillBackfill(ctx context.Context, st state.Reader, now time.Time) error {
	for i := range p.Models {
		mp := &p.Models[i]
		info := p.analysis.Models[mp.Name]
		if mp.Change == Removed || info == nil || info.Model.Kind.Name != project.KindIncrementalByTimeRange {
			continue
		}
		m := info.Model
		start, err := modelStart(m, p.analysis.Project.Config)
		if err != nil {
			return err
		}
		var done []state.Interval
		if p.stored[mp.Fingerprint] && !p.lost[mp.Fingerprint] {
			if done, err = st.Intervals(ctx, mp.Fingerprint); err != nil {
				return err
			}
		}
		if old, ok := p.reuse[mp.Name]; ok {
			// An inherited table brings its done intervals along.
			inherited, err := st.Intervals(ctx, old)
			if err != nil {
				return err
			}
			done = append(done, inherited...)
		}
		if r, ok := p.restated[mp.Name]; ok {
			// Restated: the range is due again, whatever the ledger says.
			kept := done[:0:0]
			for _, iv := range done {
				if !(iv.Start.Before(r.End) && iv.End.After(r.Start)) {
					kept = append(kept, iv)
				}
			}
			done = kept
			mp.Explain = append(mp.Explain, "restated: "+r.String()+" is recomputed")
		}
		g := grainOf(m)
		for _, r := range g.Missing(start, now, done, m.Kind.Lookback) {
			mp.Backfill = append(mp.Backfill, r.pair())
			mp.Intervals += g.Count(r)
		}
		if len(mp.Backfill) > 0 {
			p.HasChanges = true
		}
	}
	return nil
}

// IntervalsError reports the intervals of a model whose write failed after
// every retry. They are marked failed in the ledger; the others of the
// same backfill were still computed.
type IntervalsError struct {
	Model  string
	Failed []Range
	Err    error // the first failure
}

func (e *IntervalsError) Error() string {
	// Adjacent failures read as one range, and a long list is cut: a
	// year of failed days is one line, not a screenful.
	failed := slices.SortedFunc(slices.Values(e.Failed), func(a, b Range) int { return a.Start.Compare(b.Start) })
	var merged []Range
	for _, r := range failed {
		if n := len(merged); n > 0 && !r.Start.After(merged[n-1].End) {
			if r.End.After(merged[n-1].End) {
				merged[n-1].End = r.End
			}
			continue
		}
		merged = append(merged, r)
	}
	const most = 5
	var rs []string
	for i, r := range merged {
		if i == most {
			rs = append(rs, fmt.Sprintf("and %d more range(s)", len(merged)-most))
			break
		}
		rs = append(rs, r.String())
	}
	return fmt.Sprintf("%s: %d interval(s) failed: %s: %v", e.Model, len(e.Failed), strings.Join(rs, ", "), e.Err)
}

func (e *IntervalsError) Unwrap() error { return e.Err }

// backfillOptions are the parts of ApplyOptions a backfill uses.
type backfillOptions struct {
	retries    int
	retryDelay time.Duration
	progress   func(model string, batch, batches int, r Range)
	failed     func(model string, r Range, err error)
	now        func() time.Time
	log        *slog.Logger // audit warnings
	// jobs is how many batches of one model run at once, each its own
	// transaction on its own connection (batches cover disjoint ranges).
	jobs int
}

// report tells the caller how a settled batch went: progress for a
// committed one, failed for one marked failed.
func (opt backfillOptions) report(model string, k, n int, r Range, err error) {
	switch {
	case err == nil && opt.progress != nil:
		opt.progress(model, k, n, r)
	case err != nil && opt.failed != nil:
		opt.failed(model, r, err)
	}
}

// forEachBatch runs f over batches, on up to jobs goroutines, in order
// when jobs <= 1. The first error stops what has not started and is
// returned once the running batches are done.
func forEachBatch(ctx context.Context, batches []Range, jobs int, f func(Range) error) error {
	if jobs <= 1 || len(batches) <= 1 {
		for _, r := range batches {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := f(r); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan Range)
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range min(jobs, len(batches)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				if err := f(r); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
	fed := 0
feed:
	for _, r := range batches {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- r:
			fed++
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	if fed < len(batches) {
		return ctx.Err()
	}
	return nil
}

// backfill computes ranges of an INCREMENTAL_BY_TIME_RANGE snapshot: it
// creates the physical table when missing, then writes batch by batch, each
// batch one engine transaction that deletes the batch's range and inserts
// the query's rows of that range (so a batch re-run after a crash never
// duplicates). The ledger records each interval done after its batch
// commits, or failed when the write failed after every retry; the other
// batches go on.
func (b *builder) backfill(ctx context.Context, st state.Store, info *ModelInfo, ranges []Range, opt backfillOptions) error {
	m := info.Model
	rel := PhysicalRelation(b.d, m, b.physFP(info))
	q, err := b.Query(info)
	if err != nil {
		return err
	}
	if err := b.checkContract(ctx, info, q); err != nil {
		return err
	}
	cols, err := b.columns(ctx, m, q)
	if err != nil {
		return err
	}
	if err := hasTimeColumn(m, cols); err != nil {
		return err
	}
	if err := b.wh.Exec(ctx, b.d.CreateTable(rel, cols)); err != nil {
		return fmt.Errorf("create %s: %w", rel, err)
	}

	g := grainOf(m)
	var batches []Range
	for _, r := range ranges {
		batches = append(batches, g.Batches(r, m.Kind.BatchSize)...)
	}
	names := namesOf(cols)
	ie := &IntervalsError{Model: m.Name}
	var mu sync.Mutex // guards ie and the progress count
	finished := 0
	one := func(batch Range) error {
		bb := *b
		bb.interval = &batch
		bq, err := bb.Query(info)
		if err != nil {
			return err
		}
		start, end := b.d.TimestampLiteral(batch.Start.Format(time.RFC3339)), b.d.TimestampLiteral(batch.End.Format(time.RFC3339))
		stmts := b.d.ReplaceRange(rel, names, m.Kind.TimeColumn, start, end, bq)
		err = retry(ctx, opt.retries, opt.retryDelay, func() error { return b.wh.Tx(ctx, stmts) })
		if err == nil { // the interval's audits, before it counts as done
			slice := "(SELECT * FROM " + b.d.QuoteRelation(rel) + " WHERE " + engine.RangeCondition(m.Kind.TimeColumn, start, end) + ")"
			err = b.auditInterval(ctx, info, slice, batch, opt.log)
		}
		mu.Lock()
		defer mu.Unlock()
		if err := settle(ctx, st, info.Fingerprint, intervalsOf(g, batch), batch, err, ie, opt); err != nil {
			return err
		}
		finished++
		opt.report(m.Name, finished, len(batches), batch, err)
		return nil
	}
	if err := forEachBatch(ctx, batches, opt.jobs, one); err != nil {
		return err
	}
	if len(ie.Failed) > 0 {
		return ie
	}
	return nil
}

// namesOf lists the names of cols.
func namesOf(cols []engine.Column) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names
}

func intervalsOf(g Grain, r Range) []state.Interval {
	var out []state.Interval
	for _, iv := range g.Intervals(r) {
		out = append(out, state.Interval{Start: iv.Start, End: iv.End})
	}
	return out
}

// retry runs fn, and again up to retries times after a failure, waiting
// delay, then twice as long each time. It stops early when ctx is done.
func retry(ctx context.Context, retries int, delay time.Duration, fn func() error) error {
	err := fn()
	for i := 0; err != nil && i < retries; i++ {
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay << i):
		}
		err = fn()
	}
	return err
}

// backfillRanges reads a plan line's ranges back.
func backfillRanges(mp ModelPlan) ([]Range, error) {
	out := make([]Range, 0, len(mp.Backfill))
	for _, p := range mp.Backfill {
		r, err := rangeOfPair(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// execute builds the snapshots the plan marks Build and computes the
// ranges it lists, parents before children. It promotes nothing.
//
// Models in due (a run tick's) are computed again, built or not: an
// INCREMENTAL_BY_UNIQUE_KEY or SCD_TYPE_2 model merges its query again, a
// FULL model has its table refilled. Apply passes the FULL descendants of
// a restate (Plan.refilled); other models it merges and fills only when it
// builds them. Every FULL model computed records
// its refresh in the ledger (see markRefreshed).
func execute(ctx context.Context, p *Plan, b *builder, st state.Store, opt ApplyOptions, res *ApplyResult, log *slog.Logger, due map[string]bool) error {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	work := func(mp ModelPlan) bool {
		if mp.Change == Removed {
			return false
		}
		k := p.analysis.Models[mp.Name].Model.Kind.Name
		// A refreshed model that takes over an older table merges into it
		// now: the environment's version reads its new parents from here on.
		return mp.Build || len(mp.Backfill) > 0 || due[mp.Name] || mp.ReusedFrom != "" && refreshed(k)
	}
	total := 0
	var snaps []state.Snapshot
	for _, mp := range p.Models {
		if work(mp) {
			total++
			if info := p.analysis.Models[mp.Name]; !p.stored[info.Fingerprint] {
				snaps = append(snaps, b.snapshot(info))
			}
		}
	}
	// Every snapshot to build is recorded (unbuilt) before any build, in
	// one transaction, so that its ledger can follow the batches; a failed
	// apply takes back the records of what it did not build (rollback).
	if len(snaps) > 0 {
		if err := st.PutSnapshots(ctx, snaps); err != nil {
			return err
		}
	}
	if total > 0 {
		if err := b.wh.Exec(ctx, b.d.CreateSchema(PhysicalSchema)); err != nil {
			return fmt.Errorf("create schema %s: %w", PhysicalSchema, err)
		}
	}
	jobs := opt.Jobs
	if c, ok := b.wh.(interface{ MaxConcurrency() int }); ok && c.MaxConcurrency() < jobs {
		jobs = c.MaxConcurrency()
	}
	bo := backfillOptions{retries: opt.Retries, retryDelay: opt.RetryDelay, progress: opt.BatchProgress, failed: opt.BatchFailed, now: now, log: log, jobs: jobs}
	if bo.retryDelay <= 0 {
		bo.retryDelay = 500 * time.Millisecond
	}
	var mu sync.Mutex // guards res and the progress count
	one := func(ctx context.Context, b *builder, mp ModelPlan) error {
		info := p.analysis.Models[mp.Name]
		start := time.Now()
		targetErr := b.checkTarget(info.Model)
		err := targetErr
		lake := TargetOf(info.Model) == "parquet"
		switch k := info.Model.Kind.Name; {
		case err != nil:
		case k == project.KindIncrementalByTimeRange:
			var ranges []Range
			if ranges, err = backfillRanges(mp); err == nil && lake {
				err = b.backfillLake(ctx, st, info, ranges, bo)
			} else if err == nil {
				err = b.backfill(ctx, st, info, ranges, bo)
			}
		case refreshed(k):
			err = b.refresh(ctx, info, bo, now())
		case lake:
			err = b.buildLakeFull(ctx, info, bo)
		case k == project.KindFull && !mp.Build:
			err = b.refill(ctx, info)
		default:
			err = b.build(ctx, info)
		}
		if lake && targetErr == nil {
			// The manifest follows the ledger, failed intervals included.
			if merr := b.writeManifest(ctx, st, info); merr != nil && err == nil {
				err = merr
			}
		}
		if err != nil {
			return &BuildError{Model: mp.Name, File: info.Model.File, Err: err}
		}
		// Blocking audits of what was just built: a violation leaves the
		// snapshot unbuilt, so the next apply builds it again.
		if err := b.auditBuilt(ctx, info, log); err != nil {
			return err
		}
		if mp.Build {
			if err := st.MarkBuilt(ctx, info.Fingerprint, now().UTC()); err != nil {
				return err
			}
		}
		if info.Model.Kind.Name == project.KindFull {
			// A snapshot this apply recorded has no earlier refresh to clear.
			first := !p.stored[info.Fingerprint] && p.reuse[mp.Name] == ""
			if err := markRefreshed(ctx, st, p.analysis.Project.Config, info, now(), first); err != nil {
				return err
			}
		}
		mu.Lock()
		defer mu.Unlock()
		res.Built = append(res.Built, mp.Name)
		log.Info("built", "model", mp.Name, "table", mp.PhysicalTable, "ranges", len(mp.Backfill), "elapsed", time.Since(start).Round(time.Millisecond))
		if opt.Progress != nil {
			opt.Progress(len(res.Built), total, mp.Name)
		}
		return nil
	}
	var todo []ModelPlan
	for _, mp := range p.Models {
		if work(mp) {
			todo = append(todo, mp)
		}
	}
	if jobs <= 1 {
		for _, mp := range todo {
			if err := one(ctx, b, mp); err != nil {
				return err
			}
		}
		return nil
	}
	return runDAG(ctx, p, todo, jobs, func(ctx context.Context, mp ModelPlan) error {
		bb := *b // a builder per model: backfills set its interval
		return one(ctx, &bb, mp)
	})
}

// runDAG runs f for every model of todo on at most jobs goroutines, each
// as soon as the plan's models it reads are done: independent branches
// build side by side. A failure cancels what has not started; models
// downstream of a failed one never start. The first error is returned.
func runDAG(ctx context.Context, p *Plan, todo []ModelPlan, jobs int, f func(context.Context, ModelPlan) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(map[string]chan struct{}, len(todo))
	failed := make(map[string]bool)
	var mu sync.Mutex
	for _, mp := range todo {
		done[mp.Name] = make(chan struct{})
	}
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var first error
	for _, mp := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[mp.Name])
			fail := func(err error) {
				mu.Lock()
				defer mu.Unlock()
				failed[mp.Name] = true
				if first == nil && err != nil {
					first = err
					cancel()
				}
			}
			for _, parent := range dagParents(p, mp.Name) {
				ch, ok := done[parent]
				if !ok {
					continue
				}
				select {
				case <-ch:
				case <-ctx.Done():
					fail(nil)
					return
				}
				mu.Lock()
				bad := failed[parent]
				mu.Unlock()
				if bad {
					fail(nil)
					return
				}
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				fail(nil)
				return
			}
			defer func() { <-sem }()
			if err := f(ctx, mp); err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}

// dagParents lists the models a model waits for: its refs, through
// embedded models (inlined, so their own refs are read directly).
func dagParents(p *Plan, name string) []string {
	info := p.analysis.Models[name]
	if info == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	var walk func(m *project.Model)
	walk = func(m *project.Model) {
		for _, r := range m.Refs() {
			if seen[r] {
				continue
			}
			seen[r] = true
			out = append(out, r)
			if pi := p.analysis.Models[r]; pi != nil && pi.Model.Kind.Name == project.KindEmbedded {
				walk(pi.Model)
			}
		}
	}
	walk(info.Model)
	return out
}

// checkCurrent fails when the environment's pointers moved since the plan
// was made (another apply ran in between): the plan is stale.
func (p *Plan) checkCurrent(ctx context.Context, st state.Reader) error {
	cur, err := st.Environment(ctx, p.Env)
	if err != nil {
		return err
	}
	same := len(cur) == len(p.current)
	for name, ptr := range cur {
		same = same && p.current[name].Fingerprint == ptr.Fingerprint
	}
	if !same {
		return fmt.Errorf("environment %s changed since the plan was made; plan again", p.Env)
	}
	return nil
}

// hasTimeColumn checks that the model's time column is among its columns:
// every interval's DELETE and filter rely on it.
func hasTimeColumn(m *project.Model, cols []engine.Column) error {
	for _, c := range cols {
		if strings.EqualFold(c.Name, m.Kind.TimeColumn) {
			return nil
		}
	}
	return fmt.Errorf("time_column %s is not a column of %s's query", m.Kind.TimeColumn, m.Name)
}

// settle records one batch's outcome in the ledger: done, or failed and
// collected in ie so the other batches go on. Only a cancelled context (or
// a ledger that cannot be written) stops the backfill.
func settle(ctx context.Context, st state.Store, fp string, marks []state.Interval, r Range, err error, ie *IntervalsError, opt backfillOptions) error {
	if err == nil {
		// The batch committed: it counts even when the backfill is being
		// stopped, so the ledger never lags behind the table.
		return st.MarkIntervals(context.WithoutCancel(ctx), fp, marks, state.IntervalDone, opt.now().UTC())
	}
	if ctx.Err() != nil {
		return err
	}
	_ = st.MarkIntervals(context.WithoutCancel(ctx), fp, marks, state.IntervalFailed, opt.now().UTC())
	ie.Failed = append(ie.Failed, r)
	if ie.Err == nil {
		ie.Err = err
	}
	return nil
}

// restateRanges resolves the plan's restate requests: the range of each
// named model and of its INCREMENTAL_BY_TIME_RANGE descendants (widened to
// whole intervals of a coarser grain), keyed by model; and the FULL
// descendants, which read the recomputed ranges whole, each with the
// restated models it descends from (sorted).
func restateRanges(a *Analysis, reqs []restateRequest) (map[string]Range, map[string][]string, error) {
	out := map[string]Range{}
	full := map[string][]string{}
	if len(reqs) == 0 {
		return out, full, nil
	}
	children := map[string][]string{}
	for _, m := range a.Project.Models {
		for _, r := range m.Refs() {
			children[r] = append(children[r], m.Name)
		}
	}
	for _, rq := range reqs {
		info := a.Models[rq.model]
		if info == nil {
			return nil, nil, &UnknownModelError{Option: OptionRestate, Name: rq.model, Suggestion: nearModel(rq.model, a.Models)}
		}
		switch k := info.Model.Kind.Name; k {
		case project.KindIncrementalByTimeRange:
		case project.KindSCDType2:
			return nil, nil, &OptionError{Option: OptionRestate, Reason: rq.model + " is SCD_TYPE_2: its version history has no time ranges to restate"}
		default:
			return nil, nil, &OptionError{Option: OptionRestate, Reason: fmt.Sprintf("%s is %s: only INCREMENTAL_BY_TIME_RANGE models have intervals", rq.model, k)}
		}
		if !rq.from.Before(rq.to) {
			return nil, nil, &RestateRangeError{Model: rq.model, From: rq.from.Format(time.RFC3339), To: rq.to.Format(time.RFC3339)}
		}
		g := grainOf(info.Model)
		for _, b := range []time.Time{rq.from, rq.to} {
			if !g.Aligned(b) {
				return nil, nil, &RestateBoundsError{Model: rq.model, Grain: g, Bound: b}
			}
		}
		seen := map[string]bool{rq.model: true}
		queue := []string{rq.model}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			if mi := a.Models[n]; mi != nil && mi.Model.Kind.Name == project.KindIncrementalByTimeRange {
				mg := grainOf(mi.Model)
				r := Range{Start: mg.Floor(rq.from), End: mg.Ceil(rq.to)}
				if old, ok := out[n]; ok { // two requests: their hull
					r = Range{Start: minTime(old.Start, r.Start), End: maxTime(old.End, r.End)}
				}
				out[n] = r
			} else if mi != nil && mi.Model.Kind.Name == project.KindFull && !slices.Contains(full[n], rq.model) {
				full[n] = append(full[n], rq.model)
				slices.Sort(full[n])
			}
			for _, c := range children[n] {
				if !seen[c] {
					seen[c] = true
					queue = append(queue, c)
				}
			}
		}
	}
	return out, full, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// WithRebuildHistory allows the plan to rebuild the named SCD_TYPE_2
// models' history from scratch: a change of their own definition builds a
// new table (the accumulated versions stay with the old snapshot), and an
// upstream change that would otherwise keep the history table rebuilds it.
// Without it, a plan that rebuilds an SCD_TYPE_2 history says so and Apply
// refuses it (*HistoryRebuildError).
func WithRebuildHistory(models ...string) PlanOption {
	return func(c *planConfig) {
		if c.rebuild == nil {
			c.rebuild = map[string]bool{}
		}
		for _, m := range models {
			c.rebuild[m] = true
		}
	}
}
