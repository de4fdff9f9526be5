package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/state/sqlite"
	"github.com/efmesh/efmesh/workspace/digest"
)

var noopShop = map[string]string{
	"efmesh.yaml":        "name: shop\nvars: {country: FR}\n",
	"models/orders.sql":  "MODEL (name raw.orders, kind FULL);\nSELECT 1 AS order_id, 'ann' AS customer, @var(country) AS country\n",
	"models/top.sql":     "MODEL (name mart.top, kind VIEW);\nSELECT o.customer FROM @ref(raw.orders) AS o\n",
	"models/regions.sql": "MODEL (name raw.regions, kind SEED (path 'seeds/regions.csv'), columns (id INT, label TEXT));\n",
	"seeds/regions.csv":  "id,label\n1,north\n",
}

var noopNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// planPlain is what `efmesh plan env` does with no other flag: the digest's
// answer when it has one (quick), else the full plan, remembered.
func planPlain(t *testing.T, dir, env string, vars map[string]string, now time.Time) (p *planner.Plan, quick bool) {
	t.Helper()
	ctx := context.Background()
	req := NoopRequest{Env: env, Vars: vars, Now: now}
	if hit, ok := digest.Lookup(ctx, dir, req); ok {
		p, err := hit.Plan()
		if err != nil {
			t.Fatal(err)
		}
		if hit.Text != PlanText(p) {
			t.Fatalf("the digest's text is not its plan's:\n%s\n%s", hit.Text, PlanText(p))
		}
		return p, true
	}
	w, err := Open(ctx, dir, OpenOptions{Options: Options{Now: func() time.Time { return now }}, Env: env, Vars: vars})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.OpenStore(ctx); err != nil {
		t.Fatal(err)
	}
	p, err = w.Plan(ctx, env, planner.PlanAt(now))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RememberNoop(req, p); err != nil {
		t.Fatal(err)
	}
	return p, false
}

