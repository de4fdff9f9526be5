// Package statetest is the conformance suite every state.Store passes: the
// SQLite store runs it against a temporary file, the Postgres store against
// a throwaway schema. It knows only the state.Store interface.
package statetest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/efmesh/efmesh/state"
)

// Run runs the suite. open must return a new, empty store and arrange for
// its Close (t.Cleanup); every subtest opens its own.
func Run(t *testing.T, open func(t *testing.T) state.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s state.Store)
	}{
		{"SnapshotRoundTrip", testSnapshotRoundTrip},
		{"PutSnapshotIsIdempotent", testPutSnapshotIdempotent},
		{"PutSnapshotsAllOrNone", testPutSnapshots},
		{"SnapshotsOmitsMissing", testSnapshotsOmitsMissing},
		{"SnapshotsMany", testSnapshotsMany},
		{"MarkBuilt", testMarkBuilt},
		{"UpdateDefinition", testUpdateDefinition},
		{"UnknownEnvironmentIsEmpty", testUnknownEnvironment},
		{"PromoteReplacesSet", testPromoteReplaces},
		{"PromoteUnknownSnapshotChangesNothing", testPromoteUnknownSnapshot},
		{"PromoteEmptySetRemovesEnvironment", testPromoteEmpty},
		{"PromoteJournalsPlanRecord", testPromoteRecord},
		{"Environments", testEnvironments},
		{"Plans", testPlans},
		{"RecordPlanTwice", testRecordPlanTwice},
		{"ConcurrentPromotions", testConcurrentPromotions},
		{"ConcurrentPutSameSnapshot", testConcurrentPut},
		{"IntervalsRoundTrip", testIntervalsRoundTrip},
		{"MarkIntervalsReplaces", testMarkIntervalsReplaces},
		{"MarkIntervalsUnknownSnapshot", testMarkIntervalsUnknown},
		{"ClearIntervals", testClearIntervals},
		{"RecordBuildsAllOrNone", testRecordBuilds},
		{"Runs", testRuns},
		{"LockExcludes", testLockExcludes},
		{"LockExpires", testLockExpires},
		{"LockStaleHolder", testLockStale},
		{"LockRefreshAndUnlock", testLockRefreshUnlock},
		{"ConcurrentTryLock", testConcurrentTryLock},
		{"OrphanMarks", testOrphanMarks},
		{"Reserve", testReserve},
		{"RemoveSnapshots", testRemoveSnapshots},
		{"ClaimRacesPromotion", testClaimRacesPromotion},
		{"Refingerprint", testRefingerprint},
		{"EnvironmentVersion", testEnvironmentVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

// t0 is a fixed instant; times in the suite are whole microseconds, the
// finest resolution every store keeps (Postgres timestamps).
var t0 = time.Date(2025, 3, 14, 9, 26, 53, 589793000, time.UTC)

func fp(name string, v int) string { return fmt.Sprintf("%s-fp-%d", name, v) }

func snapshot(name string, v int) state.Snapshot {
	return state.Snapshot{
		Fingerprint:        fp(name, v),
		FingerprintVersion: 1,
		Name:               name,
		Kind:               "FULL",
		PhysicalTable:      fmt.Sprintf("_efmesh.med__%s__%08d", name, v),
		OwnHash:            fmt.Sprintf("%s-own-%d", name, v),
		Parents:            map[string]string{},
		CreatedAt:          t0.Add(time.Duration(v) * time.Second),
	}
}

// put stores the snapshots or stops the test.
func put(t *testing.T, s state.Store, snaps ...state.Snapshot) {
	t.Helper()
	for _, snap := range snaps {
		if err := s.PutSnapshot(t.Context(), snap); err != nil {
			t.Fatalf("PutSnapshot(%s): %v", snap.Fingerprint, err)
		}
	}
}

func get(t *testing.T, s state.Store, fps ...string) map[string]state.Snapshot {
	t.Helper()
	got, err := s.Snapshots(t.Context(), fps)
	if err != nil {
		t.Fatalf("Snapshots: %v", err)
	}
	return got
}

func promote(t *testing.T, s state.Store, env string, at time.Time, pointers map[string]string) {
	t.Helper()
	err := s.Promote(t.Context(), state.Promotion{Env: env, Pointers: pointers, PlanID: "plan-" + env, AppliedBy: "tester", At: at})
	if err != nil {
		t.Fatalf("Promote(%s): %v", env, err)
	}
}

// pointers returns env's pointers as model -> fingerprint.
func pointers(t *testing.T, s state.Store, env string) map[string]string {
	t.Helper()
	ps, err := s.Environment(t.Context(), env)
	if err != nil {
		t.Fatalf("Environment(%s): %v", env, err)
	}
	out := map[string]string{}
	for model, p := range ps {
		if p.Model != model {
			t.Errorf("Environment(%s)[%q].Model = %q", env, model, p.Model)
		}
		out[model] = p.Fingerprint
	}
	return out
}

func sameSnapshot(t *testing.T, got, want state.Snapshot) {
	t.Helper()
	if got.Fingerprint != want.Fingerprint || got.FingerprintVersion != want.FingerprintVersion ||
		got.Name != want.Name || got.Kind != want.Kind || got.PhysicalTable != want.PhysicalTable ||
		got.OwnHash != want.OwnHash {
		t.Errorf("snapshot fields:\n got %+v\nwant %+v", got, want)
	}
	if !maps.Equal(got.Parents, want.Parents) {
		t.Errorf("Parents = %v, want %v", got.Parents, want.Parents)
	}
	if !bytes.Equal(got.Canonical, want.Canonical) {
		t.Errorf("Canonical = %q, want %q", got.Canonical, want.Canonical)
	}
	if !bytes.Equal(got.Definition, want.Definition) {
		t.Errorf("Definition = %q, want %q", got.Definition, want.Definition)
	}
	if !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("CreatedAt = %v, want %v", got.CreatedAt, want.CreatedAt)
	}
	if !got.BuiltAt.Equal(want.BuiltAt) {
		t.Errorf("BuiltAt = %v, want %v", got.BuiltAt, want.BuiltAt)
	}
}

func testSnapshotRoundTrip(t *testing.T, s state.Store) {
	want := state.Snapshot{
		Fingerprint:        "3f1c0ffee",
		FingerprintVersion: 2,
		Name:               "med.stays",
		Kind:               "INCREMENTAL_BY_TIME_RANGE",
		PhysicalTable:      "_efmesh.med__stays__3f1c0ffe",
		OwnHash:            "a11ce",
		Parents:            map[string]string{"raw.admissions": "fp-adm", "raw.wards": "fp-wards"},
		// Bytes that are not valid UTF-8, NUL included: the store keeps
		// blobs, not text.
		Canonical:  []byte{0x00, 0xff, 0xfe, '{', '}', 0x00},
		Definition: []byte(`{"name":"med.stays","grain":["stay_id"],"description":"héhé"}`),
		CreatedAt:  t0.In(time.FixedZone("CET", 3600)), // stored as the same instant
	}
	nilBlobs := state.Snapshot{Fingerprint: "nilblobs", Name: "m", Kind: "VIEW", CreatedAt: t0}
	put(t, s, want, nilBlobs)

	got := get(t, s, want.Fingerprint, nilBlobs.Fingerprint)
	if len(got) != 2 {
		t.Fatalf("Snapshots returned %d snapshots, want 2", len(got))
	}
	sameSnapshot(t, got[want.Fingerprint], want)
	sameSnapshot(t, got[nilBlobs.Fingerprint], nilBlobs)

	// Heads are the same snapshots without their canonical form.
	heads, err := s.SnapshotHeads(t.Context(), []string{want.Fingerprint, "missing", want.Fingerprint, nilBlobs.Fingerprint})
	if err != nil || len(heads) != 2 {
		t.Fatalf("SnapshotHeads = %d snapshots, %v; want 2", len(heads), err)
	}
	if heads[want.Fingerprint].Canonical != nil {
		t.Errorf("SnapshotHeads returned Canonical %q", heads[want.Fingerprint].Canonical)
	}
	head := want
	head.Canonical = nil
	sameSnapshot(t, heads[want.Fingerprint], head)
	if got[want.Fingerprint].Built() {
		t.Errorf("new snapshot reports Built")
	}

	// A zero CreatedAt is recorded as the time of the put.
	before := time.Now()
	put(t, s, state.Snapshot{Fingerprint: "nocreated", Name: "m", Kind: "VIEW"})
	created := get(t, s, "nocreated")["nocreated"].CreatedAt
	if created.Before(before.Add(-time.Second)) || created.After(time.Now().Add(time.Second)) {
		t.Errorf("zero CreatedAt stored as %v, want about %v", created, before)
	}
}

func testPutSnapshotIdempotent(t *testing.T, s state.Store) {
	first := snapshot("orders", 1)
	put(t, s, first)
	again := first
	again.Name = "other"
	again.PhysicalTable = "_efmesh.elsewhere"
	again.CreatedAt = t0.Add(time.Hour)
	put(t, s, again, first)
	sameSnapshot(t, get(t, s, first.Fingerprint)[first.Fingerprint], first)
}

func testPutSnapshots(t *testing.T, s state.Store) {
	first := snapshot("orders", 1)
	put(t, s, first)
	again := first
	again.Name = "other"
	batch := []state.Snapshot{snapshot("a", 1), again, snapshot("b", 2)}
	if err := s.PutSnapshots(t.Context(), batch); err != nil {
		t.Fatalf("PutSnapshots: %v", err)
	}
	got := get(t, s, fp("a", 1), fp("b", 2), first.Fingerprint)
	if len(got) != 3 || got[first.Fingerprint].Name != "orders" {
		t.Fatalf("after PutSnapshots: %d snapshots, orders named %q", len(got), got[first.Fingerprint].Name)
	}
	// One bad snapshot: none of the batch is stored.
	bad := []state.Snapshot{snapshot("c", 3), {Name: "nofp", Kind: "VIEW"}}
	if err := s.PutSnapshots(t.Context(), bad); err == nil {
		t.Fatal("PutSnapshots with an empty fingerprint succeeded")
	}
	if got := get(t, s, fp("c", 3)); len(got) != 0 {
		t.Fatalf("a failed PutSnapshots stored %v", slices.Collect(maps.Keys(got)))
	}
	if err := s.PutSnapshots(t.Context(), nil); err != nil {
		t.Fatalf("PutSnapshots(nil): %v", err)
	}
}

func testSnapshotsOmitsMissing(t *testing.T, s state.Store) {
	put(t, s, snapshot("orders", 1))
	got := get(t, s, fp("orders", 1), "missing", fp("orders", 1))
	if len(got) != 1 || got[fp("orders", 1)].Name != "orders" {
		t.Errorf("Snapshots(orders, missing) = %v, want only orders", slices.Collect(maps.Keys(got)))
	}
	if got := get(t, s); len(got) != 0 {
		t.Errorf("Snapshots() = %v, want empty", got)
	}
	if got := get(t, s, "missing"); len(got) != 0 {
		t.Errorf("Snapshots(missing) = %v, want empty", got)
	}
}

// testSnapshotsMany asks for more fingerprints than a store is likely to
// bind in one statement.
func testSnapshotsMany(t *testing.T, s state.Store) {
	const n = 1234
	var fps []string
	for i := range n {
		snap := snapshot(fmt.Sprintf("m%04d", i), i)
		put(t, s, snap)
		fps = append(fps, snap.Fingerprint, "missing-"+snap.Fingerprint)
	}
	got := get(t, s, fps...)
	if len(got) != n {
		t.Fatalf("Snapshots returned %d snapshots, want %d", len(got), n)
	}
	for i := range n {
		f := fp(fmt.Sprintf("m%04d", i), i)
		if got[f].Fingerprint != f {
			t.Fatalf("Snapshots is missing %s", f)
		}
	}
}

func testMarkBuilt(t *testing.T, s state.Store) {
	snap := snapshot("orders", 1)
	put(t, s, snap, snapshot("orders", 2))
	at := t0.Add(time.Minute)
	if err := s.MarkBuilt(t.Context(), snap.Fingerprint, at); err != nil {
		t.Fatalf("MarkBuilt: %v", err)
	}
	got := get(t, s, fp("orders", 1), fp("orders", 2))
	if b := got[fp("orders", 1)]; !b.Built() || !b.BuiltAt.Equal(at) {
		t.Errorf("after MarkBuilt: Built() = %v, BuiltAt = %v, want %v", b.Built(), b.BuiltAt, at)
	}
	if got[fp("orders", 2)].Built() {
		t.Errorf("MarkBuilt of one snapshot marked another")
	}
	err := s.MarkBuilt(t.Context(), "missing", at)
	if !errors.Is(err, state.ErrNotFound) {
		t.Errorf("MarkBuilt(missing) = %v, want ErrNotFound", err)
	}
}

func testUnknownEnvironment(t *testing.T, s state.Store) {
	ps, err := s.Environment(t.Context(), "nowhere")
	if err != nil || ps == nil || len(ps) != 0 {
		t.Errorf("Environment(unknown) = %v, %v; want an empty map, nil", ps, err)
	}
	envs, err := s.Environments(t.Context())
	if err != nil || len(envs) != 0 {
		t.Errorf("Environments() on an empty store = %v, %v", envs, err)
	}
	plans, err := s.Plans(t.Context(), "nowhere", 10)
	if err != nil || len(plans) != 0 {
		t.Errorf("Plans(unknown) = %v, %v", plans, err)
	}
}

func testPromoteReplaces(t *testing.T, s state.Store) {
	put(t, s, snapshot("a", 1), snapshot("a", 2), snapshot("b", 1), snapshot("c", 1))
	first := map[string]string{"a": fp("a", 1), "b": fp("b", 1)}
	promote(t, s, "dev", t0, first)
	if got := pointers(t, s, "dev"); !maps.Equal(got, first) {
		t.Fatalf("after first promotion: %v, want %v", got, first)
	}

	// The new set replaces the old one: b is gone, not kept.
	second := map[string]string{"a": fp("a", 2), "c": fp("c", 1)}
	at := t0.Add(time.Hour)
	promote(t, s, "dev", at, second)
	ps, err := s.Environment(t.Context(), "dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(second) {
		t.Errorf("after second promotion: %v, want %v", ps, second)
	}
	for model, f := range second {
		p := ps[model]
		if p.Fingerprint != f || !p.UpdatedAt.Equal(at) {
			t.Errorf("dev[%s] = %+v, want %s updated at %v", model, p, f, at)
		}
	}

	// Another environment is untouched.
	promote(t, s, "prod", t0, first)
	promote(t, s, "dev", at, map[string]string{"a": fp("a", 1)})
	if got := pointers(t, s, "prod"); !maps.Equal(got, first) {
		t.Errorf("prod after promoting dev: %v, want %v", got, first)
	}
}

func testPromoteUnknownSnapshot(t *testing.T, s state.Store) {
	put(t, s, snapshot("a", 1), snapshot("b", 1))
	before := map[string]string{"a": fp("a", 1)}
	promote(t, s, "dev", t0, before)
	err := s.Promote(t.Context(), state.Promotion{
		Env:      "dev",
		Pointers: map[string]string{"a": fp("a", 1), "b": fp("b", 1), "z": "no-such-fp"},
		At:       t0.Add(time.Hour),
	})
	if !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Promote with an unknown snapshot = %v, want ErrNotFound", err)
	} else if !strings.Contains(err.Error(), "z -> no-such-fp") {
		t.Errorf("Promote with an unknown snapshot = %v, want it to name z -> no-such-fp", err)
	}
	if got := pointers(t, s, "dev"); !maps.Equal(got, before) {
		t.Errorf("a failed promotion changed dev: %v, want %v", got, before)
	}
}

