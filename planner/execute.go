package planner

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// computes reports whether apply (due: the models a run tick or a refill
// computes again) builds mp's snapshot or computes into its table.
func (p *Plan) computes(mp ModelPlan, due map[string]bool) bool {
	if mp.Change == Removed {
		return false
	}
	// The line's own kind: a plan answered from the no-op digest has
	// no analysis.
	k := project.KindName(mp.Kind)
	// A refreshed model that takes over an older table merges into it
	// now: the environment's version reads its new parents from here on.
	return mp.Build || len(mp.Backfill) > 0 || due[mp.Name] || mp.ReusedFrom != "" && refreshed(k)
}

// Runs names the models whose query apply runs: those it builds and
// those it computes into (the union of ApplyResult.Built and Computed),
// in the plan's order. The unit tests that gate an apply are theirs.
func (p *Plan) Runs() []string {
	due := p.refilled()
	var names []string
	for _, mp := range p.Models {
		if p.computes(mp, due) {
			names = append(names, mp.Name)
		}
	}
	return names
}

// Computes counts the models apply computes without building a new
// snapshot for them: a reused snapshot's missing intervals, a FULL model
// refilled after a restate or a preview, a refreshed model merging into
// the table it takes over. Apply reports them under ApplyResult.Computed,
// the models it builds (Builds) under ApplyResult.Built: the one
// definition of "build" and "compute" every report of a plan or an apply
// uses (Plan.Summary).
func (p *Plan) Computes() int {
	due, n := p.refilled(), 0
	for _, mp := range p.Models {
		if !mp.Build && p.computes(mp, due) {
			n++
		}
	}
	return n
}

// checkpointer is a warehouse that keeps what it has written but not yet
// checkpointed in memory it cannot evict (DuckDB: every table created since
// the last checkpoint pins its segments, ~100 KB even for one row, until
// its WAL is merged into the file). DuckDB's Checkpoint also empties the
// buffer pool's cache of the blocks written, which it would otherwise keep
// up to its memory limit. MemoryUsage is what the warehouse holds now and
// its memory limit.
type checkpointer interface {
	Checkpoint(ctx context.Context) error
	MemoryUsage(ctx context.Context) (used, limit int64, err error)
}

// checkpointBudget is how much memory a sequential apply lets the
// warehouse hold (what the tables written since the last checkpoint pin,
// and the cache of blocks written) before it checkpoints, looking every
// checkpointCheck models; never more than an eighth of the warehouse's
// memory limit. The memory stays far below the limit whatever the
// tables' sizes, and the checkpoints follow the bytes written, not the
// number of tables: a checkpoint costs in proportion to the whole catalog
// (every table's entry and statistics are written again), so a fixed
// count of models between two checkpoints makes an apply of many small
// tables quadratic in the project's size. DuckDB checkpoints on its own
// only when the WAL reaches wal_autocheckpoint (16 MB), which thousands of
// small tables never do before the pinned memory exceeds the limit (out
// of memory). A few large tables are checkpointed after each; many small
// ones, after as many as fit the budget.
const (
	checkpointBudget = 40 << 20
	checkpointCheck  = 20
)

// checkpointDue reports whether a warehouse holding used bytes under a
// memory limit of limit bytes (0: unknown) is to be checkpointed.
func checkpointDue(used, limit int64) bool {
	budget := int64(checkpointBudget)
	if limit > 0 {
		budget = min(budget, limit/8)
	}
	return used > budget
}

// Summary is a plan's totals as apply counts them: what plan's text and
// JSON print, and what apply's report (ApplyResult) then lists.
type Summary struct {
	Build   int `json:"build"`
	Compute int `json:"compute"`
	Promote int `json:"promote"`
	Remove  int `json:"remove"`
	// StaleViews counts the stale views of EXTERNAL models apply drops.
	StaleViews int `json:"staleViews"`
}

