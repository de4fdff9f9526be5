package workspace

import (
	"context"

	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace/digest"
)

// The strategy of plan and apply, the same for both front ends: a plain
// request (no selection, verdicts, restatement or preview) of an unchanged
// project is answered from the environment's no-op digest; a plain request
// whose plan only promotes what another environment built is answered from
// the fingerprints digest; anything else loads the project and plans it.
// Each front end makes one call (Apply, Plan) and reads how it was answered
// in the result (Answer).

// Answer says how a plan or an apply was answered.
type Answer int

const (
	// ByPlan: the project was loaded and planned (the full path).
	ByPlan Answer = iota
	// ByNoopDigest: from the environment's no-op digest, nothing loaded:
	// the files, the state store and the warehouse are as the last plan
	// saw them, and the plan changes nothing.
	ByNoopDigest
	// ByPromotion: from the fingerprints digest, nothing loaded: a
	// promotion of snapshots another environment built, of an unchanged
	// project.
	ByPromotion
)

func (a Answer) String() string {
	switch a {
	case ByNoopDigest:
		return "no-op digest"
	case ByPromotion:
		return "fingerprints digest"
	}
	return "plan"
}

// Loading is a project not loaded yet: where it is, how the full path
// loads it, and what a front end is told of what loading found.
type Loading struct {
	// Dir is a folder of the project (its root or below).
	Dir string
	// Open says how the full path loads the project; its Env is the
	// request's environment, whatever it says.
	Open OpenOptions
	// Selection is the part of the project the request acts on; zero:
	// all of it (then a plain request may be answered from a digest).
	Selection Selection
	// UnusedVars, when set, is told the --var overrides nothing reads
	// (on every path: a digest keeps those the full path found), before
	// the plan is reviewed or returned.
	UnusedVars func([]project.UnusedVar)
	// LeftAside, when set, is told the problems of the files outside the
	// scope loading was asked for (Workspace.LeftAside).
	LeftAside func([]project.Diagnostic)
}

func (l *Loading) unused(vars []project.UnusedVar) {
	if l.UnusedVars != nil {
		l.UnusedVars(vars)
	}
}

// open loads the project for the full path of a request about env.
func (l *Loading) open(ctx context.Context, env string) (*Workspace, error) {
	o := l.Open
	o.Env = env
	w, err := Open(ctx, l.Dir, o)
	if err != nil {
		return nil, err
	}
	l.unused(w.UnusedVars)
	if l.LeftAside != nil {
		l.LeftAside(w.LeftAside)
	}
	w.Selection = l.Selection
	return w, nil
}

// plain is req with its clock set: nil when the request is not plain.
func (l *Loading) plain(req *NoopRequest) *NoopRequest {
	if req == nil || l.Selection.Active() {
		return nil
	}
	r := *req
	if r.Now.IsZero() {
		r.Now = l.Open.now()
	}
	return &r
}

// Apply makes env of the project l names what the project says, as
// `efmesh apply` and the editor's apply both ask, by the first of these
// that answers (ApplyResult.Answer says which):
//
//  1. a plain request (req.Noop) of an unchanged project whose no-op
//     digest holds under the environment's lock: the plan without
//     changes, reviewed, nothing loaded and nothing written (digest.LookupLocked);
//  2. a plain request whose plan only promotes snapshots another
//     environment built, from the fingerprints digest: promoted without
//     loading the project (QuickApplyPromotion);
//  3. the project loaded (l.Open) and applied (Workspace.Apply); after a
//     plain apply, once the store is closed, the digest it left is
//     settled (digest.Settle) so that the next plan reads no token.
//
// A digest answer reviews the plan it holds as the full path would
// (req.Review; or req.ReviewText with its text, when set). The result is
// never nil; its Plan is nil when no plan was made (loading failed) or
// when ReviewText reviewed the plan's text.
func Apply(ctx context.Context, l Loading, env string, req ApplyRequest) (*ApplyResult, error) {
	req.Noop = l.plain(req.Noop)
	log := l.Open.logger()
	if req.Noop != nil {
		if res, ok, err := applyFromDigest(ctx, &l, req); ok {
			return res, err
		}
		if res, ok, err := QuickApplyPromotion(ctx, l.Dir, *req.Noop, l.Open.Options, req); ok {
			log.Debug("apply answered from the fingerprints digest: a promotion of built snapshots of an unchanged project")
			if pr := l.Open.Presence; pr != nil {
				pr.Invalidate() // the environment's views changed
			}
			res.Answer = ByPromotion
			return res, err
		}
	}
	w, err := l.open(ctx, env)
	if err != nil {
		return &ApplyResult{}, err
	}
	defer w.Close()
	res, err := w.Apply(ctx, env, req)
	if err == nil && req.Noop != nil {
		// The store closed, as the next process finds it: the digest
		// keeps its file's stamps, so the next plan reads no token.
		w.Close()
		digest.Settle(ctx, l.Dir, *req.Noop)
	}
	return res, err
}

