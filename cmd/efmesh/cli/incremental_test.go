package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/state"
)

// ledgerOf summarizes the ledger of the snapshot env points at for model:
// "<done> done, <failed> failed" plus the failed ranges.
func ledgerOf(t *testing.T, dir, env, model string) string {
	t.Helper()
	st := openState(t, dir)
	ptrs, err := st.Environment(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	fp := ptrs[model].Fingerprint
	if fp == "" {
		t.Fatalf("%s is not in %s", model, env)
	}
	return ledgerOfFP(t, st, fp)
}

func ledgerOfFP(t *testing.T, st state.Store, fp string) string {
	t.Helper()
	ivs, err := st.Intervals(context.Background(), fp)
	if err != nil {
		t.Fatal(err)
	}
	done, failed := 0, []string{}
	for _, iv := range ivs {
		if iv.Status == state.IntervalDone {
			done++
		} else {
			failed = append(failed, iv.Start.Format("01-02"))
		}
	}
	return fmt.Sprintf("%d done, failed %v", done, failed)
}

type runOut struct {
	APIVersion int      `json:"apiVersion"`
	Env        string   `json:"env"`
	Outcome    string   `json:"outcome"`
	Processed  []string `json:"processed"`
	Refreshed  []string `json:"refreshed"`
	Intervals  int      `json:"intervals"`
	BlockedBy  []string `json:"blockedBy"`
	Error      string   `json:"error"`
	Failed     []struct {
		Model string `json:"model"`
		Error string `json:"error"`
	} `json:"failed"`
}

func runTick(t *testing.T, dir, env string, wantCode int) runOut {
	t.Helper()
	code, out, errs := run(t, dir, "run", env, "--json")
	var r runOut
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.APIVersion != 1 || r.Env != env {
		t.Fatalf("run --json: %v\n%s%s", err, out, errs)
	}
	if code != wantCode {
		t.Fatalf("run %s: exit %d, want %d\n%s%s", env, code, wantCode, out, errs)
	}
	return r
}

// backfillOf returns the plan's backfill of one model.
func backfillOf(t *testing.T, dir, env, model string) string {
	t.Helper()
	out := mustRun(t, dir, "plan", env, "--json")
	var p struct {
		Models []struct {
			Name     string     `json:"name"`
			Backfill [][]string `json:"backfill"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	for _, m := range p.Models {
		if m.Name == model {
			return fmt.Sprint(m.Backfill)
		}
	}
	t.Fatalf("%s not in the plan", model)
	return ""
}

// eventsProject is a daily incremental model over a CSV of events, in
// batches of 3 days; a 'boom' event makes its interval's write fail.
func eventsProject(t *testing.T) string {
	var csv strings.Builder
	csv.WriteString("id,kind,ts\n")
	for d := 1; d <= 20; d++ {
		for h := 0; h < d%4+1; h++ {
			kind := "ok"
			if d == 8 && h == 0 {
				kind = "boom"
			}
			fmt.Fprintf(&csv, "e%02d%d,%s,2026-01-%02dT%02d:30:00Z\n", d, h, kind, d, h*5)
		}
	}
	return writeProject(t, map[string]string{
		"efmesh.yaml":     "name: events\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/events.csv": csv.String(),
		"models/raw/events.sql": `MODEL (
  name raw.events,
  kind EXTERNAL (files 'data/events.csv', format csv, header true),
  columns (id TEXT, kind TEXT, ts TIMESTAMP)
);
`,
		"models/core/daily.sql": `MODEL (
  name core.daily,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day, batch_size 3),
  interval day,
  columns (day TIMESTAMP, events BIGINT, checked BIGINT)
);

SELECT date_trunc('day', ts)::TIMESTAMP AS day, count(*) AS events,
       sum(CASE WHEN kind = 'boom' THEN error('boom in ' || id) ELSE 1 END)::BIGINT AS checked
FROM @ref(raw.events)
WHERE ts >= @start AND ts < @end
GROUP BY ALL
`,
	})
}

// expectedDaily is what core.daily holds after a clean run: one row per
// day of the CSV.
func expectedDaily(t *testing.T, dir string) string {
	return query(t, dir, fmt.Sprintf(`SELECT date_trunc('day', ts)::TIMESTAMP, count(*) FROM read_csv('%s', header = true)
		GROUP BY ALL ORDER BY ALL`, filepath.Join(dir, "data", "events.csv")))
}

func TestBackfillFailsResumesWithoutDuplicates(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-21T09:00:00Z")
	dir := eventsProject(t)

	if got := backfillOf(t, dir, "dev", "core.daily"); got != "[[2026-01-01T00:00:00Z 2026-01-21T00:00:00Z]]" {
		t.Fatalf("first plan's backfill = %s", got)
	}
	// The batch [01-07, 01-10) fails, after one retry; the other six batches
	// are computed; nothing is promoted.
	code, out, errs := run(t, dir, "apply", "dev", "--yes", "--retries", "1")
	if code != ExitError || !strings.Contains(errs, "core.daily: 1 interval(s) failed: [2026-01-07T00:00:00Z, 2026-01-10T00:00:00Z)") ||
		!strings.Contains(errs, "boom in e080") {
		t.Fatalf("apply with a failing interval: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = run(t, dir, "apply", "dev", "--yes", "--json")
	var failed struct {
		Applied         bool                  `json:"applied"`
		FailedIntervals map[string][][]string `json:"failedIntervals"`
	}
	if err := json.Unmarshal([]byte(out), &failed); err != nil || code != ExitError || failed.Applied ||
		fmt.Sprint(failed.FailedIntervals) != "map[core.daily:[[2026-01-07T00:00:00Z 2026-01-10T00:00:00Z]]]" {
		t.Fatalf("apply --json with a failing interval: exit %d, %v\n%s", code, err, out)
	}
	fp := ""
	for _, m := range planJSONOf(t, dir, "dev").Models {
		if m.Name == "core.daily" {
			fp = m.Fingerprint
		}
	}
	if got := ledgerOfFP(t, openState(t, dir), fp); got != "17 done, failed [01-07 01-08 01-09]" {
		t.Fatalf("ledger after the failed apply: %s", got)
	}
	if got := query(t, dir, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'dev__core'"); got != "[[0]]" {
		t.Fatalf("a failed apply promoted: %s", got)
	}

	// The data is fixed; the plan resumes with the failed range only.
	editFile(t, dir, "data/events.csv", func(s string) string { return strings.Replace(s, ",boom,", ",ok,", 1) })
	if got := backfillOf(t, dir, "dev", "core.daily"); got != "[[2026-01-07T00:00:00Z 2026-01-10T00:00:00Z]]" {
		t.Fatalf("resumed plan's backfill = %s", got)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := ledgerOf(t, dir, "dev", "core.daily"); got != "20 done, failed []" {
		t.Fatalf("ledger after the resumed apply: %s", got)
	}
	got := query(t, dir, "SELECT day, events FROM dev__core.daily ORDER BY ALL")
	if want := expectedDaily(t, dir); got != want {
		t.Fatalf("dev__core.daily after resuming:\n got %s\nwant %s", got, want)
	}
	if n := query(t, dir, "SELECT count(*) - count(DISTINCT day) FROM dev__core.daily"); n != "[[0]]" {
		t.Fatalf("%s duplicated days", n)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after the resumed apply:\n%s", out)
	}

	// A tick whose interval fails: run exits 1 (outcome error) and
	// status --check reports the failed interval and the errored tick.
	editFile(t, dir, "data/events.csv", func(s string) string { return s + "e2100,boom,2026-01-21T10:00:00Z\n" })
	t.Setenv("EFMESH_NOW", "2026-01-22T01:00:00Z")
	if r := runTick(t, dir, "dev", ExitError); r.Outcome != "error" || len(r.Failed) != 1 || r.Failed[0].Model != "core.daily" ||
		!strings.Contains(r.Failed[0].Error, "[2026-01-21T00:00:00Z, 2026-01-22T00:00:00Z)") {
		t.Fatalf("failing tick: %+v", r)
	}
	code, out, _ = run(t, dir, "status", "dev", "--check")
	if code != ExitError || !strings.Contains(out, "failed [2026-01-21T00:00:00Z, 2026-01-22T00:00:00Z)") ||
		!strings.Contains(out, "the last run tick") || !strings.Contains(out, "Unhealthy") {
		t.Fatalf("status --check after a failed tick: exit %d\n%s", code, out)
	}
	editFile(t, dir, "data/events.csv", func(s string) string { return strings.Replace(s, "e2100,boom", "e2100,ok", 1) })
	if r := runTick(t, dir, "dev", ExitOK); r.Intervals != 1 {
		t.Fatalf("tick after the fix: %+v", r)
	}
	if s := statusOf(t, dir, "dev"); !s.Healthy || s.Models[0].Done != 21 || len(s.Models[0].Failed) != 0 {
		t.Fatalf("status after the fix: %+v", s)
	}
	if got, want := query(t, dir, "SELECT day, events FROM dev__core.daily ORDER BY ALL"), expectedDaily(t, dir); got != want {
		t.Fatalf("dev__core.daily after the fixed tick:\n got %s\nwant %s", got, want)
	}
}

type statusOut struct {
	APIVersion int      `json:"apiVersion"`
	Healthy    bool     `json:"healthy"`
	Problems   []string `json:"problems"`
	LastPlan   *struct {
		ID      string          `json:"id"`
		Summary json.RawMessage `json:"summary"`
	} `json:"lastPlan"`
	Models []struct {
		Name           string     `json:"name"`
		CoveredThrough string     `json:"coveredThrough"`
		DueThrough     string     `json:"dueThrough"`
		Missing        int        `json:"missing"`
		Done           int        `json:"done"`
		Failed         [][]string `json:"failed"`
	} `json:"models"`
	Ticks []struct {
		Outcome string          `json:"outcome"`
		Detail  json.RawMessage `json:"detail"`
	} `json:"ticks"`
}

func statusOf(t *testing.T, dir, env string) statusOut {
	t.Helper()
	out := mustRun(t, dir, "status", env, "--json", "--check")
	var s statusOut
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.APIVersion != 1 {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	return s
}

func TestRunRestateStatus(t *testing.T) {
	dir := copyExample(t, "hospital")
	const daily = "med.moves_daily"

	// Never applied: run waits for a human, status is healthy.
	t.Setenv("EFMESH_NOW", "2026-02-01T06:00:00Z")
	if r := runTick(t, dir, "dev", ExitAwaiting); r.Outcome != "awaiting-human" || !slices.Contains(r.BlockedBy, daily+": added") {
		t.Fatalf("run before any apply: %+v", r)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	before := query(t, dir, "SELECT * FROM dev__med.moves_daily ORDER BY ALL")
	// Nothing is due; the refreshed kinds (unique key, SCD 2) merge again.
	if r := runTick(t, dir, "dev", ExitOK); r.Outcome != "ok" || r.Intervals != 0 ||
		fmt.Sprint(r.Processed) != "[med.cases ref.departments_history]" {
		t.Fatalf("run with nothing due: %+v", r)
	}

	// Two days later, run computes exactly the two new days.
	t.Setenv("EFMESH_NOW", "2026-02-03T00:30:00Z")
	if r := runTick(t, dir, "dev", ExitOK); r.Outcome != "ok" || !slices.Contains(r.Processed, daily) || r.Intervals != 2 {
		t.Fatalf("run with two new days: %+v", r)
	}
	if got := ledgerOf(t, dir, "dev", daily); got != "33 done, failed []" {
		t.Fatalf("ledger after run: %s", got)
	}

	// A model edit blocks run, naming the model; the ledger is untouched.
	restore := editFile(t, dir, "models/med/stays.sql", func(s string) string {
		return strings.Replace(s, "WHERE dept <> 'discharge'", "WHERE dept <> 'discharge' AND dept <> 'ER'", 1)
	})
	t.Setenv("EFMESH_NOW", "2026-02-04T00:30:00Z")
	r := runTick(t, dir, "dev", ExitAwaiting)
	if r.Outcome != "awaiting-human" || !slices.Contains(r.BlockedBy, "med.stays: breaking") || len(r.Processed) != 0 {
		t.Fatalf("run after an edit: %+v", r)
	}
	if code, _, errs := run(t, dir, "run", "dev"); code != ExitAwaiting || !strings.Contains(errs, "med.stays: breaking") {
		t.Fatalf("run after an edit (text): exit %d\n%s", code, errs)
	}
	if got := ledgerOf(t, dir, "dev", daily); got != "33 done, failed []" {
		t.Fatalf("a blocked run changed the ledger: %s", got)
	}
	// After apply (which computes the new day), the next run catches up
	// only what came due since.
	mustRun(t, dir, "apply", "dev", "--yes", "--skip-tests")
	restore()
	mustRun(t, dir, "apply", "dev", "--yes")
	t.Setenv("EFMESH_NOW", "2026-02-05T00:30:00Z")
	if r := runTick(t, dir, "dev", ExitOK); !slices.Contains(r.Processed, daily) || r.Intervals != 1 {
		t.Fatalf("run after apply: %+v", r)
	}

	// Restate: a misaligned bound is refused; two days are cleared and
	// recomputed, nothing else, and the rows are the same.
	if code, _, errs := run(t, dir, "restate", "dev", "--model", daily, "--from", "2026-01-10T06:00:00Z", "--to", "2026-01-12"); code != ExitError ||
		!strings.Contains(errs, "not aligned") {
		t.Fatalf("misaligned restate: exit %d\n%s", code, errs)
	}
	if code, _, errs := run(t, dir, "restate", "dev", "--model", "ref.departments", "--from", "2026-01-10", "--to", "2026-01-12"); code != ExitError ||
		!strings.Contains(errs, "only INCREMENTAL_BY_TIME_RANGE and FULL models") {
		t.Fatalf("restate of a SEED model: exit %d\n%s", code, errs)
	}
	out := mustRun(t, dir, "restate", "dev", "--model", daily, "--from", "2026-01-10", "--to", "2026-01-12", "--dry-run")
	if !strings.Contains(out, "Would clear 2 interval(s) of med.moves_daily") || ledgerOf(t, dir, "dev", daily) != "35 done, failed []" {
		t.Fatalf("restate --dry-run: %s", out)
	}
	mustRun(t, dir, "restate", "dev", "--model", daily, "--from", "2026-01-10", "--to", "2026-01-12")
	if got := backfillOf(t, dir, "dev", daily); got != "[[2026-01-10T00:00:00Z 2026-01-12T00:00:00Z]]" {
		t.Fatalf("backfill after restate: %s", got)
	}
	if r := runTick(t, dir, "dev", ExitOK); r.Intervals != 2 {
		t.Fatalf("run after restate: %+v", r)
	}
	if got := query(t, dir, "SELECT * FROM dev__med.moves_daily WHERE day < '2026-02-01' ORDER BY ALL"); got != before {
		t.Fatalf("restated rows differ:\n got %s\nwant %s", got, before)
	}

	// A held lock: run reports lock-held (exit 1), apply and restate refuse.
	st := openState(t, dir)
	lk, err := planner.AcquireLock(context.Background(), st, planner.EnvLock("dev"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, dir, "run", "dev", "--json", "--lock-timeout", "0s"); code != ExitError ||
		!strings.Contains(out, `"outcome": "lock-held"`) || !strings.Contains(out, "lock env:dev is held") {
		t.Fatalf("run under a held lock: exit %d\n%s%s", code, out, errs)
	}
	restoreICU := editFile(t, dir, "models/med/stays.sql", func(s string) string {
		return strings.Replace(s, "WHERE dept <> 'discharge'", "WHERE dept <> 'discharge' AND dept <> 'ICU'", 1)
	})
	if code, _, errs := run(t, dir, "apply", "dev", "--yes"); code != ExitError || !strings.Contains(errs, "lock env:dev is held") {
		t.Fatalf("apply under a held lock: exit %d\n%s", code, errs)
	}
	if code, _, errs := run(t, dir, "restate", "dev", "--model", daily, "--from", "2026-01-10", "--to", "2026-01-12"); code != ExitError ||
		!strings.Contains(errs, "lock env:dev is held") {
		t.Fatalf("restate under a held lock: exit %d\n%s", code, errs)
	}
	if err := lk.Release(); err != nil {
		t.Fatal(err)
	}
	restoreICU()

	// The journal holds every tick; the last one, lock-held, did not
	// complete: status --check says so.
	if code, out, _ := run(t, dir, "status", "dev", "--check"); code != ExitError || !strings.Contains(out, "did not complete: lock-held") {
		t.Fatalf("status --check after a lock-held tick: exit %d\n%s", code, out)
	}
	runTick(t, dir, "dev", ExitOK)
	s := statusOf(t, dir, "dev")
	var outcomes []string
	for _, tk := range s.Ticks {
		outcomes = append(outcomes, tk.Outcome)
	}
	if want := "[ok lock-held ok ok awaiting-human awaiting-human ok ok awaiting-human]"; fmt.Sprint(outcomes) != want {
		t.Fatalf("ticks = %v, want %s", outcomes, want)
	}
	if !s.Healthy || s.LastPlan == nil || len(s.Models) != 1 || s.Models[0].Missing != 0 || s.Models[0].CoveredThrough != "2026-02-05T00:00:00Z" {
		t.Fatalf("status: %+v", s)
	}

	// A tick over a project that does not load is journaled as an error,
	// which status --check reports; the next good tick heals it.
	restore = editFile(t, dir, "models/med/moves_daily.sql", func(s string) string { return strings.Replace(s, "@ref(med.moves_clean)", "@ref(med.moves_dirty)", 1) })
	if code, _, errs := run(t, dir, "run", "dev"); code != ExitError || !strings.Contains(errs, "med.moves_dirty") {
		t.Fatalf("run over a broken project: exit %d\n%s", code, errs)
	}
	code, out, _ := run(t, dir, "status", "dev", "--check")
	if code != ExitError || !strings.Contains(out, "the last run tick") {
		t.Fatalf("status --check after an errored tick: exit %d\n%s", code, out)
	}
	restore()
	runTick(t, dir, "dev", ExitOK)
	statusOf(t, dir, "dev")
}

// TestRestateCascades: restating hours of an hourly model clears those
// hours and, widened to whole days, its daily descendant's; the FULL model
// between them is not interval-based and keeps its rows. The next apply
// recomputes exactly the cleared intervals, with the same rows.
func TestRestateCascades(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-08T00:00:00Z")
	var csv strings.Builder
	csv.WriteString("id,ts\n")
	for i := 0; i < 7*24*2; i++ {
		fmt.Fprintf(&csv, "e%d,2026-01-%02dT%02d:%02d:00Z\n", i, 1+i/48, i/2%24, i%2*30)
	}
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     "name: cascade\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/events.csv": csv.String(),
		"models/raw.sql": `MODEL (
  name raw.events,
  kind EXTERNAL (files 'data/events.csv', format csv, header true),
  columns (id TEXT, ts TIMESTAMP)
);
`,
		"models/hourly.sql": `MODEL (
  name core.hourly,
  kind INCREMENTAL_BY_TIME_RANGE (time_column hour),
  interval hour,
  columns (hour TIMESTAMP, n BIGINT)
);
SELECT date_trunc('hour', ts) AS hour, count(*) AS n FROM @ref(raw.events)
WHERE ts >= @start AND ts < @end GROUP BY ALL
`,
		"models/daily.sql": `MODEL (
  name core.daily,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day, batch_size 2),
  columns (day TIMESTAMP, n BIGINT)
);
SELECT date_trunc('day', hour)::TIMESTAMP AS day, sum(n)::BIGINT AS n FROM @ref(core.hourly)
WHERE hour >= @start AND hour < @end GROUP BY ALL
`,
		"models/total.sql": `MODEL (
  name mart.total,
  kind FULL,
  columns (n BIGINT)
);
SELECT sum(n)::BIGINT AS n FROM @ref(core.daily)
`,
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	hourly := query(t, dir, "SELECT * FROM dev__core.hourly ORDER BY ALL")
	daily := query(t, dir, "SELECT * FROM dev__core.daily ORDER BY ALL")
	if daily != "[[2026-01-01 00:00:00 +0000 UTC 48] [2026-01-02 00:00:00 +0000 UTC 48] [2026-01-03 00:00:00 +0000 UTC 48] [2026-01-04 00:00:00 +0000 UTC 48] [2026-01-05 00:00:00 +0000 UTC 48] [2026-01-06 00:00:00 +0000 UTC 48] [2026-01-07 00:00:00 +0000 UTC 48]]" {
		t.Fatalf("daily: %s", daily)
	}

	out := mustRun(t, dir, "restate", "dev", "--model", "core.hourly", "--from", "2026-01-05T06:00:00Z", "--to", "2026-01-05T12:00:00Z", "--json")
	var rs struct {
		Models []struct {
			Name      string `json:"name"`
			From      string `json:"from"`
			To        string `json:"to"`
			Intervals int    `json:"intervals"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatal(err)
	}
	// The FULL descendant is marked for a rebuild at the next run.
	if got := fmt.Sprint(rs.Models); got != "[{core.daily 2026-01-05T00:00:00Z 2026-01-06T00:00:00Z 1} {core.hourly 2026-01-05T06:00:00Z 2026-01-05T12:00:00Z 6} {mart.total 2026-01-05T06:00:00Z 2026-01-05T12:00:00Z 1}]" {
		t.Fatalf("restated: %s", got)
	}
	if got := ledgerOf(t, dir, "dev", "core.hourly"); got != "162 done, failed []" {
		t.Fatalf("hourly ledger after restate: %s", got)
	}
	if got := backfillOf(t, dir, "dev", "core.hourly"); got != "[[2026-01-05T06:00:00Z 2026-01-05T12:00:00Z]]" {
		t.Fatalf("hourly backfill: %s", got)
	}
	if got := backfillOf(t, dir, "dev", "core.daily"); got != "[[2026-01-05T00:00:00Z 2026-01-06T00:00:00Z]]" {
		t.Fatalf("daily backfill: %s", got)
	}
	if got := backfillOf(t, dir, "dev", "mart.total"); got != "[]" {
		t.Fatalf("total backfill: %s", got)
	}
	out = mustRun(t, dir, "apply", "dev", "--yes", "--json")
	var applied struct {
		Built    []string `json:"built"`
		Computed []string `json:"computed"`
	}
	// Restated intervals are computed into the tables that exist: nothing
	// is built, as the plan said (0 to build, 2 to compute).
	if err := json.Unmarshal([]byte(out), &applied); err != nil || len(applied.Built) != 0 || fmt.Sprint(applied.Computed) != "[core.hourly core.daily]" {
		t.Fatalf("apply after restate: %v %s", err, out)
	}
	if got := query(t, dir, "SELECT * FROM dev__core.hourly ORDER BY ALL"); got != hourly {
		t.Fatalf("hourly rows changed")
	}
	if got := query(t, dir, "SELECT * FROM dev__core.daily ORDER BY ALL"); got != daily {
		t.Fatalf("daily rows changed: %s", got)
	}
	if got := ledgerOf(t, dir, "dev", "core.daily"); got != "7 done, failed []" {
		t.Fatalf("daily ledger: %s", got)
	}
	// The next run rebuilds the restated FULL model, though its cron
	// (@daily) has not fired since the apply.
	if r := runTick(t, dir, "dev", ExitOK); fmt.Sprint(r.Refreshed) != "[mart.total]" || r.Intervals != 0 {
		t.Fatalf("run after restate: %+v", r)
	}
	if got := ledgerOf(t, dir, "dev", "mart.total"); got != "1 done, failed []" {
		t.Fatalf("total's refresh record: %s", got)
	}
}

