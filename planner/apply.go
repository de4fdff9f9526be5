package planner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// ApplyOptions tunes Apply.
type ApplyOptions struct {
	AppliedBy string
	// ExpectEnv, when set, is the id of the plan the caller expects to be
	// the environment's last applied one: the apply is refused
	// (*EnvMovedError) when someone applied since.
	ExpectEnv string
	// OverwriteUnrecorded lets the apply replace the views of an
	// environment the warehouse serves and the state store does not know
	// (Plan.Unrecorded); without it such an apply is refused
	// (*UnrecordedEnvError).
	OverwriteUnrecorded bool
	Now                 func() time.Time // default time.Now
	Logger              *slog.Logger     // progress; default discards
	// Started is called when a model's build begins (total is the number
	// of models the apply builds); Progress after it is built.
	Started  func(model string, total int)
	Progress func(done, total int, model string)
	// BatchProgress is called after each committed batch of a backfill
	// (batch counts the batches settled so far, failed ones included).
	BatchProgress func(model string, batch, batches int, r analysis.Range)
	// BatchFailed is called for each batch of a backfill whose write or
	// blocking audit failed after every retry (its intervals are marked
	// failed in the ledger); BatchProgress is not called for it.
	BatchFailed func(model string, r analysis.Range, err error)
	// Jobs is how many models build at once (DAG order: a model starts when
	// the models it reads are done); 0 or 1 builds one at a time. Engines
	// with one connection (DuckDB) build one at a time whatever Jobs says.
	Jobs int
	// LockWait is how long Run waits for the environment's lock while an
	// apply or another tick holds it (WaitLock); 0 fails at once with the
	// outcome lock-held. OnLockWait is called when the waiting starts.
	LockWait   time.Duration
	OnLockWait func(held state.Lock, wait time.Duration)
	// Retries is how many times a failed batch write is retried, waiting
	// RetryDelay (default 500ms), then twice as long each time. Only the
	// transactional write is retried: it is safe to repeat.
	Retries    int
	RetryDelay time.Duration
	// Lock is the environment's lock when the caller already holds it;
	// nil makes Apply take it (and release it) itself.
	Lock *Lock
	// RecordEvery and RecordWithin bound a batch of the store records of
	// built models (built marks, refreshes), written in one transaction:
	// at most RecordEvery models (default 256), the oldest recorded at
	// most RecordWithin ago (default 1s). A crash loses at most one
	// batch's records, never data: those models are built again.
	RecordEvery  int
	RecordWithin time.Duration
	// Only, for Run: the models whose due intervals and refreshes the
	// tick computes (a selection); nil computes every model's.
	Only map[string]bool
}

// ApplyResult reports what Apply did.
type ApplyResult struct {
	PlanID string
	// Built are the models whose snapshot was built (ModelPlan.Build);
	// Computed those computed into a table that already existed: missing
	// intervals, a refill, a merge (Plan.Computes). A plan's "N to build,
	// M to compute" is len(Built), len(Computed) of its apply.
	Built    []string
	Computed []string
	Promoted []string
	Removed  []string // models gone from the project: their views dropped
	Exported []string // models copied into an attached database (export.go)
	// DroppedViews are the stale views of EXTERNAL models dropped
	// (ModelPlan.StaleView).
	DroppedViews []string
}

// BuildError is a failure while building one model.
type BuildError struct {
	Model string
	File  string // the model's file, relative to the project root
	Err   error
}

func (e *BuildError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("build %s: %v", e.Model, e.Err)
	}
	return fmt.Sprintf("build %s (%s): %v", e.Model, e.File, e.Err)
}
func (e *BuildError) Unwrap() error { return e.Err }

// ContractError is a schema contract violated in the warehouse itself (the
// editor's check passed against declared parents, but the data did not).
type ContractError struct {
	Diagnostics []project.Diagnostic
}

func (e *ContractError) Error() string {
	msgs := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		msgs[i] = d.String()
	}
	return "schema contract violated: " + strings.Join(msgs, "; ")
}

