package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// A plan of a selection (--select, --exclude) takes the direct changes of
// the selected models — a changed definition, a new model, a deleted one —
// and everything downstream of them; a direct change of an unselected
// model is left out: the model stays at the version the environment
// serves. One mechanism does it: Narrow writes a project in which every
// left-out model is what the environment has (its stored definition, or
// absent when it is new), and the plan is made of that project as of any
// other. A selected model below a left-out change is thus checked,
// fingerprinted and built against the parent's old version, and what the
// plan predicts is what apply does.

// LeftOut is a direct change a plan of a selection did not take.
type LeftOut struct {
	Name   string `json:"name"`
	Change Change `json:"change"` // added, removed, breaking, non-breaking or metadata-only
	// Previous is the fingerprint the environment keeps (none for a new model).
	Previous string `json:"previous,omitempty"`
}

// Narrowed is the project a plan of a selection is made from.
type Narrowed struct {
	Project *project.Project
	// Selected are the models selected (Narrow's argument).
	Selected map[string]bool
	LeftOut  []LeftOut
	// From is the environment whose versions the left-out models keep:
	// the planned one, or prod for an environment not yet created
	// (Baseline).
	From string
	// Kept maps each left-out model the environment has to the own hash
	// (the model alone, without parents) of the version it keeps: the
	// narrowed project's analysis must give the same (CheckNarrowed). Its
	// fingerprint may still move, with a selected change upstream.
	Kept map[string]string
}

// UnselectedParentError is a model the plan keeps that reads a model the
// selection leaves out of the environment (a new model, or a deletion
// that was selected while a reader was not).
type UnselectedParentError struct {
	Model, Parent string
	Added         bool // Parent is new (else: its deletion is selected)
}

func (e *UnselectedParentError) Error() string {
	if e.Added {
		return fmt.Sprintf("%s reads %s, a new model the selection leaves out: select it too (e.g. --select +%s)", e.Model, e.Parent, e.Model)
	}
	return fmt.Sprintf("%s reads %s, whose deletion is selected while %s is not: select %s too", e.Model, e.Parent, e.Model, e.Model)
}

// UnrestorableError is a left-out model whose version in the environment
// cannot be written back from the state store.
type UnrestorableError struct {
	Model, Env, Reason string
}

func (e *UnrestorableError) Error() string {
	return fmt.Sprintf("cannot leave %s out: its version in %s %s; select it", e.Model, e.Env, e.Reason)
}

// Universe is the project a selection is evaluated on: a's models and the
// models env has that the project deleted (written back from the state
// store), so that a selector can name a deletion.
func Universe(ctx context.Context, a *analysis.Analysis, st state.Reader, env string) (*project.Project, error) {
	cur, _, err := Baseline(ctx, st, env)
	if err != nil {
		return nil, err
	}
	restored, _, err := restoreRemoved(ctx, a, st, cur)
	if err != nil {
		return nil, err
	}
	models := append(append([]*project.Model{}, a.Project.Models...), restored...)
	return project.Build(a.Project.Root, a.Project.Config, models, nil), nil
}

// Baseline is what a plan of a selection leaves the unselected models of
// env at: env's own pointers, or, for an environment not yet created
// (no pointers), prod's — a new environment starts as a copy of prod, so a
// selection in it changes what was selected and serves the rest as prod
// does. from names the environment the pointers come from.
func Baseline(ctx context.Context, st state.Reader, env string) (cur map[string]state.Pointer, from string, err error) {
	e, err := ReadEnvironment(ctx, st, env)
	if err != nil {
		return nil, env, err
	}
	cur = e.Pointers
	if e.Applied() || env == analysis.ProdEnv {
		return cur, env, nil
	}
	pe, err := ReadEnvironment(ctx, st, analysis.ProdEnv)
	if err != nil || !pe.Applied() {
		return cur, env, err
	}
	return pe.Pointers, analysis.ProdEnv, nil
}

// restoreRemoved writes back the models cur has and a's project lacks,
// with their snapshots.
func restoreRemoved(ctx context.Context, a *analysis.Analysis, st state.Reader, cur map[string]state.Pointer) ([]*project.Model, map[string]state.Snapshot, error) {
	var fps []string
	var names []string
	for name, ptr := range cur {
		if a.Project.ByName[name] == nil {
			fps = append(fps, ptr.Fingerprint)
			names = append(names, name)
		}
	}
	if len(fps) == 0 {
		return nil, nil, nil
	}
	sort.Strings(names)
	snaps, err := st.SnapshotHeads(ctx, fps)
	if err != nil {
		return nil, nil, err
	}
	var out []*project.Model
	for _, name := range names {
		snap, ok := snaps[cur[name].Fingerprint]
		if !ok {
			continue // not restorable: it can only be removed
		}
		if m := restore(snap, ""); m != nil {
			out = append(out, m)
		}
	}
	return out, snaps, nil
}