// TestLookbackReadsLateData: with lookback 2, the tick that computes a new
// day also recomputes the two days before it, picking up a late event.
func TestLookbackReadsLateData(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-21T09:00:00Z")
	dir := eventsProject(t)
	editFile(t, dir, "data/events.csv", func(s string) string { return strings.Replace(s, ",boom,", ",ok,", 1) })
	editFile(t, dir, "models/core/daily.sql", func(s string) string {
		return strings.Replace(s, "batch_size 3", "batch_size 1, lookback 2", 1)
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	before := query(t, dir, "SELECT events FROM dev__core.daily WHERE day = '2026-01-19'")

	// A late event for 01-19 arrives with 01-21's data.
	editFile(t, dir, "data/events.csv", func(s string) string {
		return s + "late,ok,2026-01-19T23:00:00Z\ne2100,ok,2026-01-21T10:00:00Z\n"
	})
	t.Setenv("EFMESH_NOW", "2026-01-22T01:00:00Z")
	if got := backfillOf(t, dir, "dev", "core.daily"); got != "[[2026-01-19T00:00:00Z 2026-01-22T00:00:00Z]]" {
		t.Fatalf("backfill with lookback: %s", got)
	}
	if r := runTick(t, dir, "dev", ExitOK); r.Intervals != 3 {
		t.Fatalf("tick with lookback: %+v", r)
	}
	after := query(t, dir, "SELECT events FROM dev__core.daily WHERE day = '2026-01-19'")
	if before != "[[4]]" || after != "[[5]]" {
		t.Fatalf("01-19 events: %s before, %s after the late event", before, after)
	}
	if got, want := query(t, dir, "SELECT day, events FROM dev__core.daily ORDER BY ALL"), expectedDaily(t, dir); got != want {
		t.Fatalf("dev__core.daily:\n got %s\nwant %s", got, want)
	}
}
