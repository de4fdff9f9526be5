package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/planner"
)

// A run tick that meets the environment's lock held (an apply, another
// tick) waits for it up to --lock-timeout, as it waits for a DuckDB file
// another process writes, then fails clearly: lock-held, exit 1, with the
// flag that waits longer. A lock released while it waits lets it run.
func TestRunWaitsForTheEnvLock(t *testing.T) {
	dir := testkit.Shop32(t)
	mustRun(t, dir, "apply", "prod", "--yes")
	st := openState(t, dir)
	lk, err := planner.AcquireLock(context.Background(), st, planner.EnvLock("prod"), 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, _, errs := run(t, dir, "run", "prod", "--lock-timeout", "400ms")
	if waited := time.Since(start); code != ExitError || waited < 400*time.Millisecond ||
		!strings.Contains(errs, "lock env:prod is held by pid") || !strings.Contains(errs, "waiting up to 400ms for it to finish") ||
		!strings.Contains(errs, "efmesh: run prod: lock-held: ") || !strings.Contains(errs, "gave up after 400ms (wait longer with --lock-timeout 1m") {
		t.Fatalf("run under a held lock: exit %d after %v\n%s", code, waited, errs)
	}
	// --lock-timeout 0s fails at once, as before.
	if code, _, errs := run(t, dir, "run", "prod", "--lock-timeout", "0s"); code != ExitError || strings.Contains(errs, "waiting") ||
		strings.Contains(errs, "gave up") || !strings.Contains(errs, "lock-held") {
		t.Fatalf("run --lock-timeout 0s under a held lock: exit %d\n%s", code, errs)
	}

	// A tick that failed lock-held did not complete: status --check says
	// so (exit 1), in text and in --json.
	if code, out, _ := run(t, dir, "status", "prod", "--check"); code != ExitError ||
		!strings.Contains(out, "did not complete: lock-held: lock env:prod is held") {
		t.Fatalf("status --check after a lock-held tick: exit %d\n%s", code, out)
	}

	// A tick in another process waits for the lock: it is journaled as
	// started, and status notes it is in progress (no problem of its own).
	waiter, _, waiterErr := cliProcess(dir, "run", "prod", "--lock-timeout", "5m")
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- waiter.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(waiterErr.String(), "waiting up to") {
		if time.Now().After(deadline) {
			t.Fatalf("the second tick never waited:\n%s", waiterErr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	code, out, _ := run(t, dir, "status", "prod", "--check", "--json")
	if code != ExitOK || !strings.Contains(out, `"running": true`) || !strings.Contains(out, "a run tick is in progress since") {
		t.Fatalf("status --check while a tick waits: exit %d\n%s", code, out)
	}
	// Killed (kill -9) before it could record its outcome: the tick
	// started and never finished, and status --check says so.
	if err := waiter.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	code, out, _ = run(t, dir, "status", "prod", "--check")
	if code != ExitError || !strings.Contains(out, fmt.Sprintf("started and never finished: pid %d on", waiter.Process.Pid)) {
		t.Fatalf("status --check after a killed tick: exit %d\n%s", code, out)
	}

	// Released while the tick waits: the tick runs.
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = lk.Release()
	}()
	if code, out, errs := run(t, dir, "run", "prod", "--lock-timeout", "1m"); code != ExitOK || !strings.Contains(errs, "waiting up to 1m0s") {
		t.Fatalf("run after the lock was released: exit %d\n%s%s", code, out, errs)
	}
}
