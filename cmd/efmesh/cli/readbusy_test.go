package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReadWhileWarehouseBusy: plan and status read a DuckDB file another
// process is writing the way apply does: they wait for it (--lock-timeout)
// instead of failing at once; a status whose warehouse stays busy says the
// relations were not checked, as a note: it stays healthy (exit 0 with
// --check), in text and in --json.
func TestReadWhileWarehouseBusy(t *testing.T) {
	dir := writeProject(t, threeLevels())
	mustRun(t, dir, "apply", "dev", "--yes")
	pid, release := warehouseHolder(t, dir)
	note := fmt.Sprintf("warehouse busy (pid %d): relations not checked", pid)

	code, out, errs := run(t, dir, "status", "dev", "--check", "--lock-timeout", "300ms")
	if code != ExitOK || !strings.Contains(out, note) || !strings.Contains(out, "Healthy.") {
		t.Fatalf("status --check of a busy warehouse: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, dir, "status", "dev", "--json", "--lock-timeout", "0s")
	var s struct {
		Healthy  bool     `json:"healthy"`
		Notes    []string `json:"notes"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != ExitOK || !s.Healthy || len(s.Problems) != 0 ||
		!slices.ContainsFunc(s.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
		t.Fatalf("status --json of a busy warehouse: exit %d %v\n%s%s", code, err, out, errs)
	}

	// plan waits for the writer, then checks the warehouse as usual.
	go func() {
		time.Sleep(500 * time.Millisecond)
		release()
	}()
	start := time.Now()
	code, out, errs = run(t, dir, "plan", "dev", "--lock-timeout", "1m")
	if code != ExitOK || !strings.Contains(out, "No changes") || !strings.Contains(errs, "waiting") ||
		!strings.Contains(errs, fmt.Sprintf("pid %d", pid)) {
		t.Fatalf("plan while the warehouse is busy: exit %d\n%s%s", code, out, errs)
	}
	if waited := time.Since(start); waited < 400*time.Millisecond {
		t.Fatalf("plan did not wait for the writer (%v)", waited)
	}
	// Once free, status checks the relations again.
	if code, out := statusCheck(t, dir, "dev"); code != ExitOK || strings.Contains(out, "not checked") {
		t.Fatalf("status after the writer: exit %d\n%s", code, out)
	}
}

// TestPlanBusyTimeoutFromConfig: engine lock_timeout in efmesh.yaml bounds
// how long plan waits for a busy warehouse, as it does for apply.
func TestPlanBusyTimeoutFromConfig(t *testing.T) {
	files := threeLevels()
	files["efmesh.yaml"] = strings.TrimRight(files["efmesh.yaml"], "\n") + "\nengine:\n  lock_timeout: 400ms\n"
	dir := writeProject(t, files)
	mustRun(t, dir, "apply", "dev", "--yes")
	pid, _ := warehouseHolder(t, dir)
	start := time.Now()
	code, out, errs := run(t, dir, "plan", "dev")
	if code != ExitError || !strings.Contains(errs, fmt.Sprintf("pid %d", pid)) || !strings.Contains(errs, "gave up after 400ms") {
		t.Fatalf("plan of a busy warehouse: exit %d\n%s%s", code, out, errs)
	}
	if waited := time.Since(start); waited < 400*time.Millisecond {
		t.Fatalf("plan gave up after %v, before engine lock_timeout", waited)
	}
}
