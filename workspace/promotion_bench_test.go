package workspace_test

import (
	"context"
	"testing"
	"time"

	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/workspace"
	"github.com/efmesh/efmesh/workspace/digest"
)

// BenchmarkPlanPromotion2000 is `efmesh plan prod` of a 2,000-model
// project dev has applied (a DuckDB file warehouse, SQLite state): quick
// is the answer from the fingerprints digest the apply left, full the
// full path (open, analyse through the check cache, plan).
//
//	go test ./workspace -run '^$' -bench 'PlanPromotion2000' -benchtime 5x -cpuprofile /tmp/planpromo.prof
func BenchmarkPlanPromotion2000(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: 2000, Warehouse: "wh.duckdb"}); err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	open := func(env string) *workspace.Workspace {
		w, err := workspace.Open(ctx, dir, workspace.OpenOptions{Options: workspace.Options{Now: func() time.Time { return now }}, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		return w
	}
	w := open("dev")
	if _, err := w.Apply(ctx, "dev", workspace.ApplyRequest{Noop: &workspace.NoopRequest{Env: "dev", Now: now}}); err != nil {
		b.Fatal(err)
	}
	w.Close()
	req := workspace.NoopRequest{Env: "prod", Now: now}
	b.Run("quick", func(b *testing.B) {
		for b.Loop() {
			if _, _, ok := digest.LookupPromotion(ctx, dir, req); !ok {
				b.Fatal("not answered from the fingerprints digest")
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			w := open("prod")
			p, err := w.Plan(ctx, "prod", planner.PlanAt(now))
			w.Close()
			if err != nil {
				b.Fatal(err)
			}
			if p.Summary().Promote != 2000 {
				b.Fatalf("promote %d", p.Summary().Promote)
			}
		}
	})
}
