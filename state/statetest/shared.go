package statetest

import (
	"testing"
	"time"

	"github.com/efmesh/efmesh/state"
)

// RunShared runs the tests of one store opened more than once, as two
// processes do. open prepares a fresh store and returns a function that
// opens a new Store of it at each call (and arranges for its Close).
func RunShared(t *testing.T, open func(t *testing.T) func() state.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, again func() state.Store)
	}{
		{"ReopenPersists", testReopenPersists},
		{"Version", testVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

// Fill writes one of each record Check verifies.
func Fill(t *testing.T, s state.Store) {
	t.Helper()
	ctx := t.Context()
	snap := state.Snapshot{Fingerprint: "fp1", FingerprintVersion: 1, Name: "med.stays", Kind: "FULL",
		PhysicalTable: "_efmesh.med__stays__fp1", OwnHash: "own1", Parents: map[string]string{"raw.a": "fp0"},
		Canonical: []byte("canon"), Definition: []byte(`{"name":"med.stays"}`)}
	if err := s.PutSnapshot(ctx, snap); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkBuilt(ctx, "fp1", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.Promote(ctx, state.Promotion{Env: "prod", Pointers: map[string]string{"med.stays": "fp1"}, PlanID: "p1", AppliedBy: "ci"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordPlan(ctx, state.PlanRecord{ID: "p1", Env: "prod", AppliedBy: "ci", Status: "applied"}); err != nil {
		t.Fatal(err)
	}
}

// Check verifies that what Fill wrote is in r.
func Check(t *testing.T, r state.Reader) {
	t.Helper()
	ctx := t.Context()
	snaps, err := r.Snapshots(ctx, []string{"fp1"})
	if err != nil || !snaps["fp1"].Built() || snaps["fp1"].Parents["raw.a"] != "fp0" || string(snaps["fp1"].Canonical) != "canon" {
		t.Errorf("snapshot fp1: %+v, %v", snaps["fp1"], err)
	}
	// Times come back in UTC, from every store.
	if loc := snaps["fp1"].CreatedAt.Location(); loc != time.UTC {
		t.Errorf("CreatedAt in %v, want UTC", loc)
	}
	ps, err := r.Environment(ctx, "prod")
	if err != nil || ps["med.stays"].Fingerprint != "fp1" {
		t.Errorf("prod: %v, %v", ps, err)
	}
	plans, err := r.Plans(ctx, "prod", 1)
	if err != nil || len(plans) != 1 || plans[0].ID != "p1" {
		t.Errorf("plans: %+v, %v", plans, err)
	}
}

func testReopenPersists(t *testing.T, again func() state.Store) {
	s := again()
	Fill(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	Check(t, again())
}

// testVersion: a store's version moves with every write of any Store of
// it (another process's included), and stays while only reads happen.
func testVersion(t *testing.T, again func() state.Store) {
	ctx := t.Context()
	watcher, writer := again(), again()
	v, ok := watcher.(state.Versioned)
	if !ok {
		t.Fatalf("%T does not implement state.Versioned", watcher)
	}
	version := func() int64 {
		t.Helper()
		n, err := v.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	last := version()
	same := func(what string) {
		t.Helper()
		if n := version(); n != last {
			t.Errorf("the version moved after %s (%d, was %d)", what, n, last)
			last = n
		}
	}
	moved := func(what string) {
		t.Helper()
		n := version()
		if n == last {
			t.Errorf("the version did not move after %s (%d)", what, n)
		}
		last = n
	}
	Fill(t, writer) // several writes
	moved("the first writes")
	Check(t, watcher)
	Check(t, writer)
	same("reads")
	for i, w := range []struct {
		what string
		do   func(s state.Store) error
	}{
		{"PutSnapshots", func(s state.Store) error { return s.PutSnapshots(ctx, []state.Snapshot{snapshot("med.x", 1)}) }},
		{"MarkBuilt", func(s state.Store) error { return s.MarkBuilt(ctx, fp("med.x", 1), t0) }},
		{"UpdateDefinition", func(s state.Store) error { return s.UpdateDefinition(ctx, fp("med.x", 1), []byte(`{}`)) }},
		{"Promote", func(s state.Store) error {
			return s.Promote(ctx, state.Promotion{Env: "dev", Pointers: map[string]string{"med.x": fp("med.x", 1)}, PlanID: "p2", AppliedBy: "t"})
		}},
		{"MarkIntervals", func(s state.Store) error {
			return s.MarkIntervals(ctx, fp("med.x", 1), []state.Interval{day(1)}, state.IntervalDone, t0)
		}},
		{"ClearIntervals", func(s state.Store) error {
			_, err := s.ClearIntervals(ctx, fp("med.x", 1), day(0).Start, day(3).End)
			return err
		}},
		{"RecordRun", func(s state.Store) error {
			return s.RecordRun(ctx, state.Run{ID: "r1", Env: "dev", Outcome: state.RunOK})
		}},
		{"Promote (empty)", func(s state.Store) error {
			return s.Promote(ctx, state.Promotion{Env: "dev", Pointers: map[string]string{}, PlanID: "p3", AppliedBy: "t"})
		}},
		{"RemoveSnapshots", func(s state.Store) error {
			_, err := s.RemoveSnapshots(ctx, []string{fp("med.x", 1)}, time.Now().Add(time.Hour))
			return err
		}},
	} {
		// Every other write comes from the watcher's own Store.
		s := writer
		if i%2 == 1 {
			s = watcher
		}
		if err := w.do(s); err != nil {
			t.Fatalf("%s: %v", w.what, err)
		}
		moved(w.what)
	}
}