// Summary tallies the plan as apply will report it.
func (p *Plan) Summary() Summary {
	s := Summary{Build: p.Builds(), Compute: p.Computes(), Promote: p.Promotes()}
	for _, m := range p.Models {
		if m.Change == Removed {
			s.Remove++
		}
		if m.StaleView != "" {
			s.StaleViews++
		}
	}
	return s
}

// execute builds the snapshots the plan marks Build and computes the
// ranges it lists, parents before children. It promotes nothing.
//
// Models in due (a run tick's) are computed again, built or not: an
// INCREMENTAL_BY_UNIQUE_KEY or SCD_TYPE_2 model merges its query again, a
// FULL model has its table refilled. Apply passes the FULL descendants of
// a restate (Plan.refilled); other models it merges and fills only when it
// builds them. Every FULL model computed records
// its refresh in the ledger (see recordRefresh).
//
// With keep nil (apply), the first failure stops the builds and is
// returned. With keep (a run tick), a model that fails is recorded there
// and the others go on: every model whose computed ancestors all succeeded
// is still computed, those downstream of a failure are skipped and
// recorded with the failed model they wait for (runOutcome).
func execute(ctx context.Context, p *Plan, b *builder, st state.Store, opt ApplyOptions, res *ApplyResult, log *slog.Logger, due map[string]bool, keep *runOutcome) (err error) {
	x := &executor{p: p, st: st, opt: opt, res: res, log: log, now: opt.Now}
	if x.now == nil {
		x.now = time.Now
	}
	var todo []ModelPlan
	for _, mp := range p.Models {
		if p.computes(mp, due) {
			todo = append(todo, mp)
		}
	}
	// Nothing is built on a table whose storage is damaged: the tables the
	// work reads or computes into are read whole first (verifyTables).
	if err := verifyTables(ctx, b.wh, buildInputs(p, todo)); err != nil {
		return err
	}
	x.total = len(todo)
	if err := x.prepare(ctx, b, todo); err != nil {
		return err
	}
	jobs := opt.Jobs
	if c, ok := b.wh.(interface{ MaxConcurrency() int }); ok && c.MaxConcurrency() < jobs {
		jobs = c.MaxConcurrency()
	}
	x.bo = backfillOptions{retries: opt.Retries, retryDelay: opt.RetryDelay, progress: opt.BatchProgress, failed: opt.BatchFailed, now: x.now, log: log, jobs: jobs}
	if x.bo.retryDelay <= 0 {
		x.bo.retryDelay = 500 * time.Millisecond
	}
	// The store records of the models built are written in batches; what
	// is pending when the builds end (failed or not) is written then, so
	// a failed apply's rollback sees every model it built.
	x.records = newRecorder(st, opt)
	defer func() {
		if ferr := x.records.flush(ctx); ferr != nil && err == nil {
			err = ferr
		}
	}()
	if jobs <= 1 {
		return x.sequential(ctx, b, todo, keep)
	}
	return runDAG(ctx, p, todo, jobs, keep, func(ctx context.Context, mp ModelPlan) error {
		bb := *b // a builder per model: backfills set its interval
		return x.model(ctx, &bb, mp)
	})
}

// executor is one execute: the plan, where it records, and what it has
// done so far.
type executor struct {
	p       *Plan
	st      state.Store
	opt     ApplyOptions
	res     *ApplyResult
	log     *slog.Logger
	now     func() time.Time
	bo      backfillOptions
	records *recorder
	total   int        // the models to compute
	mu      sync.Mutex // guards res and the progress count
}

// prepare records every snapshot of todo the store lacks (unbuilt) before
// any build, in one transaction, so that its ledger can follow the
// batches; a failed apply takes back the records of what it did not build
// (rollback). With anything to compute, the physical schema is made.
func (x *executor) prepare(ctx context.Context, b *builder, todo []ModelPlan) error {
	var snaps []state.Snapshot
	for _, mp := range todo {
		if info := x.p.analysis.Models[mp.Name]; !x.p.stored[info.Fingerprint] {
			snaps = append(snaps, b.snapshot(info))
		}
	}
	if len(snaps) > 0 {
		if err := x.st.PutSnapshots(ctx, snaps); err != nil {
			return err
		}
	}
	if len(todo) > 0 {
		if err := b.wh.Exec(ctx, b.d.CreateSchema(analysis.PhysicalSchema)); err != nil {
			return fmt.Errorf("create schema %s: %w", analysis.PhysicalSchema, err)
		}
	}
	return nil
}

