package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// auditedProject has audits of every scope: raw.items (a CSV) must have
// ids; core.items (FULL) unique ids, accepted categories (a warning) and a
// custom audit; core.daily (daily incremental) one row per day in each
// interval, non-null counts, and no missing day across the table.
func auditedProject(t *testing.T, csv string) string {
	return writeProject(t, map[string]string{
		"efmesh.yaml":    "name: audited\nstart: 2026-01-01\n",
		"data/items.csv": csv,
		"models/raw/items.sql": `MODEL (
  name raw.items,
  kind EXTERNAL (files 'data/items.csv', format csv, header true),
  columns (id INTEGER, cat TEXT, ts TIMESTAMP),
  audits (not_null(id))
);
`,
		"models/core/items.sql": `MODEL (
  name core.items,
  kind FULL,
  grain (id),
  audits (unique(id), warn(accepted(cat, 'a', 'b')), positive_id)
);
SELECT id, cat, ts FROM @ref(raw.items)
`,
		"models/core/daily.sql": `MODEL (
  name core.daily,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day, batch_size 1),
  columns (day TIMESTAMP, n BIGINT),
  audits (per_interval(unique(day)), assert_no_gaps(day), not_null(n))
);
SELECT date_trunc('day', ts)::TIMESTAMP AS day, count(*) AS n
FROM @ref(raw.items)
WHERE ts >= @start AND ts < @end
GROUP BY ALL
`,
		"audits/positive.sql": "-- ids are positive\nAUDIT (name positive_id, blocking true);\nSELECT * FROM @this WHERE id <= 0\n",
	})
}

const dirtyItems = `id,cat,ts
1,a,2026-01-01T08:00:00Z
2,b,2026-01-01T09:00:00Z
3,a,2026-01-02T10:00:00Z
3,a,2026-01-02T11:00:00Z
4,c,2026-01-03T10:00:00Z
5,a,2026-01-04T10:00:00Z
6,b,2026-01-05T10:00:00Z
`

type auditOut struct {
	APIVersion int    `json:"apiVersion"`
	Env        string `json:"env"`
	Passed     bool   `json:"passed"`
	Results    []struct {
		Model      string `json:"model"`
		Audit      string `json:"audit"`
		Status     string `json:"status"`
		Violations int    `json:"violations"`
		Detail     string `json:"detail"`
		Reason     string `json:"reason"`
	} `json:"results"`
}

