package statetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/efmesh/efmesh/state"
)

// orphanedAt returns the orphan marks of snapshots as "fp=<offset from t0>"
// ("fp=-" for a referenced one).
func orphanedAt(t *testing.T, s state.Store, fps ...string) string {
	t.Helper()
	snaps := get(t, s, fps...)
	out := ""
	for _, f := range fps {
		snap, ok := snaps[f]
		switch {
		case !ok:
			out += f + "=gone "
		case snap.Referenced():
			out += f + "=- "
		default:
			out += fmt.Sprintf("%s=%s ", f, snap.OrphanedAt.Sub(t0))
		}
	}
	return out
}

func testOrphanMarks(t *testing.T, s state.Store) {
	a1, a2 := snapshot("a", 1), snapshot("a", 2)
	a1.CreatedAt, a2.CreatedAt = t0, t0.Add(time.Minute)
	a1.OrphanedAt = t0.Add(99 * time.Hour) // ignored: the store keeps the mark
	put(t, s, a1, a2)
	// Never promoted: orphaned since creation.
	if got := orphanedAt(t, s, a1.Fingerprint, a2.Fingerprint); got != "a-fp-1=0s a-fp-2=1m0s " {
		t.Fatalf("new snapshots: %s", got)
	}
	promote(t, s, "dev", t0.Add(time.Hour), map[string]string{"a": a1.Fingerprint})
	promote(t, s, "prod", t0.Add(time.Hour), map[string]string{"a": a1.Fingerprint})
	// dev moves on; prod still points at a1.
	promote(t, s, "dev", t0.Add(2*time.Hour), map[string]string{"a": a2.Fingerprint})
	if got := orphanedAt(t, s, a1.Fingerprint, a2.Fingerprint); got != "a-fp-1=- a-fp-2=- " {
		t.Fatalf("both referenced: %s", got)
	}
	// The last pointer goes: the mark is the promotion's time.
	promote(t, s, "prod", t0.Add(3*time.Hour), map[string]string{"a": a2.Fingerprint})
	if got := orphanedAt(t, s, a1.Fingerprint, a2.Fingerprint); got != "a-fp-1=3h0m0s a-fp-2=- " {
		t.Fatalf("a1 orphaned: %s", got)
	}
	// A rollback clears it; orphaned again, the clock starts over.
	promote(t, s, "dev", t0.Add(4*time.Hour), map[string]string{"a": a1.Fingerprint})
	if got := orphanedAt(t, s, a1.Fingerprint); got != "a-fp-1=- " {
		t.Fatalf("after the rollback: %s", got)
	}
	promote(t, s, "dev", t0.Add(5*time.Hour), map[string]string{})
	if got := orphanedAt(t, s, a1.Fingerprint, a2.Fingerprint); got != "a-fp-1=5h0m0s a-fp-2=- " {
		t.Fatalf("after emptying dev: %s", got)
	}

	use, err := s.Usage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(use) != 2 || use[0].Fingerprint != a1.Fingerprint || use[0].Name != "a" || use[0].Kind != "FULL" ||
		use[0].PhysicalTable != a1.PhysicalTable || !use[0].CreatedAt.Equal(t0) || !use[0].OrphanedAt.Equal(t0.Add(5*time.Hour)) ||
		use[0].Parents == nil || !use[1].OrphanedAt.IsZero() {
		t.Errorf("Usage() = %+v", use)
	}
}

