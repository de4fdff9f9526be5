package statetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/efmesh/efmesh/state"
)

// day returns the interval of the n-th day after 2026-01-01.
func day(n int) state.Interval {
	s := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n)
	return state.Interval{Start: s, End: s.AddDate(0, 0, 1)}
}

func ledger(t *testing.T, s state.Store, fp string) string {
	t.Helper()
	ivs, err := s.Intervals(t.Context(), fp)
	if err != nil {
		t.Fatalf("Intervals(%s): %v", fp, err)
	}
	out := ""
	for _, iv := range ivs {
		out += fmt.Sprintf("%s..%s:%s ", iv.Start.Format("01-02"), iv.End.Format("01-02"), iv.Status)
	}
	return out
}

func mark(t *testing.T, s state.Store, fp, status string, ivs ...state.Interval) {
	t.Helper()
	if err := s.MarkIntervals(t.Context(), fp, ivs, status, t0); err != nil {
		t.Fatalf("MarkIntervals(%s): %v", fp, err)
	}
}

func testIntervalsRoundTrip(t *testing.T, s state.Store) {
	put(t, s, snapshot("a", 1), snapshot("a", 2))
	if got := ledger(t, s, fp("a", 1)); got != "" {
		t.Fatalf("empty ledger = %q", got)
	}
	// Marked out of order, listed by start.
	mark(t, s, fp("a", 1), state.IntervalDone, day(2), day(0), day(1))
	mark(t, s, fp("a", 2), state.IntervalFailed, day(0))
	if got, want := ledger(t, s, fp("a", 1)), "01-01..01-02:done 01-02..01-03:done 01-03..01-04:done "; got != want {
		t.Errorf("ledger = %q, want %q", got, want)
	}
	ivs, err := s.Intervals(t.Context(), fp("a", 2))
	if err != nil || len(ivs) != 1 || !ivs[0].Start.Equal(day(0).Start) || !ivs[0].End.Equal(day(0).End) ||
		ivs[0].Status != state.IntervalFailed || !ivs[0].UpdatedAt.Equal(t0) {
		t.Errorf("Intervals(a2) = %+v, %v", ivs, err)
	}
	if got := ledger(t, s, "unknown"); got != "" {
		t.Errorf("ledger of an unknown fingerprint = %q", got)
	}
}

func testMarkIntervalsReplaces(t *testing.T, s state.Store) {
	put(t, s, snapshot("a", 1))
	mark(t, s, fp("a", 1), state.IntervalFailed, day(0), day(1))
	mark(t, s, fp("a", 1), state.IntervalDone, day(1))
	if got, want := ledger(t, s, fp("a", 1)), "01-01..01-02:failed 01-02..01-03:done "; got != want {
		t.Errorf("ledger = %q, want %q", got, want)
	}
	if err := s.MarkIntervals(t.Context(), fp("a", 1), []state.Interval{day(3)}, "bogus", t0); err == nil {
		t.Error("a bad status was accepted")
	}
	empty := state.Interval{Start: day(4).Start, End: day(4).Start}
	if err := s.MarkIntervals(t.Context(), fp("a", 1), []state.Interval{day(5), empty}, state.IntervalDone, t0); err == nil {
		t.Error("an empty interval was accepted")
	}
	// The batch with the bad interval left nothing behind.
	if got, want := ledger(t, s, fp("a", 1)), "01-01..01-02:failed 01-02..01-03:done "; got != want {
		t.Errorf("after a rejected batch: ledger = %q, want %q", got, want)
	}
}

func testMarkIntervalsUnknown(t *testing.T, s state.Store) {
	err := s.MarkIntervals(t.Context(), "missing", []state.Interval{day(0)}, state.IntervalDone, t0)
	if !errors.Is(err, state.ErrNotFound) {
		t.Errorf("MarkIntervals(unknown) = %v, want ErrNotFound", err)
	}
}

