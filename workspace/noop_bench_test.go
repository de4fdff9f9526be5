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

// BenchmarkNoopPlan2000 is the no-op plan after apply of a 2,000-model
// project (a DuckDB file warehouse, SQLite state), as `efmesh plan` makes
// it: full (load, check through a warm check cache, diff against the store
// and the warehouse) and from the no-op digest (Lookup).
func BenchmarkNoopPlan2000(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: 2000, Warehouse: "wh.duckdb"}); err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	open := func() *workspace.Workspace {
		w, err := workspace.Open(ctx, dir, workspace.OpenOptions{Options: workspace.Options{Now: func() time.Time { return now }}, Env: "dev"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.OpenStore(ctx); err != nil {
			b.Fatal(err)
		}
		return w
	}
	w := open()
	if _, err := w.Apply(ctx, "dev", workspace.ApplyRequest{}); err != nil {
		b.Fatal(err)
	}
	w.Close()
	req := workspace.NoopRequest{Env: "dev", Now: now}
	full := func() {
		w := open()
		defer w.Close()
		p, err := w.Plan(ctx, "dev", planner.PlanAt(now))
		if err != nil {
			b.Fatal(err)
		}
		if p.HasChanges {
			b.Fatal("the plan after apply has changes")
		}
		if err := w.RememberNoop(req, p); err != nil {
			b.Fatal(err)
		}
	}
	full() // remembers the digest
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			full()
		}
	})
	b.Run("digest", func(b *testing.B) {
		for b.Loop() {
			if _, ok := digest.Lookup(ctx, dir, req); !ok {
				b.Fatal("the digest did not answer")
			}
		}
	})
}
