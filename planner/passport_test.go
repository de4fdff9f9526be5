package planner

import (
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/state"
)

func TestFreshnessStopsAtFirstGap(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	iv := func(d int, status string) state.Interval {
		return state.Interval{Start: day(d), End: day(d + 1), Status: status}
	}
	tests := []struct {
		name            string
		ivs             []state.Interval
		through, latest int // days; latest 0 = none
		failed          int
		gaps            bool
	}{
		{"empty", nil, 1, 0, 0, false},
		{"contiguous", []state.Interval{iv(1, "done"), iv(2, "done")}, 3, 3, 0, false},
		{"missing first", []state.Interval{iv(2, "done")}, 1, 3, 0, true},
		{"failed in the middle", []state.Interval{iv(1, "done"), iv(2, "failed"), iv(3, "done")}, 2, 4, 1, true},
	}
	for _, tt := range tests {
		f := freshnessOf(analysis.Day, day(1), tt.ivs)
		if !f.ContiguousThrough.Equal(day(tt.through)) || f.FailedIntervals != tt.failed || f.HasGaps != tt.gaps ||
			(tt.latest == 0) != (f.LatestInterval == nil) || tt.latest != 0 && !f.LatestInterval.Equal(day(tt.latest)) {
			t.Errorf("%s: %+v", tt.name, f)
		}
	}
}

func TestEffectivePassportNamesTheCause(t *testing.T) {
	at := func(d int) *Freshness {
		return &Freshness{ContiguousThrough: time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC)}
	}
	nodes := map[string]*passportNode{
		"raw.a":  {name: "raw.a", answerable: "partial", caveats: []string{"web only"}, depth: -1},
		"core.b": {name: "core.b", parents: []string{"raw.a"}, fresh: at(5), depth: -1},
		"core.c": {name: "core.c", answerable: "sampled", fresh: at(7), depth: -1},
		"mart.d": {name: "mart.d", parents: []string{"core.b", "core.c"}, fresh: at(5), depth: -1},
	}
	e := effectiveOf("mart.d", nodes)
	if e.Answerable != "partial" || e.AnswerableFrom != "raw.a" || e.LimitedBy != "core.b" || e.CompleteThrough.Day() != 5 ||
		len(e.Caveats) != 1 || e.Caveats[0].Model != "raw.a" {
		t.Fatalf("effective: %+v", e)
	}
}
