package planner

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/efmesh/efmesh/state"
)

// Environment is what the store says of one environment: the pointers it
// serves and the last plan applied to it. An environment exists while it
// has pointers; its plans journal outlives it, so an applied plan without
// pointers means the environment was deleted (`efmesh env delete`, the
// janitor's TTL), not that it is applied.
type Environment struct {
	Name     string
	Pointers map[string]state.Pointer // keyed by model name; empty when absent
	// LastApplied is the newest applied plan of the journal, nil when none.
	LastApplied *state.PlanRecord
}

// Applied reports whether the environment exists: it serves at least one
// model. Every command decides "applied" by this, not by the journal.
func (e *Environment) Applied() bool { return len(e.Pointers) > 0 }

// Deleted reports whether the environment was applied once and serves
// nothing now.
func (e *Environment) Deleted() bool { return !e.Applied() && e.LastApplied != nil }

// Absence says why an environment that is not applied is not, for
// messages: "was deleted" (with its last plan) or "was never applied".
// Empty when it is applied.
func (e *Environment) Absence() string {
	switch {
	case e.Applied():
		return ""
	case e.Deleted():
		return fmt.Sprintf("environment %s was deleted (its last plan %s was applied at %s)", e.Name,
			e.LastApplied.ID, e.LastApplied.CreatedAt.UTC().Format(time.RFC3339))
	default:
		return fmt.Sprintf("environment %s was never applied", e.Name)
	}
}

// ReadEnvironment is how every command reads an environment from the
// store: its pointers and its last applied plan, from the one reader.
func ReadEnvironment(ctx context.Context, st state.Reader, env string) (*Environment, error) {
	ptrs, err := st.Environment(ctx, env)
	if err != nil {
		return nil, err
	}
	e := &Environment{Name: env, Pointers: ptrs}
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
	for i := range plans {
		if plans[i].Status == state.PlanApplied {
			e.LastApplied = &plans[i]
			break
		}
	}
	return e, nil
}
