package workspace

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/workspace/digest"
)

// promoShop is noopShop with an EXTERNAL model whose columns are declared
// (a parent of a FULL model) and environments whose variables differ:
// staging has none of its own, eu sets country.
func promoShop() map[string]string {
	files := maps.Clone(noopShop)
	files["efmesh.yaml"] = "name: shop\nvars: {country: FR}\nenvironments:\n  eu:\n    vars: {country: DE}\n"
	files["data/rates.csv"] = "country,rate\nFR,20\n"
	files["models/rates.sql"] = "MODEL (name raw.rates, kind EXTERNAL (files 'data/rates.csv', format csv, header true), columns (country TEXT, rate INT));\n"
	files["models/taxed.sql"] = "MODEL (name mart.taxed, kind FULL);\nSELECT o.order_id, r.rate FROM @ref(raw.orders) AS o JOIN @ref(raw.rates) AS r USING (country)\n"
	return files
}

// promoted applies dev and makes the plain plan that leaves the digests.
func promoted(t *testing.T) string {
	t.Helper()
	dir := writeProject(t, promoShop())
	applyEnv(t, dir, "dev", noopNow)
	if p, _ := planPlain(t, dir, "dev", nil, noopNow); p.HasChanges {
		t.Fatalf("dev after its apply:\n%s", planText(p))
	}
	if _, err := os.Stat(fingerprintsFile(dir)); err != nil {
		t.Fatalf("no fingerprints digest: %v", err)
	}
	return dir
}

// fullPlan is the plan of env made by the full path.
func fullPlan(t *testing.T, dir, env string, vars map[string]string) *planner.Plan {
	t.Helper()
	ctx := context.Background()
	w, err := Open(ctx, dir, OpenOptions{Options: Options{Now: func() time.Time { return noopNow }}, Env: env, Vars: vars})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p, err := w.Plan(ctx, env, planner.PlanAt(noopNow))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestQuickPromotion: the plan of an environment that promotes what dev
// built is made from the fingerprints digest, field for field the full
// path's plan (text and JSON).
func TestQuickPromotion(t *testing.T) {
	dir := promoted(t)
	for _, env := range []string{"prod", "staging"} {
		req := NoopRequest{Env: env, Now: noopNow.Add(10 * time.Minute)}
		quick, unused, ok := digest.LookupPromotion(context.Background(), dir, req)
		if !ok {
			t.Fatalf("%s: the plan of a pure promotion was not answered from the digest", env)
		}
		if len(unused) != 0 {
			t.Fatalf("%s: unused vars %v", env, unused)
		}
		full := fullPlan(t, dir, env, nil)
		if planText(quick) != planText(full) {
			t.Fatalf("%s: the quick plan differs from the full path's:\n%s\n%s", env, planText(quick), planText(full))
		}
		if s := full.Summary(); s.Build != 0 || s.Promote == 0 {
			t.Fatalf("%s: not a pure promotion: %+v", env, s)
		}
	}
	// The same --var as efmesh.yaml in a plan that had it: the same
	// variables in force.
	applyEnv(t, dir, "dev", noopNow)
	if _, quick := planPlain(t, dir, "dev", map[string]string{"country": "FR"}, noopNow); quick {
		t.Fatal("dev with --var was answered from the no-op digest of a plan without it")
	}
	req := NoopRequest{Env: "prod", Vars: map[string]string{"country": "FR"}, Now: noopNow}
	quick, _, ok := digest.LookupPromotion(context.Background(), dir, req)
	if !ok {
		t.Fatal("prod with the --var dev was planned with: not answered")
	}
	if full := fullPlan(t, dir, "prod", req.Vars); planText(quick) != planText(full) {
		t.Fatalf("with --var: the quick plan differs:\n%s\n%s", planText(quick), planText(full))
	}
}

// TestQuickPromotionMisses: each input the fingerprints are a function of,
// changed, takes the full path; so does a plan that is not a pure
// promotion.
func TestQuickPromotionMisses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		env    string
		vars   map[string]string
		at     time.Duration
		change func(t *testing.T, dir string)
	}{
		{name: "edited model", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "models/top.sql", noopShop["models/top.sql"]+"WHERE o.customer <> 'bob'\n")
		}},
		{name: "deleted model", change: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "models", "top.sql")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "new file", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "models/more.sql", "MODEL (name mart.more, kind VIEW);\nSELECT 1 AS x\n")
		}},
		{name: "a parent EXTERNAL's columns", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "models/rates.sql", "MODEL (name raw.rates, kind EXTERNAL (files 'data/rates.csv', format csv, header true), columns (country TEXT, rate BIGINT));\n")
		}},
		{name: "edited efmesh.yaml", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "efmesh.yaml", "name: shop\nvars: {country: IT}\n")
		}},
		{name: "the binary", change: func(t *testing.T, dir string) { newBinary(t) }},
		{name: "another --var", vars: map[string]string{"country": "DE"}},
		{name: "an environment's own vars", env: "eu"},
		{name: "an environment with pointers", env: "dev"},
		{name: "the next hour", at: time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := promoted(t)
			if tc.change != nil {
				tc.change(t, dir)
			}
			env := tc.env
			if env == "" {
				env = "prod"
			}
			if _, _, ok := digest.LookupPromotion(ctx, dir, NoopRequest{Env: env, Vars: tc.vars, Now: noopNow.Add(tc.at)}); ok {
				t.Fatal("answered from the fingerprints digest")
			}
		})
	}
}

