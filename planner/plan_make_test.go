package planner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/state"
)

// The phases of MakePlan, one test each, on a real DuckDB checker and a
// real SQLite store where the phase reads state.

// appliedTo applies a to env on a DuckDB warehouse in memory, recording in
// a new SQLite store, as of now; it returns the store.
func appliedTo(t *testing.T, a *analysis.Analysis, env string, now time.Time) state.Store {
	t.Helper()
	ctx := context.Background()
	st := realdb.State(t, filepath.Join(t.TempDir(), "state.db"))
	wh := realdb.DuckDB(t, "")
	p, err := MakePlan(ctx, a, st, env, PlanAt(now))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(ctx, p, wh, st, ApplyOptions{AppliedBy: "test", Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	return st
}

// diffedPlan is the state a model line's phases start from: the plan of
// env for a (no lines yet) and the snapshots it is diffed against.
func diffedPlan(t *testing.T, a *analysis.Analysis, st state.Reader, env string) (*Plan, map[string]state.Snapshot) {
	t.Helper()
	ctx := context.Background()
	e, err := ReadEnvironment(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := storedSnapshots(ctx, st, a, e.Pointers)
	if err != nil {
		t.Fatal(err)
	}
	return newPlan(env, a, e.Pointers, snaps), snaps
}

// categorized runs the first phases of a line (physics, categorize) for
// name, as modelLine does.
func categorized(t *testing.T, p *Plan, snaps map[string]state.Snapshot, name string, changed map[string]bool, reclassify map[string]Change) (ModelPlan, error) {
	t.Helper()
	info := p.analysis.Models[name]
	snap, known := snaps[info.Fingerprint]
	mp := p.physicalLine(info, snap, known)
	ptr, inEnv := p.current[name]
	err := p.categorize(&mp, info, ptr, inEnv, snaps, changed, reclassify)
	return mp, err
}

// TestPlannedAnalysis: a bad environment name and a project with problems
// stop the plan before the store is read; a plain environment plans the
// analysis as it is.
func TestPlannedAnalysis(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, map[string]string{"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id"})
	mustClean(t, a)
	if got, err := plannedAnalysis(ctx, a, "dev", planConfig{}); err != nil || got != a {
		t.Errorf("dev: %v, same analysis %v", err, got == a)
	}
	if _, err := plannedAnalysis(ctx, a, "Dev-1", planConfig{}); err == nil || !strings.Contains(err.Error(), "Dev-1") {
		t.Errorf("a bad environment name: err = %v", err)
	}
	bad := analyzeFiles(t, map[string]string{"models/a.sql": "MODEL (name m.a);\nSELECT nope FROM @ref(m.missing)"})
	var pe *ProblemsError
	if _, err := plannedAnalysis(ctx, bad, "dev", planConfig{}); !errors.As(err, &pe) || len(pe.Diagnostics) == 0 {
		t.Errorf("a project with problems: err = %v", err)
	}
}

// TestStoredSnapshots: the heads of every snapshot concerned, and the full
// snapshot (canonical form included) only of what a moved model was; a
// snapshot of another fingerprint version stops the plan.
func TestStoredSnapshots(t *testing.T) {
	ctx := context.Background()
	v1 := analyzeFiles(t, map[string]string{
		"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id",
		"models/b.sql": "MODEL (name m.b);\nSELECT 2 AS id",
	})
	mustClean(t, v1)
	st := appliedTo(t, v1, "dev", day(5))
	v2 := analyzeFiles(t, map[string]string{
		"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id WHERE true",
		"models/b.sql": "MODEL (name m.b);\nSELECT 2 AS id",
	})
	mustClean(t, v2)
	e, err := ReadEnvironment(ctx, st, "dev")
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := storedSnapshots(ctx, st, v2, e.Pointers)
	if err != nil {
		t.Fatal(err)
	}
	wasA, b := e.Pointers["m.a"].Fingerprint, v2.Models["m.b"].Fingerprint
	if _, ok := snaps[v2.Models["m.a"].Fingerprint]; ok {
		t.Error("m.a's new version is not stored, yet it was read")
	}
	if len(snaps[wasA].Canonical) == 0 || snaps[wasA].Definition == nil {
		t.Errorf("m.a moved: its previous snapshot is read whole, got canonical %q", snaps[wasA].Canonical)
	}
	if s, ok := snaps[b]; !ok || len(s.Canonical) != 0 {
		t.Errorf("m.b did not move: its head only (ok %v, canonical %q)", ok, s.Canonical)
	}

	other := snaps[b]
	other.Fingerprint = strings.Repeat("f", 64)
	other.FingerprintVersion = analysis.FingerprintVersion + 1
	if err := st.PutSnapshots(ctx, []state.Snapshot{other}); err != nil {
		t.Fatal(err)
	}
	cur := map[string]state.Pointer{"m.b": {Fingerprint: other.Fingerprint}}
	var fv *analysis.FingerprintVersionError
	if _, err := storedSnapshots(ctx, st, v2, cur); !errors.As(err, &fv) || fv.Have != analysis.FingerprintVersion+1 {
		t.Errorf("a snapshot of another version: err = %v", err)
	}
}

// TestCheckOptions: every option names a model of the project, and one it
// applies to.
func TestCheckOptions(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/a.sql": "MODEL (name m.orders);\nSELECT 1 AS id",
		"models/i.sql": "MODEL (name m.inc, kind INCREMENTAL_BY_TIME_RANGE (time_column ts));\nSELECT now()::TIMESTAMP AS ts WHERE now() >= @start AND now() < @end",
	})
	mustClean(t, a)
	for _, tc := range []struct {
		name string
		cfg  planConfig
		want string
	}{
		{"forward-only", planConfig{forwardOnly: map[string]bool{"m.order": true}}, `unknown model "m.order"; did you mean "m.orders"?`},
		{"rebuild unknown", planConfig{rebuild: map[string]bool{"m.nope": true}}, "m.nope"},
		{"rebuild FULL", planConfig{rebuild: map[string]bool{"m.orders": true}}, "only SCD_TYPE_2 models keep a history (it is FULL)"},
		{"reclassify", planConfig{reclassify: map[string]Change{"m.ordrs": Breaking}}, "m.ordrs"},
		{"restate FULL", planConfig{restate: []restateRequest{{model: "m.orders", from: day(1), to: day(2)}}}, "only INCREMENTAL_BY_TIME_RANGE models have intervals"},
	} {
		if _, _, err := checkOptions(a, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	restated, refills, err := checkOptions(a, planConfig{restate: []restateRequest{{model: "m.inc", from: day(2), to: day(4)}}})
	if err != nil || restated["m.inc"] != (analysis.Range{Start: day(2), End: day(4)}) || len(refills) != 0 {
		t.Errorf("restate m.inc: %v %v %v", restated, refills, err)
	}
}

// TestPhysicalLine: a line names its own physical relation and builds it
// unless the store holds it built; a snapshot built under another
// fingerprint's table (inherited) keeps that table; a virtual model has
// none.
func TestPhysicalLine(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id",
		"models/e.sql": "MODEL (name m.e, kind EMBEDDED);\nSELECT 1 AS id",
	})
	mustClean(t, a)
	info := a.Models["m.a"]
	own := analysis.PhysicalRelation(a.Dialect(), info.Model, info.Fingerprint).String()

	p := newPlan("dev", a, nil, nil)
	if mp := p.physicalLine(info, state.Snapshot{}, false); !mp.Build || mp.PhysicalTable != own || mp.Backfill == nil || mp.Explain == nil {
		t.Errorf("not stored: %+v", mp)
	}
	if mp := p.physicalLine(info, state.Snapshot{PhysicalTable: own}, true); !mp.Build {
		t.Errorf("stored, not built: build %v", mp.Build)
	}
	built := state.Snapshot{PhysicalTable: "_efmesh.m__a__0badc0de", BuiltAt: day(3)}
	mp := p.physicalLine(info, built, true)
	inherited := analysis.PhysicalRelation(a.Dialect(), info.Model, "0badc0de").String()
	if mp.Build || mp.PhysicalTable != inherited || p.physFP["m.a"] != "0badc0de" || p.storedTable["m.a"] != built.PhysicalTable {
		t.Errorf("built under another table: %+v, physFP %v, storedTable %v", mp, p.physFP, p.storedTable)
	}
	if mp := p.physicalLine(a.Models["m.e"], state.Snapshot{}, false); mp.Build || mp.PhysicalTable != "" {
		t.Errorf("EMBEDDED: %+v", mp)
	}
}

