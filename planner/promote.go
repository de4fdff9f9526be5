package planner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// promote swaps the environment's views in one engine transaction, then
// records the new pointers. A crash between the two leaves views that a
// re-run of apply points again: promotion is idempotent.
//
// Virtual models (EMBEDDED, EXTERNAL) get no view: their consumers read
// them in place. Views an earlier efmesh made for EXTERNAL models are
// dropped in the same transaction (staleViews).
func promote(ctx context.Context, p *Plan, wh engine.Engine, st state.Store, res *ApplyResult, appliedBy string, now time.Time) error {
	a := p.analysis
	d := wh.Dialect()
	stale, err := staleViews(ctx, p, wh)
	if err != nil {
		return err
	}
	var stmts []string
	for _, rel := range stale {
		stmts = append(stmts, d.DropView(rel))
	}
	schemas := map[string]bool{}
	pointers := map[string]string{}
	for _, mp := range p.Models {
		if mp.Change == Removed {
			res.Removed = append(res.Removed, mp.Name)
			if project.KindName(mp.Kind).Virtual() {
				continue // no view (an EXTERNAL's stale one is in stale)
			}
			s, t := splitName(mp.Name)
			stmts = append(stmts, d.DropView(engine.Relation{Schema: EnvSchema(d, p.Env, s), Name: t}))
			continue
		}
		info := a.Models[mp.Name]
		m := info.Model
		pointers[mp.Name] = mp.Fingerprint
		if m.Kind.Name.Virtual() {
			continue
		}
		rel := EnvRelation(d, p.Env, m)
		if !schemas[rel.Schema] {
			schemas[rel.Schema] = true
			stmts = append(stmts, d.CreateSchema(rel.Schema))
		}
		stmts = append(stmts, d.ReplaceView(rel, "SELECT * FROM "+d.QuoteRelation(PhysicalRelation(d, m, p.physicalFP(mp.Name, mp.Fingerprint)))))
		if mp.Change != Unchanged || mp.Missing {
			res.Promoted = append(res.Promoted, mp.Name)
		}
	}
	if err := wh.Tx(ctx, stmts); err != nil {
		return fmt.Errorf("planner: promote %s: %w", p.Env, err)
	}
	// The views are swapped: the pointers follow whatever arrives now (a
	// signal), or the store would name versions the warehouse no longer
	// serves.
	return st.Promote(context.WithoutCancel(ctx), state.Promotion{Env: p.Env, Pointers: pointers, PlanID: res.PlanID, AppliedBy: appliedBy, At: now.UTC()})
}

// MayHoldStaleViews reports whether p's environment held EXTERNAL models
// before the plan, which an earlier efmesh gave views (DropStaleViews).
func (p *Plan) MayHoldStaleViews() bool {
	for _, mp := range p.Models {
		if _, was := p.current[mp.Name]; was && (mp.Kind == string(project.KindExternal) || p.removedExternal[mp.Name].Kind.Name != "") {
			return true
		}
	}
	return false
}

// DropStaleViews drops the views an earlier efmesh made for the EXTERNAL
// models of p's environment (this one reads them in place), for an apply
// whose plan has nothing else to do, and returns them. The caller holds
// the environment's lock.
func DropStaleViews(ctx context.Context, p *Plan, wh engine.Engine) ([]engine.Relation, error) {
	stale, err := staleViews(ctx, p, wh)
	if err != nil || len(stale) == 0 {
		return nil, err
	}
	stmts := make([]string, len(stale))
	for i, rel := range stale {
		stmts[i] = wh.Dialect().DropView(rel)
	}
	if err := wh.Tx(ctx, stmts); err != nil {
		return nil, fmt.Errorf("planner: drop stale views of %s: %w", p.Env, err)
	}
	return stale, nil
}

// staleViews lists the views of p's environment that name an EXTERNAL
// model the environment held before the plan: an efmesh before this one
// made them. Only views are listed, and never the model's source itself
// (a model named like its source table, raw.orders over table raw.orders,
// is in prod that very table): the engine's catalog says what exists.
func staleViews(ctx context.Context, p *Plan, wh engine.Engine) ([]engine.Relation, error) {
	d := wh.Dialect()
	var cands []engine.Relation
	add := func(name string, kind project.Kind) {
		s, t := splitName(name)
		rel := engine.Relation{Schema: EnvSchema(d, p.Env, s), Name: t}
		if kind.Table != "" {
			ss, st := splitName(kind.Table)
			if strings.EqualFold(ss, rel.Schema) && strings.EqualFold(st, rel.Name) {
				return
			}
		}
		cands = append(cands, rel)
	}
	for _, mp := range p.Models {
		if _, was := p.current[mp.Name]; !was {
			continue
		}
		if mp.Change == Removed {
			if def, ok := p.removedExternal[mp.Name]; ok {
				add(mp.Name, def.Kind)
			}
			continue
		}
		if m := p.analysis.Models[mp.Name].Model; m.Kind.Name == project.KindExternal {
			add(m.Name, m.Kind)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	conds := make([]string, len(cands))
	for i, r := range cands {
		conds[i] = "(table_schema = " + d.Literal(r.Schema) + " AND table_name = " + d.Literal(r.Name) + ")"
	}
	rows, err := wh.Query(ctx, "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'VIEW' AND table_catalog = current_database() AND ("+
		strings.Join(conds, " OR ")+")")
	if err != nil {
		return nil, fmt.Errorf("planner: list views of %s: %w", p.Env, err)
	}
	out := make([]engine.Relation, 0, len(rows.Values))
	for _, r := range rows.Values {
		out = append(out, engine.Relation{Schema: fmt.Sprint(r[0]), Name: fmt.Sprint(r[1])})
	}
	return out, nil
}
