package workspace

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// Selection is the part of the project plan, apply and run act on: the
// --select and --exclude expressions (project/selector.go), evaluated on
// the project with the environment's deleted models written back, so a
// selector may name a deletion. The zero Selection is the whole project.
type Selection struct {
	Selects, Excludes []string
	// State is the environment state:modified compares with (--state);
	// empty: the environment planned or run.
	State string
}

// Active reports whether the selection narrows anything.
func (s Selection) Active() bool { return len(s.Selects) > 0 || len(s.Excludes) > 0 }

// narrow returns the analysis a plan of env over w.Selection is made
// from, and the changes it leaves out (planner.Narrow): the workspace's
// own analysis when nothing is selected. The narrowed project is analyzed
// on the workspace's workbench, through the check cache, so only the
// restored models cost a check.
func (w *Workspace) narrow(ctx context.Context, st state.Reader, env string) (*analysis.Analysis, *planner.Narrowed, error) {
	if !w.Selection.Active() || w.Analysis.Errors() {
		return w.Analysis, nil, nil
	}
	uni, err := planner.Universe(ctx, w.Analysis, st, env)
	if err != nil {
		return nil, nil, err
	}
	against := w.Selection.State
	if against == "" {
		against = env
	}
	names, err := uni.SelectIn(w.Selection.Selects, w.Selection.Excludes, project.SelectContext{
		Modified: func() (map[string]bool, error) { return modifiedAgainst(ctx, w.Analysis, st, against) },
	})
	if err != nil {
		return nil, nil, err
	}
	chosen := map[string]bool{}
	for _, n := range names {
		chosen[n] = true
	}
	n, err := planner.Narrow(ctx, w.Analysis, st, env, chosen)
	if err != nil {
		return nil, nil, err
	}
	if len(n.LeftOut) == 0 {
		return w.Analysis, n, nil
	}
	wb, err := w.workbench()
	if err != nil {
		return nil, nil, err
	}
	a, err := Analyze(ctx, n.Project, wb, w.opts.logger())
	if err != nil {
		return nil, nil, err
	}
	if a.Errors() {
		return nil, nil, &planner.ProblemsError{Diagnostics: a.Diagnostics}
	}
	if err := planner.CheckNarrowed(n, a, env); err != nil {
		return nil, nil, err
	}
	return a, n, nil
}

// Select evaluates sel on the workspace's project (project.SelectIn): a
// state:modified term compares the project's fingerprints with what
// sel.State serves, read from the state store. The names are in name
// order.
func (w *Workspace) Select(ctx context.Context, sel Selection) ([]string, error) {
	sc := project.SelectContext{NoState: "pass --state <env>"}
	if sel.State != "" {
		sc.Modified = func() (map[string]bool, error) {
			if err := analysis.ValidateEnv(sel.State); err != nil {
				return nil, err
			}
			st, err := w.OpenStore(ctx)
			if err != nil {
				return nil, err
			}
			return modifiedAgainst(ctx, w.Analysis, st, sel.State)
		}
	}
	return w.Project.SelectIn(sel.Selects, sel.Excludes, sc)
}

// modifiedAgainst names the models modified against what env serves, as
// dbt's state:modified does: those whose own definition differs (a new
// model, an edited one, one that does not check, one env serves that the
// project deleted), not those only a changed parent moves (their
// fingerprint differs too; state:modified+ adds them). A model whose
// fingerprint equals the served one is never modified. An environment
// never applied is an error: everything would be modified against it.
func modifiedAgainst(ctx context.Context, a *analysis.Analysis, st state.Reader, env string) (map[string]bool, error) {
	e, err := planner.ReadEnvironment(ctx, st, env)
	if err != nil {
		return nil, err
	}
	if len(e.Pointers) == 0 {
		return nil, fmt.Errorf("state:modified compares with environment %s, which has never been applied", env)
	}
	out := map[string]bool{}
	var fps []string
	for name, info := range a.Models {
		ptr, ok := e.Pointers[name]
		switch {
		case !ok || info.Fingerprint == "":
			out[name] = true
		case ptr.Fingerprint != info.Fingerprint:
			fps = append(fps, ptr.Fingerprint)
		}
	}
	heads, err := st.SnapshotHeads(ctx, fps)
	if err != nil {
		return nil, err
	}
	for name, info := range a.Models {
		ptr, ok := e.Pointers[name]
		if !ok || info.Fingerprint == "" || ptr.Fingerprint == info.Fingerprint {
			continue
		}
		// A served snapshot the store lacks, or one without its own
		// hash, is compared by fingerprint alone.
		if h, ok := heads[ptr.Fingerprint]; !ok || h.OwnHash == "" || h.OwnHash != info.OwnHash {
			out[name] = true
		}
	}
	for name := range e.Pointers {
		if a.Models[name] == nil {
			out[name] = true
		}
	}
	return out, nil
}

// planSelected is MakePlan over the selection, with its left-out changes.
func (w *Workspace) planSelected(ctx context.Context, st state.Reader, env string, opts []planner.PlanOption) (*planner.Plan, error) {
	a, n, err := w.narrow(ctx, st, env)
	if err != nil {
		return nil, err
	}
	p, err := planner.MakePlan(ctx, a, st, env, opts...)
	if err != nil {
		return nil, err
	}
	if n != nil {
		p.LeftOut = n.LeftOut
		if n.From != env {
			p.LeftOutFrom = n.From
		}
	}
	if path := connect.WarehouseReadOnly(w.Project); path != "" && p.HasChanges {
		if rel, err := filepath.Rel(w.Project.Root, path); err == nil && filepath.IsLocal(rel) {
			path = rel
		}
		p.Warnings = append(p.Warnings, planner.Warning{Code: "read_only_warehouse",
			Message: fmt.Sprintf("the warehouse %s is read-only: apply cannot make these changes", path)})
	}
	return p, nil
}

// Run is one scheduler tick of env (planner.Run) over w.Selection: a
// change the selection leaves out does not block it, and only the
// selected models' due intervals and refreshes are computed. A selection
// that cannot be made (a selector mistake) is an error before the tick:
// the result is then nil.
func (w *Workspace) Run(ctx context.Context, env string, open func() (engine.Engine, error), opt planner.ApplyOptions) (*planner.RunResult, error) {
	st, err := w.OpenStore(ctx)
	if err != nil {
		return nil, err
	}
	a, n, err := w.narrow(ctx, st, env)
	if err != nil {
		return nil, err
	}
	if n != nil {
		opt.Only = n.Selected
	}
	return planner.Run(ctx, a, st, env, open, opt)
}