// TestCategorizePhase: added, unchanged, metadata-only, indirect (with the
// changed parents), non-breaking and breaking against the environment;
// the operator's reclassification, and its guard rail.
func TestCategorizePhase(t *testing.T) {
	v1 := map[string]string{
		"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id",
		"models/b.sql": "MODEL (name m.b);\nSELECT id FROM @ref(m.a)",
		"models/c.sql": "MODEL (name m.c, description 'old');\nSELECT 3 AS id",
		"models/d.sql": "MODEL (name m.d);\nSELECT 4 AS id, 5 AS n",
		"models/u.sql": "MODEL (name m.u);\nSELECT 6 AS id",
	}
	a1 := analyzeFiles(t, v1)
	mustClean(t, a1)
	st := appliedTo(t, a1, "dev", day(5))
	a2 := analyzeFiles(t, map[string]string{
		"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id, 2 AS extra",
		"models/b.sql": v1["models/b.sql"],
		"models/c.sql": "MODEL (name m.c, description 'new');\nSELECT 3 AS id",
		"models/d.sql": "MODEL (name m.d);\nSELECT 4 AS id",
		"models/u.sql": v1["models/u.sql"],
		"models/n.sql": "MODEL (name m.n);\nSELECT 7 AS id",
	})
	mustClean(t, a2)
	p, snaps := diffedPlan(t, a2, st, "dev")
	changed := map[string]bool{"m.a": true}
	want := map[string]Change{"m.a": NonBreaking, "m.b": Indirect, "m.c": MetadataOnly, "m.d": Breaking, "m.u": Unchanged, "m.n": Added}
	for name, w := range want {
		mp, err := categorized(t, p, snaps, name, changed, nil)
		if err != nil || mp.Change != w {
			t.Errorf("%s: %s (%v), want %s; explain %q", name, mp.Change, err, w, mp.Explain)
		}
		switch name {
		case "m.b":
			if fmt.Sprint(mp.Cause) != "[m.a]" || mp.Previous == "" {
				t.Errorf("m.b: cause %v, previous %q", mp.Cause, mp.Previous)
			}
		case "m.a":
			if len(mp.Diff) == 0 || len(mp.Paths) == 0 {
				t.Errorf("m.a: a direct change shows its edit: diff %v paths %v", mp.Diff, mp.Paths)
			}
		case "m.c":
			if !strings.Contains(strings.Join(mp.Explain, "\n"), "description") {
				t.Errorf("m.c: explain %q", mp.Explain)
			}
		}
	}
	mp, err := categorized(t, p, snaps, "m.a", changed, map[string]Change{"m.a": Breaking})
	if err != nil || mp.Change != Breaking || mp.ReclassifiedFrom != NonBreaking {
		t.Errorf("m.a reclassified breaking: %s from %s (%v)", mp.Change, mp.ReclassifiedFrom, err)
	}
	var re *ReclassifyError
	if _, err := categorized(t, p, snaps, "m.d", changed, map[string]Change{"m.d": NonBreaking}); !errors.As(err, &re) || !strings.Contains(err.Error(), "drops or reorders") {
		t.Errorf("m.d drops a column, reclassified non-breaking: err = %v", err)
	}
}