// testPromoteRecord: a promotion's plan record commits with its pointers,
// and a promotion that fails records nothing.
func testPromoteRecord(t *testing.T, s state.Store) {
	put(t, s, snapshot("a", 1))
	rec := state.PlanRecord{ID: "p-ok", Env: "dev", AppliedBy: "ci", CreatedAt: t0, Status: state.PlanApplied, Summary: []byte(`{"models":1}`)}
	if err := s.Promote(t.Context(), state.Promotion{Env: "dev", Pointers: map[string]string{"a": fp("a", 1)}, PlanID: "p-ok", At: t0, Record: &rec}); err != nil {
		t.Fatal(err)
	}
	bad := state.PlanRecord{ID: "p-bad", Env: "dev", CreatedAt: t0.Add(time.Minute), Status: state.PlanApplied}
	err := s.Promote(t.Context(), state.Promotion{Env: "dev", Pointers: map[string]string{"a": fp("a", 1), "z": "no-such-fp"}, PlanID: "p-bad", At: t0.Add(time.Minute), Record: &bad})
	if !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Promote with an unknown snapshot = %v, want ErrNotFound", err)
	}
	// A record whose id is taken fails the promotion: the pointers stay.
	dup := state.PlanRecord{ID: "p-ok", Env: "dev", CreatedAt: t0.Add(2 * time.Minute), Status: state.PlanApplied}
	if err := s.Promote(t.Context(), state.Promotion{Env: "dev", Pointers: map[string]string{}, At: t0.Add(2 * time.Minute), Record: &dup}); err == nil {
		t.Fatal("a promotion whose plan record id is taken succeeded")
	}
	if got := pointers(t, s, "dev"); !maps.Equal(got, map[string]string{"a": fp("a", 1)}) {
		t.Errorf("failed promotions changed dev: %v", got)
	}
	plans, err := s.Plans(t.Context(), "dev", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 || plans[0].ID != "p-ok" || plans[0].AppliedBy != "ci" || !plans[0].CreatedAt.Equal(t0) ||
		plans[0].Status != state.PlanApplied || string(plans[0].Summary) != `{"models":1}` {
		t.Errorf("plans after one promotion and two failed ones: %+v", plans)
	}
}