func testClearIntervals(t *testing.T, s state.Store) {
	put(t, s, snapshot("a", 1), snapshot("b", 1))
	mark(t, s, fp("a", 1), state.IntervalDone, day(0), day(1), day(2), day(3))
	mark(t, s, fp("b", 1), state.IntervalDone, day(1))
	n, err := s.ClearIntervals(t.Context(), fp("a", 1), day(1).Start, day(3).Start)
	if err != nil || n != 2 {
		t.Fatalf("ClearIntervals = %d, %v; want 2", n, err)
	}
	if got, want := ledger(t, s, fp("a", 1)), "01-01..01-02:done 01-04..01-05:done "; got != want {
		t.Errorf("ledger = %q, want %q", got, want)
	}
	if got := ledger(t, s, fp("b", 1)); got != "01-02..01-03:done " {
		t.Errorf("another snapshot's ledger changed: %q", got)
	}
	// A range that touches a record only at its edge clears nothing.
	if n, err := s.ClearIntervals(t.Context(), fp("a", 1), day(1).Start, day(1).End); err != nil || n != 0 {
		t.Errorf("ClearIntervals of a cleared range = %d, %v", n, err)
	}
}

func testRuns(t *testing.T, s state.Store) {
	for i, outcome := range []string{state.RunOK, state.RunLockHeld, state.RunError} {
		r := state.Run{ID: fmt.Sprintf("r%d", i), Env: "dev", StartedAt: t0.Add(time.Duration(i) * time.Minute),
			FinishedAt: t0.Add(time.Duration(i)*time.Minute + time.Second), Outcome: outcome, Detail: []byte(`{"n":1}`)}
		if err := s.RecordRun(t.Context(), r); err != nil {
			t.Fatalf("RecordRun: %v", err)
		}
	}
	if err := s.RecordRun(t.Context(), state.Run{ID: "p0", Env: "prod", Outcome: state.RunOK}); err != nil {
		t.Fatalf("RecordRun(prod): %v", err)
	}
	if err := s.RecordRun(t.Context(), state.Run{ID: "r0", Env: "dev", Outcome: state.RunOK}); err == nil {
		t.Error("recording a run id twice succeeded")
	}
	// A started tick has no finish time until it records its outcome,
	// which replaces it once; a finished tick is not recorded again.
	if err := s.RecordRun(t.Context(), state.Run{ID: "s0", Env: "qa", StartedAt: t0, Outcome: state.RunStarted}); err != nil {
		t.Fatalf("RecordRun(started): %v", err)
	}
	if got, err := s.Runs(t.Context(), "qa", 0); err != nil || len(got) != 1 || got[0].Outcome != state.RunStarted || !got[0].FinishedAt.IsZero() {
		t.Fatalf("Runs(qa) of a started tick = %+v, %v", got, err)
	}
	if err := s.RecordRun(t.Context(), state.Run{ID: "s0", Env: "qa", StartedAt: t0.Add(time.Hour), FinishedAt: t0.Add(time.Minute),
		Outcome: state.RunError, Detail: []byte(`{"n":2}`)}); err != nil {
		t.Fatalf("RecordRun(outcome of a started tick): %v", err)
	}
	if got, err := s.Runs(t.Context(), "qa", 0); err != nil || len(got) != 1 || got[0].Outcome != state.RunError ||
		!got[0].StartedAt.Equal(t0) || !got[0].FinishedAt.Equal(t0.Add(time.Minute)) || string(got[0].Detail) != `{"n":2}` {
		t.Fatalf("Runs(qa) of a finished tick = %+v, %v", got, err)
	}
	if err := s.RecordRun(t.Context(), state.Run{ID: "s0", Env: "qa", Outcome: state.RunOK}); err == nil {
		t.Error("recording a finished tick again succeeded")
	}
	runs, err := s.Runs(t.Context(), "dev", 2)
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs(dev, 2) = %v, %v", runs, err)
	}
	r := runs[0]
	if r.ID != "r2" || r.Outcome != state.RunError || !r.StartedAt.Equal(t0.Add(2*time.Minute)) ||
		!r.FinishedAt.Equal(t0.Add(2*time.Minute+time.Second)) || string(r.Detail) != `{"n":1}` || runs[1].ID != "r1" {
		t.Errorf("Runs(dev) = %+v", runs)
	}
	if all, _ := s.Runs(t.Context(), "dev", 0); len(all) != 3 {
		t.Errorf("Runs(dev, 0) = %d runs, want 3", len(all))
	}
}

func lock(holder string, at time.Time, ttl time.Duration) state.Lock {
	return state.Lock{Name: "env:dev", Holder: holder, Host: "h1", PID: 42, AcquiredAt: at, ExpiresAt: at.Add(ttl)}
}

