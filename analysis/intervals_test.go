package analysis

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

func ts(s string) time.Time {
	for _, l := range []string{time.RFC3339, "2006-01-02T15", "2006-01-02"} {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	panic("bad time " + s)
}

// short prints ranges compactly: days as 01-02, hours as 01-02T15.
func short(rs []Range) string {
	var parts []string
	for _, r := range rs {
		f := "01-02"
		if r.Start.Hour() != 0 || r.End.Hour() != 0 {
			f = "01-02T15"
		}
		parts = append(parts, r.Start.Format(f)+".."+r.End.Format(f))
	}
	return strings.Join(parts, " ")
}

func TestGrainAlignment(t *testing.T) {
	tests := []struct {
		g              Grain
		in             string
		floor, ceil    string
		aligned        bool
		next, minusTwo string
	}{
		{Day, "2026-03-08T13:45:00Z", "2026-03-08T00:00:00Z", "2026-03-09T00:00:00Z", false, "2026-03-09T00:00:00Z", "2026-03-06T00:00:00Z"},
		{Day, "2026-03-08T00:00:00Z", "2026-03-08T00:00:00Z", "2026-03-08T00:00:00Z", true, "2026-03-09T00:00:00Z", "2026-03-06T00:00:00Z"},
		{Day, "2026-02-28T23:59:59Z", "2026-02-28T00:00:00Z", "2026-03-01T00:00:00Z", false, "2026-03-01T00:00:00Z", "2026-02-26T00:00:00Z"},
		{Day, "2026-03-08T01:00:00+02:00", "2026-03-07T00:00:00Z", "2026-03-08T00:00:00Z", false, "2026-03-08T00:00:00Z", "2026-03-05T00:00:00Z"},
		{Hour, "2026-03-08T13:45:00Z", "2026-03-08T13:00:00Z", "2026-03-08T14:00:00Z", false, "2026-03-08T14:00:00Z", "2026-03-08T11:00:00Z"},
		{Hour, "2026-03-08T00:00:00Z", "2026-03-08T00:00:00Z", "2026-03-08T00:00:00Z", true, "2026-03-08T01:00:00Z", "2026-03-07T22:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.g, tt.in), func(t *testing.T) {
			in := ts(tt.in)
			if got := tt.g.Floor(in); !got.Equal(ts(tt.floor)) {
				t.Errorf("Floor = %v, want %v", got, tt.floor)
			}
			if got := tt.g.Ceil(in); !got.Equal(ts(tt.ceil)) {
				t.Errorf("Ceil = %v, want %v", got, tt.ceil)
			}
			if got := tt.g.Aligned(in); got != tt.aligned {
				t.Errorf("Aligned = %v", got)
			}
			f := tt.g.Floor(in)
			if got := tt.g.Next(f); !got.Equal(ts(tt.next)) {
				t.Errorf("Next = %v, want %v", got, tt.next)
			}
			if got := tt.g.Add(f, -2); !got.Equal(ts(tt.minusTwo)) {
				t.Errorf("Add(-2) = %v, want %v", got, tt.minusTwo)
			}
		})
	}
}

func done(g Grain, starts ...string) []state.Interval {
	var out []state.Interval
	for _, s := range starts {
		st := ts(s)
		out = append(out, state.Interval{Start: st, End: g.Next(st), Status: state.IntervalDone})
	}
	return out
}

