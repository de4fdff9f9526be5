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