// TestNoteRedefined: a model new to an environment whose snapshot another
// environment built under other metadata is recorded again, and its new
// audit runs on the data that snapshot holds.
func TestNoteRedefined(t *testing.T) {
	a1 := analyzeFiles(t, map[string]string{"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id"})
	mustClean(t, a1)
	st := appliedTo(t, a1, "prod", day(5))
	a2 := analyzeFiles(t, map[string]string{"models/a.sql": "MODEL (name m.a, description 'ids', audits (not_null(id)));\nSELECT 1 AS id"})
	mustClean(t, a2)
	if a1.Models["m.a"].Fingerprint != a2.Models["m.a"].Fingerprint {
		t.Fatal("a description and an audit moved the fingerprint")
	}
	p, snaps := diffedPlan(t, a2, st, "dev")
	info := a2.Models["m.a"]
	snap, known := snaps[info.Fingerprint]
	mp, err := categorized(t, p, snaps, "m.a", nil, nil)
	if err != nil || mp.Change != Added || mp.Build {
		t.Fatalf("m.a in dev: %s, build %v (%v)", mp.Change, mp.Build, err)
	}
	p.noteRedefined(&mp, info, snap, known)
	if !p.redefined["m.a"] || fmt.Sprint(p.newAudits["m.a"]) != "[not_null(id)]" || !strings.Contains(strings.Join(mp.Explain, "\n"), "not_null(id)") {
		t.Errorf("redefined %v, new audits %v, explain %q", p.redefined, p.newAudits, mp.Explain)
	}

	p, snaps = diffedPlan(t, a1, st, "dev")
	mp, _ = categorized(t, p, snaps, "m.a", nil, nil)
	p.noteRedefined(&mp, a1.Models["m.a"], snaps[a1.Models["m.a"].Fingerprint], true)
	if len(p.redefined) != 0 || len(p.newAudits) != 0 {
		t.Errorf("the same definition: redefined %v, new audits %v", p.redefined, p.newAudits)
	}
}