func testLockExcludes(t *testing.T, s state.Store) {
	if _, ok, err := s.TryLock(t.Context(), lock("a", t0, time.Minute), nil); err != nil || !ok {
		t.Fatalf("TryLock(a) = %v, %v", ok, err)
	}
	held, ok, err := s.TryLock(t.Context(), lock("b", t0.Add(time.Second), time.Minute), nil)
	if err != nil || ok {
		t.Fatalf("TryLock(b) over a held lock = %v, %v", ok, err)
	}
	if held.Holder != "a" || held.Host != "h1" || held.PID != 42 || !held.AcquiredAt.Equal(t0) || !held.ExpiresAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("held = %+v", held)
	}
	// Re-entry by the holder extends it.
	if _, ok, err := s.TryLock(t.Context(), lock("a", t0.Add(30*time.Second), time.Minute), nil); err != nil || !ok {
		t.Fatalf("TryLock(a) again = %v, %v", ok, err)
	}
	if held, ok, _ := s.TryLock(t.Context(), lock("b", t0.Add(70*time.Second), time.Minute), nil); ok || !held.ExpiresAt.Equal(t0.Add(90*time.Second)) {
		t.Errorf("after re-entry: ok %v, held %+v", ok, held)
	}
	// Another name is another lock.
	other := lock("b", t0, time.Minute)
	other.Name = "janitor"
	if _, ok, err := s.TryLock(t.Context(), other, nil); err != nil || !ok {
		t.Errorf("TryLock(janitor) = %v, %v", ok, err)
	}
}

func testLockExpires(t *testing.T, s state.Store) {
	if _, ok, _ := s.TryLock(t.Context(), lock("a", t0, time.Minute), nil); !ok {
		t.Fatal("TryLock(a) failed")
	}
	got, ok, err := s.TryLock(t.Context(), lock("b", t0.Add(time.Minute), time.Minute), nil)
	if err != nil || !ok || got.Holder != "b" {
		t.Fatalf("TryLock(b) at expiry = %+v, %v, %v", got, ok, err)
	}
	if err := s.Unlock(t.Context(), "env:dev", "a"); !errors.Is(err, state.ErrLockLost) {
		t.Errorf("Unlock by the reclaimed holder = %v, want ErrLockLost", err)
	}
}

func testLockStale(t *testing.T, s state.Store) {
	if _, ok, _ := s.TryLock(t.Context(), lock("a", t0, time.Hour), nil); !ok {
		t.Fatal("TryLock(a) failed")
	}
	alive := func(held state.Lock) bool { return false }
	if _, ok, _ := s.TryLock(t.Context(), lock("b", t0, time.Hour), alive); ok {
		t.Fatal("a live holder lost its lock")
	}
	var asked state.Lock
	gone := func(held state.Lock) bool { asked = held; return true }
	if _, ok, err := s.TryLock(t.Context(), lock("b", t0, time.Hour), gone); err != nil || !ok {
		t.Fatalf("TryLock over a stale holder = %v, %v", ok, err)
	}
	if asked.Holder != "a" || asked.PID != 42 {
		t.Errorf("stale was asked about %+v", asked)
	}
}

func testLockRefreshUnlock(t *testing.T, s state.Store) {
	if _, ok, _ := s.TryLock(t.Context(), lock("a", t0, time.Minute), nil); !ok {
		t.Fatal("TryLock(a) failed")
	}
	if err := s.RefreshLock(t.Context(), "env:dev", "a", t0.Add(time.Hour)); err != nil {
		t.Fatalf("RefreshLock: %v", err)
	}
	if _, ok, _ := s.TryLock(t.Context(), lock("b", t0.Add(30*time.Minute), time.Minute), nil); ok {
		t.Fatal("a refreshed lock was taken")
	}
	if err := s.RefreshLock(t.Context(), "env:dev", "b", t0.Add(time.Hour)); !errors.Is(err, state.ErrLockLost) {
		t.Errorf("RefreshLock by a non-holder = %v, want ErrLockLost", err)
	}
	if err := s.Unlock(t.Context(), "env:dev", "b"); !errors.Is(err, state.ErrLockLost) {
		t.Errorf("Unlock by a non-holder = %v, want ErrLockLost", err)
	}
	if err := s.Unlock(t.Context(), "env:dev", "a"); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
	if _, ok, _ := s.TryLock(t.Context(), lock("b", t0, time.Minute), nil); !ok {
		t.Error("a released lock was not free")
	}
}

