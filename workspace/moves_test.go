package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/project"
)

// TestNoopDigestAfterPromotion: a promotion of another environment writes
// the warehouse (its views), which moves the warehouse file's stamps; the
// digests of the environments whose relations it did not write keep
// answering, the promoted environment's own digest is written by the
// promotion, and each answer is the full path's plan. A real change still
// falls off the digest.
func TestNoopDigestAfterPromotion(t *testing.T) {
	ctx := context.Background()
	dir := promoted(t)
	devWant := planText(fullPlan(t, dir, "dev", nil))
	if _, quick := planPlain(t, dir, "dev", nil, noopNow); !quick {
		t.Fatal("dev before any promotion: not answered from the digest")
	}
	for _, env := range []string{"prod", "staging"} {
		if res, ok := quickApply(t, dir, env, nil); !ok || !res.Applied {
			t.Fatalf("the promotion of %s was not answered from the fingerprints digest", env)
		}
		for _, e := range []string{"dev", "prod", env} {
			p, quick := planPlain(t, dir, e, nil, noopNow)
			if !quick {
				t.Fatalf("after the promotion of %s, the plan of %s fell off its digest", env, e)
			}
			if got, want := planText(p), planText(fullPlan(t, dir, e, nil)); got != want {
				t.Fatalf("after the promotion of %s, %s's digest answered:\n%s\nthe full path:\n%s", env, e, got, want)
			}
			if e == "dev" && planText(p) != devWant {
				t.Fatalf("dev's plan moved with the promotion of %s:\n%s\nwant\n%s", env, planText(p), devWant)
			}
		}
	}

	// A view of dev dropped by hand: the warehouse moved with no logged
	// move, and dev's plan sees it; prod's digest misses too (any
	// unlogged write is a miss) and its full plan finds nothing to do.
	proj := &project.Project{Root: dir}
	src, err := os.ReadFile(filepath.Join(dir, project.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	proj.Config, _ = project.ParseConfig(project.ConfigFile, src)
	db, err := duckdb.Open(connect.WarehousePath(proj))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, "DROP VIEW dev__mart.top"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	p, quick := planPlain(t, dir, "dev", nil, noopNow)
	if quick || !p.HasChanges {
		t.Fatalf("dev after its view was dropped: quick %v, changes %v", quick, p.HasChanges)
	}
	if p, quick := planPlain(t, dir, "prod", nil, noopNow); quick || p.HasChanges {
		t.Fatalf("prod after a write nobody logged: quick %v, changes %v", quick, p.HasChanges)
	}

	// An edited file: every digest misses.
	writeFile(t, dir, "models/top.sql", noopShop["models/top.sql"]+"WHERE o.customer <> 'bob'\n")
	if p, quick := planPlain(t, dir, "prod", nil, noopNow); quick || !p.HasChanges {
		t.Fatalf("prod after an edit: quick %v, changes %v", quick, p.HasChanges)
	}
}