// Apply executes p under the environment's lock: builds every snapshot
// marked Build and computes every backfill range in dependency order,
// checking each model against its contract first, then points the
// environment's views at the plan's snapshots in one engine transaction and
// records the promotion. Nothing is promoted unless every build and every
// interval succeeded (a failed interval is an *IntervalsError). A plan made
// before another apply moved the environment is refused.
func Apply(ctx context.Context, p *Plan, wh engine.Engine, st state.Store, opt ApplyOptions) (*ApplyResult, error) {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := p.analysis
	res := &ApplyResult{PlanID: newID(now())}
	summary, _ := json.Marshal(p)
	if opt.Lock == nil {
		lk, err := AcquireLock(ctx, st, EnvLock(p.Env), 0)
		if err != nil {
			return res, err
		}
		defer lk.Release()
	}
	if err := p.checkCurrent(ctx, st); err != nil {
		return res, err
	}
	if err := checkExpected(ctx, st, p.Env, opt.ExpectEnv); err != nil {
		return res, err
	}
	if len(p.unconfirmed) > 0 {
		return res, &HistoryRebuildError{Models: p.unconfirmed}
	}
	if u := p.Unrecorded; u != nil && len(u.Views[p.Env]) > 0 && !opt.OverwriteUnrecorded {
		return res, &UnrecordedEnvError{Env: p.Env, Views: len(u.Views[p.Env])}
	}

	fail := func(err error) (*ApplyResult, error) {
		if rerr := rollback(context.WithoutCancel(ctx), p, wh, st, res); rerr != nil {
			log.Warn("a failed apply could not take back all its snapshot records", "error", rerr)
		}
		status := state.PlanFailed
		if ctx.Err() != nil { // a signal or the caller stopped it
			status = state.PlanInterrupted
		}
		_ = st.RecordPlan(context.WithoutCancel(ctx), state.PlanRecord{ID: res.PlanID, Env: p.Env, AppliedBy: opt.AppliedBy,
			CreatedAt: now().UTC(), Status: status, Summary: summary, Error: err.Error()})
		return res, err
	}

	b := &builder{a: a, d: wh.Dialect(), wh: wh, root: a.Project.Root, now: now(), phys: p.physFP, copyHistory: p.copyHistory}
	if err := p.forgetLost(ctx, st); err != nil {
		return fail(err)
	}
	rebuild, err := p.rebuilds(ctx, st)
	if err != nil {
		return fail(err)
	}
	b.rebuild = rebuild
	if err := inherit(ctx, p, b, st, now()); err != nil {
		return fail(err)
	}
	if err := execute(ctx, p, b, st, opt, res, log, p.refilled(), nil); err != nil {
		return fail(err)
	}
	// New or changed audits of a metadata-only change guard the data the
	// environment is about to serve, which nothing rebuilt.
	if err := auditMetadataOnly(ctx, p, b, st, log); err != nil {
		return fail(err)
	}
	// Every pointer names a stored snapshot, built or not (EMBEDDED).
	var unstored []state.Snapshot
	for _, mp := range p.Models {
		if mp.Change == Removed || mp.Build || p.stored[mp.Fingerprint] {
			continue
		}
		unstored = append(unstored, b.snapshot(a.Models[mp.Name]))
	}
	if err := st.PutSnapshots(ctx, unstored); err != nil {
		return fail(err)
	}
	if err := beforePromotion(ctx, p, b, st, res, log); err != nil {
		return fail(err)
	}
	// Metadata is recorded only after the promotion, so a failed apply
	// leaves the stored definitions as they were; without any, the plan's
	// record commits with the pointers, in the promotion's transaction.
	var definitions []ModelPlan
	for _, mp := range p.Models {
		if mp.Change == MetadataOnly || slices.Contains(p.unrecorded, mp.Name) || p.redefined[mp.Name] {
			definitions = append(definitions, mp)
		}
	}
	applied := state.PlanRecord{ID: res.PlanID, Env: p.Env, AppliedBy: opt.AppliedBy, CreatedAt: now().UTC(), Status: state.PlanApplied, Summary: summary}
	var journaled *state.PlanRecord
	if len(definitions) == 0 {
		journaled = &applied
	}
	if err := promote(ctx, p, wh, st, res, opt.AppliedBy, now(), journaled); err != nil {
		return fail(err)
	}
	// The environment serves the new versions: what follows is recorded
	// even when a signal arrives now, so the store says what the warehouse
	// holds.
	ctx = context.WithoutCancel(ctx)
	for _, mp := range definitions {
		def := analysis.SnapshotDefinition(a.Project, a.Models[mp.Name])
		if err := st.UpdateDefinition(ctx, mp.Fingerprint, def); err != nil {
			// Nothing to take back: the next plan shows the change again.
			return res, fmt.Errorf("%s is promoted, but its new metadata was not recorded: %w", mp.Name, err)
		}
	}
	if journaled == nil {
		if err := st.RecordPlan(ctx, applied); err != nil {
			return res, err
		}
	}
	res.Exported, err = exportModels(ctx, a, wh, p.Env, slices.Concat(res.Built, res.Computed, res.Promoted))
	return res, err
}

