package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEventLake runs examples/eventlake end to end on its committed dirty
// fixture: 84 raw rows of 60 events over seven arrival days, of which 15
// copies are same-day redeliveries, 8 arrive a day or two late (inside the
// three-day horizon) and 1 arrives five days late (outside it).
func TestEventLake(t *testing.T) {
	dir := copyExample(t, "eventlake")
	t.Setenv("EFMESH_NOW", "2026-03-08T00:00:00Z")

	if out := mustRun(t, dir, "test"); !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("efmesh test:\n%s", out)
	}
	code, out, errs := run(t, dir, "apply", "dev", "--yes")
	if code != ExitOK {
		t.Fatalf("apply dev: exit %d\n%s%s", code, out, errs)
	}
	// The residual duplicates are surfaced in the apply's log, not fatal.
	if !strings.Contains(errs, "audit warning: audit warn(no_rows) of core.event_duplicates: 1 violation(s): e.g. (event_id=ev-00") {
		t.Fatalf("apply's log lacks the residual-duplicates warning:\n%s", errs)
	}

	// raw.events is EXTERNAL: no view, its consumers read the files in
	// place, as render shows.
	rawEvents := "(" + strings.TrimSpace(mustRun(t, dir, "render", "raw.events")) + ")"
	for _, c := range []struct{ what, sql, want string }{
		// count(*) over the raw files counts redeliveries as data.
		{"raw rows / distinct ids", "SELECT count(*), count(DISTINCT event_id) FROM " + rawEvents, "[[84 60]]"},
		// Every copy within the horizon is gone; the one late copy stays.
		{"canonical rows / distinct ids", "SELECT count(*), count(DISTINCT event_id) FROM dev__core.events", "[[61 60]]"},
		{"residual duplicates", "SELECT event_id, copies, strftime(first_arrival, '%Y-%m-%d'), strftime(last_arrival, '%Y-%m-%d') FROM dev__core.event_duplicates ORDER BY 1",
			"[[ev-003 2 2026-03-01 2026-03-06]]"},
		// The first copy of every id (by the archiver's offset) is the
		// one kept; the extra row is the late copy.
		{"first copies kept", "SELECT count(*) FROM dev__core.events e JOIN (SELECT event_id, min(archiver_offset) AS o FROM " + rawEvents + " GROUP BY ALL) f USING (event_id) " +
			"JOIN " + rawEvents + " r ON r.event_id = e.event_id AND r.archiver_offset = f.o WHERE r.arrived_at = e.arrived_at", "[[60]]"},
		{"daily metrics", "SELECT count(*), sum(events) FROM dev__mart.daily_metrics", "[[7 61]]"},
	} {
		if got := query(t, dir, c.sql); got != c.want {
			t.Errorf("%s = %s, want %s", c.what, got, c.want)
		}
	}

	// efmesh audit: the per-interval uniqueness is not a claim about the
	// table, so it is skipped; the duplicates view warns; exit 0.
	r, lines := auditOf(t, dir, "dev", ExitOK)
	want := []string{
		"core.event_duplicates warn(no_rows) warned 1",
		"core.events assert_no_gaps(arrived_at, day) passed 0",
		"core.events not_null(event_id) passed 0",
		"core.events per_interval(unique(event_id)) skipped 0",
		"mart.daily_metrics not_null(day) passed 0",
		"mart.daily_metrics unique(day) passed 0",
		"raw.events not_null(event_id, arrived_at) passed 0",
	}
	for i := range lines {
		lines[i], _, _ = strings.Cut(lines[i], " e.g.")
	}
	if !r.Passed || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit dev:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	// The next day's archive brings two redeliveries: ev-058 first arrived
	// the day before (inside the horizon: dropped), ev-016 six days before
	// (outside: a third residual duplicate).
	next := "event_id,occurred_at,arrived_at,archiver_offset,metric_value\n" +
		"ev-058,2026-03-07T03:58:24Z,2026-03-08T02:00:00Z,86,47.8\n" +
		"ev-016,2026-03-02T05:48:21Z,2026-03-08T03:00:00Z,87,93.33\n" +
		"ev-061,2026-03-08T04:00:00Z,2026-03-08T04:01:00Z,88,1.0\n"
	if err := os.WriteFile(filepath.Join(dir, "archive", "2026-03-08.csv"), []byte(next), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EFMESH_NOW", "2026-03-09T00:30:00Z")
	if tick := runTick(t, dir, "dev", ExitOK); tick.Intervals != 1 {
		t.Fatalf("the next day's tick: %+v", tick)
	}
	if got := query(t, dir, "SELECT count(*), count(DISTINCT event_id) FROM dev__core.events"); got != "[[63 61]]" {
		t.Errorf("canonical rows after the next day = %s, want [[63 61]]", got)
	}
	if got := query(t, dir, "SELECT list(event_id ORDER BY event_id) FROM dev__core.event_duplicates"); got != "[[[ev-003 ev-016]]]" {
		t.Errorf("residual duplicates after the next day = %s", got)
	}
}
