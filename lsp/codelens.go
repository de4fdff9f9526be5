package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/workspace"
)

func (s *Server) codeLens(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.document(p.TextDocument.URI)
	if !ok || d.f.model == nil || d.f.model.Name == "" {
		return nil, nil
	}
	wctx, cancel := context.WithTimeout(ctx, awaitTimeout)
	defer cancel()
	res := d.v.await(wctx, d.w.snap.seq)
	return codeLenses(ctx, d, res, s.environment()), nil
}

// codeLenses is the code lens feature: on the MODEL header, what a plan
// against env would do to this model, and lenses that run the commands.
func codeLenses(ctx context.Context, d *docPos, res *checkResult, env string) []protocol.CodeLens {
	m := d.f.model
	start := m.Header.Start.Offset
	r := d.f.Mapper().Range(start, min(start+len("MODEL"), len(d.f.src)))
	args := lensArgs{Env: env, Model: m.Name, URI: string(d.w.snap.uri(d.rel))}
	lens := func(title, cmd string) protocol.CodeLens {
		return protocol.CodeLens{Range: r, Command: &protocol.Command{Title: title, Command: cmd, Arguments: []any{args}}}
	}
	out := []protocol.CodeLens{
		lens(planStatus(ctx, d.v, res, env, m.Name), cmdPlan),
		lens("render", cmdRender),
		lens("lineage", cmdLineage),
		lens("Preview rows", cmdPreview),
	}
	if env != analysis.ProdEnv {
		out = append(out, lens("apply "+env, cmdApply))
	}
	return out
}

// planStatus is the lens title: the model's category in a plan against
// env, computed read-only from the state store.
func planStatus(ctx context.Context, v *view, res *checkResult, env, model string) string {
	if res == nil || res.analysis == nil {
		return env + ": checking…"
	}
	plan, err := v.planFor(ctx, res, env)
	var pe *planner.ProblemsError
	switch {
	case errors.As(err, &pe) && !res.analysis.Errors():
		// A problem only a plan sees (an EXTERNAL source that is not
		// there) is no diagnostic of the files: the lens says it.
		for _, d := range pe.Diagnostics {
			if d.Severity == project.SeverityError {
				return env + ": " + d.Message
			}
		}
		return env + ": fix the errors to see the plan"
	case errors.As(err, &pe):
		return env + ": fix the errors to see the plan"
	case err != nil:
		return env + ": " + firstLine(err.Error())
	}
	var mp *planner.ModelPlan
	for i := range plan.Models {
		if plan.Models[i].Name == model {
			mp = &plan.Models[i]
		}
	}
	if mp == nil {
		return env + ": not planned"
	}
	due := ""
	if mp.Intervals > 0 {
		due = ", " + intervalsText(mp.Intervals) + " to backfill"
	}
	switch mp.Change {
	case planner.Unchanged:
		if mp.Missing {
			// What plan says of a relation dropped behind efmesh's back.
			return env + ": unchanged, missing from the warehouse: rebuilds" + due
		}
		if mp.Build {
			return env + ": unchanged (not built yet)" + due
		}
		if due != "" {
			return env + ": unchanged: " + intervalsText(mp.Intervals) + " due"
		}
		return env + ": unchanged"
	case planner.Added:
		return env + ": new" + due
	}
	n := 0
	affected := map[string]bool{model: true}
	for _, dm := range res.snap.proj.Descendants(model) {
		affected[dm.Name] = true
	}
	for _, p := range plan.Models {
		if affected[p.Name] && p.Build {
			n++
		}
	}
	if n == 0 {
		return fmt.Sprintf("%s: changed (%s)%s", env, mp.Change, due)
	}
	return fmt.Sprintf("%s: changed (%s): rebuilds %d model%s%s", env, mp.Change, n, plural(n), due)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// planCache keeps the last plan of a view: lenses of every open file ask
// for the same one.
type planCache struct {
	mu   sync.Mutex
	key  string
	plan *planner.Plan
	err  error
}

// presenceTTL is how long the editor trusts a listing of the warehouse's
// catalog when nothing invalidates it (an apply, a plan, a save).
const presenceTTL = 30 * time.Second

// planFor is the plan the code lenses and hints show: res's analysis
// against env, read-only, from the state store when it exists, else
// against an empty one, checked against the cached listing of the
// warehouse's catalog (workspace.Presence) as efmesh plan checks the
// warehouse, cached per snapshot, store version, hour and listing.
func (v *view) planFor(ctx context.Context, res *checkResult, env string) (*planner.Plan, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	if res.analysis == nil {
		return nil, errors.New("the project is not checked yet")
	}
	// The store is read before the plan's key is known: its version is
	// part of the key.
	st, version, err := v.store.reader(ctx, res.snap.proj)
	if err != nil {
		return nil, err
	}
	// Intervals come due on the hour (UTC): a plan made in the same hour
	// of the clock is the same plan.
	now := v.s.opts.Now()
	// What the warehouse's catalog listed is part of it too (a table
	// dropped by hand is rebuilt): the listing's generation, and its age.
	// And the files EXTERNAL models read, which it checks.
	key := func() string {
		return fmt.Sprintf("%d/%s/%s/%d/%d/%d/%s", res.snap.seq, env, version, now.Unix()/3600,
			v.s.presence.Generation(), time.Now().UnixNano()/int64(presenceTTL), sourcesVersion(res.snap.proj))
	}
	c := &v.plans
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == key() && c.err == nil {
		return c.plan, nil
	}
	plan, err := v.makePlan(ctx, res, st, env, now)
	c.key, c.plan, c.err = key(), plan, err // after the plan read the listing
	return plan, err
}

// makePlan plans as of now against st: the workspace's preview (the
// warehouse through the cached listing only; a redacted environment's workbench of its own, since the
// view's belongs to its checker). It sets no backfill limit: the plan only
// counts intervals (it never lists them), whatever the start.
func (v *view) makePlan(ctx context.Context, res *checkResult, st state.Reader, env string, now time.Time) (*planner.Plan, error) {
	w := workspace.New(res.analysis, nil, v.s.workspaceOptions())
	defer w.Close()
	w.Reader = st
	return w.Preview(ctx, env, planner.PlanAt(now))
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
