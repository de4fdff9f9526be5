package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// freshProject: a CSV of events; core.events (FULL, the project's default
// cron: daily at 06:00) copies it, core.stats (FULL, hourly) counts it, and
// mart.daily (incremental) counts core.events per day.
func freshProject(t *testing.T) string {
	return writeProject(t, map[string]string{
		"efmesh.yaml":     "name: fresh\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\ndefaults: {cron: '0 6 * * *'}\n",
		"data/events.csv": "id,ts\ne1,2026-01-01T10:00:00Z\ne2,2026-01-02T10:00:00Z\n",
		"models/raw.sql": `MODEL (
  name raw.events,
  kind EXTERNAL (files 'data/events.csv', format csv, header true),
  columns (id TEXT, ts TIMESTAMP)
);
`,
		"models/events.sql": `MODEL (name core.events, kind FULL, columns (id TEXT, ts TIMESTAMP));
SELECT id, ts FROM @ref(raw.events)
`,
		"models/stats.sql": `MODEL (name core.stats, kind FULL, cron '@hourly', columns (n BIGINT));
SELECT count(*) AS n FROM @ref(raw.events)
`,
		"models/daily.sql": `MODEL (
  name mart.daily,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day),
  columns (day TIMESTAMP, n BIGINT)
);
SELECT date_trunc('day', ts)::TIMESTAMP AS day, count(*) AS n FROM @ref(core.events)
WHERE ts >= @start AND ts < @end GROUP BY ALL
`,
	})
}

type freshRun struct {
	Outcome   string   `json:"outcome"`
	Processed []string `json:"processed"`
	Refreshed []string `json:"refreshed"`
	Intervals int      `json:"intervals"`
}

func freshTick(t *testing.T, dir, now string) freshRun {
	t.Helper()
	t.Setenv("EFMESH_NOW", now)
	out := mustRun(t, dir, "run", "dev", "--json")
	var r freshRun
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("run --json: %v\n%s", err, out)
	}
	slices.Sort(r.Refreshed)
	return r
}

// TestRunRefreshesFullOnCron: a FULL model is rebuilt in place when its
// cron fired since its last refresh (the header's cron, else efmesh.yaml's
// default), before the intervals that read it, so they see new source
// rows; a model whose cron did not fire is left alone. The refreshed
// models are in run --json and in the runs journal. Restating a FULL
// model makes the next run rebuild it and recompute its descendants.
func TestRunRefreshesFullOnCron(t *testing.T) {
	dir := freshProject(t)
	t.Setenv("EFMESH_NOW", "2026-01-03T07:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT n FROM dev__core.stats"); got != "[[2]]" {
		t.Fatalf("stats after apply: %s", got)
	}
	// The apply recorded the build as a refresh: nothing is due an hour
	// later but the hourly model.
	if r := freshTick(t, dir, "2026-01-03T07:30:00Z"); len(r.Refreshed) != 0 || len(r.Processed) != 0 {
		t.Fatalf("a tick before any cron fired: %+v", r)
	}
	editFile(t, dir, "data/events.csv", func(s string) string { return s + "e3,2026-01-03T10:00:00Z\n" })

	// 08:05: only core.stats's hourly cron fired.
	r := freshTick(t, dir, "2026-01-03T08:05:00Z")
	if fmt.Sprint(r.Refreshed) != "[core.stats]" {
		t.Fatalf("08:05: %+v", r)
	}
	if got := query(t, dir, "SELECT n FROM dev__core.stats"); got != "[[3]]" {
		t.Fatalf("stats refreshed: %s", got)
	}
	if got := query(t, dir, "SELECT count(*) FROM dev__core.events"); got != "[[2]]" {
		t.Fatalf("core.events is refreshed before its cron: %s", got)
	}

	// The next day at 06:30 the daily cron fired: core.events is refreshed
	// before mart.daily computes 2026-01-03, which sees e3.
	r = freshTick(t, dir, "2026-01-04T06:30:00Z")
	if fmt.Sprint(r.Refreshed) != "[core.events core.stats]" || r.Intervals != 1 {
		t.Fatalf("06:30: %+v", r)
	}
	if got := query(t, dir, "SELECT strftime(day, '%d'), n FROM dev__mart.daily ORDER BY day"); got != "[[01 1] [02 1] [03 1]]" {
		t.Fatalf("mart.daily over a refreshed parent: %s", got)
	}
	st := openState(t, dir)
	runs, err := st.Runs(context.Background(), "dev", 1)
	if err != nil || len(runs) != 1 {
		t.Fatalf("journal: %v %v", runs, err)
	}
	var detail struct {
		Refreshed []string `json:"refreshed"`
	}
	if err := json.Unmarshal(runs[0].Detail, &detail); err != nil {
		t.Fatal(err)
	}
	slices.Sort(detail.Refreshed)
	if fmt.Sprint(detail.Refreshed) != "[core.events core.stats]" {
		t.Fatalf("journal detail: %s", runs[0].Detail)
	}

	// Restate of the FULL model: its refresh is cleared and the range of
	// its incremental child too; the next run rebuilds it (before its
	// cron) and recomputes the child's day.
	editFile(t, dir, "data/events.csv", func(s string) string { return s + "e4,2026-01-03T11:00:00Z\n" })
	out := mustRun(t, dir, "restate", "dev", "--model", "core.events", "--from", "2026-01-03", "--to", "2026-01-04", "--json")
	var rs struct {
		Models []struct {
			Name      string `json:"name"`
			Intervals int    `json:"intervals"`
			Rebuild   bool   `json:"rebuild"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rs.Models); got != "[{core.events 1 true} {mart.daily 1 false}]" {
		t.Fatalf("restated: %s", got)
	}
	r = freshTick(t, dir, "2026-01-04T06:40:00Z")
	if fmt.Sprint(r.Refreshed) != "[core.events]" || r.Intervals != 1 {
		t.Fatalf("tick after restate: %+v", r)
	}
	if got := query(t, dir, "SELECT strftime(day, '%d'), n FROM dev__mart.daily ORDER BY day"); got != "[[01 1] [02 1] [03 2]]" {
		t.Fatalf("mart.daily after restate: %s", got)
	}
	code, _, errs := run(t, dir, "restate", "dev", "--model", "raw.events", "--from", "2026-01-03", "--to", "2026-01-04")
	if code != ExitError || !strings.Contains(errs, "only INCREMENTAL_BY_TIME_RANGE and FULL models") {
		t.Fatalf("restate of an EXTERNAL model: exit %d\n%s", code, errs)
	}
}

// TestBadCronIsPositioned: a cron that can never be parsed stops the plan
// with the header's position.
func TestBadCronIsPositioned(t *testing.T) {
	dir := freshProject(t)
	editFile(t, dir, "models/stats.sql", func(s string) string { return strings.Replace(s, "'@hourly'", "'0 24 * * *'", 1) })
	code, _, errs := run(t, dir, "plan", "dev")
	if code != ExitError || !strings.Contains(errs, `models/stats.sql:1:41: error: cron "0 24 * * *": end of range (24) above maximum (23): 24`) {
		t.Fatalf("plan with a bad cron: exit %d\n%s", code, errs)
	}
}
