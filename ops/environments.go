package ops

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// The lifecycle of environments: listing what each holds, deleting one
// (its views, its schemas, its pointers, then the storage no other
// environment uses), and expiring those left idle longer than
// environments.ttl of efmesh.yaml. Prod is never expired.

// EnvSummary is one environment as `efmesh env list` shows it.
type EnvSummary struct {
	Name   string `json:"name"`
	Models int    `json:"models"`
	// LastApplied is the environment's last promotion; AppliedBy and
	// PlanID come from the plans journal ("" when it holds none).
	LastApplied time.Time `json:"lastApplied"`
	AppliedBy   string    `json:"appliedBy"`
	PlanID      string    `json:"planId,omitempty"`
	// Coverage is what every incremental model of the environment has
	// computed: the ranges of time all of them have done, holes left out;
	// nil when it points at none or they have no range in common.
	Coverage *Coverage `json:"coverage"`
	// Preview is the range the environment was applied to cover when it
	// is shorter than the project's history (a preview); nil otherwise.
	Preview *planner.Preview `json:"preview,omitempty"`
	// Rows is the engine's estimate of the rows of the physical tables
	// the environment points at; nil when the engine does not say.
	Rows *int64 `json:"rows"`
}

// Coverage is the computed ranges of an environment: Ranges, in order,
// disjoint and not adjacent, each [Start, End); Start and End are the
// first range's start and the last one's end, and Contiguous says whether
// there is no hole between them.
type Coverage struct {
	Start      time.Time   `json:"start"`
	End        time.Time   `json:"end"`
	Contiguous bool        `json:"contiguous"`
	Ranges     []TimeRange `json:"ranges"`
}

