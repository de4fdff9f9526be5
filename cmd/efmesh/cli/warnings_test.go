package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWindowOverBatch: a window function in an incremental model whose
// batches span several intervals makes plan warn, in text and JSON; with
// batch_size 1 the warning goes away.
func TestWindowOverBatch(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     "name: w\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/events.csv": "id,ts\ne1,2026-01-01T10:00:00Z\n",
		"models/raw.sql": `MODEL (
  name raw.events,
  kind EXTERNAL (files 'data/events.csv', format csv, header true),
  columns (id TEXT, ts TIMESTAMP)
);
`,
		"models/ranked.sql": `MODEL (
  name core.ranked,
  kind INCREMENTAL_BY_TIME_RANGE (time_column ts, batch_size 7)
);
SELECT id, ts, row_number() OVER (ORDER BY ts) AS n, lag(id) OVER (ORDER BY ts) AS prev
FROM @ref(raw.events) WHERE ts >= @start AND ts < @end
`,
		"models/plain.sql": `MODEL (
  name core.plain,
  kind INCREMENTAL_BY_TIME_RANGE (time_column ts)
);
SELECT id, ts FROM @ref(raw.events) WHERE ts >= @start AND ts < @end
`,
	})
	t.Setenv("EFMESH_NOW", "2026-01-03T00:00:00Z")
	out := mustRun(t, dir, "plan", "dev")
	want := "warning: core.ranked: window-over-batch: window function(s) lag, row_number run over batches of up to 7 days (batch_size 7)"
	if !strings.Contains(out, want) || strings.Contains(out, "core.plain: window") {
		t.Fatalf("plan lacks the warning %q:\n%s", want, out)
	}
	var p struct {
		Models []struct {
			Name     string `json:"name"`
			Warnings []struct {
				Code string `json:"code"`
			} `json:"warnings"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "plan", "dev", "--json")), &p); err != nil {
		t.Fatal(err)
	}
	for _, m := range p.Models {
		if got := len(m.Warnings) == 1 && m.Warnings[0].Code == "window-over-batch"; got != (m.Name == "core.ranked") {
			t.Fatalf("%s warnings: %+v", m.Name, m.Warnings)
		}
	}
	editFile(t, dir, "models/ranked.sql", func(s string) string { return strings.Replace(s, "batch_size 7", "batch_size 1", 1) })
	if out := mustRun(t, dir, "plan", "dev"); strings.Contains(out, "warning:") {
		t.Fatalf("batch_size 1 still warns:\n%s", out)
	}
}
