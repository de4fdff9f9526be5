package planner

import (
	"context"
	"sort"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// Reading what is there through to its storage.
//
// A catalog query says a relation exists; it does not say the blocks it is
// stored in can be read. Random bytes written into the middle of a DuckDB
// file leave its catalog, its row counts and the first rows of every table
// readable, so presence checks and a LIMIT 1 find nothing, while every
// query of the damaged table fails. status --check, and apply and run
// before they build on tables already there, read those tables whole
// (engine.Verifier) and stop with an *engine.CorruptError: nothing should
// be built on, or promoted from, a file that lost data.

// verifyTables reads rels whole on wh when its engine can (engine.Verifier;
// an engine that cannot is trusted, as PostgreSQL checks its own pages).
func verifyTables(ctx context.Context, wh engine.Engine, rels []engine.Relation) error {
	v, ok := wh.(engine.Verifier)
	if !ok || len(rels) == 0 {
		return nil
	}
	return v.Verify(ctx, rels)
}

// buildInputs are the tables already in the warehouse that the work of a
// plan builds on: the physical tables of the parents the models of todo
// read (through views and embedded models, which read their own parents)
// that this apply does not build anew, and the tables of todo's
// incremental models it computes into (intervals, merges) rather than
// builds. Parquet
// and ducklake targets, EXTERNAL sources and views are not read here: the
// first are files, the second are not efmesh's, and a view is catalog only.
func buildInputs(p *Plan, todo []ModelPlan) []engine.Relation {
	byName := make(map[string]*ModelPlan, len(p.Models))
	for i := range p.Models {
		byName[p.Models[i].Name] = &p.Models[i]
	}
	built := map[string]bool{}
	for _, mp := range todo {
		if mp.Build {
			built[mp.Name] = true
		}
	}
	seen := map[string]bool{}
	var out []engine.Relation
	table := func(name string) {
		mp, info := byName[name], p.analysis.Models[name]
		if mp == nil || info == nil || built[name] || mp.PhysicalTable == "" {
			return
		}
		if physicalKind(info.Model.Kind.Name, TargetOf(info.Model)) != tableKind {
			return
		}
		if !seen[mp.PhysicalTable] {
			seen[mp.PhysicalTable] = true
			s, n := analysis.SplitName(mp.PhysicalTable)
			out = append(out, engine.Relation{Schema: s, Name: n})
		}
	}
	visited := map[string]bool{}
	var parents func(name string)
	parents = func(name string) {
		for _, r := range dagParents(p, name) {
			if visited[r] {
				continue
			}
			visited[r] = true
			info := p.analysis.Models[r]
			if info == nil {
				continue
			}
			switch info.Model.Kind.Name {
			case project.KindExternal:
			case project.KindView, project.KindEmbedded:
				parents(r)
			default:
				table(r)
			}
		}
	}
	for _, mp := range todo {
		// A FULL or SEED table computed again is replaced whole, its old
		// rows never read; incremental tables keep theirs.
		if k := p.analysis.Models[mp.Name]; !mp.Build && k != nil && k.Model.Kind.Name != project.KindFull && k.Model.Kind.Name != project.KindSeed {
			table(mp.Name)
		}
		parents(mp.Name)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// presentTables are the physical tables among exp that the catalog listed
// (not among missing), in exp's order.
func presentTables(exp []expectation, missing []MissingRelation) []engine.Relation {
	gone := make(map[string]bool, len(missing))
	for _, m := range missing {
		gone[m.Relation] = true
	}
	var out []engine.Relation
	for _, e := range exp {
		if e.physical && e.kind == tableKind && e.files == "" && !gone[e.rel.String()] {
			out = append(out, e.rel)
		}
	}
	return out
}