// TimeRange is a range [Start, End) of time.
type TimeRange struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// doneRanges merges the done intervals of one snapshot into ranges.
func doneRanges(ivs []state.Interval) []TimeRange {
	var done []TimeRange
	for _, iv := range ivs {
		if iv.Status == state.IntervalDone && iv.End.After(iv.Start) {
			done = append(done, TimeRange{Start: iv.Start.UTC(), End: iv.End.UTC()})
		}
	}
	sort.Slice(done, func(i, j int) bool { return done[i].Start.Before(done[j].Start) })
	var out []TimeRange
	for _, r := range done {
		if n := len(out); n > 0 && !r.Start.After(out[n-1].End) {
			if r.End.After(out[n-1].End) {
				out[n-1].End = r.End
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// intersectRanges is the time both a and b (each sorted and disjoint)
// cover.
func intersectRanges(a, b []TimeRange) []TimeRange {
	var out []TimeRange
	for i, j := 0, 0; i < len(a) && j < len(b); {
		start, end := a[i].Start, a[i].End
		if b[j].Start.After(start) {
			start = b[j].Start
		}
		if b[j].End.Before(end) {
			end = b[j].End
		}
		if end.After(start) {
			out = append(out, TimeRange{Start: start, End: end})
		}
		if a[i].End.Before(b[j].End) {
			i++
		} else {
			j++
		}
	}
	return out
}

// coverageOf is the Coverage of ranges; nil when there are none.
func coverageOf(ranges []TimeRange) *Coverage {
	if len(ranges) == 0 {
		return nil
	}
	return &Coverage{Start: ranges[0].Start, End: ranges[len(ranges)-1].End, Contiguous: len(ranges) == 1, Ranges: ranges}
}

// TableRowCounter is an engine that estimates the rows of its tables
// cheaply (DuckDB's duckdb_tables()), keyed by table name.
type TableRowCounter interface {
	TableRows(ctx context.Context, schema string) (map[string]int64, error)
}

// ListEnvironments summarizes every environment of the store, by name.
// wh may be nil (no warehouse yet); sizes then stay unknown. It only reads.
func ListEnvironments(ctx context.Context, st state.Reader, wh engine.Engine) ([]EnvSummary, error) {
	names, err := st.Environments(ctx)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var rowsOf map[string]int64
	if rc, ok := wh.(TableRowCounter); ok && wh != nil {
		if rowsOf, err = rc.TableRows(ctx, analysis.PhysicalSchema); err != nil {
			return nil, fmt.Errorf("ops: table sizes: %w", err)
		}
	}
	out := []EnvSummary{}
	for _, name := range names {
		ptrs, err := st.Environment(ctx, name)
		if err != nil {
			return nil, err
		}
		s := EnvSummary{Name: name, Models: len(ptrs), LastApplied: lastPromotion(ptrs)}
		plans, err := st.Plans(ctx, name, 0)
		if err != nil {
			return nil, err
		}
		for _, p := range plans {
			if p.Status == state.PlanApplied {
				s.AppliedBy, s.PlanID = p.AppliedBy, p.ID
				break
			}
		}
		if s.Preview, err = planner.RecordedPreview(ctx, st, name); err != nil {
			return nil, err
		}
		fps := make([]string, 0, len(ptrs))
		for _, p := range ptrs {
			fps = append(fps, p.Fingerprint)
		}
		snaps, err := st.SnapshotHeads(ctx, fps)
		if err != nil {
			return nil, err
		}
		var total int64
		tables := map[string]bool{}
		// covered is what the incremental models seen so far all have.
		var covered []TimeRange
		incremental := 0
		for _, fp := range state.Unique(fps) {
			sn, ok := snaps[fp]
			if !ok {
				continue
			}
			if rowsOf != nil && !tables[sn.PhysicalTable] {
				tables[sn.PhysicalTable] = true
				_, t := analysis.SplitName(sn.PhysicalTable)
				total += rowsOf[t]
			}
			if project.KindName(sn.Kind) != project.KindIncrementalByTimeRange {
				continue
			}
			ivs, err := st.Intervals(ctx, fp)
			if err != nil {
				return nil, err
			}
			r := doneRanges(ivs)
			if incremental == 0 {
				covered = r
			} else {
				covered = intersectRanges(covered, r)
			}
			incremental++
		}
		s.Coverage = coverageOf(covered)
		if rowsOf != nil {
			s.Rows = &total
		}
		out = append(out, s)
	}
	return out, nil
}

// lastPromotion is when the environment was last promoted: every
// promotion stamps all its pointers.
func lastPromotion(ptrs map[string]state.Pointer) time.Time {
	var last time.Time
	for _, p := range ptrs {
		if p.UpdatedAt.After(last) {
			last = p.UpdatedAt
		}
	}
	return last.UTC()
}

// UnknownEnvError is an environment the state store does not hold.
type UnknownEnvError struct {
	Env   string
	Known []string
}

func (e *UnknownEnvError) Error() string {
	msg := fmt.Sprintf("unknown environment %q", e.Env)
	if s, ok := project.DidYouMean(e.Env, e.Known); ok {
		return msg + fmt.Sprintf("; did you mean %s?", s)
	}
	if len(e.Known) == 0 {
		return msg + ": no environment was applied"
	}
	return msg
}

// EnvDeleteOptions tunes DeleteEnvironment.
type EnvDeleteOptions struct {
	Now    time.Time // default time.Now
	Lake   string    // as JanitorOptions.Lake
	Logger *slog.Logger
	// EnvLock is the environment's lock, which the caller holds: taken
	// before the warehouse is opened, as apply does.
	EnvLock *planner.Lock
	// JanitorLock is the janitor's lock when the caller holds it (the
	// janitor expiring environments); nil: DeleteEnvironment takes it to
	// free the storage.
	JanitorLock *planner.Lock
}

// EnvDeletion reports what DeleteEnvironment did.
type EnvDeletion struct {
	Env            string   `json:"env"`
	Models         int      `json:"models"`
	DroppedViews   []string `json:"droppedViews"`
	DroppedSchemas []string `json:"droppedSchemas"`
	// Freed is the physical storage only this environment used, removed.
	Freed []Removal `json:"freed"`
	// FreeError says why freeing the storage failed after the environment
	// was deleted (the janitor lock was held): the janitor frees it later.
	FreeError string `json:"freeError,omitempty"`
}

// DeleteEnvironment deletes env: its views, then its schemas left empty
// (an environment's own <env>__<schema>, never prod's, which are the
// models' own), then its pointers in the store; then it frees, through
// the janitor's claim, the physical relations no other environment uses.
// Precondition: the caller holds env's lock (opt.EnvLock). wh is nil when
// there is no warehouse: only the store changes.
func DeleteEnvironment(ctx context.Context, st state.Store, wh engine.Engine, env string, opt EnvDeleteOptions) (*EnvDeletion, error) {
	if opt.EnvLock == nil || opt.EnvLock.Name() != planner.EnvLock(env) {
		return nil, fmt.Errorf("ops: delete %s: the environment's lock is not held", env)
	}
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC()
	ptrs, err := st.Environment(ctx, env)
	if err != nil {
		return nil, err
	}
	if len(ptrs) == 0 {
		known, err := st.Environments(ctx)
		if err != nil {
			return nil, err
		}
		return nil, &UnknownEnvError{Env: env, Known: known}
	}
	fps := make([]string, 0, len(ptrs))
	for _, p := range ptrs {
		fps = append(fps, p.Fingerprint)
	}
	fps = state.Unique(fps)
	sort.Strings(fps)
	snaps, err := st.SnapshotHeads(ctx, fps)
	if err != nil {
		return nil, err
	}
	res := &EnvDeletion{Env: env, Models: len(ptrs), DroppedViews: []string{}, DroppedSchemas: []string{}, Freed: []Removal{}}
	if wh != nil {
		d := wh.Dialect()
		var stmts []string
		schemas := map[string]bool{}
		models := make([]string, 0, len(ptrs))
		for m := range ptrs {
			models = append(models, m)
		}
		sort.Strings(models)
		for _, m := range models {
			if sn, ok := snaps[ptrs[m].Fingerprint]; ok && project.KindName(sn.Kind).Virtual() {
				continue // no view
			}
			s, t := analysis.SplitName(m)
			rel := engine.Relation{Schema: analysis.EnvSchema(d, env, s), Name: t}
			stmts = append(stmts, d.DropView(rel))
			res.DroppedViews = append(res.DroppedViews, rel.String())
			schemas[rel.Schema] = true
		}
		if err := wh.Tx(ctx, stmts); err != nil {
			return nil, fmt.Errorf("ops: delete %s: drop its views: %w", env, err)
		}
		if env != analysis.ProdEnv {
			dropped, err := dropEmptySchemas(ctx, wh, schemas)
			if err != nil {
				return nil, fmt.Errorf("ops: delete %s: %w", env, err)
			}
			res.DroppedSchemas = dropped
		}
	}
	// The views are gone: the pointers follow, or the store would name
	// views the warehouse no longer serves. An empty set removes the
	// environment and starts the orphan mark of what only it used.
	if err := st.Promote(context.WithoutCancel(ctx), state.Promotion{Env: env, Pointers: map[string]string{}, At: now}); err != nil {
		return nil, err
	}
	if wh == nil {
		return res, nil
	}
	jr, err := Janitor(ctx, st, wh, JanitorOptions{TTL: 0, Now: now, Lake: opt.Lake, Logger: opt.Logger, Lock: opt.JanitorLock, Only: fps})
	if err != nil {
		var held *planner.LockHeldError
		if !errors.As(err, &held) {
			return res, err
		}
		res.FreeError = err.Error()
		return res, nil
	}
	res.Freed = jr.Removed
	return res, nil
}

// dropEmptySchemas drops those of schemas that hold no relation any more,
// and returns them sorted.
func dropEmptySchemas(ctx context.Context, wh engine.Engine, schemas map[string]bool) ([]string, error) {
	d := wh.Dialect()
	names := make([]string, 0, len(schemas))
	for s := range schemas {
		names = append(names, s)
	}
	sort.Strings(names)
	out := []string{}
	for _, s := range names {
		rows, err := wh.Query(ctx, engine.CountRelationsQuery(d, s))
		if err != nil {
			return nil, fmt.Errorf("list schema %s: %w", s, err)
		}
		if len(rows.Values) != 1 || fmt.Sprint(rows.Values[0][0]) != "0" {
			continue
		}
		if err := wh.Exec(ctx, "DROP SCHEMA IF EXISTS "+d.Quote(s)); err != nil {
			return nil, fmt.Errorf("drop schema %s: %w", s, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// IdleEnv is an environment not applied for longer than the ttl.
type IdleEnv struct {
	Env         string    `json:"env"`
	LastApplied time.Time `json:"lastApplied"`
}

// IdleEnvironments lists the environments other than prod last promoted
// before now - ttl, by name. A ttl <= 0 expires nothing.
func IdleEnvironments(ctx context.Context, st state.Reader, ttl time.Duration, now time.Time) ([]IdleEnv, error) {
	out := []IdleEnv{}
	if ttl <= 0 {
		return out, nil
	}
	names, err := st.Environments(ctx)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	cutoff := now.Add(-ttl)
	for _, name := range names {
		if name == analysis.ProdEnv {
			continue
		}
		ptrs, err := st.Environment(ctx, name)
		if err != nil {
			return nil, err
		}
		if last := lastPromotion(ptrs); len(ptrs) > 0 && last.Before(cutoff) {
			out = append(out, IdleEnv{Env: name, LastApplied: last})
		}
	}
	return out, nil
}

// EnvExpiry is one idle environment the janitor expired (or, in a dry
// run, would expire).
type EnvExpiry struct {
	IdleEnv
	Deleted *EnvDeletion `json:"deleted,omitempty"`
	// Error is why it was kept: an apply or run holds its lock.
	Error string `json:"error,omitempty"`
}

// ExpireEnvironments deletes the environments idle longer than ttl, each
// under its own lock (one an apply or run holds is kept, and says so).
// Precondition: the caller holds the janitor lock (opt.JanitorLock) unless
// dryRun; wh is the open warehouse (nil in a dry run).
func ExpireEnvironments(ctx context.Context, st state.Store, wh engine.Engine, ttl time.Duration, dryRun bool, opt EnvDeleteOptions) ([]EnvExpiry, error) {
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	idle, err := IdleEnvironments(ctx, st, ttl, now)
	if err != nil {
		return nil, err
	}
	out := []EnvExpiry{}
	for _, ie := range idle {
		e := EnvExpiry{IdleEnv: ie}
		if !dryRun {
			lk, err := planner.AcquireLock(ctx, st, planner.EnvLock(ie.Env), 0)
			if err != nil {
				e.Error = err.Error()
				out = append(out, e)
				continue
			}
			o := opt
			o.EnvLock = lk
			e.Deleted, err = DeleteEnvironment(ctx, st, wh, ie.Env, o)
			lk.Release()
			if err != nil {
				return out, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}
