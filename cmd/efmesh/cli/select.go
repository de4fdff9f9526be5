package cli

import (
	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

// selection holds a command's --select and --exclude flags (grammar in
// project/selector.go). Each flag may repeat; an occurrence is one line
// of the positions its errors give.
type selection struct {
	selects, excludes []string
	state             string // --state: what state:modified compares with
}

// register adds the flags to cmd. StringArray, not StringSlice: commas
// are the grammar's own union, and positions count in the value as typed.
func (s *selection) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&s.selects, "select", nil,
		"models to act on: names, globs (core.*), tag:x, path:models/mart/**, kind:incremental, config.materialized:table, state:modified, +model, model+, 2+model, model+1, @model; comma or space for a union, & for an intersection")
	cmd.Flags().StringArrayVar(&s.excludes, "exclude", nil, "models to leave out, in the --select grammar")
	cmd.Flags().StringVar(&s.state, "state", "", "the environment state:modified compares the project's fingerprints with (plan, apply and run: the environment itself by default)")
}

// usesState reports whether a state: term needs the project's analysis
// and the state store before the selection can be made.
func (s *selection) usesState() bool { return project.SelectorUsesState(s.selects, s.excludes) }

// active reports whether the user selected or excluded anything.
func (s *selection) active() bool { return len(s.selects) > 0 || len(s.excludes) > 0 }

// workspace is the selection as plan, apply and run take it.
func (s *selection) workspace() workspace.Selection {
	return workspace.Selection{Selects: s.selects, Excludes: s.excludes, State: s.state}
}

// loadSelected loads the project scoped to the selected models (and their
// ancestors, which they read) and returns them in topological order. A
// selector mistake is returned as such, before any problem of the files.
func (a *app) loadSelected(s *selection) (*workspace.Workspace, []string, error) {
	if s.usesState() {
		return a.loadStateSelected(s)
	}
	var chosen []string
	var selErr error
	w, err := a.loadScoped(false, func(p *project.Project) project.Scope {
		chosen, selErr = p.Select(s.selects, s.excludes)
		if selErr != nil {
			sc, _ := p.ScopeOf(nil, nil) // efmesh.yaml only: the selector's error comes first
			return sc
		}
		sc, _ := p.ScopeOf(chosen, nil)
		return sc
	})
	if selErr != nil {
		if w != nil {
			w.Close()
		}
		return nil, nil, selErr
	}
	if err != nil {
		return nil, nil, err
	}
	return w, topoNames(w.Project, chosen), nil
}

// loadStateSelected is loadSelected for a selection with a state: term:
// the whole project is loaded and analyzed (the fingerprints compared
// with --state's are every model's), then the selection is made.
func (a *app) loadStateSelected(s *selection) (*workspace.Workspace, []string, error) {
	w, err := a.load(false)
	if err != nil {
		return nil, nil, err
	}
	chosen, err := w.Select(a.ctx, s.workspace())
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return w, topoNames(w.Project, chosen), nil
}

// topoNames orders names as the project's DAG does, parents first.
func topoNames(p *project.Project, names []string) []string {
	in := map[string]bool{}
	for _, n := range names {
		in[n] = true
	}
	var out []string
	for _, m := range p.Models {
		if in[m.Name] {
			out = append(out, m.Name)
		}
	}
	return out
}