func testReserve(t *testing.T, s state.Store) {
	a1, a2, b1 := snapshot("a", 1), snapshot("a", 2), snapshot("b", 1)
	a1.CreatedAt, a2.CreatedAt, b1.CreatedAt = t0, t0, t0
	put(t, s, a1, a2, b1)
	promote(t, s, "prod", t0, map[string]string{"b": b1.Fingerprint})
	// A missing fingerprint reserves nothing.
	err := s.Reserve(t.Context(), []string{a1.Fingerprint, "gone"}, t0.Add(time.Hour))
	if !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Reserve with a missing snapshot = %v, want ErrNotFound", err)
	}
	if got := orphanedAt(t, s, a1.Fingerprint); got != "a-fp-1=0s " {
		t.Fatalf("a failed Reserve moved a mark: %s", got)
	}
	if err := s.Reserve(t.Context(), []string{a1.Fingerprint, a2.Fingerprint, b1.Fingerprint}, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// An earlier reservation never moves a mark back.
	if err := s.Reserve(t.Context(), []string{a2.Fingerprint}, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := orphanedAt(t, s, a1.Fingerprint, a2.Fingerprint, b1.Fingerprint); got != "a-fp-1=1h0m0s a-fp-2=1h0m0s b-fp-1=- " {
		t.Fatalf("after Reserve: %s", got)
	}
	// A reserved snapshot is safe from a claim whose cutoff is before it.
	got, err := s.RemoveSnapshots(t.Context(), []string{a1.Fingerprint}, t0.Add(30*time.Minute))
	if err != nil || len(got) != 0 {
		t.Fatalf("RemoveSnapshots of a reserved snapshot = %v, %v", got, err)
	}
}

func testRemoveSnapshots(t *testing.T, s state.Store) {
	a1, a2, a3 := snapshot("a", 1), snapshot("a", 2), snapshot("a", 3)
	for _, snap := range []*state.Snapshot{&a1, &a2, &a3} {
		snap.CreatedAt = t0
	}
	put(t, s, a1, a2, a3)
	mark(t, s, a1.Fingerprint, state.IntervalDone, day(0), day(1))
	promote(t, s, "prod", t0, map[string]string{"a": a1.Fingerprint})
	promote(t, s, "prod", t0.Add(2*time.Hour), map[string]string{"a": a2.Fingerprint}) // a1 orphaned at 2h
	all := []string{a1.Fingerprint, a2.Fingerprint, a3.Fingerprint, "never-stored"}

	// Before a1's ttl: only a3 (orphaned since its creation) goes; a2 is
	// referenced.
	got, err := s.RemoveSnapshots(t.Context(), all, t0.Add(time.Hour))
	if err != nil || !slices.Equal(got, []string{a3.Fingerprint}) {
		t.Fatalf("RemoveSnapshots(cutoff 1h) = %v, %v", got, err)
	}
	got, err = s.RemoveSnapshots(t.Context(), all, t0.Add(2*time.Hour))
	if err != nil || !slices.Equal(got, []string{a1.Fingerprint}) {
		t.Fatalf("RemoveSnapshots(cutoff 2h) = %v, %v", got, err)
	}
	if got := orphanedAt(t, s, a1.Fingerprint, a2.Fingerprint, a3.Fingerprint); got != "a-fp-1=gone a-fp-2=- a-fp-3=gone " {
		t.Fatalf("after the claims: %s", got)
	}
	if l := ledger(t, s, a1.Fingerprint); l != "" {
		t.Errorf("the removed snapshot's ledger stayed: %s", l)
	}
	// A promotion to a removed snapshot fails and changes nothing.
	err = s.Promote(t.Context(), state.Promotion{Env: "prod", Pointers: map[string]string{"a": a1.Fingerprint}, At: t0.Add(3 * time.Hour)})
	if !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Promote to a removed snapshot = %v, want ErrNotFound", err)
	}
	if got := pointers(t, s, "prod"); got["a"] != a2.Fingerprint {
		t.Fatalf("prod after the failed promotion: %v", got)
	}
	// Stored again (a new build), it is a new snapshot with a new clock.
	a1.CreatedAt = t0.Add(4 * time.Hour)
	put(t, s, a1)
	if got := orphanedAt(t, s, a1.Fingerprint); got != "a-fp-1=4h0m0s " {
		t.Fatalf("re-stored: %s", got)
	}
	if got, err := s.RemoveSnapshots(t.Context(), nil, t0.Add(time.Hour)); err != nil || len(got) != 0 {
		t.Fatalf("RemoveSnapshots(nil) = %v, %v", got, err)
	}
}

// testClaimRacesPromotion runs the janitor's claim against a promotion of
// the same orphaned snapshot: exactly one wins, and the loser changes
// nothing — never a pointer to a removed snapshot.
func testClaimRacesPromotion(t *testing.T, s state.Store) {
	for i := range 20 {
		snap := snapshot(fmt.Sprintf("r%d", i), 1)
		snap.CreatedAt = t0
		put(t, s, snap)
		var wg sync.WaitGroup
		var removed []string
		var rerr, perr error
		wg.Go(func() {
			removed, rerr = s.RemoveSnapshots(t.Context(), []string{snap.Fingerprint}, t0.Add(time.Hour))
		})
		wg.Go(func() {
			perr = s.Promote(t.Context(), state.Promotion{Env: "e" + fmt.Sprint(i), Pointers: map[string]string{"m": snap.Fingerprint}, At: t0.Add(time.Hour)})
		})
		wg.Wait()
		if rerr != nil {
			t.Fatalf("RemoveSnapshots: %v", rerr)
		}
		ptrs := pointers(t, s, "e"+fmt.Sprint(i))
		switch {
		case len(removed) == 1 && errors.Is(perr, state.ErrNotFound) && len(ptrs) == 0:
		case len(removed) == 0 && perr == nil && ptrs["m"] == snap.Fingerprint:
		default:
			t.Fatalf("race %d: removed %v, promote %v, pointers %v", i, removed, perr, ptrs)
		}
	}
}
