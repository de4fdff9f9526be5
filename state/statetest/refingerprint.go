package statetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/efmesh/efmesh/state"
)

// testRefingerprint: a rename carries the snapshot's record, its ledger and
// the pointers to it; a restamp changes the version and hashes only; a
// failing rename leaves everything as it was.
func testRefingerprint(t *testing.T, s state.Store) {
	m, ok := s.(state.FingerprintMigrator)
	if !ok {
		t.Fatalf("%T is no state.FingerprintMigrator", s)
	}
	if vs, err := m.FingerprintVersions(t.Context()); err != nil || len(vs) != 0 {
		t.Fatalf("FingerprintVersions of an empty store = %v, %v", vs, err)
	}
	a, b := snapshot("a", 1), snapshot("b", 1)
	b.Parents = map[string]string{"a": a.Fingerprint}
	b.Definition = []byte(`{"name":"b"}`)
	put(t, s, a, b)
	if err := s.MarkBuilt(t.Context(), b.Fingerprint, t0); err != nil {
		t.Fatal(err)
	}
	mark(t, s, b.Fingerprint, state.IntervalDone, day(0), day(1))
	promote(t, s, "dev", t0, map[string]string{"a": a.Fingerprint, "b": b.Fingerprint})
	if vs, err := m.FingerprintVersions(t.Context()); err != nil || fmt.Sprint(vs) != "[1]" {
		t.Fatalf("FingerprintVersions = %v, %v", vs, err)
	}

	// A rename onto a stored fingerprint fails, and the renames before it
	// in the same call are undone.
	put(t, s, snapshot("c", 1))
	err := m.Refingerprint(t.Context(), []state.Refingerprint{
		{From: a.Fingerprint, To: "a-new", Version: 2, OwnHash: "a-own-new"},
		{From: b.Fingerprint, To: fp("c", 1), Version: 2},
	})
	if err == nil {
		t.Fatal("a rename onto a stored fingerprint succeeded")
	}
	if got := get(t, s, a.Fingerprint, b.Fingerprint, "a-new"); len(got) != 2 || pointers(t, s, "dev")["a"] != a.Fingerprint {
		t.Fatalf("a failed Refingerprint changed the store: %v", got)
	}
	if err := m.Refingerprint(t.Context(), []state.Refingerprint{{From: "nope", To: "x", Version: 2}}); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Refingerprint of an unknown snapshot = %v", err)
	}

	err = m.Refingerprint(t.Context(), []state.Refingerprint{
		{From: a.Fingerprint, To: a.Fingerprint, Version: 2, OwnHash: "a-own-2"},
		{From: b.Fingerprint, To: "b-new", Version: 2, OwnHash: "b-own-2", Parents: map[string]string{"a": a.Fingerprint}},
	})
	if err != nil {
		t.Fatalf("Refingerprint: %v", err)
	}
	got := get(t, s, a.Fingerprint, b.Fingerprint, "b-new")
	if _, old := got[b.Fingerprint]; old || len(got) != 2 {
		t.Fatalf("after Refingerprint: %v", got)
	}
	nb := got["b-new"]
	if nb.FingerprintVersion != 2 || nb.OwnHash != "b-own-2" || nb.Name != "b" || nb.PhysicalTable != b.PhysicalTable ||
		!nb.Built() || string(nb.Definition) != `{"name":"b"}` || nb.Parents["a"] != a.Fingerprint {
		t.Errorf("renamed snapshot: %+v", nb)
	}
	if na := got[a.Fingerprint]; na.FingerprintVersion != 2 || na.OwnHash != "a-own-2" {
		t.Errorf("restamped snapshot: %+v", na)
	}
	if p := pointers(t, s, "dev"); p["b"] != "b-new" || p["a"] != a.Fingerprint {
		t.Errorf("pointers after Refingerprint: %v", p)
	}
	if got := ledger(t, s, "b-new"); got != "01-01..01-02:done 01-02..01-03:done " {
		t.Errorf("ledger of the renamed snapshot: %q", got)
	}
	if got := ledger(t, s, b.Fingerprint); got != "" {
		t.Errorf("ledger left under the old fingerprint: %q", got)
	}
	if vs, err := m.FingerprintVersions(t.Context()); err != nil || fmt.Sprint(vs) != "[1 2]" { // c stays at 1
		t.Fatalf("FingerprintVersions after Refingerprint = %v, %v", vs, err)
	}
}
