package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// A preview is a non-prod environment that covers a shorter range of
// history than the project: its INCREMENTAL_BY_TIME_RANGE models are
// computed only for the intervals inside [Start, End) (WithPreview). The
// range is part of the plan, so the plans journal records it with the
// applied plan; later plans and run ticks of the environment keep to the
// range of its last applied plan until another one is asked for. A
// snapshot built in a preview is shared as any other: a plan that reuses
// it elsewhere (a promotion to prod) computes the intervals it lacks.

// Preview is the range [Start, End) of history an environment covers.
type Preview struct {
	Start time.Time
	End   time.Time // zero: open, up to the last complete interval
}

type previewJSON struct {
	Start string `json:"start"`
	End   string `json:"end,omitempty"`
}

func (v Preview) MarshalJSON() ([]byte, error) {
	j := previewJSON{Start: v.Start.UTC().Format(time.RFC3339)}
	if !v.End.IsZero() {
		j.End = v.End.UTC().Format(time.RFC3339)
	}
	return json.Marshal(j)
}

func (v *Preview) UnmarshalJSON(b []byte) error {
	var j previewJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	s, err := time.Parse(time.RFC3339, j.Start)
	if err != nil {
		return fmt.Errorf("planner: preview start: %w", err)
	}
	v.Start, v.End = s.UTC(), time.Time{}
	if j.End != "" {
		e, err := time.Parse(time.RFC3339, j.End)
		if err != nil {
			return fmt.Errorf("planner: preview end: %w", err)
		}
		v.End = e.UTC()
	}
	return nil
}

// String is the range as a person reads it: "2026-03-01..2026-03-07",
// dates where the bounds are midnights, an open end as "…".
func (v Preview) String() string {
	end := "…"
	if !v.End.IsZero() {
		end = shortTime(v.End)
	}
	return shortTime(v.Start) + ".." + end
}

// Contains reports whether the interval [s, e) lies inside the range.
func (v Preview) Contains(s, e time.Time) bool {
	return !s.Before(v.Start) && (v.End.IsZero() || !e.After(v.End))
}

func shortTime(t time.Time) string {
	t = t.UTC()
	if t.Equal(t.Truncate(24 * time.Hour)) {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}

// RangeText shows a plan's ranges the way Preview does, joined with
// "and": "2026-01-01..2026-03-01 and 2026-03-07..2026-03-10".
func RangeText(rs []analysis.Range) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, shortTime(r.Start)+".."+shortTime(r.End))
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// previewRequest is what WithPreview asked for; a zero bound was not given.
type previewRequest struct {
	start, end time.Time
}

// WithPreview makes a non-prod environment cover only [start, end) of the
// project's history: its INCREMENTAL_BY_TIME_RANGE models are computed
// only for the intervals inside it (each bound widened to whole intervals
// of the model). A zero start is the project's start, a zero end is open.
// The range replaces the one the environment's last applied plan
// recorded; a range from the project's start with an open end ends the
// preview. MakePlan refuses it on prod (*PreviewError), as well as an end
// not after the start and a start before the project's.
func WithPreview(start, end time.Time) PlanOption {
	return func(c *planConfig) {
		c.preview = &previewRequest{start: start.UTC(), end: end.UTC()}
	}
}

// PreviewError is a preview range MakePlan refuses.
type PreviewError struct {
	Env    string
	Reason string
}

func (e *PreviewError) Error() string {
	return "preview of " + e.Env + ": " + e.Reason
}

// projectStart is the earliest start of the project's
// INCREMENTAL_BY_TIME_RANGE models, or the configured start when it has
// none; zero when neither is known.
func projectStart(a *analysis.Analysis) (time.Time, error) {
	var first time.Time
	for _, info := range a.Models {
		if info.Model.Kind.Name != project.KindIncrementalByTimeRange {
			continue
		}
		s, err := analysis.ModelStart(info.Model, a.Project.Config)
		if err != nil {
			return time.Time{}, err
		}
		if first.IsZero() || s.Before(first) {
			first = s
		}
	}
	if first.IsZero() && a.Project.Config.Start != "" {
		return project.ParseTime(a.Project.Config.Start)
	}
	return first, nil
}

// RecordedPreview is the range the last applied plan of env recorded, or
// nil when it covers the project's whole history (or was never applied).
// An environment without pointers (deleted) has none.
func RecordedPreview(ctx context.Context, st state.Reader, env string) (*Preview, error) {
	cur, err := st.Environment(ctx, env)
	if err != nil || len(cur) == 0 {
		return nil, err
	}
	// The last applied plan is nearly always among the newest few; the
	// whole journal is read only when it is not.
	const recent = 16
	plans, err := st.Plans(ctx, env, recent)
	if err == nil && len(plans) == recent && !slices.ContainsFunc(plans, func(r state.PlanRecord) bool { return r.Status == state.PlanApplied }) {
		plans, err = st.Plans(ctx, env, 0)
	}
	if err != nil {
		return nil, err
	}
	for _, r := range plans {
		if r.Status != state.PlanApplied {
			continue
		}
		var s struct {
			Preview *Preview `json:"preview"`
		}
		if err := json.Unmarshal(r.Summary, &s); err != nil {
			return nil, fmt.Errorf("planner: plan %s of %s: %w", r.ID, env, err)
		}
		return s.Preview, nil
	}
	return nil, nil
}

