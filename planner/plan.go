package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// Change is the category of a model in a plan.
type Change string

const (
	Added        Change = "added"
	Breaking     Change = "breaking"
	NonBreaking  Change = "non-breaking"
	Indirect     Change = "indirect"
	ForwardOnly  Change = "forward-only"
	MetadataOnly Change = "metadata-only"
	Removed      Change = "removed"
	Unchanged    Change = "unchanged"
)

// ModelPlan is one model's line in a plan.
type ModelPlan struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Change      Change `json:"change"`
	Fingerprint string `json:"fingerprint"`
	// Previous is the fingerprint the environment points at now.
	Previous string `json:"previous,omitempty"`
	// Build is true when the snapshot's physical relation must be built;
	// false when an existing one is reused (promotion only).
	Build         bool       `json:"build"`
	PhysicalTable string     `json:"physicalTable,omitempty"`
	Backfill      [][]string `json:"backfill"`
	// Cause names the changed ancestors that moved an indirect change.
	Cause   []string `json:"cause,omitempty"`
	Explain []string `json:"explain"`
}

// Plan is the difference between the project and an environment.
type Plan struct {
	Env        string      `json:"env"`
	HasChanges bool        `json:"hasChanges"`
	Models     []ModelPlan `json:"models"`

	analysis *Analysis
	current  map[string]state.Pointer
	stored   map[string]bool // fingerprints the store already holds
}

// Analysis returns the analysis the plan was made from.
func (p *Plan) Analysis() *Analysis { return p.analysis }

// Counts tallies the models of each change.
func (p *Plan) Counts() map[Change]int {
	out := map[Change]int{}
	for _, m := range p.Models {
		out[m.Change]++
	}
	return out
}

// Builds counts the physical relations the plan builds.
func (p *Plan) Builds() int {
	n := 0
	for _, m := range p.Models {
		if m.Build {
			n++
		}
	}
	return n
}

// ProblemsError is returned when the project has errors; the plan cannot
// be made and nothing was changed.
type ProblemsError struct {
	Diagnostics []project.Diagnostic
}

func (e *ProblemsError) Error() string {
	n := 0
	for _, d := range e.Diagnostics {
		if d.Severity == project.SeverityError {
			n++
		}
	}
	return fmt.Sprintf("the project has %d error(s)", n)
}

// MakePlan diffs an analyzed project against env in the store and lists the
// missing intervals of incremental models as of now (PlanAt; default the
// current time). A project with errors yields a *ProblemsError.
func MakePlan(ctx context.Context, a *Analysis, st state.Store, env string, opts ...PlanOption) (*Plan, error) {
	if err := ValidateEnv(env); err != nil {
		return nil, err
	}
	if a.Errors() {
		return nil, &ProblemsError{Diagnostics: a.Diagnostics}
	}
	cur, err := st.Environment(ctx, env)
	if err != nil {
		return nil, err
	}
	fps := make([]string, 0, len(a.Models)+len(cur))
	for _, info := range a.Models {
		fps = append(fps, info.Fingerprint)
	}
	for _, ptr := range cur {
		fps = append(fps, ptr.Fingerprint)
	}
	snaps, err := st.Snapshots(ctx, fps)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		if s.FingerprintVersion != FingerprintVersion {
			return nil, fmt.Errorf("planner: snapshot %s of %s was made by fingerprint version %d, this efmesh uses version %d; "+
				"run a matching efmesh or migrate the state store", s.Fingerprint[:8], s.Name, s.FingerprintVersion, FingerprintVersion)
		}
	}

	p := &Plan{Env: env, analysis: a, current: cur, stored: map[string]bool{}}
	for fp := range snaps {
		p.stored[fp] = true
	}
	changed := map[string]bool{}
	for _, m := range a.Project.Models {
		info := a.Models[m.Name]
		if info == nil {
			continue
		}
		mp := ModelPlan{Name: m.Name, Kind: string(m.Kind.Name), Fingerprint: info.Fingerprint, Backfill: [][]string{}, Explain: []string{}}
		if m.Kind.Name != project.KindEmbedded {
			mp.PhysicalTable = PhysicalRelation(m, info.Fingerprint).String()
		}
		snap, known := snaps[info.Fingerprint]
		mp.Build = m.Kind.Name != project.KindEmbedded && (!known || !snap.Built())
		ptr, inEnv := cur[m.Name]
		switch {
		case !inEnv:
			mp.Change = Added
		case ptr.Fingerprint == info.Fingerprint:
			mp.Change = Unchanged
		default:
			mp.Previous = ptr.Fingerprint
			prev, ok := snaps[ptr.Fingerprint]
			if ok && prev.OwnHash == info.OwnHash {
				mp.Change = Indirect
				for parent := range info.Parents {
					if changed[parent] {
						mp.Cause = append(mp.Cause, parent)
					}
				}
				sort.Strings(mp.Cause)
				mp.Explain = append(mp.Explain, "own definition unchanged; moved by changed parent(s)")
			} else if ok {
				var prevDef Definition
				_ = json.Unmarshal(prev.Definition, &prevDef)
				v := categorize(prevDef, definitionOf(m), prev.Canonical, info.Canonical)
				mp.Change = v.change
				mp.Explain = append(append(mp.Explain, v.paths...), v.reason)
			} else {
				mp.Change = Breaking
				mp.Explain = append(mp.Explain, "the previous snapshot is not in the state store")
			}
		}
		if mp.Change != Unchanged {
			changed[m.Name] = true
		}
		if mp.Change != Unchanged || mp.Build {
			p.HasChanges = true
		}
		p.Models = append(p.Models, mp)
	}
	var removed []string
	for name := range cur {
		if a.Models[name] == nil {
			removed = append(removed, name)
		}
	}
	sort.Strings(removed)
	for _, name := range removed {
		p.HasChanges = true
		p.Models = append(p.Models, ModelPlan{Name: name, Change: Removed, Previous: cur[name].Fingerprint, Backfill: [][]string{}, Explain: []string{}})
	}
	if err := p.fillBackfill(ctx, st, planConfigOf(opts).now); err != nil {
		return nil, err
	}
	return p, nil
}
