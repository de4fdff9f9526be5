package planner

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/state/sqlite"
)

// Every table DuckDB creates pins memory it cannot evict until a
// checkpoint, and small tables never fill the WAL enough to trigger one:
// hundreds of one-row models ran a warehouse capped at 40 MB out of
// memory. Apply checkpoints whenever the warehouse holds more than
// checkpointBudget, so the same apply fits.
func TestApplyOfManySmallTablesFitsASmallMemoryLimit(t *testing.T) {
	const n = 600 // ~60 MB pinned without a checkpoint
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("models/m%04d.sql", i)] = fmt.Sprintf(
			"MODEL (name core.m%04d, kind FULL);\nSELECT %d AS id, 'x' AS a, 1.5 AS b, DATE '2026-01-01' AS c, true AS d, %d::BIGINT AS e\n", i, i, i)
	}
	ctx := context.Background()
	a := analyzeFiles(t, files)
	mustClean(t, a)
	dir := t.TempDir()
	wh, err := duckdb.Open(filepath.Join(dir, "wh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if err := wh.Exec(ctx, "SET memory_limit = '40MB'"); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := MakePlan(ctx, a, st, "dev")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Apply(ctx, p, wh, st, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Built) != n {
		t.Fatalf("built %d models, want %d", len(res.Built), n)
	}
	rows, err := wh.Query(ctx, fmt.Sprintf("SELECT e FROM dev__core.m%04d", n-1))
	if err != nil || fmt.Sprint(rows.Values) != fmt.Sprintf("[[%d]]", n-1) {
		t.Fatalf("the last model reads %v, %v", rows, err)
	}
}

// The budget is at most an eighth of the warehouse's memory limit.
func TestCheckpointDueFollowsTheBudgetAndTheLimit(t *testing.T) {
	for _, c := range []struct {
		used, limit int64
		want        bool
	}{
		{used: 10 << 20, limit: 1 << 30, want: false},
		{used: checkpointBudget + 1, limit: 1 << 30, want: true},
		{used: checkpointBudget + 1, limit: 0, want: true},
		{used: checkpointBudget, limit: 0, want: false},
		{used: 6 << 20, limit: 40 << 20, want: true},
		{used: 4 << 20, limit: 40 << 20, want: false},
	} {
		if got := checkpointDue(c.used, c.limit); got != c.want {
			t.Errorf("checkpointDue(%d, %d) = %v, want %v", c.used, c.limit, got, c.want)
		}
	}
}
