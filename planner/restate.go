package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// RestateOptions tunes Restate.
type RestateOptions struct {
	DryRun bool
	// Lock is the environment's lock when the caller holds it; nil makes
	// Restate take it (a dry run takes none).
	Lock *Lock
}

// Restated is one model whose ledger a restate clears.
type Restated struct {
	Name        string         `json:"name"`
	Fingerprint string         `json:"fingerprint"`
	Range       analysis.Range `json:"-"`
	// Intervals counts the ledger records (done or failed) in Range that
	// were (or, in a dry run, would be) cleared.
	Intervals int `json:"intervals"`
	// Rebuild is set for a FULL model: its refresh record is cleared, so
	// the next run tick refills its whole table (refresh.go).
	Rebuild bool `json:"rebuild,omitempty"`
	// SharedWith names the other environments that point at the same
	// snapshot (sorted): its ledger is theirs, so they lose the intervals
	// too, and their next run or apply recomputes them in the shared table.
	SharedWith []string `json:"sharedWith"`
}

// SharedText says what a restate of r means for the other environments
// serving the same snapshot; empty when none does.
func (r Restated) SharedText() string {
	if len(r.SharedWith) == 0 {
		return ""
	}
	list, verb, its := r.SharedWith[0], "serves", "its"
	if n := len(r.SharedWith); n > 1 {
		list, verb, its = strings.Join(r.SharedWith[:n-1], ", ")+" and "+r.SharedWith[n-1], "serve", "their"
	}
	if r.Rebuild {
		return fmt.Sprintf("%s %s %s too: %s next run rebuilds its table", list, verb, r.Name, its)
	}
	return fmt.Sprintf("%s %s %s too: %s next run recomputes them", list, verb, r.Name, its)
}

