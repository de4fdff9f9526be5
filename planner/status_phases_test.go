package planner

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"
)

// TestCoverage: an incremental model's coverage as of now, from its
// ledger: done, missing (the lag and its ranges), covered through; and
// narrowed to the environment's preview.
func TestCoverage(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, maps.Clone(incrementalV1))
	mustClean(t, a)
	st := appliedTo(t, a, "dev", day(5))
	e, err := ReadEnvironment(ctx, st, "dev")
	if err != nil {
		t.Fatal(err)
	}
	models, err := envModelsOf(ctx, st, "dev", e.Pointers)
	if err != nil {
		t.Fatal(err)
	}
	now := day(8).Add(time.Hour)
	ms, err := coverage(ctx, st, a.Project.Config, "m.inc", models["m.inc"], nil, now)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("start %s due %s covered %s done %d missing %d %v overdue %d",
		ms.Start.Format(time.DateOnly), ms.DueThrough.Format(time.DateOnly), ms.CoveredThrough.Format(time.DateOnly), ms.Done, ms.Missing, ms.MissingRanges, ms.Overdue)
	if want := "start 2026-01-01 due 2026-01-08 covered 2026-01-05 done 4 missing 3 [[2026-01-05T00:00:00Z, 2026-01-08T00:00:00Z)] overdue 3"; got != want {
		t.Errorf("coverage\n got %s\nwant %s", got, want)
	}
	ms, err = coverage(ctx, st, a.Project.Config, "m.inc", models["m.inc"], &Preview{Start: day(3), End: day(6)}, now)
	if err != nil || ms.Start != day(3) || ms.DueThrough != day(6) || ms.Done != 2 || ms.Missing != 1 {
		t.Errorf("in a preview [3rd, 6th): %+v (%v)", ms, err)
	}
}

// TestOverdueProblems: an incremental model with due intervals not
// computed, and a FULL model whose cron fired since its refresh (or that
// was never refreshed since a restate), are problems, each said once.
func TestOverdueProblems(t *testing.T) {
	s := &Status{
		Models: []ModelStatus{
			{Name: "m.ok"},
			{Name: "m.late", Overdue: 2, ExpectedThrough: day(8), CoveredThrough: day(6)},
			{Name: "m.cron", Overdue: 1, Cron: "@daily", ExpectedThrough: day(8)},
		},
		Refreshes: []RefreshStatus{
			{Name: "m.fresh", Cron: "@daily"},
			{Name: "m.stale", Cron: "@daily", Overdue: true, LastRefresh: day(2), DueSince: day(3)},
			{Name: "m.restated", Cron: "@hourly", Overdue: true},
		},
	}
	s.overdueProblems()
	want := []string{
		"m.late is overdue: 2 interval(s) due through 2026-01-08T00:00:00Z are not computed (computed through 2026-01-06T00:00:00Z; every interval is due when it closes)",
		"m.cron is overdue: 1 interval(s) due through 2026-01-08T00:00:00Z are not computed (nothing computed; its cron @daily made it due)",
		"m.stale is overdue: its cron @daily fired at 2026-01-03T00:00:00Z, after its last refresh at 2026-01-02T00:00:00Z",
		"m.restated is overdue: its table was not refreshed since it was restated (cron @hourly)",
	}
	if got := strings.Join(s.Problems, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("problems\n got %s\nwant %s", got, strings.Join(want, "\n"))
	}
}
