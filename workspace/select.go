package workspace

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/state"
)

// Selection is the part of the project plan, apply and run act on: the
// --select and --exclude expressions (project/selector.go), evaluated on
// the project with the environment's deleted models written back, so a
// selector may name a deletion. The zero Selection is the whole project.
type Selection struct {
	Selects, Excludes []string
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
	names, err := uni.Select(w.Selection.Selects, w.Selection.Excludes)
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