// envsByFingerprint maps each snapshot an environment other than env
// points at to those environments, sorted.
func envsByFingerprint(ctx context.Context, st state.Reader, env string) (map[string][]string, error) {
	envs, err := st.Environments(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, e := range envs {
		if e == env {
			continue
		}
		ptrs, err := st.Environment(ctx, e)
		if err != nil {
			return nil, err
		}
		for _, p := range ptrs {
			out[p.Fingerprint] = append(out[p.Fingerprint], e)
		}
	}
	for fp, es := range out {
		sort.Strings(es)
		out[fp] = slices.Compact(es)
	}
	return out, nil
}

// RestateBoundsError is a restate range not aligned to the model's grain.
type RestateBoundsError struct {
	Model string
	Grain analysis.Grain
	Bound time.Time
}

func (e *RestateBoundsError) Error() string {
	f, c := e.Grain.Floor(e.Bound), e.Grain.Ceil(e.Bound)
	return fmt.Sprintf("restate %s: %s is not aligned to the model's %s intervals (use %s or %s)", e.Model,
		e.Bound.UTC().Format(time.RFC3339), e.Grain, f.Format(time.RFC3339), c.Format(time.RFC3339))
}

// envModel is a model of an environment as its stored snapshot says.
type envModel struct {
	snap state.Snapshot
	def  analysis.Definition
}

func (m envModel) grain() analysis.Grain {
	if m.def.Interval == string(analysis.Hour) {
		return analysis.Hour
	}
	return analysis.Day
}

func envModels(ctx context.Context, st state.Reader, env string) (map[string]envModel, error) {
	ptrs, err := st.Environment(ctx, env)
	if err != nil {
		return nil, err
	}
	return envModelsOf(ctx, st, env, ptrs)
}

// envModelsOf is envModels of the pointers ptrs of env, read already.
func envModelsOf(ctx context.Context, st state.Reader, env string, ptrs map[string]state.Pointer) (map[string]envModel, error) {
	fps := make([]string, 0, len(ptrs))
	for _, p := range ptrs {
		fps = append(fps, p.Fingerprint)
	}
	snaps, err := st.Snapshots(ctx, fps)
	if err != nil {
		return nil, err
	}
	out := make(map[string]envModel, len(ptrs))
	for name, p := range ptrs {
		s, ok := snaps[p.Fingerprint]
		if !ok {
			return nil, fmt.Errorf("%s of %s points at a missing snapshot %s", name, env, p.Fingerprint)
		}
		em := envModel{snap: s}
		if len(s.Definition) > 0 {
			if err := json.Unmarshal(s.Definition, &em.def); err != nil {
				return nil, fmt.Errorf("snapshot %s of %s: %w", s.Fingerprint[:min(8, len(s.Fingerprint))], name, err)
			}
		}
		out[name] = em
	}
	return out, nil
}

// Restate clears the ledger of model, and of its INCREMENTAL_BY_TIME_RANGE
// and FULL descendants, for the versions env points at. An incremental
// model's records over [from, to) go, so that the next apply or run
// recomputes that range (the backfill's DELETE+INSERT replaces the rows);
// a FULL model's refresh record goes, so that the next run refills its
// table whatever its cron says. Restate itself never touches the
// warehouse. The bounds must be aligned to an incremental model's grain; a
// descendant of a coarser grain has its range widened to whole intervals.
// SCD_TYPE_2 and the other kinds without a ledger are refused.
func Restate(ctx context.Context, st state.Store, env, model string, from, to time.Time, opt RestateOptions) ([]Restated, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	from, to = from.UTC(), to.UTC()
	if !from.Before(to) {
		return nil, &RestateRangeError{Model: model, From: from.Format(time.RFC3339), To: to.Format(time.RFC3339)}
	}
	if !opt.DryRun && opt.Lock == nil {
		lk, err := AcquireLock(ctx, st, EnvLock(env), 0)
		if err != nil {
			return nil, err
		}
		defer lk.Release()
	}
	models, err := envModels(ctx, st, env)
	if err != nil {
		return nil, err
	}
	root, ok := models[model]
	if !ok {
		return nil, fmt.Errorf("restate: %s is not a model of environment %s", model, env)
	}
	switch root.def.Kind.Name {
	case project.KindIncrementalByTimeRange:
		g := root.grain()
		for _, b := range []time.Time{from, to} {
			if !g.Aligned(b) {
				return nil, &RestateBoundsError{Model: model, Grain: g, Bound: b}
			}
		}
	case project.KindFull:
	case project.KindSCDType2:
		return nil, fmt.Errorf("restate: %s is SCD_TYPE_2: its version history has no time ranges to restate", model)
	default:
		return nil, fmt.Errorf("restate: %s is %s: only INCREMENTAL_BY_TIME_RANGE and FULL models can be restated", model, root.def.Kind.Name)
	}

	// The model and every descendant, by the stored parents of the
	// environment's snapshots.
	children := map[string][]string{}
	for name, m := range models {
		for parent := range m.snap.Parents {
			children[parent] = append(children[parent], name)
		}
	}
	seen := map[string]bool{model: true}
	queue := []string{model}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, c := range children[n] {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		if k := models[n].def.Kind.Name; k == project.KindIncrementalByTimeRange || k == project.KindFull {
			names = append(names, n)
		}
	}
	return clearLedgers(ctx, st, env, models, names, from, to, opt)
}

// clearLedgers clears (or counts, in a dry run) the ledgers of the named
// models over [from, to), as Restate says.
func clearLedgers(ctx context.Context, st state.Store, env string, models map[string]envModel, names []string, from, to time.Time, opt RestateOptions) ([]Restated, error) {
	sort.Strings(names)
	elsewhere, err := envsByFingerprint(ctx, st, env)
	if err != nil {
		return nil, err
	}
	out := make([]Restated, 0, len(names))
	for _, n := range names {
		m := models[n]
		mg := m.grain()
		r, clear := analysis.Range{Start: mg.Floor(from), End: mg.Ceil(to)}, analysis.Range{}
		full := m.def.Kind.Name == project.KindFull
		if full {
			r, clear = analysis.Range{Start: from, End: to}, allTime // the whole table
		} else {
			clear = r
		}
		ivs, err := st.Intervals(ctx, m.snap.Fingerprint)
		if err != nil {
			return nil, err
		}
		count := 0
		for _, iv := range ivs {
			if iv.Start.Before(clear.End) && iv.End.After(clear.Start) {
				count++
			}
		}
		if !opt.DryRun {
			if count, err = st.ClearIntervals(ctx, m.snap.Fingerprint, clear.Start, clear.End); err != nil {
				return nil, err
			}
		}
		out = append(out, Restated{Name: n, Fingerprint: m.snap.Fingerprint, Range: r, Intervals: count, Rebuild: full,
			SharedWith: append([]string{}, elsewhere[m.snap.Fingerprint]...)})
	}
	return out, nil
}

// RestateSelected is Restate of the models a selection names (--select,
// --exclude; project/selector.go), evaluated on env's models as their
// stored snapshots define them: exactly those models, no descendant
// unless the selection says so (core.events+). Selected models of a kind
// without a ledger are passed over; a selection without an
// INCREMENTAL_BY_TIME_RANGE or FULL model is an error, and so is a bound
// not aligned to a selected incremental model's intervals.
func RestateSelected(ctx context.Context, st state.Store, env string, selects, excludes []string, from, to time.Time, opt RestateOptions) ([]Restated, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	from, to = from.UTC(), to.UTC()
	if !from.Before(to) {
		return nil, &RestateRangeError{Model: strings.Join(selects, " "), From: from.Format(time.RFC3339), To: to.Format(time.RFC3339)}
	}
	if !opt.DryRun && opt.Lock == nil {
		lk, err := AcquireLock(ctx, st, EnvLock(env), 0)
		if err != nil {
			return nil, err
		}
		defer lk.Release()
	}
	models, err := envModels(ctx, st, env)
	if err != nil {
		return nil, err
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("restate: environment %s has no models", env)
	}
	var restored []*project.Model
	for _, m := range models {
		if pm := restore(m.snap, ""); pm != nil {
			restored = append(restored, pm)
		}
	}
	chosen, err := project.Build("", project.Config{}, restored, nil).Select(selects, excludes)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range chosen {
		switch models[n].def.Kind.Name {
		case project.KindIncrementalByTimeRange:
			g := models[n].grain()
			for _, b := range []time.Time{from, to} {
				if !g.Aligned(b) {
					return nil, &RestateBoundsError{Model: n, Grain: g, Bound: b}
				}
			}
			names = append(names, n)
		case project.KindFull:
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("restate: the selection holds no INCREMENTAL_BY_TIME_RANGE or FULL model of %s (it has %s)", env, strings.Join(chosen, ", "))
	}
	return clearLedgers(ctx, st, env, models, names, from, to, opt)
}
