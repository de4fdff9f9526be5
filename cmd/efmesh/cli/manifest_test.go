package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/planner"
)

// readManifest reads the one manifest of a model's versions.
func readManifest(t *testing.T, dir, schema, table string) (planner.Manifest, string) {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(dir, "lake", schema, table, "fp=*", planner.ManifestFile))
	if len(found) != 1 {
		t.Fatalf("manifests of %s.%s: %v", schema, table, found)
	}
	data, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	var m planner.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v\n%s", found[0], err, data)
	}
	return m, filepath.Dir(found[0])
}

// viaManifest is the SQL reading a model through its manifest alone: the
// listed files, no glob.
func viaManifest(m planner.Manifest, folder string) string {
	files := make([]string, len(m.Files))
	for i, f := range m.Files {
		files[i] = "'" + filepath.Join(folder, filepath.FromSlash(f)) + "'"
	}
	return "read_parquet([" + strings.Join(files, ", ") + "], union_by_name = true, hive_partitioning = false)"
}

// TestManifest: every parquet version carries a manifest naming its files,
// schema, intervals, freshness and passport; reading the listed files gives
// the environment view's rows; a failed interval is not listed and stops
// contiguousThrough while later intervals are still listed.
func TestManifest(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("id,kind,amount,ts\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&csv, "o%02d,ok,%d,2026-01-%02dT%02d:00:00Z\n", i, i*10, 1+i/10, i%10)
	}
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     "name: lake\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\nlake: lake\n",
		"data/orders.csv": csv.String(),
		"models/raw.sql": `MODEL (
  name raw.orders,
  kind EXTERNAL (files 'data/orders.csv', format csv, header true),
  columns (id TEXT, kind TEXT, amount INTEGER, ts TIMESTAMP),
  answerable sampled,
  caveats 'orders of the web shop only'
);
`,
		"models/orders.sql": `MODEL (
  name core.orders,
  kind INCREMENTAL_BY_TIME_RANGE (time_column ts, batch_size 1),
  target parquet,
  columns (id TEXT, amount INTEGER, ts TIMESTAMP),
  caveats ('amounts in cents')
);
SELECT id, CASE WHEN kind = 'boom' THEN error('boom in ' || id) ELSE amount END::INTEGER AS amount, ts
FROM @ref(raw.orders) WHERE ts >= @start AND ts < @end
`,
		"models/totals.sql": `MODEL (
  name mart.totals,
  kind FULL,
  target parquet,
  answerable full,
  columns (day TIMESTAMP, amount BIGINT)
);
SELECT date_trunc('day', ts)::TIMESTAMP AS day, sum(amount)::BIGINT AS amount FROM @ref(core.orders) GROUP BY ALL
`,
	})
	t.Setenv("EFMESH_NOW", "2026-01-03T12:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")

	m, folder := readManifest(t, dir, "core", "orders")
	if m.ManifestVersion != 1 || m.Model != "core.orders" || len(m.Files) != 2 || m.Files[0] != "./interval=2026-01-01/data.parquet" ||
		len(m.Intervals) != 1 || m.Intervals[0].End.Format("2006-01-02") != "2026-01-03" || len(m.Schema) != 3 || m.Schema[0].Name != "id" {
		t.Fatalf("core.orders manifest: %+v", m)
	}
	if m.Freshness == nil || m.Freshness.ContiguousThrough.Format("2006-01-02") != "2026-01-03" || m.Freshness.HasGaps {
		t.Fatalf("core.orders freshness: %+v", m.Freshness)
	}
	if e := m.Effective; e.Answerable != "sampled" || e.AnswerableFrom != "raw.orders" || len(e.Caveats) != 2 || e.LimitedBy != "core.orders" {
		t.Fatalf("core.orders effective passport: %+v", e)
	}
	if got, want := query(t, dir, "SELECT * FROM "+viaManifest(m, folder)+" ORDER BY ALL"), query(t, dir, "SELECT * FROM dev__core.orders ORDER BY ALL"); got != want {
		t.Fatalf("through the manifest:\n got %s\nwant %s", got, want)
	}
	tm, tfolder := readManifest(t, dir, "mart", "totals")
	if len(tm.Files) != 1 || tm.Files[0] != "./data.parquet" || tm.Freshness != nil || tm.Effective.LimitedBy != "core.orders" || tm.Effective.Answerable != "sampled" {
		t.Fatalf("mart.totals manifest: %+v", tm)
	}
	if got, want := query(t, dir, "SELECT * FROM "+viaManifest(tm, tfolder)+" ORDER BY ALL"), query(t, dir, "SELECT * FROM dev__mart.totals ORDER BY ALL"); got != want {
		t.Fatalf("mart.totals through the manifest:\n got %s\nwant %s", got, want)
	}

	// 01-03 fails, 01-04 is computed: the manifest lists 01-04 but
	// contiguousThrough stops at the gap.
	editFile(t, dir, "data/orders.csv", func(s string) string { return strings.Replace(s, "o20,ok", "o20,boom", 1) })
	t.Setenv("EFMESH_NOW", "2026-01-05T01:00:00Z")
	runTick(t, dir, "dev", ExitError)
	m, folder = readManifest(t, dir, "core", "orders")
	if len(m.Files) != 3 || m.Files[2] != "./interval=2026-01-04/data.parquet" || len(m.Intervals) != 2 {
		t.Fatalf("manifest after a failed interval: %+v", m)
	}
	if f := m.Freshness; f == nil || f.ContiguousThrough.Format("2006-01-02") != "2026-01-03" || f.FailedIntervals != 1 || !f.HasGaps ||
		f.LatestInterval == nil || f.LatestInterval.Format("2006-01-02") != "2026-01-05" {
		t.Fatalf("freshness after a failed interval: %+v", m.Freshness)
	}
	if got := query(t, dir, "SELECT count(*) FROM "+viaManifest(m, folder)); got != "[[30]]" {
		t.Fatalf("rows through the manifest after a failed interval: %s", got)
	}
	for _, f := range lakeFiles(t, dir) {
		if strings.HasSuffix(f, ".tmp") {
			t.Fatalf("a temporary file was left: %s", f)
		}
	}
}
