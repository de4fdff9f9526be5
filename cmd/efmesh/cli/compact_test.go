package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/engine/duckdb"
)

// TestCompactCLI: after a micro-batch writer drops small files into a
// settled partition of a parquet model, compact merges them into the
// partition's data.parquet, de-duplicated by the grain, and the view sees
// the merged rows; partitions of one data.parquet are left alone.
func TestCompactCLI(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("id,amount,ts\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&csv, "o%02d,%d,2026-01-%02dT%02d:00:00Z\n", i, i*10, 1+i/10, i%10)
	}
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     "name: lake\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\nlake: lake\n",
		"data/orders.csv": csv.String(),
		"models/raw.sql": `MODEL (
  name raw.orders,
  kind EXTERNAL (files 'data/orders.csv', format csv, header true),
  columns (id TEXT, amount INTEGER, ts TIMESTAMP)
);
`,
		"models/orders.sql": `MODEL (
  name core.orders,
  kind INCREMENTAL_BY_TIME_RANGE (time_column ts),
  target parquet,
  grain (id),
  columns (id TEXT, amount INTEGER, ts TIMESTAMP)
);
SELECT id, amount, ts FROM @ref(raw.orders) WHERE ts >= @start AND ts < @end
`,
	})
	t.Setenv("EFMESH_NOW", "2026-01-04T12:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")

	parts, _ := filepath.Glob(filepath.Join(dir, "lake", "core", "orders", "fp=*", "interval=2026-01-01"))
	if len(parts) != 1 {
		t.Fatalf("partitions: %v", parts)
	}
	db, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for k := 0; k < 5; k++ { // o00..o04 again (duplicates) and n<k> (new)
		path := filepath.Join(parts[0], fmt.Sprintf("batch-%d.parquet", k))
		q := fmt.Sprintf("SELECT * FROM (VALUES ('o%02d', 999, TIMESTAMP '2026-01-01 11:00:00'), ('n%d', 1, TIMESTAMP '2026-01-01 12:00:00')) v(id, amount, ts)", k, k)
		if err := db.WriteParquet(t.Context(), q, path); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, old, old)
	}
	db.Close()
	// The partition's own file arrived first: its rows win over the copies.
	first := old.Add(-time.Minute)
	os.Chtimes(filepath.Join(parts[0], "data.parquet"), first, first)

	out := mustRun(t, dir, "compact", "--json")
	var res struct {
		APIVersion int `json:"apiVersion"`
		Partitions []struct {
			Partition string `json:"partition"`
			Action    string `json:"action"`
			Reason    string `json:"reason"`
			Files     int    `json:"files"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.APIVersion != 1 || len(res.Partitions) != 3 {
		t.Fatalf("compact --json: %v\n%s", err, out)
	}
	for _, p := range res.Partitions {
		want := "left already-compact"
		if strings.HasSuffix(p.Partition, "interval=2026-01-01") {
			want = "merged "
		}
		if got := p.Action + " " + p.Reason; got != want {
			t.Fatalf("%s: %s, want %s\n%s", p.Partition, got, want, out)
		}
	}
	left, _ := filepath.Glob(filepath.Join(parts[0], "*"))
	if len(left) != 1 || filepath.Base(left[0]) != "data.parquet" {
		t.Fatalf("partition after compact: %v", left)
	}
	if got := query(t, dir, "SELECT count(*), count(DISTINCT id), max(amount) FROM dev__core.orders WHERE ts < '2026-01-02'"); got != "[[15 15 90]]" {
		t.Fatalf("view after compact (rows, keys, max amount): %s", got)
	}
	if out := mustRun(t, dir, "compact", "--dry-run"); !strings.Contains(out, "already-compact") || !strings.Contains(out, "would merge 0 partition(s)") {
		t.Fatalf("compact --dry-run after compact:\n%s", out)
	}
}
