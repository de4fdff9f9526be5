package digest

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// The fingerprints digest: what the analysis of an unchanged project
// decided, per model, so that the plan of ANOTHER environment that only
// promotes what is already built is made without loading the project.
//
// One file per project (.efmesh/cache/fingerprints.digest), not per
// environment: it is keyed by what the fingerprints are a function of —
// every file the analysis read (stamps and content hashes, the glob's
// listing), the efmesh binary (efmesh's and the engine's versions), the
// variables in force (efmesh.yaml's, the environment's, --var) and, for
// the EXTERNAL models, their declared columns (in their files; a project
// with an EXTERNAL model whose columns come from the warehouse is never
// remembered). It holds, per model, the name, kind, fingerprint and
// physical table of the settled plan it was taken from, and the warehouse
// file's stamps then (that plan found every relation present).
//
// It is written next to the no-op digest, by a plain plan (or the plan an
// apply leaves behind) that changes nothing and whose models are all
// settled (planner.Settled's kinds: no ledger, no history, no warning, no
// redaction). LookupPromotion answers the plan of an environment the store
// has no pointers for when every model's snapshot is stored and built:
// the plan that promotes them all and builds none. Anything else takes
// the full path.

// fingerprintsFormat names the digest's layout; bump it when it changes.
const fingerprintsFormat = 4

func fingerprintsPath(root string) string {
	return filepath.Join(root, ".efmesh", "cache", "fingerprints.digest")
}

// fpModel is one model of the settled plan the digest was taken from.
type fpModel struct {
	Name          string
	Kind          string
	Fingerprint   string
	PhysicalTable string
	// Audited: a virtual model with audits, which an apply runs before
	// the promotion; Exported: a model copied into an attached database
	// when prod serves it. Either makes the apply take the full path.
	Audited  bool
	Exported bool
}

type fingerprintsDigest struct {
	Format int
	// Saw is what the plan saw, as in the no-op digest; its Schemas are
	// the warehouse's schemas a promotion's plan reads besides the
	// promoted environment's (the physical schema, the EXTERNAL models'
	// sources), lower-cased: a logged move of the warehouse that wrote
	// none of them keeps the digest (moves.go).
	Saw projectSeen
	// Vars are the variables in force for the plan (efmesh.yaml's, its
	// environment's, --var): another environment's must be the same.
	Vars map[string]string
	// Overrides are the --var the plan had, and UnusedVars what of them
	// nothing reads.
	Overrides  map[string]string
	UnusedVars []project.UnusedVar
	Models     []fpModel
}

