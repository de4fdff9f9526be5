package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
//
// record, when set, is the plan's entry of the journal, written in the
// store transaction that records the pointers.
func promote(ctx context.Context, p *Plan, wh engine.Engine, st state.Store, res *ApplyResult, appliedBy string, now time.Time, record *state.PlanRecord) error {
	a := p.analysis
	swaps := make([]viewSwap, 0, len(p.Models))
	for _, mp := range p.Models {
		sw := viewSwap{plan: mp, virtual: project.KindName(mp.Kind).Virtual()}
		if info := a.Models[mp.Name]; mp.Change != Removed && info != nil {
			sw.model = info.Model
			sw.virtual = info.Model.Kind.Name.Virtual()
			sw.physFP = p.physicalFP(mp.Name, mp.Fingerprint)
			sw.dropTable = p.envTables[mp.Name]
		}
		swaps = append(swaps, sw)
	}
	return swapViews(ctx, p.Env, swaps, wh, st, res, appliedBy, now, record)
}

// viewSwap is what the promotion does with one line of a plan: its view
// pointed at the physical relation of physFP (model's schema and table),
// dropped (a removed model), or none (a virtual model).
type viewSwap struct {
	plan    ModelPlan
	model   *project.Model
	virtual bool
	physFP  string
	// dropTable: the warehouse holds a table where the view goes
	// (replaced by hand); it is dropped in the same transaction.
	dropTable bool
}

// swapViews is the promotion of swaps into env, the one way both Apply
// and PromoteBuilt change an environment's views and pointers: the views
// in one engine transaction, then the pointers, and record (when set),
// in one store transaction.
func swapViews(ctx context.Context, env string, swaps []viewSwap, wh engine.Engine, st state.Store, res *ApplyResult, appliedBy string, now time.Time, record *state.PlanRecord) error {
	d := wh.Dialect()
	var stmts []string
	for _, sw := range swaps {
		if v := sw.plan.StaleView; v != "" {
			s, t := analysis.SplitName(v)
			stmts = append(stmts, d.DropView(engine.Relation{Schema: s, Name: t}))
			res.DroppedViews = append(res.DroppedViews, v)
		}
	}
	schemas := map[string]bool{}
	pointers := map[string]string{}
	for _, sw := range swaps {
		mp := sw.plan
		if mp.Change == Removed {
			res.Removed = append(res.Removed, mp.Name)
			if sw.virtual {
				continue // no view (an EXTERNAL's stale one is its StaleView)
			}
			s, t := analysis.SplitName(mp.Name)
			stmts = append(stmts, d.DropView(engine.Relation{Schema: analysis.EnvSchema(d, env, s), Name: t}))
			continue
		}
		pointers[mp.Name] = mp.Fingerprint
		if sw.virtual {
			continue
		}
		rel := analysis.EnvRelation(d, env, sw.model)
		if !schemas[rel.Schema] {
			schemas[rel.Schema] = true
			stmts = append(stmts, d.CreateSchema(rel.Schema))
		}
		if sw.dropTable {
			stmts = append(stmts, d.DropTable(rel))
		}
		stmts = append(stmts, d.ReplaceView(rel, "SELECT * FROM "+d.QuoteRelation(analysis.PhysicalRelation(d, sw.model, sw.physFP))))
		if mp.Change != Unchanged || mp.Missing {
			res.Promoted = append(res.Promoted, mp.Name)
		}
	}
	// Thousands of generated statements: one request where the engine
	// takes a batch.
	tx := wh.Tx
	if b, ok := wh.(engine.BatchTx); ok {
		tx = b.TxBatch
	}
	if err := tx(ctx, stmts); err != nil {
		return fmt.Errorf("promote %s: %w", env, err)
	}
	// The views are swapped: the pointers follow whatever arrives now (a
	// signal), or the store would name versions the warehouse no longer
	// serves. Meanwhile a warehouse that merges its log into its file on
	// close does so now, on a core of its own (the views are committed
	// already; a failed merge is tried again on close): the promotion's
	// two writes overlap.
	var merged chan struct{}
	if cp, ok := wh.(checkpointer); ok {
		merged = make(chan struct{})
		go func() {
			defer close(merged)
			_ = cp.Checkpoint(context.WithoutCancel(ctx))
		}()
	}
	err := st.Promote(context.WithoutCancel(ctx), state.Promotion{Env: env, Pointers: pointers, PlanID: res.PlanID, AppliedBy: appliedBy, At: now.UTC(), Record: record})
	if merged != nil {
		<-merged
	}
	return err
}

// ErrNotBuilt is PromoteBuilt's refusal of a promotion whose relations
// the warehouse does not hold as the plan says: nothing was changed, and
// the caller plans it the full way.
var ErrNotBuilt = errors.New("planner: a relation of the promotion is not in the warehouse")

