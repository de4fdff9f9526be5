package workspace

import (
	"bytes"
	"context"
	"encoding/gob"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/planner"
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
	if _, err := os.Stat(fingerprintsPath(dir)); err != nil {
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
		quick, unused, ok := QuickPromotion(context.Background(), dir, req)
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
	quick, _, ok := QuickPromotion(context.Background(), dir, req)
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
		{name: "the binary", change: func(t *testing.T, dir string) {
			rewriteFingerprints(t, dir, func(d *fingerprintsDigest) { d.Binary.Size++ })
		}},
		{name: "another --var", vars: map[string]string{"country": "DE"}},
		{name: "an environment's own vars", env: "eu"},
		{name: "an environment with pointers", env: "dev"},
		{name: "the next hour", at: time.Hour},
		{name: "an unbuilt snapshot", change: func(t *testing.T, dir string) {
			rewriteFingerprints(t, dir, func(d *fingerprintsDigest) { d.Models[0].Fingerprint = "0000" })
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
			if _, _, ok := QuickPromotion(ctx, dir, NoopRequest{Env: env, Vars: tc.vars, Now: noopNow.Add(tc.at)}); ok {
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
	if _, err := os.Stat(fingerprintsPath(dir)); err == nil {
		t.Fatal("a fingerprints digest for a project with an EXTERNAL model without columns")
	}
	if _, _, ok := QuickPromotion(context.Background(), dir, NoopRequest{Env: "prod", Now: noopNow}); ok {
		t.Fatal("answered")
	}
}

func rewriteFingerprints(t *testing.T, dir string, edit func(*fingerprintsDigest)) {
	t.Helper()
	raw, err := os.ReadFile(fingerprintsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	body, ok := analysis.Unseal("fingerprints", fingerprintsFormat, raw)
	if !ok {
		t.Fatal("the fingerprints digest is not sealed")
	}
	var d fingerprintsDigest
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&d); err != nil {
		t.Fatal(err)
	}
	edit(&d)
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&d); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(fingerprintsPath(dir), analysis.Seal("fingerprints", fingerprintsFormat, buf.Bytes())); err != nil {
		t.Fatal(err)
	}
}
