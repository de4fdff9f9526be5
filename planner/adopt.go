package planner

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/state"
)

// Adoption is what Adopt recorded, or would record (dry run).
type Adoption struct {
	// Adopted are the models whose physical table of this checkout's
	// version was in the warehouse and is now recorded as built.
	Adopted []string `json:"adopted"`
	// Known are the models whose version the store already had built.
	Known []string `json:"known"`
	// Absent are the models whose version has no table in the warehouse
	// (changed since the warehouse was built, or never built): the next
	// apply builds them.
	Absent []string `json:"absent"`
	// Envs are the environments the warehouse serves and the store does
	// not know, with how many of their views read this checkout's
	// versions.
	Envs []EnvAdoption `json:"environments"`
}

// EnvAdoption is one environment the store does not know, as its views
// in the warehouse show it.
type EnvAdoption struct {
	Env   string `json:"env"`
	Views int    `json:"views"`
	// Current counts the views that read the physical relation of this
	// checkout's version of their model: apply --force points them at the
	// same relation, building nothing. Others lists the rest (views of
	// other versions): apply would move them to this checkout's.
	Current int      `json:"current"`
	Others  []string `json:"others,omitempty"`
}

// physicalRef finds the physical relations a view definition names.
var physicalRef = regexp.MustCompile(`(?i)"?` + analysis.PhysicalSchema + `"?\."?([a-z0-9_]+)"?`)

// Adopt records, in a state store that lost them (deleted, replaced by an
// older copy), the physical tables efmesh built in the warehouse wh: a
// relation under the physical schema whose name carries the fingerprint of
// this checkout's version of a model (analysis.PhysicalRelation) is
// recorded as that version's snapshot, built. Nothing in the warehouse
// changes. What cannot be proven is not recorded:
//   - intervals: the rows of an incremental table do not say which
//     intervals were computed (an empty day and a day never computed look
//     alike), so none is recorded; the next apply recomputes each one
//     into the adopted table (delete and insert of its range: never a
//     duplicate), without rebuilding the table;
//   - FULL models' last refresh: the next run refreshes them;
//   - environments: the views of an environment the store does not know
//     are counted (EnvAdoption), not registered; `apply <env> --force`
//     registers it, promoting the adopted tables without building them
//     when every view read this checkout's versions.
//
// Parquet and ducklake targets (files, another catalog) are not adopted.
// With dryRun nothing is written.
func Adopt(ctx context.Context, a *analysis.Analysis, st state.Store, wh engine.Engine, now time.Time, dryRun bool) (*Adoption, error) {
	d := wh.Dialect()
	rows, err := wh.Query(ctx, engine.RelationsQuery(d, analysis.PhysicalSchema))
	if err != nil {
		return nil, fmt.Errorf("adopt: list %s: %w", analysis.PhysicalSchema, err)
	}
	present := map[string]bool{}
	for _, r := range rows.Values {
		present[strings.ToLower(fmt.Sprint(r[0]))] = true
	}
	names := make([]string, 0, len(a.Models))
	fps := make([]string, 0, len(a.Models))
	for n, info := range a.Models {
		names = append(names, n)
		fps = append(fps, info.Fingerprint)
	}
	sort.Strings(names)
	stored, err := st.Snapshots(ctx, fps)
	if err != nil {
		return nil, err
	}
	res := &Adoption{}
	b := &builder{a: a, d: d, now: now}
	var snaps []state.Snapshot
	current := map[string]string{} // lower-cased physical name -> model
	for _, n := range names {
		info := a.Models[n]
		m := info.Model
		if !owned(m.Kind.Name, TargetOf(m)) || TargetOf(m) != "table" {
			continue
		}
		rel := analysis.PhysicalRelation(d, m, info.Fingerprint)
		current[strings.ToLower(rel.Name)] = n
		switch s, ok := stored[info.Fingerprint]; {
		case ok && s.Built():
			res.Known = append(res.Known, n)
		case !present[strings.ToLower(rel.Name)]:
			res.Absent = append(res.Absent, n)
		default:
			res.Adopted = append(res.Adopted, n)
			if !ok {
				snaps = append(snaps, b.snapshot(info))
			}
		}
	}
	u, err := findUnrecorded(ctx, wh, st, a)
	if err != nil {
		return nil, err
	}
	if u != nil {
		for _, env := range u.Envs() {
			ea := EnvAdoption{Env: env, Views: len(u.Views[env])}
			defs, err := viewDefinitions(ctx, wh, u.Views[env])
			if err != nil {
				return nil, err
			}
			for _, v := range u.Views[env] {
				_, table := analysis.SplitName(v)
				model := ""
				for _, ref := range physicalRef.FindAllStringSubmatch(defs[v], -1) {
					if mn := current[strings.ToLower(ref[1])]; mn != "" {
						model = mn
					}
				}
				if _, t := analysis.SplitName(model); model != "" && strings.EqualFold(t, table) {
					ea.Current++
				} else {
					ea.Others = append(ea.Others, v)
				}
			}
			res.Envs = append(res.Envs, ea)
		}
	}
	if dryRun || len(res.Adopted) == 0 {
		return res, nil
	}
	if len(snaps) > 0 {
		if err := st.PutSnapshots(ctx, snaps); err != nil {
			return nil, fmt.Errorf("adopt: %w", err)
		}
	}
	recs := make([]state.BuildRecord, 0, len(res.Adopted))
	for _, n := range res.Adopted {
		recs = append(recs, state.BuildRecord{Fingerprint: a.Models[n].Fingerprint, At: now.UTC(), Built: true})
	}
	if err := st.RecordBuilds(ctx, recs); err != nil {
		return nil, fmt.Errorf("adopt: %w", err)
	}
	return res, nil
}

// viewDefinitions reads the definitions of views (schema.name), keyed by
// the same text.
func viewDefinitions(ctx context.Context, wh engine.Engine, views []string) (map[string]string, error) {
	out := make(map[string]string, len(views))
	byKey := map[string]string{}
	var schemas []string
	seen := map[string]bool{}
	for _, v := range views {
		byKey[strings.ToLower(v)] = v
		if s, _ := analysis.SplitName(v); !seen[s] {
			seen[s] = true
			schemas = append(schemas, s)
		}
	}
	if len(schemas) == 0 {
		return out, nil
	}
	rows, err := wh.Query(ctx, engine.ViewDefinitionsQuery(wh.Dialect(), schemas, ""))
	if err != nil {
		return nil, fmt.Errorf("adopt: read views: %w", err)
	}
	for _, r := range rows.Values {
		if v, ok := byKey[strings.ToLower(fmt.Sprint(r[0])+"."+fmt.Sprint(r[1]))]; ok {
			out[v] = fmt.Sprint(r[2])
		}
	}
	return out, nil
}