// sequential computes todo one model at a time, parents first,
// checkpointing the warehouse when what it holds in memory passes the
// budget (checkpointDue). With keep, a failure is recorded and the models
// downstream of it skipped.
func (x *executor) sequential(ctx context.Context, b *builder, todo []ModelPlan, keep *runOutcome) error {
	cp, _ := b.wh.(checkpointer)
	todo = parentsFirst(x.p, todo)
	inTodo := todoSet(todo)
	for i, mp := range todo {
		if keep != nil {
			if failed := keep.blockedBy(x.p, mp.Name, inTodo); failed != "" {
				keep.skip(mp.Name, failed)
				continue
			}
		}
		if err := x.model(ctx, b, mp); err != nil {
			if keep == nil || ctx.Err() != nil {
				return err
			}
			keep.fail(mp.Name, err)
		}
		if cp != nil && (i+1)%checkpointCheck == 0 && i+1 < len(todo) {
			used, limit, err := cp.MemoryUsage(ctx)
			if err != nil {
				return fmt.Errorf("memory usage after %d models: %w", i+1, err)
			}
			if checkpointDue(used, limit) {
				if err := cp.Checkpoint(ctx); err != nil {
					return fmt.Errorf("checkpoint after %d models: %w", i+1, err)
				}
			}
		}
	}
	return nil
}

// model builds or computes one model of the plan, audits what the write
// did not audit already, records it in the store and reports it.
func (x *executor) model(ctx context.Context, b *builder, mp ModelPlan) error {
	info := x.p.analysis.Models[mp.Name]
	start := time.Now()
	if x.opt.Started != nil {
		x.opt.Started(mp.Name, x.total)
	}
	targetErr := b.checkTarget(info.Model)
	err := targetErr
	lake := TargetOf(info.Model) == "parquet"
	if err == nil {
		err = x.compute(ctx, b, mp, info, lake)
	}
	// Tables built, refilled or merged whole were audited inside the
	// transaction that wrote them (writeAudited); views, parquet files
	// and the whole audits of time-range models are checked now.
	kind := info.Model.Kind.Name
	auditedInTx := !lake && (refreshed(kind) || kind == project.KindFull || kind == project.KindSeed)
	if lake && targetErr == nil {
		// The manifest follows the ledger, failed intervals included.
		if merr := b.writeManifest(ctx, x.st, info); merr != nil && err == nil {
			err = merr
		}
	}
	if af, ok := err.(*AuditFailure); ok {
		return af // a whole-relation audit rolled the write back
	}
	if err != nil {
		return &BuildError{Model: mp.Name, File: info.Model.File, Err: err}
	}
	// Blocking audits of what was just built: a violation leaves the
	// snapshot unbuilt, so the next apply builds it again.
	if !auditedInTx {
		if err := b.auditBuilt(ctx, info, x.log); err != nil {
			return err
		}
	}
	if err := x.record(ctx, mp, info); err != nil {
		return err
	}
	x.report(mp, start)
	return nil
}

// compute writes one model's data the way its kind and target ask: the
// ranges of an incremental model, a merge of a refreshed one, a parquet
// file, a refill of an existing FULL table, or a build.
func (x *executor) compute(ctx context.Context, b *builder, mp ModelPlan, info *analysis.ModelInfo, lake bool) error {
	switch k := info.Model.Kind.Name; {
	case k == project.KindIncrementalByTimeRange && lake:
		return b.backfillLake(ctx, x.st, info, mp.Backfill, x.bo)
	case k == project.KindIncrementalByTimeRange:
		return b.backfill(ctx, x.st, info, mp.Backfill, x.bo)
	case refreshed(k):
		return b.refresh(ctx, info, x.bo, x.now())
	case lake:
		return b.buildLakeFull(ctx, info, x.bo)
	case k == project.KindFull && !mp.Build:
		return b.refill(ctx, info, x.log)
	default:
		return b.build(ctx, info, x.log)
	}
}

