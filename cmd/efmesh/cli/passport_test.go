package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/planner"
)

type passportOut struct {
	APIVersion int                `json:"apiVersion"`
	Env        string             `json:"env"`
	Models     []planner.Passport `json:"models"`
}

func passportOf(t *testing.T, dir, env, model string) planner.Passport {
	t.Helper()
	out := mustRun(t, dir, "passport", env, "--json")
	var p passportOut
	if err := json.Unmarshal([]byte(out), &p); err != nil || p.APIVersion != 1 || p.Env != env {
		t.Fatalf("passport --json: %v\n%s", err, out)
	}
	for _, m := range p.Models {
		if m.Model == model {
			return m
		}
	}
	t.Fatalf("%s not in the passport of %s:\n%s", model, env, out)
	return planner.Passport{}
}

// TestPassport: a mart's effective passport is the worst over its
// ancestry; after a failed interval upstream it is complete only through
// the source's first gap, naming the source.
func TestPassport(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("id,kind,ts\n")
	for d := 1; d <= 20; d++ {
		fmt.Fprintf(&csv, "e%02d,ok,2026-01-%02dT10:00:00Z\n", d, d)
	}
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     "name: events\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/events.csv": csv.String(),
		"models/raw.sql": `MODEL (
  name raw.events,
  kind EXTERNAL (files 'data/events.csv', format csv, header true),
  columns (id TEXT, kind TEXT, ts TIMESTAMP),
  caveats 'observation starts on 2026-01-01'
);
`,
		"models/daily.sql": `MODEL (
  name core.daily,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day, batch_size 1),
  answerable sampled,
  columns (day TIMESTAMP, events BIGINT)
);
SELECT date_trunc('day', ts)::TIMESTAMP AS day,
       sum(CASE WHEN kind = 'boom' THEN error('boom in ' || id) ELSE 1 END)::BIGINT AS events
FROM @ref(raw.events) WHERE ts >= @start AND ts < @end GROUP BY ALL
`,
		"models/mart.sql": `MODEL (
  name mart.summary,
  kind FULL,
  answerable full,
  columns (days BIGINT, events BIGINT)
);
SELECT count(*) AS days, sum(events)::BIGINT AS events FROM @ref(core.daily)
`,
	})
	t.Setenv("EFMESH_NOW", "2026-01-21T09:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	p := passportOf(t, dir, "dev", "mart.summary")
	if p.Answerable != "full" || p.Freshness != nil || p.Effective.Answerable != "sampled" || p.Effective.AnswerableFrom != "core.daily" ||
		p.Effective.CompleteThrough == nil || p.Effective.CompleteThrough.Format("2006-01-02") != "2026-01-21" || p.Effective.LimitedBy != "core.daily" ||
		len(p.Effective.Caveats) != 1 || p.Effective.Caveats[0].Model != "raw.events" {
		t.Fatalf("mart passport after apply: %+v", p)
	}

	// The tick at 01-23 fails 01-21 and computes 01-22: the source's ledger
	// reaches 01-23, but it is complete only through 01-21, and so is the mart.
	editFile(t, dir, "data/events.csv", func(s string) string {
		return s + "e21,boom,2026-01-21T10:00:00Z\ne22,ok,2026-01-22T10:00:00Z\n"
	})
	t.Setenv("EFMESH_NOW", "2026-01-23T01:00:00Z")
	runTick(t, dir, "dev", ExitError)
	src := passportOf(t, dir, "dev", "core.daily")
	if f := src.Freshness; f == nil || f.ContiguousThrough.Format("2006-01-02") != "2026-01-21" || f.FailedIntervals != 1 ||
		f.LatestInterval == nil || f.LatestInterval.Format("2006-01-02") != "2026-01-23" || !f.HasGaps {
		t.Fatalf("source freshness after a failed interval: %+v", src.Freshness)
	}
	p = passportOf(t, dir, "dev", "mart.summary")
	if e := p.Effective; e.CompleteThrough == nil || e.CompleteThrough.Format("2006-01-02") != "2026-01-21" || e.LimitedBy != "core.daily" || !e.HasGaps {
		t.Fatalf("mart passport after a failed interval upstream: %+v", p.Effective)
	}
	out := mustRun(t, dir, "passport", "dev")
	for _, want := range []string{
		"~ mart.summary  sampled — declared full (from core.daily), complete through 2026-01-21T00:00:00Z (limited by core.daily)",
		"· observation starts on 2026-01-01 [from raw.events]",
		"· 1 failed interval(s)",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("passport dev lacks %q:\n%s", want, out)
		}
	}
}