// TestQuickPromotionNotWritten: a project whose plan is not settled (an
// EXTERNAL model whose columns come from the warehouse) leaves no
// fingerprints digest.
func TestQuickPromotionNotWritten(t *testing.T) {
	files := promoShop()
	files["models/rates.sql"] = "MODEL (name raw.rates, kind EXTERNAL (files 'data/rates.csv', format csv, header true));\n"
	dir := writeProject(t, files)
	applyEnv(t, dir, "dev", noopNow)
	planPlain(t, dir, "dev", nil, noopNow)
	if _, err := os.Stat(fingerprintsFile(dir)); err == nil {
		t.Fatal("a fingerprints digest for a project with an EXTERNAL model without columns")
	}
	if _, _, ok := digest.LookupPromotion(context.Background(), dir, NoopRequest{Env: "prod", Now: noopNow}); ok {
		t.Fatal("answered")
	}
}

// fingerprintsFile is where the fingerprints digest of the project at
// dir is kept.
func fingerprintsFile(dir string) string {
	return filepath.Join(dir, ".efmesh", "cache", "fingerprints.digest")
}

// newBinary moves the mtime of the running binary, as a new build of
// efmesh (another efmesh or engine version) would; restored at the end of
// the test.
func newBinary(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chtimes(exe, fi.ModTime(), fi.ModTime()) })
	later := fi.ModTime().Add(time.Minute)
	if err := os.Chtimes(exe, later, later); err != nil {
		t.Fatal(err)
	}
}

