package planner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/state/sqlite"
)

func day(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }

// previewProject is a seed, an incremental model over it and a FULL model
// over the incremental one.
func previewProject(t *testing.T) *analysis.Analysis {
	t.Helper()
	var csv strings.Builder
	csv.WriteString("id,ts\n")
	for d := 1; d <= 20; d++ {
		fmt.Fprintf(&csv, "%d,2026-01-%02d 10:00:00\n", d, d)
	}
	a := analyzeFiles(t, map[string]string{
		"seeds/ev.csv":    csv.String(),
		"models/ev.sql":   `MODEL (name raw.ev, kind SEED (path 'seeds/ev.csv'), columns (id INT, ts TIMESTAMP));`,
		"models/inc.sql":  "MODEL (name core.inc, kind INCREMENTAL_BY_TIME_RANGE (time_column ts));\nSELECT id, ts FROM @ref(raw.ev) WHERE ts >= @start AND ts < @end",
		"models/full.sql": "MODEL (name mart.total, kind FULL);\nSELECT count(*) AS n FROM @ref(core.inc)",
	})
	mustClean(t, a)
	return a
}

func lineOf(t *testing.T, p *Plan, name string) ModelPlan {
	t.Helper()
	for _, mp := range p.Models {
		if mp.Name == name {
			return mp
		}
	}
	t.Fatalf("no line for %s", name)
	return ModelPlan{}
}

// TestPreviewRefusals: a preview range is refused on prod, with an end
// not after its start, and with a start before the project's.
func TestPreviewRefusals(t *testing.T) {
	ctx := context.Background()
	a := previewProject(t)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, tc := range []struct {
		env        string
		start, end time.Time
		want       string
	}{
		{"prod", day(10), day(17), "preview of prod: prod covers the project's whole history"},
		{"dev", day(17), day(10), "preview of dev: the end 2026-01-10 is not after the start 2026-01-17"},
		{"dev", day(10), day(10), "preview of dev: the end 2026-01-10 is not after the start 2026-01-10"},
		{"dev", day(1).AddDate(0, -1, 0), day(10), "preview of dev: the start 2025-12-01 is before the project's start 2026-01-01"},
		{"dev", time.Time{}, day(1), "preview of dev: the end 2026-01-01 is not after the start 2026-01-01"},
	} {
		_, err := MakePlan(ctx, a, st, tc.env, PlanAt(day(25)), WithPreview(tc.start, tc.end))
		var pe *PreviewError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s [%s, %s): err = %v, want %q", tc.env, tc.start, tc.end, err, tc.want)
		}
	}
}