// incrementalV1 is an incremental model over a FULL model, and a FULL
// model over the incremental one.
var incrementalV1 = map[string]string{
	"models/src.sql":  "MODEL (name m.src);\nSELECT TIMESTAMP '2026-01-02 10:00:00' AS ts, 1 AS v",
	"models/inc.sql":  "MODEL (name m.inc, kind INCREMENTAL_BY_TIME_RANGE (time_column ts));\nSELECT ts, v FROM @ref(m.src) WHERE ts >= @start AND ts < @end",
	"models/full.sql": "MODEL (name m.full);\nSELECT count(*) AS n FROM @ref(m.inc)",
}

func withFile(files map[string]string, path, body string) map[string]string {
	out := maps.Clone(files)
	out[path] = body
	return out
}

// TestTakeOverForwardOnly: a forward-only change inherits the previous
// table and its intervals, adding the new column; physics reuse lets an
// indirect child whose changed parents keep their data keep its table;
// forward-only on a model without intervals is refused.
func TestTakeOverForwardOnly(t *testing.T) {
	ctx := context.Background()
	a1 := analyzeFiles(t, maps.Clone(incrementalV1))
	mustClean(t, a1)
	st := appliedTo(t, a1, "dev", day(5))
	a2 := analyzeFiles(t, withFile(incrementalV1, "models/inc.sql",
		"MODEL (name m.inc, kind INCREMENTAL_BY_TIME_RANGE (time_column ts));\nSELECT ts, v, v * 2 AS w FROM @ref(m.src) WHERE ts >= @start AND ts < @end"))
	mustClean(t, a2)
	p, snaps := diffedPlan(t, a2, st, "dev")
	seen := lineage{changed: map[string]bool{}, keeps: map[string]bool{"m.src": true}}
	line := func(name string, cfg planConfig) (ModelPlan, error) {
		t.Helper()
		info := a2.Models[name]
		mp, err := categorized(t, p, snaps, name, seen.changed, nil)
		if err != nil {
			return mp, err
		}
		snap, known := snaps[info.Fingerprint]
		prev, ok := snaps[p.current[name].Fingerprint]
		kept, err := p.takeOver(ctx, st, &mp, info, snap, known, prev, ok, cfg, seen)
		if kept {
			t.Errorf("%s: no SCD_TYPE_2 history here", name)
		}
		if err == nil {
			seen.keeps[name] = keepsData(mp, kept, seen.keeps)
			seen.changed[name] = mp.Change != Unchanged
		}
		return mp, err
	}
	inc, err := line("m.inc", planConfig{forwardOnly: map[string]bool{"m.inc": true}})
	wasInc := p.current["m.inc"].Fingerprint
	if err != nil || inc.Change != ForwardOnly || inc.ReclassifiedFrom != NonBreaking || inc.ReusedFrom != wasInc || inc.Build ||
		fmt.Sprint(inc.AddsColumns) != "[w]" || p.reuse["m.inc"] != wasInc {
		t.Fatalf("m.inc forward-only: %+v (%v)", inc, err)
	}
	full, err := line("m.full", planConfig{})
	if err != nil || full.Change != Indirect || full.ReusedFrom != p.current["m.full"].Fingerprint || full.Build {
		t.Errorf("m.full, moved by a forward-only parent: %+v (%v)", full, err)
	}

	p, snaps = diffedPlan(t, a2, st, "dev")
	seen = lineage{changed: map[string]bool{"m.src": true}, keeps: map[string]bool{}}
	var oe *OptionError
	if _, err := line("m.full", planConfig{forwardOnly: map[string]bool{"m.full": true}}); !errors.As(err, &oe) || !strings.Contains(err.Error(), "only INCREMENTAL_BY_TIME_RANGE") {
		t.Errorf("forward-only FULL: err = %v", err)
	}
}

