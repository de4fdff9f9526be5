package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestConfigSettingsChecked: engine settings are checked when efmesh.yaml
// loads, each at its line:col with the accepted forms; an unset ${VAR} is
// an error at its position naming the variable, not an empty password.
func TestConfigSettingsChecked(t *testing.T) {
	model := "MODEL (name raw.one, kind FULL);\n\nSELECT 1 AS x\n"
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"memory limit", "name: x\nengine: {type: duckdb, memory_limit: lots}\n",
			[]string{`efmesh.yaml:2:38: error: engine memory_limit "lots" is not a size: write a number and a unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), such as 512MB or 2GB`}},
		{"threads", "name: x\nengine:\n  threads: -1\n",
			[]string{"efmesh.yaml:3:12: error: engine threads must be a whole number from 1 to 1023, found -1"}},
		{"memory limit with two points", "name: x\nengine:\n  memory_limit: 1.5.2GB\n",
			[]string{`efmesh.yaml:3:17: error: engine memory_limit "1.5.2GB" is not a size`}},
		{"lock timeout", "name: x\nengine:\n  lock_timeout: soon\n",
			[]string{`efmesh.yaml:3:17: error: engine lock_timeout "soon" must be a duration such as 10s, 2m or 0s (do not wait)`}},
		{"unset variable", "name: x\nstate:\n  type: postgres\n  url: postgres://efmesh:${EFMESH_TEST_UNSET_SECRET}@127.0.0.1:1/x\n",
			[]string{"efmesh.yaml:4:26: error: state url needs the environment variable EFMESH_TEST_UNSET_SECRET, which is not set (export it, or write ${EFMESH_TEST_UNSET_SECRET:-default})"}},
		{"malformed variable", "name: x\nstate:\n  type: postgres\n  url: \"postgres://u:${1X}@h/x\"\n",
			[]string{`efmesh.yaml:4:22: error: state url: "${1X}" is not a variable name: write ${NAME} or ${NAME:-default}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"efmesh.yaml": tc.yaml, "models/one.sql": model})
			code, out, errs := run(t, dir, "plan", "dev")
			if code != ExitError {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if strings.Contains(errs, "panic") || strings.Contains(errs, "internal error") {
				t.Fatalf("stderr:\n%s", errs)
			}
		})
	}
}

// TestLargeBackfillRefused: a start in year 1 with hourly intervals is a
// backfill of millions of intervals; plan and apply refuse it, saying how
// many and how to confirm, and plan it (counted, never listed) when
// confirmed.
func TestLargeBackfillRefused(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-02T00:00:00Z")
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": "name: ancient\nstart: 0001-01-01\n",
		"models/hourly.sql": `MODEL (
  name core.hourly,
  kind INCREMENTAL_BY_TIME_RANGE (time_column hour),
  interval hour,
  columns (hour TIMESTAMP, n BIGINT)
);

SELECT TIMESTAMP '2026-01-01' AS hour, 1::BIGINT AS n WHERE TIMESTAMP '2026-01-01' >= @start AND TIMESTAMP '2026-01-01' < @end
`,
	})
	const count = "17,750,808"
	for _, cmd := range []string{"plan", "apply"} {
		code, out, errs := run(t, dir, cmd, "dev", "--yes")
		if cmd == "plan" {
			code, out, errs = run(t, dir, cmd, "dev")
		}
		if code != ExitError || !strings.Contains(errs, count+" intervals, more than 100,000") ||
			!strings.Contains(errs, "efmesh "+cmd+" dev --allow-large-backfill") {
			t.Fatalf("%s: exit %d\n%s%s", cmd, code, out, errs)
		}
	}
	if got := warehouseObjects(t, dir); got != "<none>" {
		t.Fatalf("a refused apply touched the warehouse: %s", got)
	}
	out := mustRun(t, dir, "plan", "dev", "--allow-large-backfill", "--json")
	var p struct {
		Models []struct {
			Name      string     `json:"name"`
			Intervals int        `json:"intervals"`
			Backfill  [][]string `json:"backfill"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil || len(p.Models) != 1 || p.Models[0].Intervals != 17750808 ||
		len(p.Models[0].Backfill) != 1 || p.Models[0].Backfill[0][0] != "0001-01-01T00:00:00Z" {
		t.Fatalf("confirmed plan: %v\n%s", err, out)
	}
}