// record adds what computing mp wrote to the store's pending records: the
// snapshot built, and a FULL model's refresh (recordRefresh).
func (x *executor) record(ctx context.Context, mp ModelPlan, info *analysis.ModelInfo) error {
	rec := state.BuildRecord{Fingerprint: info.Fingerprint, At: x.now().UTC(), Built: mp.Build}
	if info.Model.Kind.Name == project.KindFull {
		// A snapshot this apply recorded has no earlier refresh to clear.
		first := !x.p.stored[info.Fingerprint] && x.p.reuse[mp.Name] == ""
		if err := recordRefresh(x.p.analysis.Project.Config, info, &rec, first); err != nil {
			return err
		}
	}
	if rec.Built || len(rec.Done) > 0 {
		return x.records.add(ctx, rec)
	}
	return nil
}

// report lists mp in the result as built or computed, logs it and
// advances the progress.
func (x *executor) report(mp ModelPlan, start time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	res := x.res
	what := "built"
	if mp.Build {
		res.Built = append(res.Built, mp.Name)
	} else {
		what = "computed"
		res.Computed = append(res.Computed, mp.Name)
	}
	x.log.Info(what, "model", mp.Name, "table", mp.PhysicalTable, "ranges", len(mp.Backfill), "elapsed", time.Since(start).Round(time.Millisecond))
	if x.opt.Progress != nil {
		x.opt.Progress(len(res.Built)+len(res.Computed), x.total, mp.Name)
	}
}

// parentsFirst orders todo so that every model comes after the models it
// waits for (dagParents: its refs, and the models its custom audits read),
// keeping the plan's order otherwise.
func parentsFirst(p *Plan, todo []ModelPlan) []ModelPlan {
	inTodo := todoSet(todo)
	byName := make(map[string]ModelPlan, len(todo))
	for _, mp := range todo {
		byName[mp.Name] = mp
	}
	out := make([]ModelPlan, 0, len(todo))
	state := map[string]int{} // 1 visiting, 2 placed
	var visit func(string)
	visit = func(n string) {
		if state[n] != 0 {
			return
		}
		state[n] = 1
		for _, parent := range todoParents(p, n, inTodo) {
			visit(parent)
		}
		state[n] = 2
		out = append(out, byName[n])
	}
	for _, mp := range todo {
		visit(mp.Name)
	}
	return out
}

// todoSet is the set of todo's model names.
func todoSet(todo []ModelPlan) map[string]bool {
	in := make(map[string]bool, len(todo))
	for _, mp := range todo {
		in[mp.Name] = true
	}
	return in
}

