package planner

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/state/sqlite"
)

// TestSettledIsThePlanAfterApply: for every plan Settled answers, the plan
// it derives is the one MakePlan makes right after the apply (against the
// store and the warehouse the apply left), field for field: a first apply
// of every kind it takes, a promotion of the same versions to another
// environment, a breaking change with a deleted model. A plan with an
// incremental model is not derived.
func TestSettledIsThePlanAfterApply(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	wh, err := duckdb.Open(filepath.Join(t.TempDir(), "wh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if err := wh.Exec(ctx, `CREATE SCHEMA src; CREATE TABLE src.events AS SELECT * FROM (VALUES (1, 'a', TIMESTAMP '2026-01-01 10:00:00')) v(id, code, seen_at)`); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v1 := map[string]string{
		"seeds/codes.csv":    "code,label\na,Alpha\nb,Beta\n",
		"models/codes.sql":   `MODEL (name ref.codes, kind SEED (path 'seeds/codes.csv'), columns (code TEXT, label TEXT));`,
		"models/events.sql":  `MODEL (name raw.events, kind EXTERNAL (table src.events), columns (id BIGINT, code TEXT, seen_at TIMESTAMP));`,
		"models/labeled.sql": `MODEL (name core.labeled, kind EMBEDDED); SELECT e.id, c.label, e.seen_at FROM @ref(raw.events) AS e JOIN @ref(ref.codes) AS c USING (code)`,
		"models/joined.sql":  `MODEL (name mart.joined); SELECT id, label, seen_at FROM @ref(core.labeled)`,
		"models/recent.sql":  `MODEL (name mart.recent, kind VIEW); SELECT id, label FROM @ref(mart.joined) WHERE seen_at > TIMESTAMP '2025-01-01'`,
	}
	apply := func(a *analysis.Analysis, env string) (derived *Plan, ok bool) {
		t.Helper()
		p, err := MakePlan(ctx, a, st, env, PlanAt(now), WithWarehouse(wh))
		if err != nil {
			t.Fatal(err)
		}
		if !p.HasChanges {
			t.Fatalf("%s: the plan has no changes", env)
		}
		if _, err := Apply(ctx, p, wh, st, ApplyOptions{AppliedBy: "test", Now: func() time.Time { return now }}); err != nil {
			t.Fatal(err)
		}
		return Settled(p)
	}
	same := func(what string, a *analysis.Analysis, env string, derived *Plan) {
		t.Helper()
		again, err := MakePlan(ctx, a, st, env, PlanAt(now), WithWarehouse(wh))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.MarshalIndent(again, "", " ")
		got, _ := json.MarshalIndent(derived, "", " ")
		if string(got) != string(want) {
			t.Fatalf("%s: derived plan\n%s\nthe plan after the apply\n%s", what, got, want)
		}
	}

	a := analyzeFiles(t, maps.Clone(v1))
	mustClean(t, a)
	d, ok := Settled(nil)
	if ok || d != nil {
		t.Fatal("Settled(nil) answered")
	}
	if d, ok = apply(a, "dev"); !ok {
		t.Fatal("the first apply of dev: not derived")
	}
	same("first apply", a, "dev", d)
	if d, ok = apply(a, "prod"); !ok {
		t.Fatal("the promotion to prod: not derived")
	}
	same("promotion", a, "prod", d)

	v2 := maps.Clone(v1)
	v2["models/joined.sql"] = `MODEL (name mart.joined); SELECT id, upper(label) AS label, seen_at FROM @ref(core.labeled)`
	delete(v2, "models/recent.sql")
	a2 := analyzeFiles(t, v2)
	mustClean(t, a2)
	if d, ok = apply(a2, "dev"); !ok {
		t.Fatal("a breaking change and a deletion: not derived")
	}
	same("change and deletion", a2, "dev", d)
	if len(d.Models) != 4 {
		t.Fatalf("the deleted model is still in the derived plan: %+v", d.Models)
	}

	v3 := maps.Clone(v2)
	v3["models/daily.sql"] = `MODEL (name mart.daily, kind INCREMENTAL_BY_TIME_RANGE (time_column day));
SELECT CAST(seen_at AS DATE) AS day, count(*) AS n FROM @ref(mart.joined) WHERE seen_at >= @start AND seen_at < @end GROUP BY 1`
	a3 := analyzeFiles(t, v3)
	mustClean(t, a3)
	if _, ok = apply(a3, "dev"); ok {
		t.Fatal("a plan with an incremental model was derived")
	}
}