// applyFromDigest is Apply's first answer: ok is false when the no-op
// digest cannot answer (or its plan cannot be decoded), and nothing was
// done.
func applyFromDigest(ctx context.Context, l *Loading, req ApplyRequest) (res *ApplyResult, ok bool, err error) {
	hit, ok := digest.LookupLocked(ctx, l.Dir, *req.Noop, req.Apply.ExpectEnv)
	if !ok {
		return nil, false, nil
	}
	log := l.Open.logger()
	res = &ApplyResult{Answer: ByNoopDigest}
	if req.ReviewText != nil {
		log.Debug("apply answered from the no-op digest: the files, the state store and the warehouse are as the last plan saw them")
		l.unused(hit.UnusedVars)
		return res, true, req.ReviewText(hit.Text)
	}
	p, err := hit.Plan()
	if err != nil {
		log.Debug("the no-op digest's plan", "err", err)
		return nil, false, nil
	}
	log.Debug("apply answered from the no-op digest: the files, the state store and the warehouse are as the last plan saw them")
	l.unused(hit.UnusedVars)
	res.Plan = p
	if req.Review != nil {
		err = req.Review(p)
	}
	return res, true, err
}

// PlanRequest is what a plan is asked to do.
type PlanRequest struct {
	// Noop, for a plain request (no selection, verdicts, restatement or
	// preview), lets the plan be answered from a digest, and a plan
	// without changes be remembered for the next one (RememberNoop). Its
	// Now, when zero, is the workspace's clock.
	Noop *NoopRequest
	// Plan are the plan's options (limits, the operator's verdicts).
	Plan []planner.PlanOption
	// Text: the caller needs only the plan's text (WritePlan's), so an
	// answer from the no-op digest gives the text it keeps
	// (PlanResult.Text) without decoding the plan.
	Text bool
}

// PlanResult is a plan and how it was made.
type PlanResult struct {
	// Plan is the plan; nil when Text holds it (PlanRequest.Text).
	Plan *planner.Plan
	// Text is the plan as WritePlan writes it, when the no-op digest
	// answered a request for its text; "" otherwise.
	Text   string
	Answer Answer
}

// Plan plans env of the project l names, as `efmesh plan` asks, by the
// first of these that answers (PlanResult.Answer says which): the no-op
// digest (digest.Lookup), the fingerprints digest
// (digest.LookupPromotion), or the project loaded (l.Open) and planned
// (Workspace.Plan), a plain plan without changes then remembered
// (RememberNoop).
func Plan(ctx context.Context, l Loading, env string, req PlanRequest) (*PlanResult, error) {
	noop := l.plain(req.Noop)
	log := l.Open.logger()
	if noop != nil {
		if res, ok := planFromDigest(ctx, &l, *noop, req.Text); ok {
			return res, nil
		}
		if p, unused, ok := digest.LookupPromotion(ctx, l.Dir, *noop); ok {
			log.Debug("plan answered from the fingerprints digest: a promotion of built snapshots of an unchanged project")
			l.unused(unused)
			return &PlanResult{Plan: p, Answer: ByPromotion}, nil
		}
	}
	w, err := l.open(ctx, env)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if _, err := w.OpenStore(ctx); err != nil {
		return nil, err
	}
	p, err := w.Plan(ctx, env, req.Plan...)
	if err != nil {
		return nil, err
	}
	if noop != nil {
		if err := w.RememberNoop(*noop, p); err != nil {
			log.Debug("could not save the no-op digest", "err", err)
		}
	}
	return &PlanResult{Plan: p}, nil
}

// planFromDigest is Plan's first answer: ok is false when the no-op
// digest cannot answer (or its plan, asked for, cannot be decoded).
func planFromDigest(ctx context.Context, l *Loading, req NoopRequest, text bool) (*PlanResult, bool) {
	hit, ok := digest.Lookup(ctx, l.Dir, req)
	if !ok {
		return nil, false
	}
	log := l.Open.logger()
	if hit.ByStamps {
		log.Debug("the state file is as the no-op digest stamped it: no token read")
	}
	res := &PlanResult{Answer: ByNoopDigest}
	if text {
		res.Text = hit.Text
	} else {
		p, err := hit.Plan()
		if err != nil {
			log.Debug("the no-op digest's plan", "err", err)
			return nil, false
		}
		res.Plan = p
	}
	log.Debug("plan answered from the no-op digest: the files, the state store and the warehouse are as the last plan saw them")
	l.unused(hit.UnusedVars)
	return res, true
}
