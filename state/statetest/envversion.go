package statetest

import (
	"testing"
	"time"

	"github.com/efmesh/efmesh/state"
)

// testEnvironmentVersion: the token of an environment holds while nothing
// a plan of it reads is written, and moves with each write that is: a new
// snapshot, a built mark, a promotion of the environment, an interval
// write, a deletion. A store without the capability skips nothing: every
// store of efmesh has it.
func testEnvironmentVersion(t *testing.T, s state.Store) {
	v, ok := s.(state.EnvVersioned)
	if !ok {
		t.Fatalf("%T does not implement state.EnvVersioned", s)
	}
	token := func() string {
		t.Helper()
		tok, err := v.EnvironmentVersion(t.Context(), "dev")
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	last := token()
	if again := token(); again != last {
		t.Fatalf("the token moved with no write: %s, then %s", last, again)
	}
	for _, step := range []struct {
		name  string
		write func()
	}{
		{"a new snapshot", func() { put(t, s, snapshot("a", 1), snapshot("b", 1)) }},
		{"a promotion of dev", func() { promote(t, s, "dev", t0, map[string]string{"a": fp("a", 1)}) }},
		{"another promotion of dev", func() {
			promote(t, s, "dev", t0.Add(time.Second), map[string]string{"a": fp("a", 1), "b": fp("b", 1)})
		}},
		{"an interval", func() { mark(t, s, fp("a", 1), state.IntervalDone, day(1)) }},
		{"an interval rewritten", func() { mark(t, s, fp("a", 1), state.IntervalDone, day(1), day(2)) }},
	} {
		step.write()
		now := token()
		if now == last {
			t.Fatalf("after %s the token did not move: %s", step.name, now)
		}
		if again := token(); again != now {
			t.Fatalf("after %s the token moved with no write: %s, then %s", step.name, now, again)
		}
		last = now
	}
}
