package planner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// The state store says which physical relations are built and which views
// an environment has; the warehouse can disagree behind efmesh's back (a
// DuckDB file deleted or replaced, a table or view dropped by hand, a lake
// folder removed). Plan, apply and status compare the two with one catalog
// query (engine.Catalog) over the physical schema and the environment's
// view schemas, so a relation that is gone is rebuilt (or reported)
// instead of being trusted. EXTERNAL and EMBEDDED models own no relation
// and are never missing.

// WithWarehouse makes MakePlan check the relations the store says exist
// against the warehouse wh: a built snapshot whose physical relation (or
// parquet files) is gone is planned as missing and rebuilt — an
// incremental one from an empty ledger — and an environment view that is
// gone is recreated by the promotion. A nil wh is a warehouse that does
// not exist (a DuckDB file never created or deleted): nothing is present.
func WithWarehouse(wh engine.Engine) PlanOption {
	return func(c *planConfig) {
		c.checkWarehouse = true
		c.warehouse = wh
	}
}

// MissingRelation is a relation the state store says exists that the
// warehouse lacks.
type MissingRelation struct {
	Model    string `json:"model"`
	Relation string `json:"relation"`
	// Physical is true for a snapshot's physical relation (or its files),
	// false for an environment's view.
	Physical bool   `json:"physical"`
	Reason   string `json:"reason"`
}

// expectation is one relation the store says the warehouse holds.
type expectation struct {
	model    string
	rel      engine.Relation
	physical bool
	// files, for a parquet target, is the file or folder the relation
	// reads; "" when there is none to check. ledgerFP, when set, says the
	// folder only has to exist once the snapshot has a done interval.
	files    string
	ledgerFP string
}

// missingIn returns the expectations the warehouse does not meet, in
// their order. The warehouse's relations are listed with one catalog query
// over the schemas of exp; a nil wh holds nothing.
func missingIn(ctx context.Context, wh engine.Engine, st state.Store, exp []expectation) ([]MissingRelation, error) {
	if len(exp) == 0 {
		return nil, nil
	}
	present := map[engine.Relation]bool{}
	if wh != nil {
		cat, ok := wh.(engine.Catalog)
		if !ok {
			return nil, fmt.Errorf("planner: the %s engine cannot list its relations", wh.Dialect().Name())
		}
		seen := map[string]bool{}
		var schemas []string
		for _, e := range exp {
			if s := strings.ToLower(e.rel.Schema); !seen[s] {
				seen[s] = true
				schemas = append(schemas, e.rel.Schema)
			}
		}
		sort.Strings(schemas)
		rels, err := cat.Relations(ctx, schemas)
		if err != nil {
			return nil, fmt.Errorf("planner: %w", err)
		}
		for _, r := range rels {
			present[lowerRel(r)] = true
		}
	}
	var out []MissingRelation
	for _, e := range exp {
		what := "view"
		if e.physical {
			what = "physical relation"
		}
		mr := MissingRelation{Model: e.model, Relation: e.rel.String(), Physical: e.physical}
		switch {
		case !present[lowerRel(e.rel)]:
			mr.Reason = fmt.Sprintf("the %s %s is missing from the warehouse", what, e.rel)
		case e.files != "":
			gone, err := filesGone(ctx, st, e)
			if err != nil {
				return nil, err
			}
			if !gone {
				continue
			}
			mr.Reason = fmt.Sprintf("the parquet files of %s (%s) are missing", e.rel, e.files)
		default:
			continue
		}
		out = append(out, mr)
	}
	return out, nil
}

// filesGone reports whether the files a parquet relation reads are gone:
// a stat, and the ledger only when the folder of an incremental model is
// absent (it has none until its first interval is written).
func filesGone(ctx context.Context, st state.Store, e expectation) (bool, error) {
	_, err := os.Stat(e.files)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if e.ledgerFP == "" {
		return true, nil
	}
	ivs, err := st.Intervals(ctx, e.ledgerFP)
	if err != nil {
		return false, err
	}
	for _, iv := range ivs {
		if iv.Status == state.IntervalDone {
			return true, nil
		}
	}
	return false, nil
}

func lowerRel(r engine.Relation) engine.Relation {
	return engine.Relation{Schema: strings.ToLower(r.Schema), Name: strings.ToLower(r.Name)}
}

