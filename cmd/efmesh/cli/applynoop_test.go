package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/planner"
)

// fastApply is the debug line of an apply answered from the no-op digest.
const fastApply = "apply answered from the no-op digest"

// debugLine matches a line of the debug log, which says which path
// answered and nothing else.
var debugLine = regexp.MustCompile(`(?m)^time=\S+ level=DEBUG .*\n`)

// applyBoth runs efmesh apply with args twice on an unchanged project:
// answered from the no-op digest, then by the full path (the digests
// removed first), and fails unless both give the same exit code, stdout
// and stderr (the debug log aside) and leave the store as they found it.
// It returns the exit code and the outputs.
func applyBoth(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	return applyBothIn(t, dir, storeState, args...)
}

// applyBothIn is applyBoth for a store summed up by storeState.
func applyBothIn(t *testing.T, dir string, storeState func(*testing.T, string) string, args ...string) (int, string, string) {
	t.Helper()
	args = append([]string{"--log-level", "debug", "apply"}, args...)
	before := storeState(t, dir)
	fastCode, fastOut, fastErr := run(t, dir, args...)
	if !strings.Contains(fastErr, fastApply) {
		t.Fatalf("efmesh %s was not answered from the no-op digest: exit %d\n%s", strings.Join(args, " "), fastCode, fastErr)
	}
	if after := storeState(t, dir); after != before {
		t.Fatalf("the apply answered from the digest changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	forgetNoop(t, dir)
	fullCode, fullOut, fullErr := run(t, dir, args...)
	if strings.Contains(fullErr, fastApply) {
		t.Fatalf("without the digests, efmesh %s was answered from one", strings.Join(args, " "))
	}
	if after := storeState(t, dir); after != before {
		t.Fatalf("the full apply of an unchanged project changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	fastErr, fullErr = debugLine.ReplaceAllString(fastErr, ""), debugLine.ReplaceAllString(fullErr, "")
	if fastCode != fullCode || fastOut != fullOut || fastErr != fullErr {
		t.Fatalf("efmesh %s: the digest's answer differs from the full path's\ndigest: exit %d\nstdout:\n%s\nstderr:\n%s\nfull: exit %d\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), fastCode, fastOut, fastErr, fullCode, fullOut, fullErr)
	}
	return fullCode, fullOut, fullErr
}

// metricsBody is a metrics file without the lines that hold the clock.
func metricsBody(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "efmesh_command_duration_seconds{") || strings.HasPrefix(l, "efmesh_last_run_timestamp_seconds{") {
			l, _, _ = strings.Cut(l, "} ")
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// A plain apply of an unchanged project is answered from the no-op
// digest the apply before it left, with what the full path says: the same
// text, --json payload, exit code, metrics and --expect-env verdicts, and
// nothing written.
func TestApplyNoopDigest(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-02-01T06:00:00Z")
	t.Setenv("EFMESH_USER", "ci")
	dir := t.TempDir()
	script, _ := filepath.Abs(filepath.Join("testdata", "projects", "shop32.sh"))
	cmd := exec.Command("sh", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shop32: %v\n%s", err, out)
	}
	mustRun(t, dir, "apply", "prod", "--yes")
	id := lastPlanID(t, dir, "prod")

	if code, out, _ := applyBoth(t, dir, "prod", "--yes"); code != 0 || !strings.Contains(out, "No changes") {
		t.Fatalf("apply of an unchanged project: exit %d\n%s", code, out)
	}
	applyBoth(t, dir, "prod")
	if code, out, _ := applyBoth(t, dir, "prod", "--yes", "--json"); code != 0 || !strings.Contains(out, `"applied": false`) {
		t.Fatalf("apply --json of an unchanged project: exit %d\n%s", code, out)
	}
	applyBoth(t, dir, "prod", "--yes", "--expect-env", id)
	// A --var nothing reads: warned of on both paths.
	mustRun(t, dir, "apply", "prod", "--yes", "--var", "unread=1")
	if _, _, errs := applyBoth(t, dir, "prod", "--yes", "--var", "unread=1"); !strings.Contains(errs, "unread") {
		t.Fatalf("apply with an unread --var: no warning\n%s", errs)
	}

	// The metrics file the full path writes for an apply that changed
	// nothing, the clock's values aside.
	prom := filepath.Join(t.TempDir(), "efmesh.prom")
	mustRun(t, dir, "apply", "prod", "--yes", "--metrics", prom)
	applyBoth(t, dir, "prod", "--yes", "--metrics", prom)
	fast := metricsBody(t, prom)
	forgetNoop(t, dir)
	mustRun(t, dir, "apply", "prod", "--yes", "--metrics", prom)
	if full := metricsBody(t, prom); fast != full {
		t.Fatalf("metrics of the apply answered from the digest:\n%s\nof the full path:\n%s", fast, full)
	}
	if !strings.Contains(fast, `efmesh_planned_models{change="unchanged",env="prod"} 32`) {
		t.Fatalf("metrics of an unchanged apply do not count the models:\n%s", fast)
	}

	// --expect-env naming another plan: the digest does not answer, the
	// full path decides.
	code, _, errs := run(t, dir, "--log-level", "debug", "apply", "prod", "--yes", "--expect-env", "not-"+id)
	if strings.Contains(errs, fastApply) {
		t.Fatalf("apply --expect-env of another plan was answered from the digest: exit %d\n%s", code, errs)
	}

	// The environment's lock held by another process: the full path
	// reports it, the digest does not answer.
	mustRun(t, dir, "apply", "prod", "--yes")
	st := openState(t, dir)
	lk, err := planner.AcquireLock(context.Background(), st, planner.EnvLock("prod"), 0)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, dir, "--log-level", "debug", "apply", "prod", "--yes")
	lk.Release()
	if code == 0 || strings.Contains(errs, fastApply) {
		t.Fatalf("apply under another process's lock: exit %d\n%s", code, errs)
	}
	// The refused full path removed the digest: the next apply leaves it
	// again, and the one after is answered from it.
	mustRun(t, dir, "apply", "prod", "--yes")
	if code, _, errs := run(t, dir, "--log-level", "debug", "apply", "prod", "--yes"); code != 0 || !strings.Contains(errs, fastApply) {
		t.Fatalf("apply once the lock was released: exit %d\n%s", code, errs)
	}

	// A changed file: the full path applies it.
	editFile(t, dir, "models/core/c_1.sql", func(s string) string { return strings.Replace(s, "a.amount + b.amount", "a.amount + b.amount + 1", 1) })
	code, out, errs := run(t, dir, "--log-level", "debug", "apply", "prod", "--yes", "--skip-tests")
	if code != 0 || strings.Contains(errs, fastApply) || lastPlanID(t, dir, "prod") == id {
		t.Fatalf("apply of a changed project: exit %d\n%s\n%s", code, out, errs)
	}
}

// With the state store in Postgres (and the warehouse in DuckDB), the
// token is read from the locked Postgres store: the same answers.
func TestApplyNoopDigestPostgresState(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := copyExample(t, "hospital")
	cfg, err := os.ReadFile(filepath.Join(dir, "efmesh.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfgText := strings.Replace(string(cfg), "state: {type: sqlite, path: .efmesh/state.db}", fmt.Sprintf("state: {type: postgres, url: %q}", dbURL), 1)
	if cfgText == string(cfg) {
		t.Fatal("the example's state line changed; update this test")
	}
	writeFile(t, dir, "efmesh.yaml", cfgText)
	t.Setenv("EFMESH_NOW", "2026-02-01T06:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	pgState := func(t *testing.T, _ string) string {
		return pgQuery(t, dbURL, `SELECT (SELECT count(*) FROM efmesh_state.plans), (SELECT count(*) FROM efmesh_state.environments), (SELECT count(*) FROM efmesh_state.snapshots)`)
	}
	if code, out, _ := applyBothIn(t, dir, pgState, "dev", "--yes"); code != 0 || !strings.Contains(out, "No changes") {
		t.Fatalf("apply of an unchanged project: exit %d\n%s", code, out)
	}
	applyBothIn(t, dir, pgState, "dev", "--yes", "--json")
}
