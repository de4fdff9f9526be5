package workspace_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/workspace"
)

// BenchmarkPromote2000 is `efmesh apply <env> --yes` of a 2,000-model
// project dev has applied already (a DuckDB file warehouse, SQLite state):
// open, plan (every model promoted, nothing built), the views and the
// store's pointers, the no-op digest left behind. Every round promotes to
// an environment of its own.
//
//	go test ./workspace -run '^$' -bench 'Promote2000' -benchtime 5x -cpuprofile /tmp/promote.prof
func BenchmarkPromote2000(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: 2000, Warehouse: "wh.duckdb"}); err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	apply := func(env string) {
		w, err := workspace.Open(ctx, dir, workspace.OpenOptions{Options: workspace.Options{Now: func() time.Time { return now }}, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		res, err := w.Apply(ctx, env, workspace.ApplyRequest{Noop: &workspace.NoopRequest{Env: env, Now: now}})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Applied {
			b.Fatalf("%s: nothing applied", env)
		}
	}
	apply("dev")
	i := 0
	for b.Loop() {
		i++
		apply(fmt.Sprintf("prod%d", i))
	}
}

// BenchmarkQuickPromote2000 is the same apply answered from the
// fingerprints digest (QuickApplyPromotion): no project loaded, the views
// and the store's records only. Between rounds (untimed) dev is planned
// again, which stamps the warehouse the last round changed.
//
//	go test ./workspace -run '^$' -bench 'QuickPromote2000' -benchtime 5x -cpuprofile /tmp/quickpromote.prof
func BenchmarkQuickPromote2000(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: 2000, Warehouse: "wh.duckdb"}); err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	opts := workspace.Options{Now: func() time.Time { return now }}
	settle := func() {
		req := workspace.NoopRequest{Env: "dev", Now: now}
		w, err := workspace.Open(ctx, dir, workspace.OpenOptions{Options: opts, Env: "dev"})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		if _, err := w.Apply(ctx, "dev", workspace.ApplyRequest{Noop: &req}); err != nil {
			b.Fatal(err)
		}
		p, err := w.Plan(ctx, "dev")
		if err != nil {
			b.Fatal(err)
		}
		if err := w.RememberNoop(req, p); err != nil {
			b.Fatal(err)
		}
	}
	settle()
	i := 0
	for b.Loop() {
		i++
		env := fmt.Sprintf("prod%d", i)
		req := workspace.NoopRequest{Env: env, Now: now}
		res, ok, err := workspace.QuickApplyPromotion(ctx, dir, req, opts, workspace.ApplyRequest{Noop: &req})
		if err != nil || !ok || !res.Applied {
			b.Fatalf("%s: not applied from the digest (answered %v): %v", env, ok, err)
		}
		b.StopTimer()
		settle()
		b.StartTimer()
	}
}
