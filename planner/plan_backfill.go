package planner

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// fillBackfill lists, for every incremental model of the plan, the ranges
// its snapshot's ledger lacks between the model's start and now. A new
// snapshot has an empty ledger: its whole history is due. A preview
// (WithPreview) narrows the history to its range. Ranges to compute are
// changes even when the model's version is not.
func (p *Plan) fillBackfill(ctx context.Context, st state.Reader, now time.Time) error {
	for i := range p.Models {
		mp := &p.Models[i]
		info := p.analysis.Models[mp.Name]
		if mp.Change == Removed || info == nil || info.Model.Kind.Name != project.KindIncrementalByTimeRange {
			continue
		}
		m := info.Model
		start, err := analysis.ModelStart(m, p.analysis.Project.Config)
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
		g := analysis.GrainOf(m)
		if from, to, ok := p.clip(g, start, now); ok {
			for _, r := range g.Missing(from, to, done, m.Kind.Lookback) {
				mp.Backfill = append(mp.Backfill, r)
				mp.Intervals += g.Count(r)
			}
		}
		if err := p.noteCoverage(ctx, st, mp, done); err != nil {
			return err
		}
		if len(mp.Backfill) > 0 {
			p.HasChanges = true
		}
	}
	return nil
}

// restateRanges resolves the plan's restate requests: the range of each
// named model and of its INCREMENTAL_BY_TIME_RANGE descendants (widened to
// whole intervals of a coarser grain), keyed by model; and the FULL
// descendants, which read the recomputed ranges whole, each with the
// restated models it descends from (sorted).
func restateRanges(a *analysis.Analysis, reqs []restateRequest) (map[string]analysis.Range, map[string][]string, error) {
	out := map[string]analysis.Range{}
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
		g := analysis.GrainOf(info.Model)
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
				mg := analysis.GrainOf(mi.Model)
				r := analysis.Range{Start: mg.Floor(rq.from), End: mg.Ceil(rq.to)}
				if old, ok := out[n]; ok { // two requests: their hull
					r = analysis.Range{Start: minTime(old.Start, r.Start), End: maxTime(old.End, r.End)}
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