// quickApply is `efmesh apply env --yes` of a plain request, by the
// fingerprints digest when it answers.
func quickApply(t *testing.T, dir, env string, vars map[string]string) (*ApplyResult, bool) {
	t.Helper()
	req := NoopRequest{Env: env, Vars: vars, Now: noopNow}
	reviewed := false
	res, ok, err := QuickApplyPromotion(context.Background(), dir, req, Options{Now: func() time.Time { return noopNow }},
		ApplyRequest{Noop: &req, Review: func(*planner.Plan) error { reviewed = true; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if ok != reviewed {
		t.Fatalf("answered %v, reviewed %v", ok, reviewed)
	}
	return res, ok
}

// fullApply is Apply of env, the full path.
func fullApply(t *testing.T, dir, env string) *ApplyResult {
	t.Helper()
	ctx := context.Background()
	w, err := Open(ctx, dir, OpenOptions{Options: Options{Now: func() time.Time { return noopNow }}, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, err := w.Apply(ctx, env, ApplyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// promotedState is what an apply of env left: the pointers, the last plan
// record (its summary and status) and the views of the warehouse.
func promotedState(t *testing.T, dir, env string) string {
	t.Helper()
	ctx := context.Background()
	proj := &project.Project{Root: dir}
	src, err := os.ReadFile(filepath.Join(dir, project.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	proj.Config, _ = project.ParseConfig(project.ConfigFile, src)
	st, err := connect.ReadOnlyStore(ctx, proj)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ptrs, err := st.Environment(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := st.Plans(ctx, env, 10)
	if err != nil || len(plans) != 1 {
		t.Fatalf("%s's plan records: %v %v", env, plans, err)
	}
	wh, err := connect.ReadWarehouse(ctx, proj)
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	listed, err := wh.(engine.Catalog).Relations(ctx, []string{"raw", "mart"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	names := slices.Sorted(maps.Keys(ptrs))
	for _, n := range names {
		fmt.Fprintf(&out, "pointer %s %s\n", n, ptrs[n].Fingerprint)
	}
	fmt.Fprintf(&out, "plan %s by %q: %s\n", plans[0].Status, plans[0].AppliedBy, plans[0].Summary)
	for _, l := range listed {
		fmt.Fprintf(&out, "relation %s view=%v\n", l.Relation, l.View)
	}
	return out.String()
}

// TestQuickApplyPromotion: the apply of an environment that promotes what
// dev built is made without loading the project, and leaves what the
// full path leaves: the same result, pointers, plan record (the plan's
// JSON) and views; the environment is then settled.
func TestQuickApplyPromotion(t *testing.T) {
	quickDir, fullDir := promoted(t), promoted(t)
	quick, ok := quickApply(t, quickDir, "prod", nil)
	if !ok || !quick.Applied {
		t.Fatalf("the apply of a pure promotion was not answered from the digest (applied %v)", quick != nil && quick.Applied)
	}
	full := fullApply(t, fullDir, "prod")
	if got, want := AppliedText("prod", &quick.ApplyResult), AppliedText("prod", &full.ApplyResult); got != want {
		t.Fatalf("applied:\n%s\nthe full path:\n%s", got, want)
	}
	if !slices.Equal(quick.Promoted, full.Promoted) || len(quick.Built)+len(full.Built)+len(quick.Removed)+len(full.Removed) != 0 {
		t.Fatalf("promoted %v built %v, the full path %v %v", quick.Promoted, quick.Built, full.Promoted, full.Built)
	}
	if got, want := promotedState(t, quickDir, "prod"), promotedState(t, fullDir, "prod"); got != want {
		t.Fatalf("the store and the warehouse after the apply:\n%s\nafter the full path's:\n%s", got, want)
	}
	if p := fullPlan(t, quickDir, "prod", nil); p.HasChanges {
		t.Fatalf("prod after the quick apply:\n%s", planText(p))
	}
	// prod has pointers now: a second apply is not a pure promotion.
	if _, ok := quickApply(t, quickDir, "prod", nil); ok {
		t.Fatal("the second apply of prod was answered from the digest")
	}
}

// TestQuickApplyPromotionMisses: every input of the decision, changed
// since the digest, takes the full path and changes nothing; so do what
// the full path does beside the promotion (audits of a virtual model, an
// export), the environment promoted by someone else, and a physical
// table dropped while the warehouse's stamps say otherwise.
func TestQuickApplyPromotionMisses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		env    string
		vars   map[string]string
		change func(t *testing.T, dir string)
	}{
		{name: "edited model", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "models/top.sql", noopShop["models/top.sql"]+"WHERE o.customer <> 'bob'\n")
		}},
		{name: "deleted model", change: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "models", "top.sql")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "new file", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "models/more.sql", "MODEL (name mart.more, kind VIEW);\nSELECT 1 AS x\n")
		}},
		{name: "edited efmesh.yaml", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "efmesh.yaml", "name: shop\nvars: {country: IT}\n")
		}},
		{name: "the engine's version", change: func(t *testing.T, dir string) { newBinary(t) }},
		{name: "another --var", vars: map[string]string{"country": "DE"}},
		{name: "a parent EXTERNAL's columns", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "models/rates.sql", "MODEL (name raw.rates, kind EXTERNAL (files 'data/rates.csv', format csv, header true), columns (country TEXT, rate BIGINT));\n")
		}},
		{name: "a parent EXTERNAL's files", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "data/rates.csv", "country,rate\nFR,21\n")
		}},
		{name: "the environment promoted by someone else", change: func(t *testing.T, dir string) {
			// Pointers only: the warehouse's files are as stamped.
			proj := &project.Project{Root: dir}
			proj.Config, _ = project.ParseConfig(project.ConfigFile, []byte(promoShop()["efmesh.yaml"]))
			st, err := connect.Store(ctx, proj)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.Promote(ctx, state.Promotion{Env: "prod", Pointers: map[string]string{}, PlanID: "other", At: noopNow}); err != nil {
				t.Fatal(err)
			}
			ptrs, err := st.Environment(ctx, "dev")
			if err != nil {
				t.Fatal(err)
			}
			one := map[string]string{"raw.orders": ptrs["raw.orders"].Fingerprint}
			if err := st.Promote(ctx, state.Promotion{Env: "prod", Pointers: one, PlanID: "other", At: noopNow}); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a dropped physical table", change: func(t *testing.T, dir string) {
			dropPhysical(t, dir, "raw.orders")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := promoted(t)
			if tc.change != nil {
				tc.change(t, dir)
			}
			env := tc.env
			if env == "" {
				env = "prod"
			}
			before := pointerCount(t, dir, env)
			if _, ok := quickApply(t, dir, env, tc.vars); ok {
				t.Fatal("answered from the fingerprints digest")
			}
			if after := pointerCount(t, dir, env); after != before {
				t.Fatalf("a missed apply changed %s: %d pointers, %d before", env, after, before)
			}
		})
	}
}