// TestTakeOverHistory: an SCD_TYPE_2 model changed in its own definition
// moves to a new history table, which apply refuses without
// --rebuild-history; with it, the plan says the versions are not carried
// over; forward-only keeps the history table.
func TestTakeOverHistory(t *testing.T) {
	ctx := context.Background()
	v1 := map[string]string{"models/h.sql": "MODEL (name m.h, kind SCD_TYPE_2 (key (id)));\nSELECT 1 AS id, 'a' AS name"}
	a1 := analyzeFiles(t, v1)
	mustClean(t, a1)
	st := appliedTo(t, a1, "dev", day(5))
	a2 := analyzeFiles(t, map[string]string{"models/h.sql": "MODEL (name m.h, kind SCD_TYPE_2 (key (id)));\nSELECT 1 AS id, 'b' AS name"})
	mustClean(t, a2)
	info := a2.Models["m.h"]
	for _, tc := range []struct {
		name        string
		cfg         planConfig
		kept        bool
		rebuilds    bool
		unconfirmed bool
		explain     string
	}{
		{"plain", planConfig{}, false, true, true, "apply needs --rebuild-history m.h"},
		{"rebuild", planConfig{rebuild: map[string]bool{"m.h": true}}, false, true, false, "rebuilds its history (--rebuild-history)"},
		{"forward-only", planConfig{forwardOnly: map[string]bool{"m.h": true}}, true, false, false, "SCD_TYPE_2 keeps its history"},
	} {
		p, snaps := diffedPlan(t, a2, st, "dev")
		mp, err := categorized(t, p, snaps, "m.h", nil, nil)
		if err != nil || mp.Change != Breaking {
			t.Fatalf("%s: %s (%v)", tc.name, mp.Change, err)
		}
		snap, known := snaps[info.Fingerprint]
		prev, ok := snaps[p.current["m.h"].Fingerprint]
		kept, err := p.takeOver(ctx, st, &mp, info, snap, known, prev, ok, tc.cfg, lineage{changed: map[string]bool{}, keeps: map[string]bool{}})
		if err != nil || kept != tc.kept || mp.RebuildsHistory != tc.rebuilds || slices.Contains(p.unconfirmed, "m.h") != tc.unconfirmed ||
			!strings.Contains(strings.Join(mp.Explain, "\n"), tc.explain) {
			t.Errorf("%s: kept %v, %+v, unconfirmed %v (%v)", tc.name, kept, mp.History, p.unconfirmed, err)
		}
	}
}