func testConcurrentTryLock(t *testing.T, s state.Store) {
	const n = 8
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		wins []string
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := fmt.Sprintf("h%d", i)
			_, ok, err := s.TryLock(t.Context(), lock(h, t0, time.Minute), nil)
			if err != nil {
				t.Errorf("TryLock(%s): %v", h, err)
			}
			if ok {
				mu.Lock()
				wins = append(wins, h)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(wins) != 1 {
		t.Errorf("%d holders won the lock: %v", len(wins), wins)
	}
}

// testRecordBuilds: the records of many builds in one call, each cleared,
// marked and built in that order; an unknown fingerprint or a bad interval
// anywhere leaves the store as it was.
func testRecordBuilds(t *testing.T, s state.Store) {
	put(t, s, snapshot("a", 1), snapshot("b", 1), snapshot("c", 1))
	mark(t, s, fp("a", 1), state.IntervalDone, day(0), day(1), day(5))
	at := t0.Add(time.Hour)
	err := s.RecordBuilds(t.Context(), []state.BuildRecord{
		// a: the records before day 3 go, day 3 is added; not built.
		{Fingerprint: fp("a", 1), At: at, ClearFrom: day(0).Start, ClearTo: day(3).Start, Done: []state.Interval{day(3)}},
		{Fingerprint: fp("b", 1), At: at, Built: true, Done: []state.Interval{day(0), day(1)}},
		// The same snapshot twice: in order, the second clears the first's.
		{Fingerprint: fp("c", 1), At: at, Done: []state.Interval{day(0)}},
		{Fingerprint: fp("c", 1), At: at, Built: true, ClearFrom: day(0).Start, ClearTo: day(9).Start, Done: []state.Interval{day(2)}},
	})
	if err != nil {
		t.Fatalf("RecordBuilds: %v", err)
	}
	for f, want := range map[string]string{
		fp("a", 1): "01-04..01-05:done 01-06..01-07:done ",
		fp("b", 1): "01-01..01-02:done 01-02..01-03:done ",
		fp("c", 1): "01-03..01-04:done ",
	} {
		if got := ledger(t, s, f); got != want {
			t.Errorf("ledger of %s = %q, want %q", f, got, want)
		}
	}
	ivs, err := s.Intervals(t.Context(), fp("b", 1))
	if err != nil || len(ivs) != 2 || !ivs[0].UpdatedAt.Equal(at) {
		t.Errorf("Intervals(b1) = %+v, %v; want updated at %v", ivs, err, at)
	}
	got := get(t, s, fp("a", 1), fp("b", 1), fp("c", 1))
	if got[fp("a", 1)].Built() || !got[fp("b", 1)].BuiltAt.Equal(at) || !got[fp("c", 1)].BuiltAt.Equal(at) {
		t.Errorf("built marks: a %v, b %v, c %v; want a unbuilt, b and c at %v",
			got[fp("a", 1)].BuiltAt, got[fp("b", 1)].BuiltAt, got[fp("c", 1)].BuiltAt, at)
	}

	// All or none: an unknown fingerprint after a good record.
	put(t, s, snapshot("d", 1))
	err = s.RecordBuilds(t.Context(), []state.BuildRecord{
		{Fingerprint: fp("d", 1), At: at, Built: true, Done: []state.Interval{day(0)}},
		{Fingerprint: "missing", At: at, Built: true},
	})
	if !errors.Is(err, state.ErrNotFound) {
		t.Errorf("RecordBuilds(unknown) = %v, want ErrNotFound", err)
	}
	empty := state.Interval{Start: day(4).Start, End: day(4).Start}
	if err := s.RecordBuilds(t.Context(), []state.BuildRecord{
		{Fingerprint: fp("d", 1), At: at, Built: true, Done: []state.Interval{day(0)}},
		{Fingerprint: fp("a", 1), At: at, Done: []state.Interval{empty}},
	}); err == nil {
		t.Error("an empty interval was accepted")
	}
	if got := ledger(t, s, fp("d", 1)); got != "" {
		t.Errorf("a rejected batch left records: %q", got)
	}
	if get(t, s, fp("d", 1))[fp("d", 1)].Built() {
		t.Error("a rejected batch marked a snapshot built")
	}
	if err := s.RecordBuilds(t.Context(), nil); err != nil {
		t.Errorf("RecordBuilds(nil) = %v", err)
	}
}
