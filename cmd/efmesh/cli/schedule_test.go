package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSchedule: the units run the tick of the env with -C <root>, the
// timer is persistent and fires by the models' crons (and hourly for an
// hourly model without one); cron lines carry the same schedule; both
// document the exit-code contract.
func TestSchedule(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"models/a.sql": `MODEL (name core.a, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), interval hour);
SELECT now()::TIMESTAMP AS ts
`,
		"models/b.sql": `MODEL (name core.b, kind FULL, cron '30 6 * * 1-5');
SELECT 1 AS x
`,
		"models/c.sql": `MODEL (name core.c, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), cron '@daily');
SELECT now()::TIMESTAMP AS ts
`,
	})
	out := mustRun(t, dir, "schedule", "dev", "--print-systemd")
	for _, want := range []string{
		"# ~/.config/systemd/user/efmesh-shop-dev.service",
		"-C " + dir + " run dev\n",
		"SuccessExitStatus=2\n",
		"2  awaiting a human",
		"OnCalendar=*-*-* *:00:00 UTC\n",
		"OnCalendar=*-*-* 00:00:00 UTC\n",
		"OnCalendar=Mon..Fri *-*-* 06:30:00 UTC\n",
		"Persistent=true\n",
		"[Install]\nWantedBy=timers.target\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("--print-systemd lacks %q:\n%s", want, out)
		}
	}
	if _, err := exec.LookPath("systemd-analyze"); err == nil {
		for _, line := range strings.Split(out, "\n") {
			if cal, ok := strings.CutPrefix(line, "OnCalendar="); ok {
				if b, err := exec.Command("systemd-analyze", "calendar", cal).CombinedOutput(); err != nil {
					t.Fatalf("systemd-analyze calendar %q: %v\n%s", cal, err, b)
				}
			}
		}
	}
	out = mustRun(t, dir, "schedule", "dev", "--print-cron")
	for _, want := range []string{
		"0 * * * * efmesh -C " + dir + " run dev >> ",
		"30 6 * * 1-5 efmesh -C ",
		"0 0 * * * efmesh -C ",
		"# core.c\n",
		"does not catch up",
		"1  error",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("--print-cron lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := run(t, dir, "schedule", "dev"); code != ExitError || !strings.Contains(errs, "exactly one of") {
		t.Fatalf("schedule without a format: exit %d\n%s", code, errs)
	}
}