func applyEnv(t *testing.T, dir, env string, now time.Time) {
	t.Helper()
	ctx := context.Background()
	w, err := Open(ctx, dir, OpenOptions{Options: Options{Now: func() time.Time { return now }}, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.OpenStore(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Apply(ctx, env, ApplyRequest{}); err != nil {
		t.Fatal(err)
	}
}

func planText(p *planner.Plan) string {
	var b bytes.Buffer
	WritePlan(&b, p)
	j, _ := json.Marshal(p)
	return b.String() + string(j)
}

func writeFile(t *testing.T, dir, rel, body string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// later moves the mtime of rel a second on, as an editor's save of the same
// bytes would.
func touch(t *testing.T, dir, rel string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	at := fi.ModTime().Add(time.Second)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// settled applies dev on a fresh copy of noopShop and makes the plan that
// remembers the digest; the next plain plan is quick.
func settled(t *testing.T) (dir, want string) {
	t.Helper()
	dir = writeProject(t, noopShop)
	applyEnv(t, dir, "dev", noopNow)
	p, quick := planPlain(t, dir, "dev", nil, noopNow)
	if quick || p.HasChanges {
		t.Fatalf("first plan after apply: quick %v, changes %v", quick, p.HasChanges)
	}
	q, quick := planPlain(t, dir, "dev", nil, noopNow)
	if !quick {
		t.Fatal("the second plan of an unchanged project was not answered by the digest")
	}
	if planText(q) != planText(p) {
		t.Fatalf("the digest's plan differs from the full plan:\n%s\n%s", planText(q), planText(p))
	}
	settleStore(t, dir, "dev")
	return dir, planText(p)
}

// settleStore ages the state file (as if written an hour ago) and has a
// quick plan of env keep its stamps, so that the next quick plan reads no
// token: the store is then recognised by its stamps alone.
func settleStore(t *testing.T, dir, env string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	db := filepath.Join(dir, ".efmesh", "state.db")
	for _, f := range []string{db, db + "-wal"} {
		if err := os.Chtimes(f, old, old); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if _, ok := digest.Lookup(context.Background(), dir, NoopRequest{Env: env, Now: noopNow}); !ok {
		t.Fatal("an aged state file missed the digest")
	}
	if hit, ok := digest.Lookup(context.Background(), dir, NoopRequest{Env: env, Now: noopNow}); !ok || !hit.ByStamps {
		t.Fatal("the digest does not keep the settled state file's stamps")
	}
}

// TestNoopStoreStamps: a digest that knows the state file's stamps answers
// without the store's token while they hold; a write to the store moves
// them, and the token decides: a write about another environment leaves
// dev's plan as it was (a hit, the new stamps kept once settled), a write
// about dev misses.
func TestNoopStoreStamps(t *testing.T) {
	ctx := context.Background()
	dir, want := settled(t)
	if p, quick := planPlain(t, dir, "dev", nil, noopNow); !quick || planText(p) != want {
		t.Fatalf("stamps held: quick %v", quick)
	}
	journal := func(env string) {
		t.Helper()
		st, err := sqlite.Open(ctx, filepath.Join(dir, ".efmesh", "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.RecordPlan(ctx, state.PlanRecord{ID: "elsewhere-" + env, Env: env, CreatedAt: noopNow, Status: state.PlanFailed, Summary: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	journal("qa")
	// The stamps moved: the token is read, and matches.
	if hit, ok := digest.Lookup(ctx, dir, NoopRequest{Env: "dev", Now: noopNow}); !ok || hit.ByStamps {
		t.Fatalf("after a write about qa: hit %v, by the old stamps %v", ok, hit.ByStamps)
	}
	if p, quick := planPlain(t, dir, "dev", nil, noopNow); !quick || planText(p) != want {
		t.Fatalf("after a write about qa: quick %v", quick)
	}
	// Settled, the new stamps are kept.
	settleStore(t, dir, "dev")
	journal("dev")
	if _, ok := digest.Lookup(ctx, dir, NoopRequest{Env: "dev", Now: noopNow}); ok {
		t.Fatal("answered from the digest after a write about dev")
	}
}

// TestNoopDigest: an unchanged project (even touched) is answered from the
// digest, the same plan as the full path's.
func TestNoopDigest(t *testing.T) {
	dir, want := settled(t)
	for _, rel := range []string{"models/orders.sql", "efmesh.yaml", "seeds/regions.csv"} {
		touch(t, dir, rel)
		p, quick := planPlain(t, dir, "dev", nil, noopNow.Add(30*time.Minute))
		if !quick || planText(p) != want {
			t.Fatalf("after touching %s: quick %v, plan\n%s", rel, quick, planText(p))
		}
	}
	// A plan of another environment has its own digest.
	if _, quick := planPlain(t, dir, "prod", nil, noopNow); quick {
		t.Fatal("prod was answered from dev's digest")
	}
}

// TestNoopDigestInvalidation: each change the digest watches falls back to
// the full plan, and the full plan sees the change.
func TestNoopDigestInvalidation(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		change  func(t *testing.T, dir string)
		vars    map[string]string
		at      time.Duration
		changes bool // whether the full plan then has changes
	}{
		{name: "edited model", changes: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "models/orders.sql", noopShop["models/orders.sql"]+"UNION ALL SELECT 2, 'bob', 'DE'\n")
		}},
		{name: "new model", changes: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "models/more.sql", "MODEL (name mart.more, kind VIEW);\nSELECT 1 AS x\n")
		}},
		{name: "removed model", changes: true, change: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "models", "top.sql")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "edited efmesh.yaml", changes: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "efmesh.yaml", "name: shop\nvars: {country: IT}\n")
		}},
		{name: "edited seed", changes: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "seeds/regions.csv", "id,label\n1,north\n2,south\n")
		}},
		{name: "another --var", vars: map[string]string{"country": "DE"}, changes: true},
		{name: "the same --var as efmesh.yaml", vars: map[string]string{"country": "FR"}},
		{name: "the next hour", at: time.Hour},
		{name: "an earlier clock", at: -time.Minute},
		{name: "a table dropped from the warehouse", changes: true, change: func(t *testing.T, dir string) {
			w, err := Open(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			p, _ := w.Plan(ctx, "dev")
			table := ""
			for _, m := range p.Models {
				if m.Name == "raw.orders" {
					table = m.PhysicalTable
				}
			}
			db, err := duckdb.Open(connect.WarehousePath(w.Project))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Exec(ctx, "DROP TABLE "+table+" CASCADE"); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "another machine's apply", changes: true, change: func(t *testing.T, dir string) {
			// Another checkout applies a change to dev; this one's files
			// are as they were (same bytes, another mtime).
			other := t.TempDir()
			for rel, body := range noopShop {
				writeFile(t, other, rel, body)
			}
			writeFile(t, other, "models/orders.sql", noopShop["models/orders.sql"]+"UNION ALL SELECT 2, 'bob', 'DE'\n")
			writeFile(t, other, "efmesh.yaml", noopShop["efmesh.yaml"]+"engine: {type: duckdb, path: "+filepath.Join(dir, "efmesh.duckdb")+"}\nstate: {type: sqlite, path: "+filepath.Join(dir, ".efmesh", "state.db")+"}\n")
			applyEnv(t, other, "dev", noopNow)
			touch(t, dir, "models/orders.sql")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, want := settled(t)
			if tc.change != nil {
				tc.change(t, dir)
			}
			p, quick := planPlain(t, dir, "dev", tc.vars, noopNow.Add(tc.at))
			if quick {
				t.Fatal("answered from the digest")
			}
			if p.HasChanges != tc.changes {
				t.Fatalf("the full plan has changes %v, want %v:\n%s", p.HasChanges, tc.changes, planText(p))
			}
			if !tc.changes && planText(p) != want {
				t.Fatalf("the full plan differs:\n%s\nwant\n%s", planText(p), want)
			}
			// A plan with changes leaves no digest behind.
			if _, quick := planPlain(t, dir, "dev", tc.vars, noopNow.Add(tc.at)); quick == tc.changes {
				t.Fatalf("the next plan: quick %v", quick)
			}
		})
	}
}

// TestNoopDigestSelection: a plan of a selection is not remembered, and
// removes the digest it cannot vouch for.
func TestNoopDigestSelection(t *testing.T) {
	ctx := context.Background()
	dir, _ := settled(t)
	w, err := Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Selection = Selection{Selects: []string{"mart.top"}}
	p, err := w.Plan(ctx, "dev", planner.PlanAt(noopNow))
	if err != nil {
		t.Fatal(err)
	}
	req := NoopRequest{Env: "dev", Now: noopNow}
	if err := w.RememberNoop(req, p); err != nil {
		t.Fatal(err)
	}
	if _, ok := digest.Lookup(ctx, dir, req); ok {
		t.Fatal("a digest survived a plan of a selection")
	}
}

// TestNoopDigestFolders: once the project's folders are older than a
// coarse clock's tick, the digest vouches for the listing by their stamps
// alone; a file added in a folder, or in a new subfolder, still misses.
func TestNoopDigestFolders(t *testing.T) {
	for _, tc := range []struct {
		name string
		add  string
	}{
		{"a file in a listed folder", "models/more.sql"},
		{"a file in a new subfolder", "models/deep/more.sql"},
		{"a test file in a folder not yet created", "tests/more.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, noopShop)
			applyEnv(t, dir, "dev", noopNow)
			old := time.Now().Add(-time.Hour)
			for _, d := range []string{".", "models", "seeds"} {
				if err := os.Chtimes(filepath.Join(dir, d), old, old); err != nil {
					t.Fatal(err)
				}
			}
			if _, quick := planPlain(t, dir, "dev", nil, noopNow); quick {
				t.Fatal("the first plan was quick")
			}
			if _, quick := planPlain(t, dir, "dev", nil, noopNow); !quick {
				t.Fatal("an unchanged project was not answered from the digest")
			}
			writeFile(t, dir, tc.add, "MODEL (name mart.more, kind VIEW);\nSELECT 1 AS x\n")
			if _, ok := digest.Lookup(context.Background(), dir, NoopRequest{Env: "dev", Now: noopNow}); ok {
				t.Fatalf("answered from the digest after adding %s", tc.add)
			}
		})
	}
}

// TestNoopDigestBesideProject: a file written beside efmesh.yaml (the
// warehouse, its WAL, a note) is outside every glob: the folders the
// digest vouches for do not include the project's root, so a plan right
// after an apply is still answered by stat calls, without listing files.
func TestNoopDigestBesideProject(t *testing.T) {
	dir := writeProject(t, noopShop)
	applyEnv(t, dir, "dev", noopNow)
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{".", "models", "seeds"} {
		if err := os.Chtimes(filepath.Join(dir, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, quick := planPlain(t, dir, "dev", nil, noopNow); quick {
		t.Fatal("the first plan was quick")
	}
	writeFile(t, dir, "notes.txt", "scratch\n")
	if _, quick := planPlain(t, dir, "dev", nil, noopNow); !quick {
		t.Fatal("a file beside efmesh.yaml missed the digest")
	}
	// A folder a glob names, created now, still misses.
	writeFile(t, dir, "audits/more.sql", "AUDIT (name more);\nSELECT 1 WHERE false\n")
	if _, ok := digest.Lookup(context.Background(), dir, NoopRequest{Env: "dev", Now: noopNow}); ok {
		t.Fatal("answered from the digest after creating audits/")
	}
}
