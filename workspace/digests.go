package workspace

import (
	"context"

	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/workspace/digest"
)

// The workspace's side of the digests (package digest): what a plan of a
// loaded project saw, handed to digest.Remember, and the promotion that
// digest.ApplyPromotion makes, reported as an apply.

// NoopRequest is a plain plan request (no selection, preview, restatement
// or verdicts) whose no-op answer a digest may give (digest.Request).
type NoopRequest = digest.Request

// NoopHit is a no-op plan answered from the digest (digest.Hit).
type NoopHit = digest.Hit

// watchPlan records, before a plan of env reads anything, the store's
// token and the warehouse's stamps, for RememberNoop. It does nothing for
// a workspace whose files were not stamped (not loaded by Open).
func (w *Workspace) watchPlan(ctx context.Context, st state.Reader, env string) {
	w.before = nil
	if w.loaded == nil {
		return
	}
	w.before = digest.Watch(ctx, st, w.Project, env)
}

// RememberNoop saves p, the plan of a plain request made by w, as the
// environment's no-op digest when it changes nothing (digest.Remember),
// so that the next plain plan of an unchanged project is answered from
// it. A plan with changes removes the digest.
func (w *Workspace) RememberNoop(req NoopRequest, p *planner.Plan) error {
	return digest.Remember(req, digest.Planned{
		Project:    w.Project,
		Analysis:   w.Analysis,
		Loaded:     w.loaded,
		Before:     w.before,
		Selected:   w.Selection.Active(),
		UnusedVars: w.UnusedVars,
		Text:       PlanText(p),
	}, p)
}

// QuickApplyPromotion applies, without loading the project, the plan of
// req.Env that only promotes snapshots another environment built, from
// the fingerprints digest (digest.ApplyPromotion), reviewed by ar.Review
// and tuned by ar.Apply as Workspace.Apply would be. ok is false when the
// apply was not made this way and nothing was changed.
func QuickApplyPromotion(ctx context.Context, dir string, req NoopRequest, opts Options, ar ApplyRequest) (res *ApplyResult, ok bool, err error) {
	pr, ok, err := digest.ApplyPromotion(ctx, dir, req, digest.Promote{
		Warehouse: opts.Warehouse,
		Now:       opts.now,
		Review:    ar.Review,
		Apply:     ar.Apply,
		Text:      PlanText,
	})
	if !ok {
		return nil, false, nil
	}
	return &ApplyResult{Plan: pr.Plan, Applied: pr.Applied, ApplyResult: pr.ApplyResult}, true, err
}
