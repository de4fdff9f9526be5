package planner

import (
	"errors"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
)

// TestIntervalsErrorMerges: adjacent failed batches read as one range and a
// long list is cut.
func TestIntervalsErrorMerges(t *testing.T) {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := &IntervalsError{Model: "m.x", Err: errors.New("boom")}
	for _, i := range []int{3, 0, 1, 2, 5, 7, 9, 11, 13, 15} {
		e.Failed = append(e.Failed, analysis.Range{Start: day.AddDate(0, 0, i), End: day.AddDate(0, 0, i+1)})
	}
	want := "m.x: 10 interval(s) failed: [2026-01-01T00:00:00Z, 2026-01-05T00:00:00Z), [2026-01-06T00:00:00Z, 2026-01-07T00:00:00Z), " +
		"[2026-01-08T00:00:00Z, 2026-01-09T00:00:00Z), [2026-01-10T00:00:00Z, 2026-01-11T00:00:00Z), [2026-01-12T00:00:00Z, 2026-01-13T00:00:00Z), and 2 more range(s): boom"
	if got := e.Error(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
