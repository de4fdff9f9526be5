package lsp

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// TestApplyTakesTheLockFirst: the editor's apply takes the environment's
// lock before it opens the warehouse, as `efmesh apply` does. While another
// apply holds the lock, it fails with the lock's message and has not
// opened the warehouse: the DuckDB file the first apply would create does
// not exist.
func TestApplyTakesTheLockFirst(t *testing.T) {
	root := writeProject(t, smallProject)
	p, err := project.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := connect.Store(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lk, err := planner.AcquireLock(ctx, st, planner.EnvLock("dev"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Release()

	c := newTestClient(t, root, clientOptions{})
	c.open("models/a.sql")
	c.waitIdle()
	err = c.call("workspace/executeCommand", map[string]any{"command": cmdApply, "arguments": []any{map[string]any{"env": "dev"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "lock env:dev is held by pid") {
		t.Fatalf("apply while the lock is held: %v, want the lock's message", err)
	}
	if _, err := os.Stat(connect.WarehousePath(p)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the warehouse was opened before the lock was taken: stat %s: %v", connect.WarehousePath(p), err)
	}

	// Once the lock is free, the same apply goes through.
	lk.Release()
	var res applyResult
	c.mustCall("workspace/executeCommand", map[string]any{"command": cmdApply, "arguments": []any{map[string]any{"env": "dev"}}}, &res)
	if !res.Applied || len(res.Built) != 2 {
		t.Fatalf("apply after the lock was released: %+v", res)
	}
}