func testPromoteEmpty(t *testing.T, s state.Store) {
	put(t, s, snapshot("a", 1))
	promote(t, s, "dev", t0, map[string]string{"a": fp("a", 1)})
	promote(t, s, "dev", t0, map[string]string{})
	if got := pointers(t, s, "dev"); len(got) != 0 {
		t.Errorf("after promoting the empty set: %v", got)
	}
	envs, err := s.Environments(t.Context())
	if err != nil || len(envs) != 0 {
		t.Errorf("Environments() = %v, %v; want none", envs, err)
	}
}

func testEnvironments(t *testing.T, s state.Store) {
	put(t, s, snapshot("a", 1), snapshot("b", 1))
	two := map[string]string{"a": fp("a", 1), "b": fp("b", 1)}
	promote(t, s, "prod", t0, two)
	promote(t, s, "dev", t0, two)
	promote(t, s, "dev_alice", t0, map[string]string{"b": fp("b", 1)})
	envs, err := s.Environments(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(envs)
	if want := []string{"dev", "dev_alice", "prod"}; !slices.Equal(envs, want) {
		t.Errorf("Environments() = %v, want %v", envs, want)
	}
}

func testPlans(t *testing.T, s state.Store) {
	var dev []state.PlanRecord
	for i := range 5 {
		r := state.PlanRecord{
			ID:        fmt.Sprintf("plan-%d", i),
			Env:       "dev",
			AppliedBy: "alice@laptop",
			CreatedAt: t0.Add(time.Duration(i) * time.Minute),
			Status:    "applied",
			Summary:   []byte(fmt.Sprintf(`{"changes":%d}`, i)),
		}
		if i == 3 {
			r.Status, r.Error = "failed", "engine: relation \"x\" does not exist"
		}
		dev = append(dev, r)
	}
	// Recorded out of order: the journal orders by CreatedAt.
	for _, i := range []int{2, 0, 4, 1, 3} {
		if err := s.RecordPlan(t.Context(), dev[i]); err != nil {
			t.Fatalf("RecordPlan(%s): %v", dev[i].ID, err)
		}
	}
	if err := s.RecordPlan(t.Context(), state.PlanRecord{ID: "prod-1", Env: "prod", CreatedAt: t0.Add(time.Hour), Status: "applied"}); err != nil {
		t.Fatal(err)
	}

	check := func(limit int, want []state.PlanRecord) {
		t.Helper()
		got, err := s.Plans(t.Context(), "dev", limit)
		if err != nil {
			t.Fatalf("Plans(dev, %d): %v", limit, err)
		}
		if len(got) != len(want) {
			t.Fatalf("Plans(dev, %d) returned %d plans, want %d", limit, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.ID != w.ID || g.Env != w.Env || g.AppliedBy != w.AppliedBy || !g.CreatedAt.Equal(w.CreatedAt) ||
				g.Status != w.Status || !bytes.Equal(g.Summary, w.Summary) || g.Error != w.Error {
				t.Errorf("Plans(dev, %d)[%d]:\n got %+v\nwant %+v", limit, i, g, w)
			}
		}
	}
	newestFirst := slices.Clone(dev)
	slices.Reverse(newestFirst)
	check(3, newestFirst[:3])
	check(10, newestFirst)
	check(0, newestFirst)
}

func testRecordPlanTwice(t *testing.T, s state.Store) {
	r := state.PlanRecord{ID: "p1", Env: "dev", CreatedAt: t0, Status: "applied"}
	if err := s.RecordPlan(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	r.Status = "failed"
	if err := s.RecordPlan(t.Context(), r); err == nil {
		t.Errorf("recording plan p1 twice succeeded")
	}
	got, err := s.Plans(t.Context(), "dev", 0)
	if err != nil || len(got) != 1 || got[0].Status != "applied" {
		t.Errorf("after recording p1 twice: %+v, %v; want the first record only", got, err)
	}
}

// testConcurrentPromotions promotes several environments from as many
// goroutines while others read: every read sees one whole set, and each
// environment ends with its last promotion.
func testConcurrentPromotions(t *testing.T, s state.Store) {
	const envs, rounds, models = 6, 15, 8
	for m := range models {
		put(t, s, snapshot(fmt.Sprintf("m%d", m), 0), snapshot(fmt.Sprintf("m%d", m), 1))
	}
	// set(v) points every model at its version v: a reader seeing a mix
	// of versions saw half a promotion.
	set := func(v int) map[string]string {
		out := map[string]string{}
		for m := range models {
			out[fmt.Sprintf("m%d", m)] = fp(fmt.Sprintf("m%d", m), v)
		}
		return out
	}
	ctx := t.Context()
	var wg sync.WaitGroup
	for e := range envs {
		env := fmt.Sprintf("env%d", e)
		wg.Go(func() {
			for r := range rounds {
				err := s.Promote(ctx, state.Promotion{Env: env, Pointers: set(r % 2), At: t0.Add(time.Duration(r) * time.Second)})
				if err != nil {
					t.Errorf("Promote(%s) round %d: %v", env, r, err)
					return
				}
			}
		})
		wg.Go(func() {
			promoted := false
			for range 4 * rounds {
				ps, err := s.Environment(ctx, env)
				if err != nil {
					t.Errorf("Environment(%s): %v", env, err)
					return
				}
				if len(ps) == 0 {
					if promoted {
						t.Errorf("Environment(%s) was empty between two promotions", env)
						return
					}
					continue // not promoted yet
				}
				promoted = true
				got := map[string]string{}
				for m, p := range ps {
					got[m] = p.Fingerprint
				}
				if !maps.Equal(got, set(0)) && !maps.Equal(got, set(1)) {
					t.Errorf("Environment(%s) saw a partial promotion: %v", env, got)
					return
				}
			}
		})
	}
	wg.Wait()
	last := set((rounds - 1) % 2)
	for e := range envs {
		env := fmt.Sprintf("env%d", e)
		if got := pointers(t, s, env); !maps.Equal(got, last) {
			t.Errorf("%s after concurrent promotions: %v, want %v", env, got, last)
		}
	}
	names, err := s.Environments(ctx)
	if err != nil || len(names) != envs {
		t.Errorf("Environments() = %v, %v; want %d environments", names, err, envs)
	}
}

func testConcurrentPut(t *testing.T, s state.Store) {
	snap := snapshot("orders", 1)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := s.PutSnapshot(t.Context(), snap); err != nil {
				t.Errorf("concurrent PutSnapshot: %v", err)
			}
		})
	}
	wg.Wait()
	sameSnapshot(t, get(t, s, snap.Fingerprint)[snap.Fingerprint], snap)
}

func testUpdateDefinition(t *testing.T, s state.Store) {
	snap := snapshot("orders", 1)
	put(t, s, snap)
	def := []byte(`{"description":"new words"}`)
	if err := s.UpdateDefinition(t.Context(), snap.Fingerprint, def); err != nil {
		t.Fatalf("UpdateDefinition: %v", err)
	}
	got := get(t, s, snap.Fingerprint)[snap.Fingerprint]
	if string(got.Definition) != string(def) || got.OwnHash != snap.OwnHash || got.Name != snap.Name {
		t.Errorf("after UpdateDefinition: %+v", got)
	}
	if err := s.UpdateDefinition(t.Context(), "missing", def); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("UpdateDefinition(missing) = %v, want ErrNotFound", err)
	}
}
