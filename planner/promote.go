package planner

import (
	"context"
	"fmt"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// promote swaps the environment's views in one engine transaction, then
// records the new pointers. A crash between the two leaves views that a
// re-run of apply points again: promotion is idempotent.
//
// Virtual models (EMBEDDED, EXTERNAL) get no view: their consumers read
// them in place. The views an earlier efmesh made for EXTERNAL models,
// which the plan lists (ModelPlan.StaleView), are dropped in the same
// transaction.
func promote(ctx context.Context, p *Plan, wh engine.Engine, st state.Store, res *ApplyResult, appliedBy string, now time.Time) error {
	a := p.analysis
	d := wh.Dialect()
	var stmts []string
	for _, mp := range p.Models {
		if mp.StaleView != "" {
			s, t := analysis.SplitName(mp.StaleView)
			stmts = append(stmts, d.DropView(engine.Relation{Schema: s, Name: t}))
			res.DroppedViews = append(res.DroppedViews, mp.StaleView)
		}
	}
	schemas := map[string]bool{}
	pointers := map[string]string{}
	for _, mp := range p.Models {
		if mp.Change == Removed {
			res.Removed = append(res.Removed, mp.Name)
			if project.KindName(mp.Kind).Virtual() {
				continue // no view (an EXTERNAL's stale one is its StaleView)
			}
			s, t := analysis.SplitName(mp.Name)
			stmts = append(stmts, d.DropView(engine.Relation{Schema: analysis.EnvSchema(d, p.Env, s), Name: t}))
			continue
		}
		info := a.Models[mp.Name]
		m := info.Model
		pointers[mp.Name] = mp.Fingerprint
		if m.Kind.Name.Virtual() {
			continue
		}
		rel := analysis.EnvRelation(d, p.Env, m)
		if !schemas[rel.Schema] {
			schemas[rel.Schema] = true
			stmts = append(stmts, d.CreateSchema(rel.Schema))
		}
		stmts = append(stmts, d.ReplaceView(rel, "SELECT * FROM "+d.QuoteRelation(analysis.PhysicalRelation(d, m, p.physicalFP(mp.Name, mp.Fingerprint)))))
		if mp.Change != Unchanged || mp.Missing {
			res.Promoted = append(res.Promoted, mp.Name)
		}
	}
	if err := wh.Tx(ctx, stmts); err != nil {
		return fmt.Errorf("promote %s: %w", p.Env, err)
	}
	// The views are swapped: the pointers follow whatever arrives now (a
	// signal), or the store would name versions the warehouse no longer
	// serves.
	return st.Promote(context.WithoutCancel(ctx), state.Promotion{Env: p.Env, Pointers: pointers, PlanID: res.PlanID, AppliedBy: appliedBy, At: now.UTC()})
}
