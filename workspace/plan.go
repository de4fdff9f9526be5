package workspace

import (
	"context"
	"fmt"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
)

// Plan plans env as `efmesh plan` does: against the state store (or
// Reader), checked against what the warehouse holds (opened read-only,
// waited for while another process writes it; none yet holds nothing),
// with the workspace's workbench for a redacted environment. opts are the
// request's (clock, limits, the operator's verdicts); the plan is made as
// of Options.Now unless they say otherwise.
func (w *Workspace) Plan(ctx context.Context, env string, opts ...planner.PlanOption) (*planner.Plan, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	st := w.Reader
	if st == nil {
		opened, err := w.OpenStore(ctx)
		if err != nil {
			return nil, err
		}
		st = opened
	}
	w.watchPlan(ctx, st, env)
	wb, err := w.workbench()
	if err != nil {
		return nil, err
	}
	wh, err := connect.ReadWarehouse(ctx, w.Project, w.opts.Warehouse...)
	if err != nil {
		return nil, &UncheckedStoreError{Err: err}
	}
	if wh != nil {
		defer wh.Close()
	}
	opts = append([]planner.PlanOption{planner.PlanAt(w.opts.now())}, opts...)
	return w.planSelected(ctx, st, env, append(opts, planner.WithWarehouse(wh), planner.WithWorkbench(wb), planner.WithDueRefreshes()))
}

// Preview is the plan the editor's lenses and hints show while the user
// types: Plan's, against the state store only. The warehouse is not
// opened, so typing never waits on a writer nor holds one up; a redacted
// environment's plan gets a workbench, as apply's does.
func (w *Workspace) Preview(ctx context.Context, env string, opts ...planner.PlanOption) (*planner.Plan, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	st := w.Reader
	if st == nil {
		opened, err := w.OpenStore(ctx)
		if err != nil {
			return nil, err
		}
		st = opened
	}
	opts = append([]planner.PlanOption{planner.PlanAt(w.opts.now())}, opts...)
	if w.Project.Config.Environments[env].Redacted {
		wb, err := w.workbench()
		if err != nil {
			return nil, err
		}
		opts = append(opts, planner.WithWorkbench(wb))
	}
	return w.planSelected(ctx, st, env, opts)
}

// UncheckedStoreError is a warehouse that could not be opened to check the
// state store against: the store cannot be trusted unchecked.
type UncheckedStoreError struct{ Err error }

func (e *UncheckedStoreError) Error() string {
	return fmt.Sprintf("the warehouse, which the state store is checked against, cannot be opened: %v", e.Err)
}

func (e *UncheckedStoreError) Unwrap() error { return e.Err }

// ApplyRequest is what an apply is asked to do.
type ApplyRequest struct {
	// Plan are the plan's options (limits, the operator's verdicts); the
	// clock is Options.Now unless they set one.
	Plan []planner.PlanOption
	// Review sees the plan, made under the environment's lock, before
	// anything is built (to print it, to ask for a confirmation). An
	// error stops the apply with that error; nothing was changed. A plan
	// without changes is reviewed too, then the apply ends.
	Review func(*planner.Plan) error
	// Apply tunes the build (operator, progress, retries, jobs). Its Lock
	// and Now are the workspace's.
	Apply planner.ApplyOptions
}

// ApplyResult is what an apply did: the plan it made and, once applied,
// everything planner.Apply reports (built, promoted, removed, exported,
// dropped views, the plan's id).
type ApplyResult struct {
	Plan    *planner.Plan
	Applied bool
	planner.ApplyResult
}

// Apply makes env what the project says, as `efmesh apply` does, in this
// order: the environment's lock first, then the warehouse (a second
// process must meet the lock, not DuckDB's file lock, and a warehouse file
// is never opened for writing, nor created, by an apply that cannot have
// the lock), then the plan under both, against what the warehouse really
// holds; Review; then build and promote.
//
// The result is never nil. On a failed build it holds what was built
// before the failure.
func (w *Workspace) Apply(ctx context.Context, env string, req ApplyRequest) (*ApplyResult, error) {
	out := &ApplyResult{}
	if err := analysis.ValidateEnv(env); err != nil {
		return out, err
	}
	st, err := w.OpenStore(ctx)
	if err != nil {
		return out, err
	}
	lk, err := planner.AcquireLock(ctx, st, planner.EnvLock(env), 0)
	if err != nil {
		return out, err
	}
	defer lk.Release()
	wh, err := connect.WarehouseIfExists(ctx, w.Project, w.opts.Warehouse...)
	if err != nil {
		return out, err
	}
	defer func() {
		if wh != nil {
			wh.Close()
		}
	}()
	// A redacted environment binds the readers of redacted models again,
	// in the workbench.
	wb, err := w.workbench()
	if err != nil {
		return out, err
	}
	opts := append([]planner.PlanOption{planner.PlanAt(w.opts.now())}, req.Plan...)
	p, err := w.planSelected(ctx, st, env, append(opts, planner.WithWarehouse(wh), planner.WithWorkbench(wb), planner.WithDueRefreshes()))
	if err != nil {
		return out, err
	}
	out.Plan = p
	if req.Review != nil {
		if err := req.Review(p); err != nil {
			return out, err
		}
	}
	if !p.HasChanges {
		return out, nil
	}
	if wh == nil { // the first apply creates the warehouse
		var ew engine.Engine
		if ew, err = connect.Warehouse(ctx, w.Project, w.opts.Warehouse...); err != nil {
			return out, err
		}
		wh = ew
	}
	ao := req.Apply
	ao.Lock = lk
	if ao.Now == nil {
		ao.Now = w.opts.now
	}
	if ao.Logger == nil {
		ao.Logger = w.opts.logger()
	}
	res, err := planner.Apply(ctx, p, wh, st, ao)
	if res != nil {
		out.ApplyResult = *res
	}
	if err != nil {
		return out, err
	}
	out.Applied = true
	return out, nil
}
