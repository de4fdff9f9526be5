package analysis

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// Grain is the unit of an incremental model's intervals. All interval
// arithmetic is in UTC: an interval of a day is [00:00, 24:00) UTC.
type Grain string

const (
	Day  Grain = "day"
	Hour Grain = "hour"
)

// GrainOf returns the grain of a model (day unless it says hour).
func GrainOf(m *project.Model) Grain {
	if m.Interval == string(Hour) {
		return Hour
	}
	return Day
}

// Floor returns the start of the interval holding t.
func (g Grain) Floor(t time.Time) time.Time {
	t = t.UTC()
	if g == Hour {
		return t.Truncate(time.Hour)
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// Next returns the start of the interval after the one starting at t.
func (g Grain) Next(t time.Time) time.Time {
	if g == Hour {
		return t.Add(time.Hour)
	}
	return t.AddDate(0, 0, 1)
}

// Interval arithmetic saturates at these bounds instead of wrapping: a
// move of n intervals that would pass one stops on it. Both are aligned to
// either grain, and both format as RFC 3339 (four-digit years).
var (
	earliest = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	latest   = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

// seconds is the length of one interval of g (UTC days are 24 hours).
func (g Grain) seconds() int64 {
	if g == Hour {
		return 3600
	}
	return 86400
}

// Add moves t by n intervals (n may be negative), in UTC. It saturates:
// a move past year 1 or 9999 stops there. A batch of 3,000,000 hours once
// overflowed time.Duration into a negative step, and a lookback of
// MaxInt64 days wrapped to a start after the one it widened.
func (g Grain) Add(t time.Time, n int) time.Time {
	unit := g.seconds()
	lo, hi := earliest.Unix(), latest.Unix()
	// Clamped to the whole span, n times unit cannot overflow.
	steps := max(min(int64(n), (hi-lo)/unit+1), -((hi-lo)/unit + 1))
	u := t.Unix()
	r := u + steps*unit
	switch {
	case steps > 0 && r > hi && u <= hi:
		return latest
	case steps < 0 && r < lo && u >= lo:
		return earliest
	}
	return time.Unix(r, int64(t.Nanosecond())).UTC()
}

// Aligned reports whether t starts an interval.
func (g Grain) Aligned(t time.Time) bool { return g.Floor(t).Equal(t) }

// Ceil returns t when aligned, else the start of the next interval.
func (g Grain) Ceil(t time.Time) time.Time {
	if f := g.Floor(t); !f.Equal(t) {
		return g.Next(f)
	}
	return t.UTC()
}

// Range is the half-open time range [Start, End): a plan's backfill, a
// ledger's coverage, an audited interval. It is kept as times wherever it
// travels and formatted only where it is shown: String for text, and
// MarshalJSON for the JSON form, a pair of RFC 3339 times.
type Range struct{ Start, End time.Time }

// String is the range as a person reads it: "[2026-01-01T00:00:00Z,
// 2026-01-08T00:00:00Z)".
func (r Range) String() string {
	return "[" + r.Start.UTC().Format(time.RFC3339) + ", " + r.End.UTC().Format(time.RFC3339) + ")"
}

// MarshalJSON writes the range as ["start", "end"], two RFC 3339 times.
func (r Range) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2*len(time.RFC3339)+8)
	b = append(b, '[', '"')
	b = r.Start.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, '"', ',', '"')
	b = r.End.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"', ']'), nil
}

// UnmarshalJSON reads the form MarshalJSON writes (a plan kept as JSON,
// such as the no-op digest's).
func (r *Range) UnmarshalJSON(b []byte) error {
	var pair []string
	if err := json.Unmarshal(b, &pair); err != nil {
		return fmt.Errorf("analysis: a range is two RFC 3339 times: %w", err)
	}
	if len(pair) != 2 {
		return fmt.Errorf("analysis: a range is two RFC 3339 times, not %d", len(pair))
	}
	s, err := time.Parse(time.RFC3339, pair[0])
	if err != nil {
		return fmt.Errorf("analysis: range start: %w", err)
	}
	e, err := time.Parse(time.RFC3339, pair[1])
	if err != nil {
		return fmt.Errorf("analysis: range end: %w", err)
	}
	*r = Range{s.UTC(), e.UTC()}
	return nil
}

