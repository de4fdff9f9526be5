package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lastPlanID is the id of env's last applied plan, as status --json says.
func lastPlanID(t *testing.T, dir, env string) string {
	t.Helper()
	var s struct {
		LastPlan struct {
			ID string `json:"id"`
		} `json:"lastPlan"`
	}
	out := mustRun(t, dir, "status", env, "--json")
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.LastPlan.ID == "" {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	return s.LastPlan.ID
}

// A pipeline applies with --expect-env the plan it looked at: once someone
// applied since, the apply is refused and changes nothing; with the
// environment's last plan it proceeds.
func TestApplyExpectEnv(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-02-01T06:00:00Z")
	dir := t.TempDir()
	script, _ := filepath.Abs(filepath.Join("testdata", "projects", "shop32.sh"))
	cmd := exec.Command("sh", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shop32: %v\n%s", err, out)
	}
	t.Setenv("EFMESH_USER", "ci")
	mustRun(t, dir, "apply", "prod", "--yes")
	seen := lastPlanID(t, dir, "prod")

	// A colleague applies meanwhile.
	t.Setenv("EFMESH_USER", "bob")
	t.Setenv("EFMESH_NOW", "2026-02-01T07:00:00Z")
	editFile(t, dir, "models/core/c_1.sql", func(s string) string { return strings.Replace(s, "a.amount + b.amount", "a.amount + b.amount + 1", 1) })
	mustRun(t, dir, "apply", "prod", "--yes", "--skip-tests")
	moved := lastPlanID(t, dir, "prod")

	t.Setenv("EFMESH_USER", "ci")
	t.Setenv("EFMESH_NOW", "2026-02-01T08:00:00Z")
	editFile(t, dir, "models/core/c_3.sql", func(s string) string { return strings.Replace(s, "a.amount + b.amount", "a.amount + b.amount + 3", 1) })
	before := storeState(t, dir)
	code, _, errs := run(t, dir, "apply", "prod", "--yes", "--skip-tests", "--expect-env", seen)
	want := "prod moved since plan " + seen + ": plan " + moved + " was applied by bob at 2026-02-01T07:00:00Z; plan again"
	if code != ExitError || !strings.Contains(errs, want) {
		t.Fatalf("apply --expect-env of an older plan: exit %d, want %d and %q\n%s", code, ExitError, want, errs)
	}
	if after := storeState(t, dir); after != before {
		t.Fatalf("a refused apply changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	mustRun(t, dir, "apply", "prod", "--yes", "--skip-tests", "--expect-env", moved)
	if id := lastPlanID(t, dir, "prod"); id == moved {
		t.Fatalf("apply --expect-env %s of the last plan did not apply", moved)
	}
}
