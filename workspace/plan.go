package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/workspace/digest"
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
	if pr := w.opts.Presence; pr != nil {
		defer pr.Invalidate() // what Plan saw is newer than the listing
	}
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
// types: Plan's, against the state store and — with Options.Presence —
// the cached listing of the warehouse's catalog, so a relation dropped by
// hand is rebuilt here as in Plan. The warehouse is opened only when that
// listing is stale, never waited for, so typing never waits on a writer
// nor holds one up; a redacted environment's plan gets a workbench, as
// apply's does.
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
	if pr := w.opts.Presence; pr != nil {
		opts = append(opts, planner.WithCatalog(pr.catalog(w.Project, w.Analysis.Dialect(), w.opts.Warehouse)))
	}
	// A redacted environment's plan checks its variant on a workbench; the
	// files EXTERNAL models read are described on one, as Plan describes
	// them on the warehouse (a file of another shape stops both).
	if w.Project.Config.Environments[env].Redacted || readsFiles(w.Project) {
		wb, err := w.workbench()
		if err != nil {
			return nil, err
		}
		opts = append(opts, planner.WithWorkbench(wb))
	}
	return w.planSelected(ctx, st, env, opts)
}

// ReadOnlyWarehouseError is an apply with changes to make in a warehouse
// this process cannot write: nothing was changed.
type ReadOnlyWarehouseError struct{ Path string }

func (e *ReadOnlyWarehouseError) Error() string {
	return fmt.Sprintf("the warehouse %s is read-only: apply cannot make the plan's changes; nothing was changed", e.Path)
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
	// ReviewText, when set, reviews instead of Review a plan without
	// changes that Apply answered from the no-op digest, by the text the
	// digest keeps (WritePlan's): a front end that only prints the plan
	// prints it without the plan being decoded.
	ReviewText func(text string) error
	// Apply tunes the build (operator, progress, retries, jobs). Its Lock
	// and Now are the workspace's.
	Apply planner.ApplyOptions
	// Noop, for a plain request (no selection, verdicts, restatement or
	// preview), asks the apply to leave the environment's no-op digest
	// behind once it finished: the plan of env made again under the lock,
	// after the build, against the store and the warehouse as the apply
	// left them, remembered when it changes nothing (RememberNoop), so the
	// first plan after an apply is answered by digest.Lookup. A failed apply
	// removes the digest.
	Noop *NoopRequest
	// SkipTests builds without running the unit tests first. By default
	// the unit tests of the models the plan builds or computes into run
	// once the plan is made, before Review; a failure stops the apply
	// (*TestsFailedError) with nothing built. A plan without changes runs
	// none.
	SkipTests bool
}

// ApplyResult is what an apply did: the plan it made and, once applied,
// everything planner.Apply reports (built, promoted, removed, exported,
// dropped views, the plan's id).
type ApplyResult struct {
	Plan    *planner.Plan
	Applied bool
	// Tests are the unit tests run before the build (nil when none ran).
	Tests *TestReport
	// Answer says how Apply answered: the full path, or a digest.
	Answer Answer
	planner.ApplyResult
}