// PromotionReady checks p for PromoteBuilt before anything is written:
// p is a pure promotion (every line an Added model with nothing to build,
// compute or drop) and every physical relation it points a view at is in
// the warehouse, read with one catalog query. A miss is
// ErrNotBuilt.
func PromotionReady(ctx context.Context, p *Plan, wh engine.Engine) error {
	swaps, err := builtSwaps(p, wh.Dialect())
	if err != nil {
		return err
	}
	return builtPresent(ctx, wh, swaps)
}

// PromoteBuilt applies p, a pure promotion made without an analysis (the
// workspace's fingerprints digest): every line Added, its snapshot stored
// and built, nothing to build, compute, audit or export. It does what
// Apply does with such a plan, in the same order and with the same
// records: the environment checked unchanged since the plan, the
// snapshots reserved against the janitor, the views swapped in one
// engine transaction, the pointers and the plan's record written.
// Precondition: opt.Lock holds the environment's lock, under which
// PromotionReady accepted p.
func PromoteBuilt(ctx context.Context, p *Plan, wh engine.Engine, st state.Store, opt ApplyOptions) (*ApplyResult, error) {
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	res := &ApplyResult{PlanID: newID(now())}
	if opt.Lock == nil {
		return res, fmt.Errorf("planner: promote %s: the environment's lock is not held", p.Env)
	}
	swaps, err := builtSwaps(p, wh.Dialect())
	if err != nil {
		return res, err
	}
	if err := p.checkCurrent(ctx, st); err != nil {
		return res, err
	}
	summary, _ := json.Marshal(p)
	record := func(status string, err error) state.PlanRecord {
		r := state.PlanRecord{ID: res.PlanID, Env: p.Env, AppliedBy: opt.AppliedBy, CreatedAt: now().UTC(), Status: status, Summary: summary}
		if err != nil {
			r.Error = err.Error()
		}
		return r
	}
	fail := func(err error) (*ApplyResult, error) {
		status := state.PlanFailed
		if ctx.Err() != nil {
			status = state.PlanInterrupted
		}
		_ = st.RecordPlan(context.WithoutCancel(ctx), record(status, err))
		return res, err
	}
	fps := make([]string, len(p.Models))
	for i, mp := range p.Models {
		fps[i] = mp.Fingerprint
	}
	// As in Apply (beforePromotion): past the reservation the janitor
	// cannot remove a snapshot of the plan.
	if err := st.Reserve(ctx, fps, now().Add(ReserveLease)); err != nil {
		if errors.Is(err, state.ErrNotFound) {
			return fail(fmt.Errorf("the janitor removed a snapshot of this plan while it was applied; plan again: %w", err))
		}
		return fail(err)
	}
	// The plan's record commits with the pointers: one store transaction.
	applied := record(state.PlanApplied, nil)
	if err := swapViews(ctx, p.Env, swaps, wh, st, res, opt.AppliedBy, now(), &applied); err != nil {
		return fail(err)
	}
	return res, nil
}

// builtSwaps are the view swaps of p's lines, each model's schema and
// table read from its name and its physical relation from the table the
// plan names; a line that is not an Added model or whose table is not the
// one efmesh would name is ErrNotBuilt.
func builtSwaps(p *Plan, d engine.Dialect) ([]viewSwap, error) {
	swaps := make([]viewSwap, len(p.Models))
	for i, mp := range p.Models {
		if mp.Change != Added || mp.Build || len(mp.Backfill) > 0 || mp.StaleView != "" {
			return nil, ErrNotBuilt
		}
		s, t := analysis.SplitName(mp.Name)
		m := &project.Model{Name: mp.Name, Schema: s, Table: t}
		sw := viewSwap{plan: mp, model: m, virtual: project.KindName(mp.Kind).Virtual()}
		if !sw.virtual {
			sw.physFP = FingerprintPrefix(mp.PhysicalTable)
			if len(sw.physFP) != 8 || analysis.PhysicalRelation(d, m, sw.physFP).String() != mp.PhysicalTable {
				return nil, ErrNotBuilt
			}
		}
		swaps[i] = sw
	}
	return swaps, nil
}

// builtPresent checks, with one catalog query, that every physical
// relation the swaps point views at is in the warehouse (a table, or the
// view of a VIEW model).
func builtPresent(ctx context.Context, wh engine.Engine, swaps []viewSwap) error {
	cat, ok := wh.(engine.Catalog)
	if !ok {
		return ErrNotBuilt
	}
	listed, err := cat.Relations(ctx, []string{analysis.PhysicalSchema}, nil)
	if err != nil {
		return err
	}
	present := make(map[string]bool, len(listed))
	for _, l := range listed {
		present[strings.ToLower(l.Schema)+"."+strings.ToLower(l.Name)] = true
	}
	d := wh.Dialect()
	for _, sw := range swaps {
		if sw.virtual {
			continue
		}
		r := analysis.PhysicalRelation(d, sw.model, sw.physFP)
		if !present[strings.ToLower(r.Schema)+"."+strings.ToLower(r.Name)] {
			return ErrNotBuilt
		}
	}
	return nil
}
