package ops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/project"
)

// TestCompact: a settled partition of 50 small files becomes one file with
// one row per grain key (the first arrival), a file arriving during the
// run survives, and unsettled partitions are left alone with the reason.
func TestCompact(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{
		"efmesh.yaml": "name: c\nstart: 2026-01-01\nlake: lake\n",
		"models/events.sql": `MODEL (name core.events, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), target parquet, grain (id));
SELECT 'x' AS id, 1 AS v, now()::TIMESTAMP AS ts
`,
		"models/other.sql": "MODEL (name core.other, kind FULL);\nSELECT 1 AS x\n",
	}
	for rel, body := range files {
		path := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Load(root)
	if err != nil || project.HasErrors(p.Diagnostics) {
		t.Fatalf("load: %v %v", err, p.Diagnostics)
	}
	db, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	lake := filepath.Join(root, "lake")
	prefix := filepath.Join(lake, "core", "events", "fp=0123abcd")
	settled := filepath.Join(prefix, "interval=2026-01-02")
	wall := time.Now()
	write := func(dir, name string, from, to int, mtime time.Time) string {
		t.Helper()
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, name)
		q := fmt.Sprintf("SELECT 'k' || (i %% 60) AS id, i::INTEGER AS v, TIMESTAMP '2026-01-02' + to_minutes(i) AS ts FROM range(%d, %d) t(i)", from, to)
		if err := db.WriteParquet(ctx, q, path); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for k := 0; k < 50; k++ {
		write(settled, fmt.Sprintf("part-%02d.parquet", k), 2*k, 2*k+2, wall.Add(-time.Hour+time.Duration(k)*time.Second))
	}
	write(filepath.Join(prefix, "interval=2026-01-03"), "a.parquet", 0, 2, wall.Add(-time.Minute)) // grace period
	write(filepath.Join(prefix, "interval=2026-01-03"), "b.parquet", 2, 4, wall.Add(-time.Hour))
	write(filepath.Join(prefix, "interval=2026-01-04"), "data.parquet", 0, 2, wall.Add(-time.Hour)) // already compact
	write(filepath.Join(prefix, "interval=2026-01-05"), "a.parquet", 0, 2, wall.Add(-time.Hour))    // today
	write(filepath.Join(prefix, "interval=2026-01-05"), "b.parquet", 2, 4, wall.Add(-time.Hour))
	write(filepath.Join(prefix, "interval=later"), "a.parquet", 0, 2, wall.Add(-time.Hour)) // undated
	now := time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)

	dry, err := Compact(ctx, p, db, CompactOptions{Lake: lake, DryRun: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, cp := range dry.Partitions {
		got[filepath.Base(cp.Partition)] = cp.Action + " " + cp.Reason
	}
	want := map[string]string{"interval=2026-01-02": "would-merge ", "interval=2026-01-03": "left grace-period",
		"interval=2026-01-04": "left already-compact", "interval=2026-01-05": "left current-day", "interval=later": "left undated"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("dry run:\n got %v\nwant %v", got, want)
	}
	if n, _ := filepath.Glob(filepath.Join(settled, "*")); len(n) != 50 {
		t.Fatalf("the dry run changed the partition: %d files", len(n))
	}

	var late string
	res, err := Compact(ctx, p, db, CompactOptions{Lake: lake, Model: "core.events", Now: now,
		beforeMerge: func(dir string) {
			if dir == settled {
				late = write(settled, "zz-late.parquet", 1000, 1002, time.Now())
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	merged := 0
	for _, cp := range res.Partitions {
		if cp.Action == "merged" {
			merged++
			if cp.Files != 50 || fmt.Sprint(cp.DedupKey) != "[id]" {
				t.Fatalf("merged partition: %+v", cp)
			}
		}
	}
	if merged != 1 {
		t.Fatalf("merged %d partitions: %+v", merged, res.Partitions)
	}
	left, _ := filepath.Glob(filepath.Join(settled, "*"))
	sort.Strings(left)
	if fmt.Sprint(left) != fmt.Sprint([]string{filepath.Join(settled, "data.parquet"), late}) {
		t.Fatalf("partition after compact: %v", left)
	}
	rows, err := db.Query(ctx, "SELECT count(*), count(DISTINCT id), max(v) FROM read_parquet('"+filepath.Join(settled, "data.parquet")+"')")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows.Values); got != "[[60 60 59]]" {
		t.Fatalf("merged rows (count, keys, max v): %s", got)
	}

	if _, err := Compact(ctx, p, db, CompactOptions{Lake: lake, Model: "core.other", Now: now}); err == nil {
		t.Fatal("compact of a FULL model did not fail")
	}
}