// resolvePreview is the range the plan covers: the requested one,
// validated, or the one the environment recorded. It sets p.Preview and
// marks the plan changed when the range differs from the recorded one.
func (p *Plan) resolvePreview(ctx context.Context, st state.Reader, req *previewRequest) error {
	recorded, err := RecordedPreview(ctx, st, p.Env)
	if err != nil {
		return err
	}
	if req == nil {
		p.Preview = recorded
		return nil
	}
	if p.Env == analysis.ProdEnv {
		return &PreviewError{Env: p.Env, Reason: "prod covers the project's whole history; a shorter range (--start, --end) is for a preview in another environment"}
	}
	first, err := projectStart(p.analysis)
	if err != nil {
		return err
	}
	v := Preview{Start: req.start, End: req.end}
	if v.Start.IsZero() {
		v.Start = first
	}
	if !v.End.IsZero() && !v.Start.Before(v.End) {
		return &PreviewError{Env: p.Env, Reason: fmt.Sprintf("the end %s is not after the start %s", shortTime(v.End), shortTime(v.Start))}
	}
	if !first.IsZero() && v.Start.Before(first) {
		return &PreviewError{Env: p.Env, Reason: fmt.Sprintf("the start %s is before the project's start %s", shortTime(v.Start), shortTime(first))}
	}
	if !v.End.IsZero() || v.Start.After(first) {
		p.Preview = &v
	}
	if !samePreview(p.Preview, recorded) {
		p.HasChanges = true
		p.previewChanged = true
	}
	return nil
}

func samePreview(a, b *Preview) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Start.Equal(b.Start) && a.End.Equal(b.End)
}

// clip narrows [start, now) of a model of grain g to the plan's preview,
// widened to whole intervals; ok is false when nothing of it is left.
func (p *Plan) clip(g analysis.Grain, start, now time.Time) (time.Time, time.Time, bool) {
	if p.Preview == nil {
		return start, now, true
	}
	if s := g.Floor(p.Preview.Start); s.After(start) {
		start = s
	}
	if !p.Preview.End.IsZero() {
		if e := g.Ceil(p.Preview.End); e.Before(now) {
			now = e
		}
	}
	return start, now, start.Before(now)
}

// noteCoverage tells, on a model that reuses a snapshot another
// environment built only in part (a preview), what that snapshot covers
// and who serves it: the plan's backfill computes the rest.
func (p *Plan) noteCoverage(ctx context.Context, st state.Reader, mp *ModelPlan, done []state.Interval) error {
	if mp.Build || len(mp.Backfill) == 0 || p.current[mp.Name].Fingerprint == mp.Fingerprint || !p.stored[mp.Fingerprint] {
		return nil
	}
	// A snapshot that is only behind (every interval it lacks comes after
	// the last it has) is an ordinary catch-up, not a partial build.
	var last time.Time
	for _, iv := range done {
		if iv.End.After(last) {
			last = iv.End
		}
	}
	behind := true
	for _, r := range mp.Backfill {
		if r.Start.Before(last) {
			behind = false
			break
		}
	}
	if behind {
		return nil
	}
	sorted := slices.Clone(done)
	slices.SortFunc(sorted, func(a, b state.Interval) int { return a.Start.Compare(b.Start) })
	covered := doneRanges(sorted)
	if len(covered) == 0 {
		return nil
	}
	mp.Covered = covered
	served, err := p.servedElsewhere(ctx, st)
	if err != nil {
		return err
	}
	mp.CoveredIn = append([]string(nil), served[mp.PhysicalTable]...)
	return nil
}

// Why a plan refills a FULL model's table (ModelPlan.RefillWhy).
const (
	RefillRestated = "restated"
	RefillPreview  = "preview"
)

// refillCompleted refills, after them, the FULL descendants (and merges the
// INCREMENTAL_BY_UNIQUE_KEY ones again) of the models whose existing
// snapshot the plan completes: the intervals a preview left out (Covered),
// or those a changed preview range adds. A table built over a preview read
// only the preview's range of its incremental ancestors; serving it beside
// the completed ones would mix two ranges. SCD_TYPE_2 children are not
// merged here: a merge would date the versions it adds at the promotion.
func (p *Plan) refillCompleted(previewChanged bool) {
	var completed []string
	for _, mp := range p.Models {
		if !mp.Build && len(mp.Backfill) > 0 && (len(mp.Covered) > 0 || previewChanged) {
			completed = append(completed, mp.Name)
		}
	}
	if len(completed) == 0 {
		return
	}
	children := map[string][]string{}
	for _, m := range p.analysis.Project.Models {
		for _, r := range m.Refs() {
			children[r] = append(children[r], m.Name)
		}
	}
	via := map[string][]string{}
	for _, c := range completed {
		seen := map[string]bool{c: true}
		queue := []string{c}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			for _, ch := range children[n] {
				if seen[ch] {
					continue
				}
				seen[ch] = true
				queue = append(queue, ch)
				// A unique-key table merged over the preview holds only
				// the keys the preview's range yielded: merging the whole
				// query again brings the others (the upsert is idempotent).
				if mi := p.analysis.Models[ch]; mi != nil && (mi.Model.Kind.Name == project.KindFull || mi.Model.Kind.Name == project.KindIncrementalByUniqueKey) {
					via[ch] = append(via[ch], c)
				}
			}
		}
	}
	for i := range p.Models {
		mp := &p.Models[i]
		vs, ok := via[mp.Name]
		if !ok || mp.Build || mp.Change == Removed {
			continue
		}
		for _, v := range vs {
			if !slices.Contains(mp.Refill, v) {
				mp.Refill = append(mp.Refill, v)
			}
		}
		slices.Sort(mp.Refill)
		if mp.RefillWhy == "" {
			mp.RefillWhy = RefillPreview
		}
		mp.Explain = append(mp.Explain, "refilled after "+strings.Join(vs, ", ")+", whose intervals outside a preview are computed now")
		p.HasChanges = true
	}
}