func TestMissing(t *testing.T) {
	failed := done(Day, "2026-01-03")
	failed[0].Status = state.IntervalFailed
	tests := []struct {
		name     string
		g        Grain
		start    string
		now      string
		done     []state.Interval
		lookback int
		want     string
	}{
		{"fresh", Day, "2026-01-01", "2026-01-05T10:00:00Z", nil, 0, "01-01..01-05"},
		{"today is not complete", Day, "2026-01-01", "2026-01-01T23:59:59Z", nil, 0, ""},
		{"start after now", Day, "2026-02-01", "2026-01-05T00:00:00Z", nil, 0, ""},
		{"unaligned start is floored", Day, "2026-01-01T06:00:00Z", "2026-01-03T00:00:00Z", nil, 0, "01-01..01-03"},
		{"all done", Day, "2026-01-01", "2026-01-04T00:00:00Z", done(Day, "2026-01-01", "2026-01-02", "2026-01-03"), 0, ""},
		{"lookback without new work reads nothing", Day, "2026-01-01", "2026-01-04T00:00:00Z", done(Day, "2026-01-01", "2026-01-02", "2026-01-03"), 2, ""},
		{"new day", Day, "2026-01-01", "2026-01-05T00:00:00Z", done(Day, "2026-01-01", "2026-01-02", "2026-01-03"), 0, "01-04..01-05"},
		{"new day with lookback", Day, "2026-01-01", "2026-01-05T00:00:00Z", done(Day, "2026-01-01", "2026-01-02", "2026-01-03"), 2, "01-02..01-05"},
		{"lookback clamps at start", Day, "2026-01-01", "2026-01-05T00:00:00Z", done(Day, "2026-01-01", "2026-01-03"), 5, "01-01..01-05"},
		{"holes", Day, "2026-01-01", "2026-01-07T00:00:00Z", done(Day, "2026-01-02", "2026-01-03", "2026-01-05"), 0, "01-01..01-02 01-04..01-05 01-06..01-07"},
		{"lookback merges holes", Day, "2026-01-01", "2026-01-07T00:00:00Z", done(Day, "2026-01-02", "2026-01-03", "2026-01-05"), 1, "01-01..01-02 01-03..01-07"},
		{"failed is missing", Day, "2026-01-01", "2026-01-04T00:00:00Z", append(done(Day, "2026-01-01", "2026-01-02"), failed...), 0, "01-03..01-04"},
		{"hours", Hour, "2026-01-01", "2026-01-01T05:30:00Z", done(Hour, "2026-01-01T00", "2026-01-01T01", "2026-01-01T03"), 0, "01-01T02..01-01T03 01-01T04..01-01T05"},
		// A lookback past time's range saturates at start; MaxInt64 days once
		// wrapped to a start a day late, and the first interval was never
		// built.
		{"huge lookback clamps at start", Day, "2026-01-01", "2026-01-05T00:00:00Z", nil, math.MaxInt64, "01-01..01-05"},
		{"huge lookback after done", Day, "2026-01-01", "2026-01-05T00:00:00Z", done(Day, "2026-01-01", "2026-01-02"), math.MaxInt64, "01-01..01-05"},
		{"huge hour lookback", Hour, "2026-01-01", "2026-01-01T05:30:00Z", done(Hour, "2026-01-01T00", "2026-01-01T01"), 3_000_000, "01-01T00..01-01T05"},
		{"hours with lookback", Hour, "2026-01-01", "2026-01-01T05:30:00Z", done(Hour, "2026-01-01T00", "2026-01-01T01", "2026-01-01T02", "2026-01-01T03"), 2, "01-01T02..01-01T05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := short(tt.g.Missing(ts(tt.start), ts(tt.now), tt.done, tt.lookback))
			if got != tt.want {
				t.Errorf("Missing = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBatches(t *testing.T) {
	tests := []struct {
		g          Grain
		start, end string
		size       int
		want       string
		intervals  int
	}{
		{Day, "2026-01-01", "2026-01-08", 0, "01-01..01-08", 7},
		{Day, "2026-01-01", "2026-01-08", 7, "01-01..01-08", 7},
		{Day, "2026-01-01", "2026-01-08", 3, "01-01..01-04 01-04..01-07 01-07..01-08", 7},
		{Day, "2026-01-01", "2026-01-03", 30, "01-01..01-03", 2},
		{Day, "2026-02-27", "2026-03-02", 1, "02-27..02-28 02-28..03-01 03-01..03-02", 3},
		{Hour, "2026-01-01T22", "2026-01-02T03", 2, "01-01T22..01-02T00 01-02T00..01-02T02 01-02T02..01-02T03", 5},
		{Day, "2026-01-01", "2026-01-01", 3, "", 0},
		// Sizes past time.Duration's range (3,000,000 hours) or int's
		// saturate to one batch; they once wrapped to a negative step and
		// never ended.
		{Hour, "2026-01-01T22", "2026-01-02T03", 3_000_000, "01-01T22..01-02T03", 5},
		{Hour, "2026-01-01T22", "2026-01-02T03", math.MaxInt64, "01-01T22..01-02T03", 5},
		{Day, "2026-01-01", "2026-01-08", math.MaxInt64, "01-01..01-08", 7},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%d", tt.g, tt.start, tt.size), func(t *testing.T) {
			r := Range{Start: ts(tt.start), End: ts(tt.end)}
			if got := short(tt.g.Batches(r, tt.size)); got != tt.want {
				t.Errorf("Batches = %q, want %q", got, tt.want)
			}
			if got := len(tt.g.Intervals(r)); got != tt.intervals {
				t.Errorf("Intervals = %d, want %d", got, tt.intervals)
			}
		})
	}
}

// TestAddSaturates: moving by any number of intervals stops at the
// bounds of time instead of wrapping, and stays exact inside them.
func TestAddSaturates(t *testing.T) {
	tests := []struct {
		g    Grain
		from string
		n    int
		want string
	}{
		{Day, "2026-01-01", 3, "2026-01-04T00:00:00Z"},
		{Day, "2026-03-01", -1, "2026-02-28T00:00:00Z"},
		{Hour, "2026-01-01T22", 3, "2026-01-02T01:00:00Z"},
		{Hour, "2026-01-01T00", 3_000_000, "2368-03-29T00:00:00Z"},
		{Hour, "2026-01-01T00", math.MaxInt64, "9999-12-31T00:00:00Z"},
		{Hour, "2026-01-01T00", math.MinInt64, "0001-01-01T00:00:00Z"},
		{Day, "2026-01-01", math.MaxInt64, "9999-12-31T00:00:00Z"},
		{Day, "2026-01-01", -math.MaxInt64, "0001-01-01T00:00:00Z"},
		{Day, "2026-01-01", math.MinInt64, "0001-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%d", tt.g, tt.from, tt.n), func(t *testing.T) {
			if got := tt.g.Add(ts(tt.from), tt.n).Format(time.RFC3339); got != tt.want {
				t.Errorf("Add = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestModelStart(t *testing.T) {
	tests := []struct {
		model, interval, config string
		want                    string
		err                     bool
	}{
		{"2026-02-01", "day", "2026-01-01", "2026-02-01T00:00:00Z", false},
		{"", "day", "2026-01-01", "2026-01-01T00:00:00Z", false},
		{"2026-02-01 06:30:00", "hour", "", "2026-02-01T06:00:00Z", false},
		{"2026-02-01T06:30:00", "day", "", "2026-02-01T00:00:00Z", false},
		{"", "day", "", "", true},
	}
	for _, tt := range tests {
		m := &project.Model{Name: "a.b", Start: tt.model, Interval: tt.interval}
		got, err := ModelStart(m, project.Config{Start: tt.config})
		if (err != nil) != tt.err || err == nil && !got.Equal(ts(tt.want)) {
			t.Errorf("modelStart(%q, %s, %q) = %v, %v; want %s", tt.model, tt.interval, tt.config, got, err, tt.want)
		}
	}
}

// TestRangeForms: a range is written once for people (String) and once
// for JSON (two RFC 3339 times, in UTC), and the JSON form reads back; a
// malformed one is an error, never a zero range.
func TestRangeForms(t *testing.T) {
	r := Range{Start: time.Date(2026, 1, 1, 1, 0, 0, 0, time.FixedZone("x", 3600)), End: time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)}
	if got := r.String(); got != "[2026-01-01T00:00:00Z, 2026-01-08T00:00:00Z)" {
		t.Errorf("String = %q", got)
	}
	b, err := json.Marshal([]Range{r})
	if err != nil || string(b) != `[["2026-01-01T00:00:00Z","2026-01-08T00:00:00Z"]]` {
		t.Fatalf("JSON = %s (%v)", b, err)
	}
	var back []Range
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 1 || !back[0].Start.Equal(r.Start) || !back[0].End.Equal(r.End) {
		t.Errorf("read back %v (%v)", back, err)
	}
	for _, bad := range []string{`["2026-01-01T00:00:00Z"]`, `["x","2026-01-08T00:00:00Z"]`, `["2026-01-01T00:00:00Z","y"]`, `{"start":1}`} {
		var got Range
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("%s read as %v", bad, got)
		}
	}
}