// TestKeepsData: which lines keep serving the data of their existing
// columns, so that their children may keep their tables.
func TestKeepsData(t *testing.T) {
	keeps := map[string]bool{"p.kept": true}
	for _, tc := range []struct {
		mp      ModelPlan
		scdKept bool
		want    bool
	}{
		{ModelPlan{Change: Unchanged}, false, true},
		{ModelPlan{Change: MetadataOnly}, false, true},
		{ModelPlan{Change: NonBreaking}, false, true},
		{ModelPlan{Change: ForwardOnly}, false, true},
		{ModelPlan{Change: Indirect, Inheritance: Inheritance{ReusedFrom: "f"}}, false, true},
		{ModelPlan{Change: Indirect}, false, false},
		{ModelPlan{Change: Breaking}, false, false},
		{ModelPlan{Change: Added}, false, false},
		{ModelPlan{Change: ForwardOnly, Cause: []string{"p.kept"}}, true, true},
		{ModelPlan{Change: ForwardOnly, Cause: []string{"p.kept", "p.rebuilt"}}, true, false},
	} {
		if got := keepsData(tc.mp, tc.scdKept, keeps); got != tc.want {
			t.Errorf("%s (reused %q, cause %v, history kept %v): %v, want %v", tc.mp.Change, tc.mp.ReusedFrom, tc.mp.Cause, tc.scdKept, got, tc.want)
		}
	}
}

// TestRemovedLines: the models the environment points at that the project
// lost get a removed line each, sorted, with their stored kind; an
// EXTERNAL one keeps its definition for the promotion.
func TestRemovedLines(t *testing.T) {
	a := analyzeFiles(t, map[string]string{"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id"})
	mustClean(t, a)
	cur := map[string]state.Pointer{"m.a": {Fingerprint: a.Models["m.a"].Fingerprint}, "m.z": {Fingerprint: "fz"}, "m.x": {Fingerprint: "fx"}, "m.y": {Fingerprint: "fy"}}
	snaps := map[string]state.Snapshot{
		"fx": {Fingerprint: "fx", Kind: "EXTERNAL", Definition: []byte(`{"kind":"EXTERNAL"}`)},
		"fz": {Fingerprint: "fz", Kind: "FULL"},
	}
	p := newPlan("dev", a, cur, snaps)
	p.removedLines(snaps)
	var got []string
	for _, mp := range p.Models {
		got = append(got, mp.Name+" "+string(mp.Change)+" "+mp.Kind+" "+mp.Previous)
		if mp.Backfill == nil || mp.Explain == nil {
			t.Errorf("%s: empty lists are lists: %+v", mp.Name, mp)
		}
	}
	if strings.Join(got, "; ") != "m.x removed EXTERNAL fx; m.y removed  fy; m.z removed FULL fz" || !p.HasChanges {
		t.Errorf("removed lines: %q, has changes %v", got, p.HasChanges)
	}
	if _, ok := p.removedExternal["m.x"]; !ok || len(p.removedExternal) != 1 {
		t.Errorf("removed EXTERNAL definitions: %v", p.removedExternal)
	}
}

// TestCheckSources: an EXTERNAL model whose files are not there stops the
// plan with a positioned problem.
func TestCheckSources(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, map[string]string{
		"models/x.sql": "MODEL (name raw.x, kind EXTERNAL (files 'data/*.csv', format csv), columns (id INT));",
	})
	mustClean(t, a)
	st := realdb.State(t, filepath.Join(t.TempDir(), "state.db"))
	p, snaps := diffedPlan(t, a, st, "dev")
	if err := p.modelLines(ctx, st, snaps, planConfig{}); err != nil {
		t.Fatal(err)
	}
	var pe *ProblemsError
	err := p.checkSources(ctx, st, planConfig{})
	if !errors.As(err, &pe) || len(pe.Diagnostics) != 1 || pe.Diagnostics[0].File != filepath.FromSlash("models/x.sql") ||
		!strings.Contains(pe.Diagnostics[0].Message, "no file matches data/*.csv") {
		t.Errorf("err = %v (%+v)", err, pe)
	}
}