// owned reports whether a model of kind k with target t has a physical
// relation efmesh builds in the warehouse (a ducklake target lives in
// another catalog).
func owned(k project.KindName, target string) bool {
	return k != project.KindExternal && k != project.KindEmbedded && (target == "table" || target == "parquet")
}

// lakeFiles is what a parquet relation of a model of kind k reads under
// the snapshot's folder prefix, and whether that folder may lack files
// until an interval is done.
func lakeFiles(k project.KindName, prefix string) (string, bool) {
	if k == project.KindIncrementalByTimeRange {
		return prefix, true
	}
	return filepath.Join(prefix, "data.parquet"), false
}

// lakeRootOf is the project's lake folder.
func lakeRootOf(p *project.Project) string { return lakeRootAt(p.Root, p.Config.Lake) }

// lakeRootAt is the lake folder lake (efmesh.yaml's lake:) of the project
// folder root.
func lakeRootAt(root, lake string) string {
	if lake == "" {
		lake = "lake"
	}
	return absPath(root, lake)
}

// lakePrefixOf is the folder of one snapshot's files.
func lakePrefixOf(root, schema, table, fp8 string) string {
	return filepath.Join(root, schema, table, "fp="+fp8)
}

// checkWarehouse marks the plan's lines whose relations the store trusts
// but the warehouse lacks. A missing physical relation is rebuilt (an
// inherited one is not inherited: the model builds its own); its ledger
// counts for nothing (fillBackfill, and Apply clears it). A missing view
// is recreated by the promotion.
func (p *Plan) checkWarehouse(ctx context.Context, st state.Store, wh engine.Engine) error {
	a := p.analysis
	var exp []expectation
	for _, mp := range p.Models {
		info := a.Models[mp.Name]
		if mp.Change == Removed || info == nil {
			continue
		}
		m := info.Model
		if !owned(m.Kind.Name, targetOf(m)) {
			continue
		}
		if !mp.Build {
			fp8 := p.physicalFP(m.Name, mp.Fingerprint)[:8]
			e := expectation{model: m.Name, rel: PhysicalRelation(a.dialect, m, fp8), physical: true}
			if targetOf(m) == "parquet" && !strings.Contains(lakeRootOf(a.Project), "://") {
				var incremental bool
				e.files, incremental = lakeFiles(m.Kind.Name, lakePrefixOf(lakeRootOf(a.Project), m.Schema, m.Table, fp8))
				if incremental {
					e.ledgerFP = mp.Fingerprint
					if old, ok := p.reuse[m.Name]; ok {
						e.ledgerFP = old
					}
				}
			}
			exp = append(exp, e)
		}
		if _, inEnv := p.current[m.Name]; inEnv {
			exp = append(exp, expectation{model: m.Name, rel: EnvRelation(a.dialect, p.Env, m)})
		}
	}
	missing, err := missingIn(ctx, wh, st, exp)
	if err != nil {
		return err
	}
	at := make(map[string]int, len(p.Models))
	for i, mp := range p.Models {
		at[mp.Name] = i
	}
	for _, mr := range missing {
		mp := &p.Models[at[mr.Model]]
		mp.Missing = true
		mp.Reason = joinReason(mp.Reason, mr.Reason)
		p.HasChanges = true
		if !mr.Physical {
			continue
		}
		m := a.Models[mp.Name].Model
		if mp.ReusedFrom != "" { // build its own instead of adopting a lost one
			delete(p.reuse, m.Name)
			delete(p.physFP, m.Name)
			mp.ReusedFrom = ""
			mp.PhysicalTable = PhysicalRelation(a.dialect, m, mp.Fingerprint).String()
		}
		mp.Build = true
		if p.lost == nil {
			p.lost = map[string]bool{}
		}
		p.lost[mp.Fingerprint] = true
	}
	return nil
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// forgetLost clears the ledgers of the stored snapshots whose physical
// relation was lost, before they are rebuilt: their done intervals
// describe data that no longer exists.
func (p *Plan) forgetLost(ctx context.Context, st state.Store) error {
	for fp := range p.lost {
		if !p.stored[fp] {
			continue
		}
		if _, err := st.ClearIntervals(ctx, fp, time.Time{}, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			return err
		}
	}
	return nil
}