// restore parses a stored snapshot's definition back into a model, in
// file (or its own when ""); nil when it does not parse.
func restore(snap state.Snapshot, file string) *project.Model {
	var def analysis.Definition
	if err := json.Unmarshal(snap.Definition, &def); err != nil {
		return nil
	}
	if file == "" {
		file = def.File
	}
	m, ds := project.ParseModel(file, def.Source())
	if project.HasErrors(ds) {
		return nil
	}
	return m
}

// Narrow makes the project a plan of env over the selected models is made
// from (see above). selected holds model names of Universe's project.
func Narrow(ctx context.Context, a *analysis.Analysis, st state.Reader, env string, selected map[string]bool) (*Narrowed, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	cur, from, err := Baseline(ctx, st, env)
	if err != nil {
		return nil, err
	}
	fps := make([]string, 0, len(cur))
	for _, ptr := range cur {
		fps = append(fps, ptr.Fingerprint)
	}
	snaps, err := st.Snapshots(ctx, fps)
	if err != nil {
		return nil, err
	}
	out := &Narrowed{Selected: selected, Kept: map[string]string{}, From: from}
	dropped := map[string]bool{} // left out of the environment: new unselected, or selected deletions
	var models []*project.Model
	for _, m := range a.Project.Models {
		info := a.Models[m.Name]
		ptr, inEnv := cur[m.Name]
		if selected[m.Name] {
			models = append(models, m)
			continue
		}
		if !inEnv {
			out.LeftOut = append(out.LeftOut, LeftOut{Name: m.Name, Change: Added})
			dropped[m.Name] = true
			continue
		}
		prev, ok := snaps[ptr.Fingerprint]
		change := directChange(a, info, prev, ok)
		if change == Unchanged {
			models = append(models, m)
			continue
		}
		if !ok {
			return nil, &UnrestorableError{Model: m.Name, Env: from, Reason: "is not in the state store"}
		}
		old := restore(prev, m.File)
		if old == nil {
			return nil, &UnrestorableError{Model: m.Name, Env: from, Reason: "has a stored definition that does not load"}
		}
		out.LeftOut = append(out.LeftOut, LeftOut{Name: m.Name, Change: change, Previous: ptr.Fingerprint})
		out.Kept[m.Name] = prev.OwnHash
		models = append(models, old)
	}
	// Deletions: a selected one happens, an unselected one is left out
	// (the model stays, as stored).
	restored, removedSnaps, err := restoreRemoved(ctx, a, st, cur)
	if err != nil {
		return nil, err
	}
	for _, m := range restored {
		if selected[m.Name] {
			dropped[m.Name] = true
			continue
		}
		out.LeftOut = append(out.LeftOut, LeftOut{Name: m.Name, Change: Removed, Previous: cur[m.Name].Fingerprint})
		out.Kept[m.Name] = removedSnaps[cur[m.Name].Fingerprint].OwnHash
		models = append(models, m)
	}
	for _, m := range models {
		for _, ref := range m.Refs() {
			if dropped[ref] {
				return nil, &UnselectedParentError{Model: m.Name, Parent: ref, Added: a.Project.ByName[ref] != nil}
			}
		}
	}
	sort.Slice(out.LeftOut, func(i, j int) bool { return out.LeftOut[i].Name < out.LeftOut[j].Name })
	// Unit tests are not planned: they stay out, so a test of a new model
	// left out is no problem of the narrowed project.
	proj := project.Assemble(a.Project.Root, a.Project.Config, models, nil, nil, a.Project.Audits, nil)
	out.Project = proj
	return out, nil
}

// directChange is the category of a model's own change against the
// version env points at (prev, when stored): Unchanged when its own
// definition and metadata are the stored ones (a move of its fingerprint
// then comes from a parent, which the plan decides).
func directChange(a *analysis.Analysis, info *analysis.ModelInfo, prev state.Snapshot, stored bool) Change {
	switch {
	case info == nil || !stored:
		return Breaking
	case info.OwnHash != prev.OwnHash:
		var prevDef analysis.Definition
		_ = json.Unmarshal(prev.Definition, &prevDef)
		return judge(a, info, prevDef, prev.Canonical).change
	case !analysis.SameDefinition(prev.Definition, a.Project, info):
		var prevDef analysis.Definition
		_ = json.Unmarshal(prev.Definition, &prevDef)
		if len(analysis.MetadataChanges(prevDef, analysis.DefinitionIn(a.Project, info.Model))) > 0 {
			return MetadataOnly
		}
	}
	return Unchanged
}

// CheckNarrowed verifies that the analysis of a narrowed project gives
// each left-out model the own definition its environment keeps: otherwise
// the plan would not leave it as it is (a seed file or a variable it
// reads changed since), and the selection cannot leave it out. (Below a
// selected change, the kept version is rebuilt on its new parents, an
// indirect change, as anything downstream of a selected change is.)
func CheckNarrowed(n *Narrowed, a *analysis.Analysis, env string) error {
	names := make([]string, 0, len(n.Kept))
	for name := range n.Kept {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		info := a.Models[name]
		if info == nil || info.OwnHash != n.Kept[name] {
			return &UnrestorableError{Model: name, Env: env, Reason: "cannot be rebuilt from the state store alone (a file or variable it reads changed since)"}
		}
	}
	return nil
}
