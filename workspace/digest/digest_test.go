package digest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/state/sqlite"
)

// TestNoopValidUntilCron: a digest answers no longer than the plan it
// holds is true; the plan names the FULL models due for their cron, so a
// cron firing before the hour ends ends the digest's answer there.
func TestNoopValidUntilCron(t *testing.T) {
	now := time.Date(2026, 2, 1, 10, 5, 0, 0, time.UTC)
	full := func(cron string) *project.Model {
		return &project.Model{Kind: project.Kind{Name: project.KindFull}, Cron: cron}
	}
	for _, tc := range []struct {
		models []*project.Model
		want   time.Time
	}{
		{nil, time.Date(2026, 2, 1, 11, 0, 0, 0, time.UTC)},
		{[]*project.Model{full("")}, time.Date(2026, 2, 1, 11, 0, 0, 0, time.UTC)}, // @daily
		{[]*project.Model{full("@daily"), full("*/15 * * * *")}, time.Date(2026, 2, 1, 10, 15, 0, 0, time.UTC)},
		{[]*project.Model{{Kind: project.Kind{Name: project.KindView}, Cron: "* * * * *"}}, time.Date(2026, 2, 1, 11, 0, 0, 0, time.UTC)},
	} {
		if got := validUntil(&project.Project{Models: tc.models}, now); !got.Equal(tc.want) {
			t.Errorf("validUntil = %v, want %v", got, tc.want)
		}
	}
}