// Intervals splits r into intervals of g. Precondition: r is aligned.
func (g Grain) Intervals(r Range) []Range {
	var out []Range
	for s := r.Start; s.Before(r.End); s = g.Next(s) {
		out = append(out, Range{s, g.Next(s)})
	}
	return out
}

// Batches splits r into consecutive ranges of at most size intervals; size
// <= 0 keeps r whole. Precondition: r is aligned.
func (g Grain) Batches(r Range, size int) []Range {
	if size <= 0 {
		if r.Start.Before(r.End) {
			return []Range{r}
		}
		return nil
	}
	var out []Range
	for s := r.Start; s.Before(r.End); {
		e := g.Add(s, size)
		if e.After(r.End) || !e.After(s) { // !e.After(s): never a step back
			e = r.End
		}
		out = append(out, Range{s, e})
		s = e
	}
	return out
}

// Count returns how many intervals of g the aligned range r holds,
// without listing them: a range from year 1 is millions of hours.
func (g Grain) Count(r Range) int {
	secs := r.End.Unix() - r.Start.Unix() // Unix: Sub saturates at 292 years
	if secs <= 0 {
		return 0
	}
	if g == Hour {
		return int(secs / 3600)
	}
	return int(secs / 86400) // UTC days are 24 hours
}

// Missing returns the ranges of g from start (floored) to the last
// complete interval before now that the ledger does not hold as done,
// merged where contiguous. Each missing range is widened back by lookback
// intervals (never before start): late data of the intervals just before
// new ones is read again. Nothing missing means nothing to re-read.
//
// It walks the ledger, not the span: its cost grows with the done
// intervals, however far back start lies.
func (g Grain) Missing(start, now time.Time, done []state.Interval, lookback int) []Range {
	start, end := g.Floor(start), g.Floor(now)
	have := make([]time.Time, 0, len(done))
	for _, iv := range done {
		s := iv.Start.UTC()
		if iv.Status == state.IntervalDone && g.Aligned(s) && !s.Before(start) && s.Before(end) {
			have = append(have, s)
		}
	}
	slices.SortFunc(have, time.Time.Compare)
	var out []Range
	next := start // the first interval not yet accounted for
	for _, s := range have {
		if s.Before(next) {
			continue // a repeat
		}
		if s.After(next) {
			out = append(out, Range{next, s})
		}
		next = g.Next(s)
	}
	if next.Before(end) {
		out = append(out, Range{next, end})
	}
	if lookback > 0 {
		for i := range out {
			if s := g.Add(out[i].Start, -lookback); s.After(start) {
				out[i].Start = s
			} else {
				out[i].Start = start
			}
		}
	}
	return MergeRanges(out)
}

// MergeRanges sorts ranges and merges those that overlap or touch.
func MergeRanges(rs []Range) []Range {
	slices.SortFunc(rs, func(a, b Range) int { return a.Start.Compare(b.Start) })
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && !r.Start.After(out[n-1].End) {
			if r.End.After(out[n-1].End) {
				out[n-1].End = r.End
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// ModelStart returns where an incremental model's intervals begin: its
// own start, else the project's, floored to its grain.
func ModelStart(m *project.Model, cfg project.Config) (time.Time, error) {
	s := m.Start
	if s == "" {
		s = cfg.Start
	}
	if s == "" {
		return time.Time{}, fmt.Errorf("%s has no start: set start in its MODEL header or in efmesh.yaml", m.Name)
	}
	t, err := project.ParseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: start %w", m.Name, err)
	}
	return GrainOf(m).Floor(t), nil
}