// TestFillBackfill: a new incremental snapshot computes its whole history
// from the start to now; one applied before computes only what its
// ledger lacks since.
func TestFillBackfill(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, maps.Clone(incrementalV1))
	mustClean(t, a)
	empty := realdb.State(t, filepath.Join(t.TempDir(), "state.db"))
	applied := appliedTo(t, a, "dev", day(5))
	for _, tc := range []struct {
		name      string
		st        state.Reader
		want      string
		intervals int
	}{
		{"new", empty, "[[2026-01-01T00:00:00Z, 2026-01-08T00:00:00Z)]", 7},
		{"applied on the 5th", applied, "[[2026-01-05T00:00:00Z, 2026-01-08T00:00:00Z)]", 3},
	} {
		p, snaps := diffedPlan(t, a, tc.st, "dev")
		if err := p.modelLines(ctx, tc.st, snaps, planConfig{}); err != nil {
			t.Fatal(err)
		}
		if err := p.fillBackfill(ctx, tc.st, day(8).Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		inc := lineOf(t, p, "m.inc")
		if fmt.Sprint(inc.Backfill) != tc.want || inc.Intervals != tc.intervals || !p.HasChanges {
			t.Errorf("%s: backfill %v (%d intervals), want %s (%d)", tc.name, inc.Backfill, inc.Intervals, tc.want, tc.intervals)
		}
		if full := lineOf(t, p, "m.full"); len(full.Backfill) != 0 || full.Intervals != 0 {
			t.Errorf("%s: a FULL model has no ranges: %v", tc.name, full.Backfill)
		}
	}
}

// TestRefills: the FULL descendants of a restated model are refilled
// unless built anyway; those of a model whose preview the plan completes
// are refilled for the preview.
func TestRefills(t *testing.T) {
	a := analyzeFiles(t, maps.Clone(incrementalV1))
	mustClean(t, a)
	lines := func(fullBuilds bool) *Plan {
		p := newPlan("dev", a, nil, nil)
		p.Models = []ModelPlan{
			{Name: "m.src", Change: Unchanged},
			{Name: "m.inc", Change: Unchanged, Incremental: Incremental{Backfill: []analysis.Range{{Start: day(1), End: day(3)}}, Intervals: 2},
				Coverage: Coverage{Covered: []analysis.Range{{Start: day(3), End: day(5)}}}},
			{Name: "m.full", Change: Unchanged, Build: fullBuilds},
		}
		return p
	}
	p := lines(false)
	p.refills = map[string][]string{"m.full": {"m.inc"}}
	p.fillRefills()
	if full := lineOf(t, p, "m.full"); fmt.Sprint(full.Refill) != "[m.inc]" || full.RefillWhy != RefillRestated || !p.HasChanges {
		t.Errorf("restated: %+v", full.Refilling)
	}
	p = lines(true)
	p.refills = map[string][]string{"m.full": {"m.inc"}}
	p.fillRefills()
	if full := lineOf(t, p, "m.full"); len(full.Refill) != 0 || p.HasChanges {
		t.Errorf("restated, built anyway: %+v", full.Refilling)
	}
	p = lines(false)
	p.refillCompleted(false)
	if full := lineOf(t, p, "m.full"); fmt.Sprint(full.Refill) != "[m.inc]" || full.RefillWhy != RefillPreview || !p.HasChanges {
		t.Errorf("completed preview: %+v", full.Refilling)
	}
}