func auditOf(t *testing.T, dir, env string, wantCode int, args ...string) (auditOut, []string) {
	t.Helper()
	code, out, errs := run(t, dir, append([]string{"audit", env, "--json"}, args...)...)
	var r auditOut
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.APIVersion != 1 {
		t.Fatalf("audit --json: %v\n%s%s", err, out, errs)
	}
	if code != wantCode {
		t.Fatalf("audit %s: exit %d, want %d\n%s%s", env, code, wantCode, out, errs)
	}
	var lines []string
	for _, x := range r.Results {
		l := fmt.Sprintf("%s %s %s %d", x.Model, x.Audit, x.Status, x.Violations)
		if x.Detail != "" {
			l += " " + x.Detail
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return r, lines
}

func TestAuditsBlockApply(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-06T00:00:00Z")
	dir := auditedProject(t, dirtyItems)

	// A duplicated id: the blocking audit stops the apply before any view
	// exists; the warning is logged all the same.
	code, out, errs := run(t, dir, "apply", "dev", "--yes")
	if code != ExitError {
		t.Fatalf("apply over dirty data: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"efmesh: blocking audit unique(id) of core.items: 1 violation(s): e.g. (id=3, copies=2)",
		`audit warning: audit warn(accepted(cat, 'a', 'b')) of core.items: 1 violation(s)`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("apply's stderr lacks %q:\n%s", want, errs)
		}
	}
	if got := query(t, dir, "SELECT count(*) FROM information_schema.tables WHERE table_schema LIKE 'dev__%'"); got != "[[0]]" {
		t.Fatalf("a blocked apply created views: %s", got)
	}
	if s := storeState(t, dir); !strings.Contains(s, "dev: [] plans=1") {
		t.Fatalf("a blocked apply moved dev:\n%s", s)
	}

	// The source is fixed: core.items was never counted as built, so it is
	// built again; the warning is logged, the apply goes through.
	editFile(t, dir, "data/items.csv", func(s string) string {
		return strings.Replace(s, "3,a,2026-01-02T11:00:00Z", "7,b,2026-01-02T11:00:00Z", 1)
	})
	code, out, errs = run(t, dir, "apply", "dev", "--yes")
	if code != ExitOK || !strings.Contains(out, "build _efmesh.core__items") || !strings.Contains(errs, "audit warning") || !strings.Contains(errs, "accepted(cat") {
		t.Fatalf("apply over clean data: exit %d\n%s%s", code, out, errs)
	}

	// efmesh audit: the whole views; per_interval is skipped.
	r, lines := auditOf(t, dir, "dev", ExitOK)
	want := []string{
		"core.daily assert_no_gaps(day) passed 0",
		"core.daily not_null(n) passed 0",
		"core.daily per_interval(unique(day)) skipped 0",
		"core.items positive_id passed 0",
		"core.items unique(id) passed 0",
		"core.items warn(accepted(cat, 'a', 'b')) warned 1 e.g. (id=4, cat=c, ts=2026-01-03T10:00:00Z)",
		"raw.items not_null(id) passed 0",
	}
	if !r.Passed || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit dev:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if out := mustRun(t, dir, "audit", "dev", "--model", "core.items"); strings.Contains(out, "raw.items") || !strings.Contains(out, "2 passed, 0 failed, 1 warned, 0 error(s), 0 skipped.") {
		t.Fatalf("audit --model:\n%s", out)
	}

	// Data edited behind efmesh's back: the raw view serves a null id.
	restore := editFile(t, dir, "data/items.csv", func(s string) string { return s + ",a,2026-01-05T12:00:00Z\n" })
	_, lines = auditOf(t, dir, "dev", ExitError, "--model", "raw.items")
	if fmt.Sprint(lines) != "[raw.items not_null(id) failed 1 e.g. (id=NULL, cat=a, ts=2026-01-05T12:00:00Z)]" {
		t.Fatalf("audit after a null id: %v", lines)
	}
	restore()

	// A breaking edit that violates the custom audit: dev keeps serving
	// the previous version.
	before := query(t, dir, "SELECT * FROM dev__core.items ORDER BY ALL")
	editFile(t, dir, "models/core/items.sql", func(s string) string { return strings.Replace(s, "SELECT id,", "SELECT id - 3 AS id,", 1) })
	code, out, errs = run(t, dir, "apply", "dev", "--yes")
	if code != ExitError || !strings.Contains(errs, "audit positive_id of core.items: 3 violation(s)") {
		t.Fatalf("apply violating positive_id: exit %d\n%s%s", code, out, errs)
	}
	if after := query(t, dir, "SELECT * FROM dev__core.items ORDER BY ALL"); after != before {
		t.Fatalf("a blocked apply changed dev__core.items:\n%s\nwas\n%s", after, before)
	}
	code, out, _ = run(t, dir, "apply", "dev", "--yes", "--json")
	var failed struct {
		Applied       bool   `json:"applied"`
		Error         string `json:"error"`
		AuditFailures []struct {
			Model      string `json:"model"`
			Audit      string `json:"audit"`
			Status     string `json:"status"`
			Violations int    `json:"violations"`
		} `json:"auditFailures"`
	}
	if err := json.Unmarshal([]byte(out), &failed); err != nil || code != ExitError || failed.Applied ||
		fmt.Sprint(failed.AuditFailures) != "[{core.items positive_id failed 3}]" {
		t.Fatalf("apply --json violating positive_id: exit %d, %v\n%s", code, err, out)
	}
}

func TestAuditFailsInterval(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-06T00:00:00Z")
	dir := auditedProject(t, strings.Replace(dirtyItems, "3,a,2026-01-02T11:00:00Z", "7,b,2026-01-02T11:00:00Z", 1))
	editFile(t, dir, "models/core/daily.sql", func(s string) string {
		return strings.Replace(s, "count(*) AS n", "CASE WHEN min(ts) < TIMESTAMP '2026-01-03' AND min(ts) >= TIMESTAMP '2026-01-02' THEN NULL ELSE count(*) END AS n", 1)
	})
	code, out, errs := run(t, dir, "apply", "dev", "--yes")
	if code != ExitError || !strings.Contains(errs, "core.daily: 1 interval(s) failed: [2026-01-02T00:00:00Z, 2026-01-03T00:00:00Z)") ||
		!strings.Contains(errs, "audit not_null(n) of core.daily: 1 violation(s) in [2026-01-02T00:00:00Z, 2026-01-03T00:00:00Z)") {
		t.Fatalf("apply with a failing interval audit: exit %d\n%s%s", code, out, errs)
	}
	fp := ""
	for _, m := range planJSONOf(t, dir, "dev").Models {
		if m.Name == "core.daily" {
			fp = m.Fingerprint
		}
	}
	if got := ledgerOfFP(t, openState(t, dir), fp); got != "4 done, failed [01-02]" {
		t.Fatalf("ledger: %s", got)
	}
}

func TestAuditNoGaps(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-09T00:00:00Z")
	dir := auditedProject(t, "id,cat,ts\n1,a,2026-01-01T01:00:00Z\n2,a,2026-01-02T01:00:00Z\n3,a,2026-01-03T01:00:00Z\n"+
		"4,a,2026-01-05T01:00:00Z\n5,a,2026-01-08T01:00:00Z\n")
	code, out, errs := run(t, dir, "apply", "dev", "--yes")
	if code != ExitError || !strings.Contains(errs,
		"efmesh: blocking audit assert_no_gaps(day) of core.daily: 2 violation(s): covered through 2026-01-03, resumes at 2026-01-05 (and 1 further gap(s))") {
		t.Fatalf("apply over a gap: exit %d\n%s%s", code, out, errs)
	}
	if s := storeState(t, dir); !strings.Contains(s, "dev: [] plans=1") {
		t.Fatalf("a blocked apply moved dev:\n%s", s)
	}
}
