package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/efmesh/efmesh/state"
)

const slowDays = 4

// slowTicksProject is ticksProject over slowDays days, with a query that
// burns time in every batch: a signal lands in the middle of one.
func slowTicksProject(t *testing.T) string {
	return writeProject(t, map[string]string{
		"efmesh.yaml": "name: ticks\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"models/raw/ticks.sql": fmt.Sprintf(`MODEL (
  name raw.ticks,
  kind FULL,
  columns (id BIGINT, ts TIMESTAMP)
);

SELECT i AS id, TIMESTAMP '2026-01-01' + to_minutes(i) AS ts
FROM range(0, %d * 24 * 60) AS t(i)
`, slowDays),
		"models/core/hourly.sql": `MODEL (
  name core.hourly,
  kind INCREMENTAL_BY_TIME_RANGE (time_column hour, batch_size 1),
  interval hour,
  columns (hour TIMESTAMP, n BIGINT, first_id BIGINT)
);

SELECT date_trunc('hour', ts) AS hour, count(*) AS n, min(id) AS first_id
FROM @ref(raw.ticks)
WHERE ts >= @start AND ts < @end
  AND (SELECT count(*) FROM range(0, 1500000) AS s(x) WHERE hash(x + epoch(@start)) % 7 = 0) > 0
GROUP BY ALL
`,
	})
}

// cleanHourly is what a clean, uninterrupted backfill of slowTicksProject
// yields: one row per hour, 60 ticks each, first ids 0, 60, 120, …
func cleanHourly() string {
	h := slowDays * 24
	return fmt.Sprintf("[[%d %d %d 60 60 %d]]", h, h, h*60, 60*h*(h-1)/2)
}

const hourlySummary = "SELECT count(*), count(DISTINCT hour), sum(n), min(n), max(n), sum(first_id) FROM dev__core.hourly"

// interruptMidBackfill starts efmesh args as a process, waits until the
// backfill of fp has committed some intervals, sends sig and returns the
// exit code and stderr.
func interruptMidBackfill(t *testing.T, dir, fp string, sig os.Signal, args ...string) (int, string) {
	t.Helper()
	before := doneCount(t, dir, fp)
	p, _, errb := cliProcess(dir, args...)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- p.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for doneCount(t, dir, fp) < before+5 {
		select {
		case err := <-exited:
			t.Fatalf("efmesh %s ended before the signal (%v)\n%s", strings.Join(args, " "), err, errb)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the backfill made no progress\n%s", errb)
		}
	}
	if err := p.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		_ = p.Process.Kill()
		t.Fatalf("efmesh %s did not end within 30s of %v\n%s", strings.Join(args, " "), sig, errb)
	}
	return p.ProcessState.ExitCode(), errb.String()
}

// lockRows lists the rows of the state store's locks table.
func lockRows(t *testing.T, dir string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name, pid FROM locks")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		var pid int
		if err := rows.Scan(&name, &pid); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s (pid %d)", name, pid))
	}
	return out
}

// checkNoHalfInterval checks that the ledger of fp holds done intervals
// only, and that the physical table holds exactly those hours, each whole.
func checkNoHalfInterval(t *testing.T, dir, fp string) int {
	t.Helper()
	ivs, err := openState(t, dir).Intervals(context.Background(), fp)
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range ivs {
		if iv.Status != state.IntervalDone {
			t.Fatalf("the ledger holds a %s interval %s after the interrupt", iv.Status, iv.Start)
		}
	}
	table := "_efmesh.core__hourly__" + fp[:8]
	got := query(t, dir, "SELECT count(*), count(DISTINCT hour), coalesce(min(n), 60), coalesce(max(n), 60) FROM "+table)
	if want := fmt.Sprintf("[[%d %d 60 60]]", len(ivs), len(ivs)); got != want {
		t.Fatalf("the table holds %s (rows, hours, min n, max n), the ledger %d done intervals", got, len(ivs))
	}
	return len(ivs)
}

func hourlyFP(t *testing.T, dir string) string {
	t.Helper()
	for _, m := range planJSONOf(t, dir, "dev").Models {
		if m.Name == "core.hourly" {
			return m.Fingerprint
		}
	}
	t.Fatal("core.hourly is not in the plan")
	return ""
}

// TestInterruptApply sends SIGINT to an apply in the middle of a slow
// backfill: the batch in flight rolls back, the lock is released, the plan
// journal says interrupted, exit 130; the next apply resumes and ends
// where a clean run does.
func TestInterruptApply(t *testing.T) {
	t.Setenv("EFMESH_NOW", fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+slowDays))
	dir := slowTicksProject(t)
	fp := hourlyFP(t, dir)

	code, errs := interruptMidBackfill(t, dir, fp, os.Interrupt, "apply", "dev", "--yes")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, errs)
	}
	if !strings.Contains(errs, "interrupted") {
		t.Errorf("stderr does not say interrupted:\n%s", errs)
	}
	if locks := lockRows(t, dir); len(locks) != 0 {
		t.Fatalf("locks left behind: %v", locks)
	}
	plans, err := openState(t, dir).Plans(context.Background(), "dev", 1)
	if err != nil || len(plans) != 1 || plans[0].Status != state.PlanInterrupted {
		t.Fatalf("plan journal: %+v (%v)", plans, err)
	}
	n := checkNoHalfInterval(t, dir, fp)
	if n >= slowDays*24 {
		t.Fatalf("the backfill finished (%d intervals) before the signal", n)
	}
	t.Logf("interrupted after %d of %d intervals; stderr:\n%s", n, slowDays*24, errs)

	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, hourlySummary); got != cleanHourly() {
		t.Fatalf("after resuming: %s, want %s", got, cleanHourly())
	}
	if got := ledgerOf(t, dir, "dev", "core.hourly"); got != fmt.Sprintf("%d done, failed []", slowDays*24) {
		t.Fatalf("ledger after resuming: %s", got)
	}
}

// TestTerminateRun sends SIGTERM to a run tick catching up on a slow
// backfill: exit 130, no lock left, the runs journal says interrupted, and
// the next tick finishes the work as a clean run would.
func TestTerminateRun(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-02T00:00:00Z") // one day applied
	dir := slowTicksProject(t)
	mustRun(t, dir, "apply", "dev", "--yes")
	fp := hourlyFP(t, dir)

	t.Setenv("EFMESH_NOW", fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+slowDays))
	code, errs := interruptMidBackfill(t, dir, fp, syscall.SIGTERM, "run", "dev")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, errs)
	}
	if locks := lockRows(t, dir); len(locks) != 0 {
		t.Fatalf("locks left behind: %v", locks)
	}
	runs, err := openState(t, dir).Runs(context.Background(), "dev", 1)
	if err != nil || len(runs) != 1 || runs[0].Outcome != state.RunInterrupted {
		t.Fatalf("runs journal: %+v (%v)", runs, err)
	}
	t.Logf("stderr:\n%s", errs)
	n := checkNoHalfInterval(t, dir, fp)
	if n >= slowDays*24 {
		t.Fatalf("the tick finished (%d intervals) before the signal", n)
	}
	// The journal counts what the stopped tick committed (the first day
	// came from the apply).
	var detail struct{ Intervals int }
	if err := json.Unmarshal(runs[0].Detail, &detail); err != nil || detail.Intervals != n-24 {
		t.Fatalf("the journal says %d intervals (%v), the ledger gained %d", detail.Intervals, err, n-24)
	}

	if r := runTick(t, dir, "dev", ExitOK); r.Outcome != state.RunOK {
		t.Fatalf("the next tick: %+v", r)
	}
	if got := query(t, dir, hourlySummary); got != cleanHourly() {
		t.Fatalf("after the next tick: %s, want %s", got, cleanHourly())
	}
}

// TestWarehouseBusy runs two processes that write one DuckDB file (applies
// of two environments, so efmesh's own locks do not meet): the second
// waits for the file, naming the holder, and gives up after its timeout
// with exit 1 and no driver message; with a longer timeout it goes on once
// the holder is done.
func TestWarehouseBusy(t *testing.T) {
	t.Setenv("EFMESH_NOW", fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+slowDays))
	dir := slowTicksProject(t)
	fp := hourlyFP(t, dir)

	holder, _, holderErr := cliProcess(dir, "apply", "prod", "--yes")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- holder.Wait() }()
	for doneCount(t, dir, fp) < 2 {
		select {
		case err := <-exited:
			t.Fatalf("the holder ended too soon (%v)\n%s", err, holderErr)
		case <-time.After(5 * time.Millisecond):
		}
	}
	pid := fmt.Sprintf("pid %d", holder.Process.Pid)

	// A short timeout: it waits, then fails clearly.
	start := time.Now()
	code, _, errs := runProcess(t, dir, "apply", "dev", "--yes", "--lock-timeout", "700ms")
	waited := time.Since(start)
	if code != ExitError || !strings.Contains(errs, pid) || !strings.Contains(errs, "efmesh.duckdb") ||
		strings.Contains(errs, "Could not set lock") || !strings.Contains(errs, "--lock-timeout") {
		t.Fatalf("second writer: exit %d\n%s", code, errs)
	}
	if waited < 700*time.Millisecond {
		t.Errorf("the second writer gave up after %v, before its timeout", waited)
	}
	select {
	case err := <-exited:
		t.Fatalf("the holder ended during the check (%v): the backfill is too fast for this test", err)
	default:
	}

	t.Logf("the impatient writer:\n%s", errs)

	// A long timeout (the janitor, a writer that is quick once it has the
	// file): it waits for the holder and then does its work.
	code, _, errs = runProcess(t, dir, "janitor", "--lock-timeout", "2m")
	if code != ExitOK || !strings.Contains(errs, "waiting") || !strings.Contains(errs, pid) {
		t.Fatalf("patient writer: exit %d\n%s", code, errs)
	}
	t.Logf("the patient writer:\n%s", errs)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("holder: %v\n%s", err, holderErr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the holder still runs after the patient writer got the file")
	}
	if got := query(t, dir, strings.Replace(hourlySummary, "dev__", "", 1)); got != cleanHourly() {
		t.Fatalf("prod: %s, want %s", got, cleanHourly())
	}
}

// runProcess runs efmesh as a separate process and returns its exit code,
// stdout and stderr.
func runProcess(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	p, out, errb := cliProcess(dir, args...)
	_ = p.Run()
	if p.ProcessState == nil {
		t.Fatalf("efmesh %s did not start", strings.Join(args, " "))
	}
	return p.ProcessState.ExitCode(), out.String(), errb.String()
}
