package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/project"
)

// trustProject is a time-range model that does not filter on @start/@end
// and models whose declared columns round their query's values, with unit
// tests that must pass only when they expect what apply would store.
func trustProject(t *testing.T) map[string]string {
	return map[string]string{
		"seeds/ev.csv": "id,k,v,ts\n1,a,10,2026-01-25 10:00:00\n",
		"models/ev.sql": `MODEL (name r.ev, kind SEED (path 'seeds/ev.csv'),
  columns (id INT, k TEXT, v INT, ts TIMESTAMP));`,
		"models/nofilter.sql": "MODEL (name m.nofilter, kind INCREMENTAL_BY_TIME_RANGE (time_column ts));\nSELECT id, ts FROM @ref(r.ev)",
		"models/dec.sql":      "MODEL (name m.dec, kind FULL, columns (id INT, total DECIMAL(18,2)));\nSELECT id, v * 1.05041 AS total FROM @ref(r.ev)",
		"models/agg.sql":      "MODEL (name m.agg, kind FULL, columns (n INT, total INT, d DATE));\nSELECT count(*) AS n, sum(v) AS total, min(ts)::DATE AS d FROM @ref(r.ev)",
		"tests/t.yaml": `interval_drops_outside:
  model: m.nofilter
  interval: [2026-01-25, 2026-01-26]
  inputs:
    r.ev:
      - {id: 1, ts: '2026-01-25 10:00:00'}
      - {id: 2, ts: '2026-01-29 10:00:00'}
  expect:
    - {id: 1, ts: '2026-01-25 10:00:00'}
interval_expects_outside:
  model: m.nofilter
  interval: [2026-01-25, 2026-01-26]
  inputs:
    r.ev:
      - {id: 1, ts: '2026-01-25 10:00:00'}
      - {id: 2, ts: '2026-01-29 10:00:00'}
  expect:
    - {id: 1}
    - {id: 2}
decimal_stored:
  model: m.dec
  inputs:
    r.ev:
      - {id: 1, v: 10}
  expect:
    - {id: 1, total: 10.50}
decimal_raw:
  model: m.dec
  inputs:
    r.ev:
      - {id: 1, v: 10}
  expect:
    - {id: 1, total: "10.5041"}
agg_right:
  model: m.agg
  inputs:
    r.ev:
      - {id: 1, v: 10, ts: '2026-01-25 13:45:00'}
      - {id: 2, v: 20, ts: '2026-01-26 08:00:00'}
  expect:
    - {n: 2, total: 30, d: '2026-01-25'}
agg_rounded:
  model: m.agg
  inputs:
    r.ev:
      - {id: 1, v: 10, ts: '2026-01-25 13:45:00'}
      - {id: 2, v: 20, ts: '2026-01-26 08:00:00'}
  expect:
    - {n: 1.6, total: 29.6}
agg_date_with_time:
  model: m.agg
  inputs:
    r.ev:
      - {id: 1, v: 10, ts: '2026-01-25 13:45:00'}
  expect:
    - {n: 1, d: '2026-01-25 13:45:00'}
input_rounded:
  model: m.agg
  inputs:
    r.ev:
      - {id: 1, v: 10.6}
  expect:
    - {total: 11}
input_id_rounded:
  model: m.dec
  inputs:
    r.ev:
      - {id: 1.7, v: 10}
  expect:
    - {id: 2}
`,
	}
}

// TestUnitTestsSeeWhatApplyStores: a unit test passes exactly when it
// expects the rows apply would store — a time-range model's rows of the
// test's interval only, cast to the declared columns — and an expected
// value or a fixture that its column's type would change is an error at
// its key, never rounded.
func TestUnitTestsSeeWhatApplyStores(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, trustProject(t))
	// The project declares narrower columns on purpose (the casts are
	// what is tested): the contract warns about them, nothing more.
	for _, d := range a.Diagnostics {
		if d.Severity != project.SeverityWarning || !strings.Contains(d.Message, "narrower than") {
			t.Fatalf("unexpected diagnostic: %s", d)
		}
	}
	results, err := RunTests(ctx, a, realdb.DuckDB(t, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		passed bool
		err    string // the error's text, "" when the test ran
		extra  string // a produced row nobody expected
	}{
		"interval_drops_outside":   {passed: true},
		"interval_expects_outside": {},
		"decimal_stored":           {passed: true},
		"decimal_raw":              {err: `tests/t.yaml:33:15: expect, row 1: '10.5041' does not fit column total DECIMAL(18,2) exactly: it would be 10.50`},
		"agg_right":                {passed: true},
		"agg_rounded":              {err: `tests/t.yaml:49:8: expect, row 1: 1.6 does not fit column n INTEGER exactly: it would be 2`},
		"agg_date_with_time":       {err: `tests/t.yaml:56:14: expect, row 1: '2026-01-25 13:45:00' does not fit column d DATE exactly: it would be 2026-01-25`},
		"input_rounded":            {err: `tests/t.yaml:61:17: inputs of r.ev, row 1: 10.6 does not fit column v INT exactly: it would be 11`},
		"input_id_rounded":         {err: `tests/t.yaml:68:10: inputs of r.ev, row 1: 1.7 does not fit column id INT exactly: it would be 2`},
	}
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d", len(results), len(want))
	}
	for _, r := range results {
		w := want[r.Name]
		if r.Passed != w.passed || r.Error != w.err {
			t.Errorf("%s: passed %v, error %q; want passed %v, error %q (missing %v, unexpected %v)", r.Name, r.Passed, r.Error, w.passed, w.err, r.Missing, r.Extra)
		}
		if r.Name == "interval_expects_outside" && (len(r.Missing) != 1 || strings.Join(r.Missing[0], " ") != "2") {
			t.Errorf("%s: missing %v, want the row id=2 the interval leaves out", r.Name, r.Missing)
		}
	}
}