// TestWarehouseMoves: the walk from a digest's stamps to the warehouse's
// along the logged moves answers only when every move on the way wrote
// none of the digest's schemas and the walk ends at the stamps now.
func TestWarehouseMoves(t *testing.T) {
	root := t.TempDir()
	w := func(n int64) []Stamp { return []Stamp{{Path: "wh", Size: n, ModTime: n}} }
	for _, m := range []struct {
		from, to int64
		schemas  []string
	}{{1, 2, []string{"Prod_A"}}, {2, 3, []string{"staging__a"}}, {7, 8, nil}, {3, 4, []string{"dev__a"}}} {
		if err := logMove(root, w(m.from), w(m.to), m.schemas); err != nil {
			t.Fatal(err)
		}
	}
	dev := lowerSet([]string{"efmesh", "dev__a"})
	prod := lowerSet([]string{"efmesh", "prod_a"})
	for _, tc := range []struct {
		name      string
		then, now int64
		schemas   []string
		want      bool
	}{
		{"unchanged", 1, 1, nil, true},
		{"unknown schemas", 1, 2, nil, false},
		{"around dev", 1, 3, dev, true},
		{"through dev's own", 1, 4, dev, false},
		{"through prod's own", 1, 2, prod, false},
		{"around prod", 2, 4, prod, true},
		{"a write nobody logged", 1, 5, dev, false},
		{"no move from there", 5, 8, dev, false},
		{"a move from elsewhere", 7, 8, dev, true},
	} {
		if got := warehouseMovedAround(root, w(tc.then), w(tc.now), tc.schemas); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRecorderRacy: a file read within its mtime's tick is stamped racy,
// with its content hash (compared by content next time); an older one is
// not racy.
func TestRecorderRacy(t *testing.T) {
	dir := t.TempDir()
	fresh, old := filepath.Join(dir, "fresh.sql"), filepath.Join(dir, "old.sql")
	for _, p := range []string{fresh, old} {
		if err := os.WriteFile(p, []byte("SELECT 1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	coarse := time.Now().Truncate(time.Second) // a whole second: a coarse clock
	if err := os.Chtimes(fresh, coarse, coarse); err != nil {
		t.Fatal(err)
	}
	aged := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, aged, aged); err != nil {
		t.Fatal(err)
	}
	var r Recorder
	for _, p := range []string{fresh, old} {
		if _, err := r.Read(p); err != nil {
			t.Fatal(err)
		}
	}
	if s := r.files[0]; !s.Racy || s.Hash == "" {
		t.Errorf("a file read within its mtime's tick: %+v, want racy and hashed", s)
	}
	if s := r.files[1]; s.Racy {
		t.Errorf("a file an hour old: %+v, want not racy", s)
	}
}

// TestGlobDirs: the folders the globs list, once settled, are stamped
// (the folders below a ** glob's base, a glob's own folder, a missing
// base stamped missing), and a file added in any of them, or the missing
// base created, moves their stamps.
func TestGlobDirs(t *testing.T) {
	for _, add := range []string{"models/more.sql", "models/deep/more.sql", "tests/more.yaml", "seeds/x.csv"} {
		t.Run(add, func(t *testing.T) {
			root := t.TempDir()
			for _, d := range []string{"models/deep", "seeds"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			old := time.Now().Add(-time.Hour)
			for _, d := range []string{".", "models", "models/deep", "seeds"} {
				if err := os.Chtimes(filepath.Join(root, d), old, old); err != nil {
					t.Fatal(err)
				}
			}
			globs := [3][]string{{"models/**/*.sql", "seeds/*.csv"}, {"tests/*.yaml"}, nil}
			s := projectSeen{Dirs: globDirs(root, globs, time.Now())}
			if len(s.Dirs) == 0 || !s.sameDirs() {
				t.Fatalf("the folders are not vouched for: %+v", s.Dirs)
			}
			// A file beside efmesh.yaml is in no folder the globs list.
			if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("scratch"), 0o644); err != nil {
				t.Fatal(err)
			}
			if !s.sameDirs() {
				t.Fatal("a file beside efmesh.yaml moved the folders the digest vouches for")
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, add)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, add), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			if s.sameDirs() {
				t.Fatalf("the folders' stamps did not move with %s", add)
			}
		})
	}
}

// TestPromotionPlanReadsTheStore: the fingerprints digest answers a
// promotion only of snapshots the store holds, built under the table the
// digest names, into an environment without pointers.
func TestPromotionPlanReadsTheStore(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	snap := state.Snapshot{Fingerprint: "aaaa", FingerprintVersion: 1, Name: "s.a", Kind: "FULL", PhysicalTable: "_efmesh.s__a__aaaa", CreatedAt: now}
	if err := st.PutSnapshot(ctx, snap); err != nil {
		t.Fatal(err)
	}
	proj := &project.Project{Root: t.TempDir()}
	digestOf := func(fp, table string) *fingerprintsDigest {
		return &fingerprintsDigest{Models: []fpModel{{Name: "s.a", Kind: "FULL", Fingerprint: fp, PhysicalTable: table}}}
	}
	req := Request{Env: "prod", Now: now}
	if _, ok := promotionPlan(ctx, st, req, digestOf("aaaa", snap.PhysicalTable), proj); ok {
		t.Fatal("a snapshot not built yet was promoted")
	}
	if err := st.MarkBuilt(ctx, "aaaa", now); err != nil {
		t.Fatal(err)
	}
	q, ok := promotionPlan(ctx, st, req, digestOf("aaaa", snap.PhysicalTable), proj)
	if !ok || len(q.plan.Models) != 1 || q.plan.Models[0].Change != planner.Added || !q.plan.HasChanges {
		t.Fatalf("a built snapshot: ok %v, plan %+v", ok, q.plan)
	}
	if _, ok := promotionPlan(ctx, st, req, digestOf("0000", snap.PhysicalTable), proj); ok {
		t.Fatal("a snapshot the store does not hold was promoted")
	}
	if _, ok := promotionPlan(ctx, st, req, digestOf("aaaa", "_efmesh.other"), proj); ok {
		t.Fatal("a snapshot built under another table was promoted")
	}
	if err := st.Promote(ctx, state.Promotion{Env: "prod", Pointers: map[string]string{"s.a": "aaaa"}, PlanID: "p", At: now}); err != nil {
		t.Fatal(err)
	}
	if _, ok := promotionPlan(ctx, st, req, digestOf("aaaa", snap.PhysicalTable), proj); ok {
		t.Fatal("an environment with pointers was answered as a pure promotion")
	}
}

// TestPromotableModels: a virtual model (EXTERNAL, EMBEDDED) with audits (run before a
// promotion) or an export into an attached database (prod) is more than a
// promotion: the fingerprints digest marks them, and the apply takes the
// full path.
func TestPromotableModels(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"efmesh.yaml":          "name: shop\nattach: {app: {type: duckdb, path: out/app.duckdb}}\n",
		"models/orders.sql":    "MODEL (name raw.orders, kind FULL);\nSELECT 1 AS order_id\n",
		"models/src.sql":       "MODEL (name raw.src, kind EXTERNAL (table src.t), columns (order_id INT), audits (not_null(order_id)));\n",
		"models/customers.sql": "MODEL (name mart.customers, kind FULL, export (attach app, table public.customers));\nSELECT o.order_id FROM @ref(raw.orders) AS o\n",
	}
	for rel, body := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proj, err := project.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if project.HasErrors(proj.Diagnostics) {
		t.Fatalf("the project: %v", proj.Diagnostics)
	}
	p := &planner.Plan{Env: "dev"}
	for _, m := range proj.Models {
		p.Models = append(p.Models, planner.ModelPlan{Name: m.Name, Kind: string(m.Kind.Name), Change: planner.Unchanged, Fingerprint: m.Name, PhysicalTable: "_efmesh." + m.Name})
	}
	models, ok := settledModels(proj, p)
	if !ok {
		t.Fatal("a settled plan was not remembered")
	}
	got := map[string]fpModel{}
	for _, m := range models {
		got[m.Name] = m
	}
	if !got["raw.src"].Audited || got["raw.orders"].Audited || got["mart.customers"].Audited {
		t.Errorf("audited: %+v", got)
	}
	if !got["mart.customers"].Exported || got["raw.orders"].Exported {
		t.Errorf("exported: %+v", got)
	}
	for _, tc := range []struct {
		models []string
		env    string
		want   bool
	}{
		{[]string{"raw.orders"}, "prod", true},
		{[]string{"raw.orders", "raw.src"}, "staging", false},
		{[]string{"raw.orders", "mart.customers"}, "prod", false},
		{[]string{"raw.orders", "mart.customers"}, "staging", true},
	} {
		d := &fingerprintsDigest{}
		for _, n := range tc.models {
			d.Models = append(d.Models, got[n])
		}
		if promotable(d, tc.env) != tc.want {
			t.Errorf("%v into %s: promotable %v, want %v", tc.models, tc.env, !tc.want, tc.want)
		}
	}
}