// RecordAuditSources records the custom audit files of the unchanged
// models whose stored definition predates them (Plan.unrecorded), for an
// apply that has nothing else to do: it changes no data and no pointer,
// and makes the next edit of such a file a change the plan shows.
// Precondition: the environment's lock is held.
func RecordAuditSources(ctx context.Context, p *Plan, st state.Store) error {
	for _, mp := range p.Models {
		info := p.analysis.Models[mp.Name]
		if !slices.Contains(p.unrecorded, mp.Name) || info == nil {
			continue
		}
		if err := st.UpdateDefinition(ctx, mp.Fingerprint, analysis.SnapshotDefinition(p.analysis.Project, info)); err != nil {
			return fmt.Errorf("planner: record the audit files of %s: %w", mp.Name, err)
		}
	}
	return nil
}

type builder struct {
	a    *analysis.Analysis
	d    engine.Dialect
	wh   engine.Engine
	root string
	now  time.Time
	env  string // render refs as this environment's views; "" = physical
	// phys maps a model to the fingerprint naming its physical relation
	// when the plan reuses an older snapshot's (physics reuse,
	// forward-only); absent models use their own fingerprint.
	phys map[string]string
	// copyHistory maps an SCD_TYPE_2 model whose new table starts as a
	// copy of an older history table to the fingerprint naming that table
	// (Plan.copyHistory).
	copyHistory map[string]string
	// interval, when set, is what @start/@end render to (one batch of a
	// backfill); else the model is computed whole, from start to now.
	interval *analysis.Range
	// rebuild maps the models whose table differs from its snapshot to
	// the views and table their build drops and the views it creates
	// again (aroundRebuild).
	rebuild map[string]rebuildAround
}

func (b *builder) snapshot(info *analysis.ModelInfo) state.Snapshot {
	m := info.Model
	def := analysis.SnapshotDefinition(b.a.Project, info)
	return state.Snapshot{
		Fingerprint:        info.Fingerprint,
		FingerprintVersion: analysis.FingerprintVersion,
		Name:               m.Name,
		Kind:               string(m.Kind.Name),
		PhysicalTable:      analysis.PhysicalRelation(b.d, m, b.physFP(info)).String(),
		OwnHash:            info.OwnHash,
		Parents:            info.Parents,
		Canonical:          info.Canonical,
		Definition:         def,
		CreatedAt:          b.now.UTC(),
	}
}

func newID(t time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(r[:])
}

// physFP is the fingerprint naming info's physical relation.
func (b *builder) physFP(info *analysis.ModelInfo) string {
	if fp, ok := b.phys[info.Model.Name]; ok {
		return fp
	}
	return info.Fingerprint
}

// inherit records the snapshots that take over an older snapshot's
// physical relation (indirect physics reuse, forward-only) before anything
// is built: the new snapshot points at the old table, inherits its done
// intervals, and — forward-only — gains the new columns with ALTER, so
// history reads NULL in them.
func inherit(ctx context.Context, p *Plan, b *builder, st state.Store, now time.Time) error {
	var snaps []state.Snapshot
	var recs []state.BuildRecord
	for _, mp := range p.Models {
		old, ok := p.reuse[mp.Name]
		if !ok {
			continue
		}
		info := p.analysis.Models[mp.Name]
		if mp.Change == ForwardOnly {
			if err := b.addColumns(ctx, info, mp.Retyped); err != nil {
				return &BuildError{Model: mp.Name, File: info.Model.File, Err: err}
			}
		}
		snaps = append(snaps, b.snapshot(info))
		done, err := st.Intervals(ctx, old)
		if err != nil {
			return err
		}
		rec := state.BuildRecord{Fingerprint: info.Fingerprint, At: now.UTC(), Built: true}
		for _, iv := range done {
			if iv.Status == state.IntervalDone {
				rec.Done = append(rec.Done, iv)
			}
		}
		recs = append(recs, rec)
	}
	// Two store transactions for all of them: the records, then the
	// inherited ledgers and built marks.
	if err := st.PutSnapshots(ctx, snaps); err != nil {
		return err
	}
	return st.RecordBuilds(ctx, recs)
}