// runDAG runs f for every model of todo on at most jobs goroutines, each
// as soon as the models of todo it reads (directly or through models not
// in todo, such as views) are done: independent branches build side by
// side. Models downstream of a failed one never start. Without keep, a
// failure cancels what has not started and the first error is returned;
// with keep, failures and skips are recorded there and the others go on.
func runDAG(ctx context.Context, p *Plan, todo []ModelPlan, jobs int, keep *runOutcome, f func(context.Context, ModelPlan) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inTodo := todoSet(todo)
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
			for _, parent := range todoParents(p, mp.Name, inTodo) {
				select {
				case <-done[parent]:
				case <-ctx.Done():
					fail(nil)
					return
				}
				mu.Lock()
				bad := failed[parent]
				mu.Unlock()
				if bad && keep == nil {
					fail(nil)
					return
				}
			}
			if keep != nil {
				if cause := keep.blockedBy(p, mp.Name, inTodo); cause != "" {
					keep.skip(mp.Name, cause)
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
				if keep != nil && ctx.Err() == nil {
					keep.fail(mp.Name, err)
					return
				}
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

// todoParents lists the models of todo that name waits for: its parents
// in todo, and through a parent not in todo (a view a tick does not
// compute), that parent's, recursively.
func todoParents(p *Plan, name string, inTodo map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		for _, parent := range dagParents(p, n) {
			if seen[parent] {
				continue
			}
			seen[parent] = true
			if inTodo[parent] {
				out = append(out, parent)
			} else {
				walk(parent)
			}
		}
	}
	walk(name)
	return out
}

// ModelFailure is a model a run tick could not compute, and why.
type ModelFailure struct {
	Model string `json:"model"`
	Error string `json:"error"`
}

// SkippedModel is a model a run tick did not compute because a model it
// reads (directly or not) failed in the same tick: Parent names that
// failed model.
type SkippedModel struct {
	Model  string `json:"model"`
	Parent string `json:"parent"`
}

// runOutcome collects a run tick's failed and skipped models as execute
// meets them. Safe for concurrent use.
type runOutcome struct {
	mu      sync.Mutex
	cause   map[string]string // failed or skipped model -> the failed model
	Failed  []ModelFailure
	Skipped []SkippedModel
}

func (o *runOutcome) fail(name string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cause == nil {
		o.cause = map[string]string{}
	}
	o.cause[name] = name
	o.Failed = append(o.Failed, ModelFailure{Model: name, Error: err.Error()})
}

func (o *runOutcome) skip(name, failed string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.cause[name] = failed
	o.Skipped = append(o.Skipped, SkippedModel{Model: name, Parent: failed})
}

// blockedBy names the failed model that name reads, directly or through
// models not in todo, or "" when every such ancestor succeeded.
// Precondition: the models of todo that name waits for are done.
func (o *runOutcome) blockedBy(p *Plan, name string, inTodo map[string]bool) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.cause) == 0 {
		return ""
	}
	for _, parent := range todoParents(p, name, inTodo) {
		if c := o.cause[parent]; c != "" {
			return c
		}
	}
	// A source the tick counts as failed before computing (a stale
	// EXTERNAL model, CheckFreshness) is no model of todo: its readers
	// meet it on the way up.
	seen := map[string]bool{}
	var walk func(n string) string
	walk = func(n string) string {
		for _, parent := range dagParents(p, n) {
			if seen[parent] || inTodo[parent] {
				continue
			}
			seen[parent] = true
			if c := o.cause[parent]; c != "" {
				return c
			}
			if c := walk(parent); c != "" {
				return c
			}
		}
		return ""
	}
	return walk(name)
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
	// A custom audit that reads other models runs when this model is
	// built: the model waits for them too, unless one of them reads this
	// model (a cycle: the audit then reads what is there).
	if proj := p.analysis.Project; proj != nil {

		for _, a := range modelAudits(proj.Audit, info.Model) {
			if a.custom == nil {
				continue
			}
			for _, r := range a.custom.Refs() {
				if r == name || seen[r] || p.analysis.Models[r] == nil || readsModel(p, r, name) {
					continue
				}
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// readsModel reports whether model from reads target, through its refs.
func readsModel(p *Plan, from, target string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(n string) bool {
		if n == target {
			return true
		}
		if seen[n] {
			return false
		}
		seen[n] = true
		info := p.analysis.Models[n]
		if info == nil {
			return false
		}
		for _, r := range info.Model.Refs() {
			if walk(r) {
				return true
			}
		}
		return false
	}
	return walk(from)
}

// checkCurrent fails when the environment's pointers moved since the plan
// was made (another apply ran in between): the plan is stale.
func (p *Plan) checkCurrent(ctx context.Context, st state.Reader) error {
	e, err := ReadEnvironment(ctx, st, p.Env)
	if err != nil {
		return err
	}
	cur := e.Pointers
	same := len(cur) == len(p.current)
	for name, ptr := range cur {
		same = same && p.current[name].Fingerprint == ptr.Fingerprint
	}
	if !same {
		return fmt.Errorf("environment %s changed since the plan was made; plan again", p.Env)
	}
	return nil
}
