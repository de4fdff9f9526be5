package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var shop = map[string]string{
	"efmesh.yaml":       "name: shop\n",
	"models/orders.sql": "MODEL (name raw.orders, kind FULL);\nSELECT 1 AS order_id, 'ann' AS customer\n",
	"models/top.sql":    "MODEL (name mart.top, kind VIEW);\nSELECT o.customer FROM @ref(raw.orders) AS o\n",
}

// TestApply: the lock comes before the warehouse (an apply that cannot
// have it neither opens nor creates the DuckDB file); Review sees the plan
// and can stop it; the result says what was built and promoted.
func TestApply(t *testing.T) {
	ctx := context.Background()
	dir := writeProject(t, shop)
	w, err := Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	st, err := connect.Store(ctx, w.Project)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lk, err := planner.AcquireLock(ctx, st, planner.EnvLock("dev"), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Apply(ctx, "dev", ApplyRequest{})
	var held *planner.LockHeldError
	if !errors.As(err, &held) {
		t.Fatalf("apply while the lock is held: %v, want a *planner.LockHeldError", err)
	}
	if _, err := os.Stat(connect.WarehousePath(w.Project)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the warehouse was opened without the lock: %v", err)
	}
	lk.Release()

	stop := errors.New("not now")
	res, err := w.Apply(ctx, "dev", ApplyRequest{Review: func(p *planner.Plan) error { return stop }})
	if err != stop || res.Plan == nil || res.Applied {
		t.Fatalf("a review that says no: %v, %+v", err, res)
	}
	res, err = w.Apply(ctx, "dev", ApplyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Applied || strings.Join(res.Built, ",") != "raw.orders,mart.top" || len(res.Promoted) != 2 {
		t.Fatalf("apply: %+v", res)
	}
	if got, want := AppliedText("dev", &res.ApplyResult), "Applied to dev: built 2, promoted 2.\n"; got != want {
		t.Errorf("applied text: %q, want %q", got, want)
	}
	p, err := w.Plan(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := PlanText(p), "No changes: environment dev is up to date (2 models).\n"; got != want {
		t.Errorf("plan text after apply: %q, want %q", got, want)
	}
}

// TestOpenScope: problems outside the request's scope are left aside, not
// an error; inside it they stop Open.
func TestOpenScope(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"models/bad.sql": "MODEL (name mart.bad, kind FULL);\nSELECT x FROM @ref(mart.nope)\n"}
	for k, v := range shop {
		files[k] = v
	}
	dir := writeProject(t, files)
	if _, err := Open(ctx, dir, OpenOptions{}); err == nil {
		t.Fatal("a project with an unknown ref opened")
	}
	w, err := Open(ctx, dir, OpenOptions{Scope: func(p *project.Project) project.Scope {
		sc, _ := p.ScopeOf([]string{"mart.top"}, nil)
		return sc
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if len(w.LeftAside) == 0 || w.LeftAside[0].File != "models/bad.sql" {
		t.Fatalf("left aside: %v", w.LeftAside)
	}
	sql, err := w.Render("mart.top", "dev", time.Now())
	if err != nil || !strings.Contains(sql, `"dev__raw"."orders"`) {
		t.Fatalf("render: %q, %v", sql, err)
	}
	model, column, _, err := analysis.ParseColumnPath(w.Analysis, "mart.top.customer")
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.Lineage(model, column)
	if err != nil || n.Model != "mart.top" || n.Column != "customer" || len(n.Sources) != 1 || n.Sources[0].Model != "raw.orders" {
		t.Fatalf("lineage: %+v, %v", n, err)
	}
}

// TestLoadFor: the variables in force are efmesh.yaml's, then the
// environment's, then the overrides; an override nothing reads is
// reported with the near name.
func TestLoadFor(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":      "name: shop\nvars: {country: FR}\nenvironments:\n  dev:\n    vars: {country: DE}\n",
		"models/local.sql": "MODEL (name shop.local, kind VIEW);\nSELECT @var(country) AS c\n",
	})
	for _, tc := range []struct {
		env  string
		vars map[string]string
		want string
	}{
		{"prod", nil, "FR"},
		{"dev", nil, "DE"},
		{"dev", map[string]string{"country": "IT"}, "IT"},
	} {
		p, unused, err := LoadFor(filepath.Join(dir, "models"), tc.env, tc.vars)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Config.Variables["country"]; got != tc.want || len(unused) > 0 {
			t.Errorf("%s %v: country = %q, unused %v; want %q", tc.env, tc.vars, got, unused, tc.want)
		}
	}
	_, unused, err := LoadFor(dir, "dev", map[string]string{"contry": "IT"})
	if err != nil {
		t.Fatal(err)
	}
	if len(unused) != 1 || unused[0] != (project.UnusedVar{Name: "contry", Suggestion: "country"}) {
		t.Errorf("unused = %v, want contry (did you mean country)", unused)
	}
}