// pointerCount is how many pointers env has in dir's store.
func pointerCount(t *testing.T, dir, env string) int {
	t.Helper()
	ctx := context.Background()
	proj := &project.Project{Root: dir}
	src, err := os.ReadFile(filepath.Join(dir, project.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	proj.Config, _ = project.ParseConfig(project.ConfigFile, src)
	st, err := connect.ReadOnlyStore(ctx, proj)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ptrs, err := st.Environment(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	return len(ptrs)
}

// dropPhysical drops the physical table of model that dev built, by hand,
// in the warehouse.
func dropPhysical(t *testing.T, dir, model string) {
	t.Helper()
	ctx := context.Background()
	proj := &project.Project{Root: dir}
	proj.Config, _ = project.ParseConfig(project.ConfigFile, []byte(promoShop()["efmesh.yaml"]))
	st, err := connect.ReadOnlyStore(ctx, proj)
	if err != nil {
		t.Fatal(err)
	}
	ptrs, err := st.Environment(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	heads, err := st.SnapshotHeads(ctx, []string{ptrs[model].Fingerprint})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	table := heads[ptrs[model].Fingerprint].PhysicalTable
	if table == "" {
		t.Fatalf("no physical table for %s", model)
	}
	wh, err := connect.Warehouse(ctx, proj)
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	s, n := analysis.SplitName(table)
	if err := wh.Exec(ctx, "DROP TABLE "+wh.Dialect().QuoteRelation(engine.Relation{Schema: s, Name: n})); err != nil {
		t.Fatal(err)
	}
}
