package workspace

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/project"
)

// TestPresenceFollowsOtherProcesses: the editor's listing of the warehouse
// is kept while the state file and the warehouse are as they were, and is
// read again at once after an apply made elsewhere (another process, not
// through this Presence), though its time to live has not run out.
func TestPresenceFollowsOtherProcesses(t *testing.T) {
	ctx := context.Background()
	dir := writeProject(t, noopShop)
	applyEnv(t, dir, "dev", noopNow)
	proj, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	db := connect.StorePath(proj)
	wh := connect.WarehousePath(proj)
	for _, f := range []string{db, db + "-wal", wh, wh + ".wal"} {
		if err := os.Chtimes(f, old, old); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	pr := NewPresence(time.Hour, nil)
	cat := pr.catalog(proj, nil, nil)
	list := func() int64 {
		t.Helper()
		if _, err := cat.Relations(ctx, []string{"raw", "mart"}, nil); err != nil {
			t.Fatal(err)
		}
		return pr.Generation()
	}
	first := list()
	if again := list(); again != first {
		t.Fatal("an unchanged warehouse was listed again")
	}
	applyEnv(t, dir, "prod", noopNow)
	if after := list(); after == first {
		t.Fatal("the listing outlived another process's apply")
	}
}
