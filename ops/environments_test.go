package ops

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/state/sqlite"
)

// TestIdleEnvironments: an environment is idle from its last promotion;
// prod never is; a ttl of 0 expires nothing.
func TestIdleEnvironments(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	if err := st.PutSnapshot(ctx, state.Snapshot{Fingerprint: "f1", Name: "a.b", Kind: "FULL", PhysicalTable: "_efmesh.a__b__f1"}); err != nil {
		t.Fatal(err)
	}
	for env, at := range map[string]time.Time{"prod": day(1), "old": day(2), "fresh": day(9)} {
		if err := st.Promote(ctx, state.Promotion{Env: env, Pointers: map[string]string{"a.b": "f1"}, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	idle, err := IdleEnvironments(ctx, st, 7*24*time.Hour, day(10))
	if err != nil {
		t.Fatal(err)
	}
	if len(idle) != 1 || idle[0].Env != "old" || !idle[0].LastApplied.Equal(day(2)) {
		t.Fatalf("idle: %+v, want old only", idle)
	}
	if idle, _ := IdleEnvironments(ctx, st, 0, day(30)); len(idle) != 0 {
		t.Fatalf("ttl 0 expired %+v", idle)
	}
}

// TestCoverageRanges: a model's done intervals merge into ranges, and an
// environment covers only what all its incremental models have, holes
// kept.
func TestCoverageRanges(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	iv := func(a, b int) state.Interval {
		return state.Interval{Start: day(a), End: day(b), Status: state.IntervalDone}
	}
	a := doneRanges([]state.Interval{iv(3, 4), iv(1, 2), iv(2, 3), iv(10, 12),
		{Start: day(5), End: day(6), Status: state.IntervalFailed}})
	if len(a) != 2 || !a[0].Start.Equal(day(1)) || !a[0].End.Equal(day(4)) || !a[1].Start.Equal(day(10)) || !a[1].End.Equal(day(12)) {
		t.Fatalf("doneRanges = %v", a)
	}
	b := doneRanges([]state.Interval{iv(2, 11)})
	got := intersectRanges(a, b)
	want := []TimeRange{{day(2), day(4)}, {day(10), day(11)}}
	if len(got) != len(want) {
		t.Fatalf("intersectRanges = %v, want %v", got, want)
	}
	for i := range want {
		if !got[i].Start.Equal(want[i].Start) || !got[i].End.Equal(want[i].End) {
			t.Fatalf("intersectRanges = %v, want %v", got, want)
		}
	}
	c := coverageOf(got)
	if c.Contiguous || !c.Start.Equal(day(2)) || !c.End.Equal(day(11)) {
		t.Errorf("coverageOf = %+v", c)
	}
	if coverageOf(nil) != nil {
		t.Error("coverageOf(nil) is not nil")
	}
}
