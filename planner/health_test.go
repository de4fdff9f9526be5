package planner

import (
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
)

// A model is overdue when an interval its cron made due is not computed:
// without a cron every interval is due when it closes; with one, only
// those closed at its last firing.
func TestOverdue(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 2, d, 0, 0, 0, 0, time.UTC) }
	lag := ModelStatus{Grain: analysis.Day, Start: day(1), DueThrough: day(4), CoveredThrough: day(1),
		MissingRanges: []analysis.Range{{Start: day(1), End: day(4)}}}
	for _, c := range []struct {
		cron     string
		now      time.Time
		expected time.Time
		overdue  int
	}{
		{"", day(4).Add(9 * time.Hour), day(4), 3},
		// @weekly fires on Sundays: 2026-02-01. Three days later nothing is overdue.
		{"@weekly", day(4).Add(9 * time.Hour), day(1), 0},
		// Once it fires again (2026-02-08), the week before is.
		{"@weekly", day(8).Add(time.Hour), day(8), 3},
		{"0 6 * * *", day(4).Add(5 * time.Hour), day(3), 2},
		{"0 6 * * *", day(4).Add(6 * time.Hour), day(4), 3},
	} {
		ms := lag
		ms.Cron = c.cron
		if c.now.After(day(8)) {
			ms.DueThrough = day(8)
		}
		expected, n := overdue(ms, c.now)
		if !expected.Equal(c.expected) || n != c.overdue {
			t.Errorf("overdue(cron %q, now %s) = %s, %d; want %s, %d", c.cron, c.now, expected, n, c.expected, c.overdue)
		}
	}
}

// A FULL model is overdue when its cron fired after its last refresh: the
// one decision run and plan make (refreshDue). Never refreshed (restated)
// is due at once.
func TestOverdueFull(t *testing.T) {
	at := func(d, h int) time.Time { return time.Date(2026, 2, d, h, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		cron      string
		last      time.Time
		refreshed bool
		now       time.Time
		since     time.Time
		due       bool
	}{
		{"@daily", at(1, 6), true, at(1, 23), at(2, 0), false},
		{"@daily", at(1, 6), true, at(2, 0), at(2, 0), true},
		{"@daily", at(1, 6), true, at(4, 9), at(2, 0), true},
		// @weekly fires on Sundays (2026-02-01, 2026-02-08).
		{"@weekly", at(1, 6), true, at(7, 23), at(8, 0), false},
		{"@weekly", at(1, 6), true, at(8, 1), at(8, 0), true},
		{"0 6 * * *", at(1, 6), true, at(2, 5), at(2, 6), false},
		{"@daily", time.Time{}, false, at(1, 7), time.Time{}, true},
	} {
		cron, err := project.ParseCron(c.cron)
		if err != nil {
			t.Fatal(err)
		}
		since, due := refreshDue(cron, c.last, c.refreshed, c.now)
		if !since.Equal(c.since) || due != c.due {
			t.Errorf("refreshDue(%q, last %s, refreshed %v, now %s) = %s, %v; want %s, %v", c.cron, c.last, c.refreshed, c.now, since, due, c.since, c.due)
		}
	}
}