// rollback takes back what a failed apply recorded of snapshots it did not
// finish, so that the store says what the warehouse holds and nothing more:
// a snapshot this apply recorded (the store did not hold it when the plan
// was made) is removed, with its ledger, unless
//
//   - it was built or computed and passed its audits (res.Built,
//     res.Computed): its relation is
//     complete, and a new plan reuses it instead of building it again; or
//   - it is an INCREMENTAL_BY_TIME_RANGE snapshot whose ledger holds
//     intervals this apply computed: the backfill resumes from them (and
//     restate can recompute them), as after an interrupted apply.
//
// A removed snapshot's relation, if the apply created it, is dropped too
// (never an inherited one, nor that of a record the store keeps). Snapshots the store held before keep their
// records: their ledger tells the truth of the batches that ran.
func rollback(ctx context.Context, p *Plan, wh engine.Engine, st state.Store, res *ApplyResult) error {
	built := map[string]bool{}
	for _, n := range slices.Concat(res.Built, res.Computed) {
		built[n] = true
	}
	var fps []string
	drop := map[string]string{} // fingerprint -> the statement dropping its relation
	d := wh.Dialect()
	for _, mp := range p.Models {
		info := p.analysis.Models[mp.Name]
		if mp.Change == Removed || info == nil || p.stored[mp.Fingerprint] || built[mp.Name] {
			continue
		}
		m := info.Model
		if m.Kind.Name == project.KindIncrementalByTimeRange {
			computed, err := computedHere(ctx, st, mp.Fingerprint, p.reuse[mp.Name])
			if err != nil {
				return err
			}
			if computed {
				continue
			}
		}
		fps = append(fps, mp.Fingerprint)
		if mp.Build && mp.ReusedFrom == "" && m.Kind.Name.Materialized() && TargetOf(m) == "table" {
			drop[mp.Fingerprint] = d.DropTable(analysis.PhysicalRelation(d, m, p.physicalFP(mp.Name, mp.Fingerprint)))
		} else if mp.Build && m.Kind.Name == project.KindView {
			drop[mp.Fingerprint] = d.DropView(analysis.PhysicalRelation(d, m, p.physicalFP(mp.Name, mp.Fingerprint)))
		}
	}
	if len(fps) == 0 {
		return nil
	}
	// The far cutoff removes them whatever their orphan mark says (a
	// reservation moves it ahead); a pointer to one keeps it. Only the
	// relations of the records removed go: a snapshot another
	// environment's apply promoted meanwhile keeps its record and so its
	// relation.
	removed, err := st.RemoveSnapshots(ctx, fps, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		return err
	}
	gone := map[string]bool{}
	for _, fp := range removed {
		gone[fp] = true
	}
	var errs []error
	for _, fp := range fps { // the plan's order
		stmt, ok := drop[fp]
		if !ok || !gone[fp] {
			continue
		}
		if err := wh.Exec(ctx, stmt); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// computedHere reports whether the ledger of fp holds done intervals that
// were not inherited from the snapshot it reuses (if any).
func computedHere(ctx context.Context, st state.Reader, fp, reusedFrom string) (bool, error) {
	ivs, err := st.Intervals(ctx, fp)
	if err != nil {
		return false, err
	}
	inherited := map[int64]bool{}
	if reusedFrom != "" {
		old, err := st.Intervals(ctx, reusedFrom)
		if err != nil {
			return false, err
		}
		for _, iv := range old {
			if iv.Status == state.IntervalDone {
				inherited[iv.Start.Unix()] = true
			}
		}
	}
	for _, iv := range ivs {
		if iv.Status == state.IntervalDone && !inherited[iv.Start.Unix()] {
			return true, nil
		}
	}
	return false, nil
}
