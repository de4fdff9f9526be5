package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/efmesh/efmesh/state"
)

// Revert is a model whose version in the environment someone else applied
// after the version this plan puts back: the project the plan was made
// from predates that apply (a clone not updated since a colleague's
// change), and applying it undoes the colleague's change.
//
// "Older" is read from the environment's history, the plans journal: the
// environment served Fingerprint before, and a later applied plan (Plan,
// by By at At) replaced it with Current, which it still serves. A plain
// "the fingerprint differs" says nothing of age; a version the
// environment never served is a new change, not a revert. A revert of a
// change the user applied (WithUser) is theirs to make and is not listed.
type Revert struct {
	Model       string    `json:"model"`
	Fingerprint string    `json:"fingerprint"` // the version the plan puts back
	Current     string    `json:"current"`     // the version the environment serves
	By          string    `json:"by"`
	At          time.Time `json:"at"`
	Plan        string    `json:"plan"`
}

// Text says what the revert undoes.
func (r Revert) Text(env string) string {
	return fmt.Sprintf("%s's %s was applied by %s at %s (plan %s); this apply puts back an older version",
		env, r.Model, r.By, r.At.UTC().Format(time.RFC3339), r.Plan)
}

// WithUser names who makes the plan (and would apply it): a change that
// user applied is theirs to revert, and Plan.Reverts leaves it out.
func WithUser(name string) PlanOption {
	return func(c *planConfig) { c.user = name }
}

// journalLine is what the reverts read of a plan recorded in the journal.
type journalLine struct {
	Name        string `json:"name"`
	Change      Change `json:"change"`
	Fingerprint string `json:"fingerprint"`
	Previous    string `json:"previous"`
}

// fillReverts sets Plan.Reverts: the directly changed models the plan
// moves back to a version the environment served before a later plan of
// another user replaced it. Indirect lines are left out: they follow the
// model that moved them, which is listed. The journal is read only when
// a line moves a model back to a stored version.
func (p *Plan) fillReverts(ctx context.Context, st state.Reader, user string) error {
	want := map[string]*ModelPlan{}
	for i := range p.Models {
		mp := &p.Models[i]
		// A version the store never held cannot have been served: only a
		// stored one can be put back, so a new change reads no journal.
		if mp.Previous == "" || mp.Previous == mp.Fingerprint || mp.Change == Removed || mp.Change == Indirect || !p.stored[mp.Fingerprint] {
			continue
		}
		want[mp.Name] = mp
	}
	if len(want) == 0 {
		return nil
	}
	recs, err := st.Plans(ctx, p.Env, 0)
	if err != nil {
		return err
	}
	// Each applied plan's lines of the wanted models, newest first.
	type applied struct {
		rec   state.PlanRecord
		lines map[string]journalLine
	}
	var hist []applied
	for _, r := range recs {
		if r.Status != state.PlanApplied {
			continue
		}
		var s struct {
			Models []journalLine `json:"models"`
		}
		if err := json.Unmarshal(r.Summary, &s); err != nil {
			return fmt.Errorf("planner: plan %s of %s: %w", r.ID, p.Env, err)
		}
		a := applied{rec: r, lines: map[string]journalLine{}}
		for _, l := range s.Models {
			if want[l.Name] != nil {
				a.lines[l.Name] = l
			}
		}
		hist = append(hist, a)
	}
	for _, mp := range p.Models {
		if want[mp.Name] == nil {
			continue
		}
		// The newest plan that moved the model to what the environment
		// serves, then whether the environment served the plan's version
		// before it.
		moved := -1
		for i, a := range hist {
			l, ok := a.lines[mp.Name]
			if ok && l.Fingerprint == mp.Previous && l.Change != Unchanged && l.Change != MetadataOnly && l.Previous != l.Fingerprint {
				moved = i
				break
			}
		}
		if moved < 0 || hist[moved].rec.AppliedBy == user && user != "" {
			continue
		}
		served := hist[moved].lines[mp.Name].Previous == mp.Fingerprint
		for _, a := range hist[moved+1:] {
			if served {
				break
			}
			l, ok := a.lines[mp.Name]
			served = ok && (l.Fingerprint == mp.Fingerprint || l.Previous == mp.Fingerprint)
		}
		if served {
			r := hist[moved].rec
			p.Reverts = append(p.Reverts, Revert{Model: mp.Name, Fingerprint: mp.Fingerprint, Current: mp.Previous, By: r.AppliedBy, At: r.CreatedAt, Plan: r.ID})
		}
	}
	return nil
}

// EnvMovedError is an apply refused because the environment's last applied
// plan is not the one the caller expected (ApplyOptions.ExpectEnv): someone
// applied since the caller looked.
type EnvMovedError struct {
	Env, Expected string
	Last          *state.PlanRecord // nil: never applied
}

func (e *EnvMovedError) Error() string {
	if e.Last == nil {
		return fmt.Sprintf("%s moved since plan %s: it has no applied plan now; plan again", e.Env, e.Expected)
	}
	return fmt.Sprintf("%s moved since plan %s: plan %s was applied by %s at %s; plan again (and expect %s)",
		e.Env, e.Expected, e.Last.ID, e.Last.AppliedBy, e.Last.CreatedAt.UTC().Format(time.RFC3339), e.Last.ID)
}

// checkExpected refuses the apply when env's last applied plan is not
// expected ("" expects nothing).
func checkExpected(ctx context.Context, st state.Reader, env, expected string) error {
	if expected == "" {
		return nil
	}
	e, err := ReadEnvironment(ctx, st, env)
	if err != nil {
		return err
	}
	if e.LastApplied == nil || e.LastApplied.ID != expected {
		return &EnvMovedError{Env: env, Expected: expected, Last: e.LastApplied}
	}
	return nil
}
