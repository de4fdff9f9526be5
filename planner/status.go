package planner

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// Status is what is going on in an environment: the last applied plan,
// the interval coverage of its incremental models (against the versions
// the environment points at: what its consumers see), failed intervals and
// recent ticks.
type Status struct {
	Env      string
	LastPlan *state.PlanRecord // nil when never applied
	Models   []ModelStatus
	Ticks    []state.Run // newest first
	// Problems are the unhealthy states: failed intervals, a last tick that
	// ended in error. Lag, awaiting-human and lock-held ticks are normal.
	Problems []string
}

// Healthy reports whether Status found no problem.
func (s *Status) Healthy() bool { return len(s.Problems) == 0 }

// ModelStatus is the coverage of one incremental model.
type ModelStatus struct {
	Name        string
	Fingerprint string
	Grain       Grain
	Start       time.Time // zero when the model has no start
	DueThrough  time.Time // end of the last complete interval before now
	// CoveredThrough is the end of the last done interval (zero when none).
	CoveredThrough time.Time
	Done           int     // done intervals due
	Missing        int     // due intervals not done: the lag
	Failed         []Range // intervals marked failed
}

// GetStatus reports on env as of now. cfg supplies the project's start for
// models that declare none; ticks is how many recent ticks to list.
func GetStatus(ctx context.Context, st state.Store, cfg project.Config, env string, now time.Time, ticks int) (*Status, error) {
	if err := ValidateEnv(env); err != nil {
		return nil, err
	}
	s := &Status{Env: env}
	plans, err := st.Plans(ctx, env, 0)
	if err != nil {
		return nil, err
	}
	for i := range plans {
		if plans[i].Status == state.PlanApplied {
			s.LastPlan = &plans[i]
			break
		}
	}
	models, err := envModels(ctx, st, env)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(models))
	for n, m := range models {
		if m.def.Kind.Name == project.KindIncrementalByTimeRange {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		m := models[n]
		g := m.grain()
		ms := ModelStatus{Name: n, Fingerprint: m.snap.Fingerprint, Grain: g, DueThrough: g.Floor(now)}
		start, serr := modelStart(&project.Model{Name: n, Start: m.def.Start, Interval: string(g)}, cfg)
		if serr == nil {
			ms.Start = start
		}
		ivs, err := st.Intervals(ctx, m.snap.Fingerprint)
		if err != nil {
			return nil, err
		}
		for _, iv := range ivs {
			switch iv.Status {
			case state.IntervalFailed:
				ms.Failed = append(ms.Failed, Range{iv.Start, iv.End})
			case state.IntervalDone:
				if iv.End.After(ms.CoveredThrough) {
					ms.CoveredThrough = iv.End
				}
				if serr == nil && !iv.Start.Before(start) && !iv.End.After(ms.DueThrough) {
					ms.Done++
				}
			}
		}
		if serr == nil {
			ms.Missing = g.Count(Range{start, ms.DueThrough}) - ms.Done
		}
		if len(ms.Failed) > 0 {
			s.Problems = append(s.Problems, fmt.Sprintf("%s has %d failed interval(s), the first %s", n, len(ms.Failed), ms.Failed[0]))
		}
		s.Models = append(s.Models, ms)
	}
	if s.Ticks, err = st.Runs(ctx, env, ticks); err != nil {
		return nil, err
	}
	if len(s.Ticks) > 0 && s.Ticks[0].Outcome == state.RunError {
		s.Problems = append(s.Problems, fmt.Sprintf("the last run tick (%s) ended in error", s.Ticks[0].StartedAt.UTC().Format(time.RFC3339)))
	}
	return s, nil
}
