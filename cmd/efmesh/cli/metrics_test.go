package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func metricsFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the metrics file: %v", err)
	}
	return string(b)
}

func TestMetrics(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-06T00:00:00Z")
	dir := auditedProject(t, strings.Replace(dirtyItems, "3,a,2026-01-02T11:00:00Z", "7,b,2026-01-02T11:00:00Z", 1))
	prom := filepath.Join(t.TempDir(), "efmesh.prom")

	// Awaiting a human still writes the file: "ran" is not "did not run".
	if code, _, _ := run(t, dir, "apply", "dev", "--metrics", prom); code != ExitAwaiting {
		t.Fatalf("apply without --yes: exit %d", code)
	}
	got := metricsFile(t, prom)
	for _, want := range []string{
		`efmesh_planned_models{change="added",env="dev"} 3`,
		`efmesh_last_run_timestamp_seconds{command="apply",env="dev",outcome="awaiting-human"} `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics of an apply awaiting a human lack %q:\n%s", want, got)
		}
	}

	mustRun(t, dir, "apply", "dev", "--yes", "--metrics", prom)
	got = metricsFile(t, prom)
	for _, want := range []string{
		"# TYPE efmesh_intervals_done_total counter",
		`efmesh_intervals_done_total{env="dev",model="core.daily"} 5`,
		`efmesh_snapshots_built_total{env="dev",model="core.items"} 1`,
		`efmesh_audits_passed_total{env="dev",model="core.items"} 2`,
		`efmesh_audits_failed_total{blocking="false",env="dev",model="core.items"} 1`,
		`efmesh_audits_passed_total{env="dev",model="core.daily"} 11`, // per_interval(unique(day)) and not_null(n) on 5 intervals, then assert_no_gaps
		`efmesh_last_run_timestamp_seconds{command="apply",env="dev",outcome="ok"} `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics of apply lack %q:\n%s", want, got)
		}
	}
	if !regexp.MustCompile(`efmesh_model_build_duration_seconds\{env="dev",model="core.daily"\} [0-9.e-]+\n`).MatchString(got) ||
		!regexp.MustCompile(`efmesh_command_duration_seconds\{command="apply",env="dev"\} [0-9.e-]+\n`).MatchString(got) {
		t.Errorf("durations are missing:\n%s", got)
	}

	// A tick a day later: one interval.
	t.Setenv("EFMESH_NOW", "2026-01-07T01:00:00Z")
	mustRun(t, dir, "run", "dev", "--metrics", prom)
	got = metricsFile(t, prom)
	if !strings.Contains(got, `efmesh_intervals_done_total{env="dev",model="core.daily"} 1`) ||
		!strings.Contains(got, `efmesh_last_run_timestamp_seconds{command="run",env="dev",outcome="ok"}`) {
		t.Errorf("metrics of run:\n%s", got)
	}
	if matches, _ := filepath.Glob(prom + "*"); len(matches) != 1 {
		t.Errorf("files beside the metrics file: %v", matches)
	}

	// An unwritable path is a warning, never a failed command.
	code, _, errs := run(t, dir, "run", "dev", "--metrics", filepath.Join(dir, "no", "such", "dir", "x.prom"))
	if code != ExitOK || !strings.Contains(errs, "the metrics file could not be written") {
		t.Errorf("run with an unwritable metrics path: exit %d\n%s", code, errs)
	}
}

// TestMetricsCountFailedIntervals: an interval whose write failed is
// counted as failed, never as done.
func TestMetricsCountFailedIntervals(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-21T09:00:00Z")
	dir := eventsProject(t) // the batch [01-07, 01-10) fails
	prom := filepath.Join(t.TempDir(), "efmesh.prom")
	if code, out, errs := run(t, dir, "apply", "dev", "--yes", "--metrics", prom); code != ExitError {
		t.Fatalf("apply with a failing batch: exit %d\n%s%s", code, out, errs)
	}
	got := metricsFile(t, prom)
	for _, want := range []string{
		`efmesh_intervals_done_total{env="dev",model="core.daily"} 17`,
		`efmesh_intervals_failed_total{env="dev",model="core.daily"} 3`,
		`efmesh_last_run_timestamp_seconds{command="apply",env="dev",outcome="error"} `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics of an apply with a failed batch lack %q:\n%s", want, got)
		}
	}
}