// TestCheckBackfillLimit: past the limit the plan stops, naming the
// models with a backfill, the largest first.
func TestCheckBackfillLimit(t *testing.T) {
	p := &Plan{Models: []ModelPlan{
		{Name: "m.small", Incremental: Incremental{Backfill: []analysis.Range{{Start: day(1), End: day(3)}}, Intervals: 2}},
		{Name: "m.none"},
		{Name: "m.big", Incremental: Incremental{Backfill: []analysis.Range{{Start: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), End: day(1)}}, Intervals: 739616}},
	}}
	for _, limit := range []int{0, 739618} {
		if err := p.checkBackfillLimit(limit); err != nil {
			t.Errorf("limit %d: %v", limit, err)
		}
	}
	var le *LargeBackfillError
	err := p.checkBackfillLimit(1000)
	if !errors.As(err, &le) || len(le.Models) != 2 || le.Models[0].Name != "m.big" ||
		!strings.Contains(err.Error(), "m.big 739,616 from 0001-01-01T00:00:00Z, m.small 2 from 2026-01-01T00:00:00Z") {
		t.Errorf("err = %v", err)
	}
}

// TestModelLineRebuildHistoryRefused: --rebuild-history on a model the plan
// keeps no history of is refused with the line's category.
func TestModelLineRebuildHistoryRefused(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, map[string]string{"models/h.sql": "MODEL (name m.h, kind SCD_TYPE_2 (key (id)));\nSELECT 1 AS id"})
	mustClean(t, a)
	st := realdb.State(t, filepath.Join(t.TempDir(), "state.db"))
	p, snaps := diffedPlan(t, a, st, "dev")
	_, err := p.modelLine(ctx, st, a.Models["m.h"], snaps, planConfig{rebuild: map[string]bool{"m.h": true}},
		lineage{changed: map[string]bool{}, keeps: map[string]bool{}})
	var oe *OptionError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "keeps no history of it to rebuild (it is added in dev)") {
		t.Errorf("err = %v", err)
	}
}

// TestAnnotate: the last phase warns of window functions over batches of
// several intervals (not over batches of one), on every line whatever it
// builds.
func TestAnnotate(t *testing.T) {
	body := " (time_column ts%s));\nSELECT ts, sum(v) OVER (ORDER BY ts) AS running FROM @ref(m.src) WHERE ts >= @start AND ts < @end"
	a := analyzeFiles(t, map[string]string{
		"models/src.sql": "MODEL (name m.src);\nSELECT TIMESTAMP '2026-01-02 10:00:00' AS ts, 1 AS v",
		"models/w7.sql":  "MODEL (name m.w7, kind INCREMENTAL_BY_TIME_RANGE" + fmt.Sprintf(body, ", batch_size 7"),
		"models/w1.sql":  "MODEL (name m.w1, kind INCREMENTAL_BY_TIME_RANGE" + fmt.Sprintf(body, ", batch_size 1"),
		"models/wn.sql":  "MODEL (name m.wn, kind INCREMENTAL_BY_TIME_RANGE" + fmt.Sprintf(body, ""),
	})
	mustClean(t, a)
	p := newPlan("dev", a, nil, nil)
	for _, n := range []string{"m.src", "m.w7", "m.w1", "m.wn"} {
		p.Models = append(p.Models, ModelPlan{Name: n, Change: Unchanged})
	}
	p.annotate()
	for _, tc := range []struct{ name, want string }{
		{"m.src", ""},
		{"m.w1", ""},
		{"m.w7", "window function(s) sum run over batches of up to 7 days (batch_size 7)"},
		{"m.wn", "window function(s) sum run over one batch over the whole range due (no batch_size)"},
	} {
		ws := lineOf(t, p, tc.name).Warnings
		switch {
		case tc.want == "" && len(ws) > 0:
			t.Errorf("%s: warnings %v", tc.name, ws)
		case tc.want != "" && (len(ws) != 1 || ws[0].Code != CodeWindowOverBatch || !strings.HasPrefix(ws[0].Message, tc.want)):
			t.Errorf("%s: warnings %v, want %q", tc.name, ws, tc.want)
		}
	}
}
