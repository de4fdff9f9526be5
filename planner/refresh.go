package planner

import (
	"context"
	"fmt"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// A FULL model is computed whole: its data is as fresh as its last
// refresh. Its refreshes are recorded in the interval ledger of its
// snapshot, as one done record [refreshed at, the cron's next time) —
// what the table holds is good until the cron fires again. A run tick
// refills the table of every FULL model whose cron fired since the last
// refresh (project.Config.CronOf: the header's cron, else efmesh.yaml's
// defaults, else @daily), parents before children, so the intervals that
// read it are computed over fresh rows.
//
// Other kinds need no clock: a VIEW reads its parents when it is read, an
// EXTERNAL is read in place, and a SEED's only input is its file, whose
// content is in the fingerprint (a changed file is a plan, not a refresh).
// INCREMENTAL_BY_UNIQUE_KEY and SCD_TYPE_2 merge at every tick.
//
// Restate clears a FULL model's records: it is due at the next tick.

// allTime spans every record a ledger can hold.
var allTime = analysis.Range{Start: time.Unix(0, 0).UTC(), End: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}

// recordRefresh adds to r that info's FULL table was computed at r.At,
// replacing the older records (first: the snapshot is new, it has none):
// one done record [r.At, the cron's next time).
func recordRefresh(cfg project.Config, info *analysis.ModelInfo, r *state.BuildRecord, first bool) error {
	c, err := project.ParseCron(cfg.CronOf(info.Model))
	if err != nil {
		return fmt.Errorf("%s: cron %w", info.Model.Name, err)
	}
	at := r.At.UTC()
	if !first {
		r.ClearFrom, r.ClearTo = allTime.Start, at
	}
	r.Done = append(r.Done, state.Interval{Start: at, End: c.Next(at)})
	return nil
}

// lastRefresh returns when a FULL snapshot was last computed, and false
// when its ledger has no record (never refreshed since it was recorded, or
// restated).
func lastRefresh(ctx context.Context, st state.Reader, fp string) (time.Time, bool, error) {
	ivs, err := st.Intervals(ctx, fp)
	if err != nil {
		return time.Time{}, false, err
	}
	var last time.Time
	found := false
	for _, iv := range ivs {
		if iv.Status == state.IntervalDone && (!found || iv.Start.After(last)) {
			last, found = iv.Start, true
		}
	}
	return last, found, nil
}

// ledgerOf returns the fingerprint whose ledger the snapshot fp of model
// has once the plan is applied: its own, or — a snapshot the plan records
// by inheriting an older one's relation (p.reuse), not stored yet — the
// older one's, whose done intervals apply copies (inherit). A plan's
// prediction and the run after its apply so read the same refresh time.
func (p *Plan) ledgerOf(model, fp string) string {
	if old, ok := p.reuse[model]; ok && !p.stored[fp] {
		return old
	}
	return fp
}

// dueRefreshes lists the FULL models of the plan whose cron fired after
// their last refresh, as of now: what a run tick refreshes and what a
// plan predicts it will (fillDueRefresh), one decision for both. A model
// skip answers true for is left out without reading its ledger (every cron
// is still parsed): a plan's own builds are refreshed by its apply, and a
// cold plan builds every model, so it reads no ledger at all.
func dueRefreshes(ctx context.Context, p *Plan, st state.Reader, now time.Time, skip func(ModelPlan) bool) (map[string]bool, error) {
	due := map[string]bool{}
	cfg := p.analysis.Project.Config
	for _, mp := range p.Models {
		info := p.analysis.Models[mp.Name]
		if mp.Change == Removed || info == nil || info.Model.Kind.Name != project.KindFull {
			continue
		}
		c, err := project.ParseCron(cfg.CronOf(info.Model))
		if err != nil {
			return nil, fmt.Errorf("%s: cron %w", mp.Name, err)
		}
		if skip != nil && skip(mp) {
			continue
		}
		last, ok, err := lastRefresh(ctx, st, p.ledgerOf(mp.Name, info.Fingerprint))
		if err != nil {
			return nil, err
		}
		if _, d := refreshDue(c, last, ok, now); d {
			due[mp.Name] = true
		}
	}
	return due, nil
}

// refreshDue is the one decision of whether a FULL table is due for its
// cron c as of now: it is when its ledger has no refresh (refreshed
// false: never refreshed since recorded, or restated) or when the cron
// fired at or after its last refresh (last) and by now. since is that
// firing (zero when never refreshed). Run ticks, plans (dueRefreshes) and
// status's overdue rule (GetStatus) all decide by it.
func refreshDue(c project.Cron, last time.Time, refreshed bool, now time.Time) (since time.Time, due bool) {
	if !refreshed {
		return time.Time{}, true
	}
	next := c.Next(last)
	return next, !next.IsZero() && !next.After(now)
}

// fillDueRefresh sets Plan.DueRefresh as of now: the due FULL models
// (dueRefreshes, as a run tick decides them) that this plan's apply does
// not compute. A model the plan builds or refills is refreshed by apply.
func (p *Plan) fillDueRefresh(ctx context.Context, st state.Reader, now time.Time) error {
	refill := p.refilled()
	due, err := dueRefreshes(ctx, p, st, now, func(mp ModelPlan) bool { return p.computes(mp, refill) })
	if err != nil {
		return err
	}
	for _, mp := range p.Models {
		if due[mp.Name] && !p.computes(mp, refill) {
			p.DueRefresh = append(p.DueRefresh, mp.Name)
		}
	}
	return nil
}