// Apply makes env what the loaded project says: the full path of the
// front ends' Apply, in this order: the environment's lock first, then
// the warehouse (a second process must meet the lock, not DuckDB's file
// lock, and a warehouse file is never opened for writing, nor created, by
// an apply that cannot have the lock), then the plan under both, against what the warehouse really
// holds; the unit tests of what it builds (ApplyRequest.SkipTests); Review;
// then build and promote.
//
// The result is never nil. On a failed build it holds what was built
// before the failure.
func (w *Workspace) Apply(ctx context.Context, env string, req ApplyRequest) (*ApplyResult, error) {
	out := &ApplyResult{}
	if err := analysis.ValidateEnv(env); err != nil {
		return out, err
	}
	if pr := w.opts.Presence; pr != nil {
		defer pr.Invalidate() // the warehouse changed: list it again
	}
	if req.Noop != nil {
		// Whatever happens next, the digest a previous plan left is not
		// trusted until this apply writes a new one.
		if err := digest.Forget(w.Project.Root, env); err != nil {
			return out, err
		}
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
	// A warehouse this process cannot write is read as plan reads it: an
	// unchanged project applies nothing, and a plan with changes stops
	// before any is made (ReadOnlyWarehouseError).
	readOnly := connect.WarehouseReadOnly(w.Project)
	open := connect.WarehouseIfExists
	if readOnly != "" {
		open = connect.ReadWarehouse
	}
	wh, err := open(ctx, w.Project, w.opts.Warehouse...)
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
	// The store's token as the plan is about to read it: a plan without
	// changes is remembered against it (rememberApplied).
	tok, tokOK := "", false
	if req.Noop != nil {
		tok, tokOK = digest.StoreToken(ctx, st, env)
	}
	p, err := w.planSelected(ctx, st, env, append(opts, planner.WithWarehouse(wh), planner.WithWorkbench(wb), planner.WithDueRefreshes()))
	if err != nil {
		return out, err
	}
	out.Plan = p
	if p.HasChanges && !req.SkipTests {
		rep, err := w.gateTests(ctx, p, wb)
		out.Tests = rep
		if err != nil {
			return out, err
		}
	}
	if req.Review != nil {
		if err := req.Review(p); err != nil {
			return out, err
		}
	}
	if !p.HasChanges {
		// A store written before efmesh recorded audit files learns
		// them now: nothing else changes.
		if err := planner.RecordAuditSources(ctx, p, st); err != nil {
			return out, err
		}
		if tokOK {
			w.rememberApplied(ctx, st, env, req, opts, wb, &plannedAt{plan: p, token: tok}, &wh)
		}
		return out, nil
	}
	if readOnly != "" {
		return out, &ReadOnlyWarehouseError{Path: readOnly}
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
	// The plan after a full apply is, for most projects, told from the
	// plan applied (planner.Settled) without planning again; the store's
	// token is read now, after the apply's last write, under the lock.
	var settled *plannedAt
	if req.Noop != nil {
		if again, ok := planner.Settled(p); ok {
			if tok, ok := digest.StoreToken(ctx, st, env); ok {
				settled = &plannedAt{plan: again, token: tok}
			}
		}
	}
	w.rememberApplied(ctx, st, env, req, opts, wb, settled, &wh)
	return out, nil
}

// plannedAt is a plan and the store's token read before it was made.
type plannedAt struct {
	plan  *planner.Plan
	token string
}

// rememberApplied leaves the no-op digest of env behind a finished apply
// of a plain request (ApplyRequest.Noop): made is the plan of env as the
// apply leaves it when that is known (the apply's own plan when it had no
// changes, or planner.Settled's derivation of the plan applied), else nil,
// and the plan is made again. Under the
// environment's lock, in this order: the store's token, the plan against
// the store and the open warehouse, the warehouse closed (its file as the
// next process finds it) and stamped, the token read again. A token that
// moved meanwhile (another writer), a plan with changes or anything that
// fails leaves no digest: the next plan takes the full path. The
// warehouse is closed on return (*wh is nil).
func (w *Workspace) rememberApplied(ctx context.Context, st state.Store, env string, req ApplyRequest, opts []planner.PlanOption, wb analysis.Workbench, made *plannedAt, wh *engine.Engine) {
	if req.Noop == nil || req.Noop.Env != env || w.Selection.Active() || w.loaded == nil {
		return
	}
	closeWH := func() {
		if *wh != nil {
			(*wh).Close()
			*wh = nil
		}
	}
	defer closeWH()
	var p *planner.Plan
	var tok string
	if made != nil {
		p, tok = made.plan, made.token
	} else {
		var ok bool
		if tok, ok = digest.StoreToken(ctx, st, env); !ok {
			return
		}
		again, err := w.planSelected(ctx, st, env, append(opts, planner.WithWarehouse(*wh), planner.WithWorkbench(wb)))
		if err != nil {
			w.opts.logger().Debug("no no-op digest: the plan after the apply failed", "err", err)
			return
		}
		p = again
	}
	closeWH()
	stamps, ok := digest.WarehouseStamps(w.Project)
	if !ok {
		return
	}
	if after, ok := digest.StoreToken(ctx, st, env); !ok || after != tok {
		return
	}
	w.before = &digest.Before{Env: env, Store: tok, Warehouse: stamps}
	if err := w.RememberNoop(*req.Noop, p); err != nil {
		w.opts.logger().Debug("could not save the no-op digest", "err", err)
	}
}

// readsFiles reports whether p has an EXTERNAL model over local files that
// declares its columns: the plan describes those files.
func readsFiles(p *project.Project) bool {
	for _, m := range p.Models {
		if m.Kind.Name == project.KindExternal && m.Kind.Files != "" && len(m.Columns) > 0 && !strings.Contains(m.Kind.Files, "://") {
			return true
		}
	}
	return false
}