// rememberFingerprints writes the fingerprints digest of proj from p, the
// settled plan of a plain request whose no-op digest d is about to be
// written; a plan whose models are not all settled writes none.
func rememberFingerprints(proj *project.Project, req Request, p *planner.Plan, d *noopDigest) error {
	models, ok := settledModels(proj, p)
	if !ok {
		return nil
	}
	saw := d.Saw
	saw.Schemas = lowerSet(append([]string{analysis.PhysicalSchema}, sourceSchemas(proj)...))
	fd := &fingerprintsDigest{
		Format:     fingerprintsFormat,
		Saw:        saw,
		Vars:       proj.Config.Variables,
		Overrides:  req.Vars,
		UnusedVars: d.UnusedVars,
		Models:     models,
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(fd); err != nil {
		return err
	}
	return writeAtomic(fingerprintsPath(proj.Root), analysis.Seal("fingerprints", fingerprintsFormat, buf.Bytes()))
}

// settledModels are p's models when each is settled: unchanged, built, of
// a kind without a ledger or a history, without a warning, a redaction or
// a line the warehouse check marked; ok is false otherwise.
func settledModels(proj *project.Project, p *planner.Plan) ([]fpModel, bool) {
	if p.HasChanges || p.Preview != nil || len(p.LeftOut) > 0 || len(p.DueRefresh) > 0 || proj.Config.Environments[p.Env].Redacted {
		return nil, false
	}
	out := make([]fpModel, 0, len(p.Models))
	for _, mp := range p.Models {
		switch project.KindName(mp.Kind) {
		case project.KindFull, project.KindView, project.KindSeed, project.KindEmbedded, project.KindExternal:
		default:
			return nil, false
		}
		if mp.Change != planner.Unchanged || mp.Build || len(mp.Backfill) > 0 || mp.Intervals > 0 || len(mp.Warnings) > 0 || mp.ReusedFrom != "" ||
			mp.RebuildsHistory || mp.CopiesHistoryFrom != "" || len(mp.Refill) > 0 || mp.Missing || mp.StaleView != "" ||
			len(mp.Covered) > 0 || len(mp.Redacted) > 0 {
			return nil, false
		}
		fm := fpModel{Name: mp.Name, Kind: mp.Kind, Fingerprint: mp.Fingerprint, PhysicalTable: mp.PhysicalTable}
		if m := proj.Model(mp.Name); m != nil {
			fm.Audited = m.Kind.Name.Virtual() && len(planner.ModelAudits(proj, m)) > 0
			fm.Exported = m.Export != nil
		} else {
			return nil, false
		}
		out = append(out, fm)
	}
	return out, true
}

// LookupPromotion answers the plain plan of req.Env without loading the
// project when the fingerprints digest matches the project holding dir
// (every file, the binary, the variables in force for req.Env, the
// warehouse's files), the store has no pointers for req.Env, and every
// model's snapshot is stored and built: the plan promotes them all and
// builds none, as the full path would make it. ok is false otherwise; it
// never errors: any doubt is a miss.
func LookupPromotion(ctx context.Context, dir string, req Request) (p *planner.Plan, unused []project.UnusedVar, ok bool) {
	q, ok := quickPromotion(ctx, dir, req)
	if !ok {
		return nil, nil, false
	}
	return q.plan, q.digest.UnusedVars, true
}

// promotionHit is what quickPromotion decided: the plan, the digest it
// was made from, and the project's settings (efmesh.yaml only).
type promotionHit struct {
	plan   *planner.Plan
	digest *fingerprintsDigest
	proj   *project.Project
}

// quickPromotion is the decision behind LookupPromotion: what the plan of
// req.Env is when it is a pure promotion of an unchanged project, read
// from the fingerprints digest and the store (opened read-only).
func quickPromotion(ctx context.Context, dir string, req Request) (q promotionHit, ok bool) {
	d, proj, ok := promotionDigest(dir, req)
	if !ok {
		return q, false
	}
	st, err := connect.ReadOnlyStore(ctx, proj)
	if err != nil || st == nil {
		return q, false
	}
	defer st.Close()
	return promotionPlan(ctx, st, req, d, proj)
}

// promotionDigest is the part of the decision read from files: the
// fingerprints digest, when it matches the project holding dir (every
// file, the binary, the variables in force for req.Env, the warehouse's
// files), and the project's settings (efmesh.yaml only).
func promotionDigest(dir string, req Request) (d *fingerprintsDigest, proj *project.Project, ok bool) {
	if analysis.ValidateEnv(req.Env) != nil {
		return nil, nil, false
	}
	root, err := project.FindRoot(dir)
	if err != nil {
		return nil, nil, false
	}
	raw, err := os.ReadFile(fingerprintsPath(root))
	if err != nil {
		return nil, nil, false
	}
	body, sealed := analysis.Unseal("fingerprints", fingerprintsFormat, raw)
	if !sealed {
		return nil, nil, false
	}
	d = new(fingerprintsDigest)
	if gob.NewDecoder(bytes.NewReader(body)).Decode(d) != nil || d.Format != fingerprintsFormat {
		return nil, nil, false
	}
	// A digest that lists no file or no model where the project has files
	// vouches for nothing.
	if len(d.Saw.Files) == 0 || (len(d.Models) == 0 && len(d.Saw.Listed) > 0) {
		return nil, nil, false
	}
	// efmesh.yaml is one of the files: its settings say which variables
	// are in force for req.Env, whether it is redacted, where the store
	// and the warehouse are.
	proj, _, _, ok = d.Saw.holds(root, req.Now)
	if !ok {
		return nil, nil, false
	}
	if proj.Config.Environments[req.Env].Redacted || proj.Config.Lake != "" {
		return nil, nil, false
	}
	if !maps.Equal(req.Vars, d.Overrides) || !maps.Equal(project.EffectiveVariables(proj.Config, req.Env, req.Vars), d.Vars) {
		return nil, nil, false
	}
	return d, proj, true
}

// promotionPlan is the part of the decision read from the store: req.Env
// has no pointers and every model of d has its snapshot stored and built
// under the table d names; the plan promotes them all.
func promotionPlan(ctx context.Context, st state.Reader, req Request, d *fingerprintsDigest, proj *project.Project) (q promotionHit, ok bool) {
	if ptrs, err := st.Environment(ctx, req.Env); err != nil || len(ptrs) > 0 {
		return q, false
	}
	fps := make([]string, len(d.Models))
	for i, m := range d.Models {
		fps[i] = m.Fingerprint
	}
	heads, err := st.SnapshotHeads(ctx, fps)
	if err != nil {
		return q, false
	}
	p := &planner.Plan{Env: req.Env, HasChanges: len(d.Models) > 0, Models: make([]planner.ModelPlan, len(d.Models))}
	for i, m := range d.Models {
		// A line without a physical table (an EXTERNAL model read in
		// place, an EMBEDDED one) has nothing to build: its snapshot must
		// be stored. Any other must be built under the table the settled
		// plan named.
		s, ok := heads[m.Fingerprint]
		if !ok || s.Name != m.Name || (m.PhysicalTable != "" && (s.BuiltAt.IsZero() || s.PhysicalTable != m.PhysicalTable)) {
			return q, false
		}
		p.Models[i] = planner.ModelPlan{
			Name:          m.Name,
			Kind:          m.Kind,
			Change:        planner.Added,
			Fingerprint:   m.Fingerprint,
			PhysicalTable: m.PhysicalTable,
			Incremental:   planner.Incremental{Backfill: []analysis.Range{}},
			Explain:       []string{},
		}
	}
	return promotionHit{plan: p, digest: d, proj: proj}, true
}

// promotable reports whether the promotion of d's models into env is all
// the full path would do: no virtual model with audits (run before a
// promotion), no export into an attached database (when env serves them).
func promotable(d *fingerprintsDigest, env string) bool {
	for _, m := range d.Models {
		if m.Audited || m.Exported && env == planner.ExportEnv {
			return false
		}
	}
	return true
}

// Promote is what ApplyPromotion applies with, as the full path's apply
// is given it.
type Promote struct {
	// Warehouse tunes how the warehouse is opened.
	Warehouse []connect.WarehouseOption
	// Now is the apply's clock.
	Now func() time.Time
	// Review sees the plan before anything is changed; an error stops the
	// apply with it.
	Review func(*planner.Plan) error
	// Apply tunes the promotion (operator, progress); its Lock is the one
	// ApplyPromotion takes.
	Apply planner.ApplyOptions
	// Text is the plan as the front ends print it, for the no-op digest
	// the promotion leaves.
	Text func(*planner.Plan) string
}

// Promoted is what ApplyPromotion did: the plan, reviewed, and once
// applied what planner.PromoteBuilt reports.
type Promoted struct {
	Plan    *planner.Plan
	Applied bool
	planner.ApplyResult
}

// ApplyPromotion applies the plan LookupPromotion answers for req (a
// plain apply of req.Env) without loading the project: the store opened
// once, and under the environment's lock the decision's store inputs read
// (the environment without pointers, every snapshot stored and built) and
// its files read again (the warehouse's), every physical table present,
// pr.Review, then planner.PromoteBuilt: the snapshots reserved, the views
// swapped in one transaction, the pointers and the plan's record written
// in one store transaction, as the full path's apply does for the same
// plan. The full path audits virtual models and exports to attached
// databases before and after a promotion: a digest naming such a model is
// a miss.
//
// ok is false when the apply was not made this way and nothing was
// changed: the caller takes the full path. With ok, the result and error
// are the apply's.
func ApplyPromotion(ctx context.Context, dir string, req Request, pr Promote) (res *Promoted, ok bool, err error) {
	d, proj, hit := promotionDigest(dir, req)
	if !hit {
		return nil, false, nil
	}
	if !promotable(d, req.Env) {
		return nil, false, nil
	}
	// The store is opened once, for writing (the digest names a store
	// that exists: the apply that left it wrote there), and the decision
	// is read from it under the lock.
	if !connect.StoreExists(proj) {
		return nil, false, nil
	}
	st, err := connect.Store(ctx, proj)
	if err != nil {
		return nil, false, nil
	}
	defer st.Close()
	lk, err := planner.AcquireLock(ctx, st, planner.EnvLock(req.Env), 0)
	if err != nil {
		return nil, false, nil
	}
	defer lk.Release()
	// Under the lock: the warehouse opens (DuckDB reads its catalog) while
	// the store says whether the promotion can be made from the digest:
	// the environment without pointers and every snapshot stored and built
	// (promotionPlan; PromoteBuilt checks the pointers again), the
	// warehouse as the digest stamped it (a table dropped or built since
	// changes its files; stamped before it opens).
	before, watchable := WarehouseStamps(proj)
	if !watchable {
		return nil, false, nil
	}
	type opened struct {
		wh  engine.Engine
		err error
	}
	whc := make(chan opened, 1)
	openCtx, stopOpen := context.WithCancel(ctx)
	defer stopOpen()
	go func() {
		wh, err := connect.ExistingWarehouse(openCtx, proj, pr.Warehouse...)
		whc <- opened{wh, err}
	}()
	var wh engine.Engine
	taken, open := false, false
	defer func() {
		switch {
		case !taken: // not used: closed once it has opened (a wait for
			// a file another process holds is given up)
			stopOpen()
			if o := <-whc; o.err == nil && o.wh != nil {
				o.wh.Close()
			}
		case open:
			wh.Close()
		}
	}()
	q, hit := promotionPlan(ctx, st, req, d, proj)
	if !hit || !warehouseMovedAround(proj.Root, d.Saw.Warehouse, before, d.Saw.Schemas) {
		return nil, false, nil
	}
	if err := os.Remove(noopPath(proj.Root, req.Env)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	o := <-whc
	taken = true
	if o.err != nil || o.wh == nil {
		return nil, false, nil
	}
	wh, open = o.wh, true
	ao := pr.Apply
	ao.Lock = lk
	if ao.Now == nil {
		ao.Now = pr.Now
	}
	out := &Promoted{Plan: q.plan}
	if err := planner.PromotionReady(ctx, q.plan, wh); err != nil {
		return nil, false, nil
	}
	if pr.Review != nil {
		if err := pr.Review(q.plan); err != nil {
			return out, true, err
		}
	}
	r, err := planner.PromoteBuilt(ctx, q.plan, wh, st, ao)
	if r != nil {
		out.ApplyResult = *r
	}
	if err != nil {
		return out, true, err
	}
	out.Applied = true
	// Still under the lock: the warehouse closed (its file as the next
	// process finds it), its move logged, and the promoted environment's
	// no-op digest written, so that neither the other environments' plans
	// nor this one's fall off their digests.
	dialect := wh.Dialect()
	open = false
	wh.Close()
	after, ok := WarehouseStamps(proj)
	if !ok || logMove(proj.Root, before, after, promotionSchemas(dialect, q.plan)) != nil {
		return out, true, nil
	}
	rememberPromoted(ctx, st, req, q, dialect, after, pr.Text)
	return out, true, nil
}

// writeAtomic writes body to path through a rename, so that a concurrent
// reader reads the old file or the new one.
func writeAtomic(path string, body []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".digest-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