// TestPreviewLifecycle: a preview computes only its range and is
// recorded; later plans keep to it, a wider one computes what it adds
// and refills the FULL child, prod computes the rest of the reused
// snapshot and says what the preview covered, and the data proves it.
func TestPreviewLifecycle(t *testing.T) {
	ctx := context.Background()
	a := previewProject(t)
	wh, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := day(25)
	apply := func(p *Plan) {
		t.Helper()
		res, err := Apply(ctx, p, wh, st, ApplyOptions{AppliedBy: "test", Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		// What the plan says it builds and computes is what apply does.
		if len(res.Built) != p.Builds() || len(res.Computed) != p.Computes() {
			t.Errorf("apply built %v and computed %v; the plan said %d to build and %d to compute", res.Built, res.Computed, p.Builds(), p.Computes())
		}
	}
	count := func(q string) string {
		t.Helper()
		rows, err := wh.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rows.Values)
	}

	p, err := MakePlan(ctx, a, st, "dev", PlanAt(now), WithPreview(day(10), day(17)))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(lineOf(t, p, "core.inc").Backfill); got != "[[2026-01-10T00:00:00Z, 2026-01-17T00:00:00Z)]" {
		t.Fatalf("preview backfill = %s", got)
	}
	apply(p)
	if got := count(`SELECT min(id), max(id), count(*) FROM dev__core.inc`); got != "[[10 16 7]]" {
		t.Fatalf("dev rows = %s", got)
	}
	if v, err := RecordedPreview(ctx, st, "dev"); err != nil || v == nil || v.String() != "2026-01-10..2026-01-17" {
		t.Fatalf("recorded preview = %v, %v", v, err)
	}

	// The next plan keeps to the recorded range: nothing to do.
	p, err = MakePlan(ctx, a, st, "dev", PlanAt(now))
	if err != nil {
		t.Fatal(err)
	}
	if p.HasChanges || p.Preview == nil || p.Preview.String() != "2026-01-10..2026-01-17" {
		t.Fatalf("kept preview: changes %v, preview %v", p.HasChanges, p.Preview)
	}
	s, err := GetStatus(ctx, st, a.Project.Config, "dev", now, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ms := s.Models[0]; ms.Missing != 0 || !ms.Start.Equal(day(10)) || !ms.DueThrough.Equal(day(17)) {
		t.Fatalf("status = %+v", ms)
	}

	// A wider preview computes what it adds and refills the FULL child.
	p, err = MakePlan(ctx, a, st, "dev", PlanAt(now), WithPreview(day(5), day(17)))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(lineOf(t, p, "core.inc").Backfill); got != "[[2026-01-05T00:00:00Z, 2026-01-10T00:00:00Z)]" {
		t.Fatalf("widened backfill = %s", got)
	}
	if full := lineOf(t, p, "mart.total"); fmt.Sprint(full.Refill) != "[core.inc]" || full.RefillWhy != RefillPreview {
		t.Fatalf("FULL child = %+v", full)
	}
	apply(p)
	if got := count(`SELECT n FROM dev__mart.total`); got != "[[12]]" {
		t.Fatalf("dev total = %s", got)
	}

	// Prod reuses the snapshot and computes the rest.
	p, err = MakePlan(ctx, a, st, "prod", PlanAt(now))
	if err != nil {
		t.Fatal(err)
	}
	inc := lineOf(t, p, "core.inc")
	if inc.Build || fmt.Sprint(inc.Covered) != "[[2026-01-05T00:00:00Z, 2026-01-17T00:00:00Z)]" || fmt.Sprint(inc.CoveredIn) != "[dev]" ||
		fmt.Sprint(inc.Backfill) != "[[2026-01-01T00:00:00Z, 2026-01-05T00:00:00Z) [2026-01-17T00:00:00Z, 2026-01-25T00:00:00Z)]" {
		t.Fatalf("prod line = %+v", inc)
	}
	if p.Preview != nil {
		t.Fatalf("prod has a preview: %v", p.Preview)
	}
	apply(p)
	if got := count(`SELECT min(id), max(id), count(*) FROM core.inc`); got != "[[1 20 20]]" {
		t.Fatalf("prod rows = %s", got)
	}
	if got := count(`SELECT n FROM mart.total`); got != "[[20]]" {
		t.Fatalf("prod total = %s", got)
	}

	// A range from the project's start with an open end ends the preview.
	p, err = MakePlan(ctx, a, st, "dev", PlanAt(now), WithPreview(time.Time{}, time.Time{}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Preview != nil || !p.HasChanges {
		t.Fatalf("ended preview: %v, changes %v", p.Preview, p.HasChanges)
	}
	apply(p)
	if v, err := RecordedPreview(ctx, st, "dev"); err != nil || v != nil {
		t.Fatalf("preview after its end = %v, %v", v, err)
	}
}

func TestRangeText(t *testing.T) {
	for _, tc := range []struct {
		in   []analysis.Range
		want string
	}{
		{nil, ""},
		{[]analysis.Range{{Start: day(1), End: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}}, "2026-01-01..2026-03-01"},
		{[]analysis.Range{{Start: day(1), End: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
			{Start: time.Date(2026, 3, 7, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 3, 10, 5, 0, 0, 0, time.UTC)}},
			"2026-01-01..2026-03-01 and 2026-03-07..2026-03-10T05:00:00Z"},
		{[]analysis.Range{{Start: day(1), End: day(2)}, {Start: day(3), End: day(4)}, {Start: day(5), End: day(6)}},
			"2026-01-01..2026-01-02, 2026-01-03..2026-01-04 and 2026-01-05..2026-01-06"},
	} {
		if got := RangeText(tc.in); got != tc.want {
			t.Errorf("RangeText(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := (Preview{Start: day(2)}).String(); got != "2026-01-02..…" {
		t.Errorf("open preview = %q", got)
	}
}
