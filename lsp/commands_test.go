package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
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

// TestPreviewCommand: the server offers efmesh.preview; before anything is
// applied it answers that there is no warehouse, and creates neither the
// warehouse nor the state store; an unknown model is an error and the
// server keeps serving: once applied, the same command returns the rows.
func TestPreviewCommand(t *testing.T) {
	root := writeProject(t, smallProject)
	p, err := project.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, root, clientOptions{})
	var init struct {
		Capabilities struct {
			ExecuteCommandProvider struct {
				Commands []string `json:"commands"`
			} `json:"executeCommandProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(c.initResult, &init); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(init.Capabilities.ExecuteCommandProvider.Commands, cmdPreview) {
		t.Fatalf("executeCommandProvider.commands = %v, want %s among them", init.Capabilities.ExecuteCommandProvider.Commands, cmdPreview)
	}

	c.open("models/a.sql")
	c.waitIdle()
	preview := func(args map[string]any) (*previewResult, error) {
		var res previewResult
		err := c.call("workspace/executeCommand", map[string]any{"command": cmdPreview, "arguments": []any{args}}, &res)
		return &res, err
	}
	if _, err := preview(map[string]any{"model": "s.a"}); err == nil || !strings.Contains(err.Error(), workspace.ErrNoWarehouse.Error()) {
		t.Fatalf("preview before any apply: %v, want %q", err, workspace.ErrNoWarehouse)
	}
	for _, path := range []string{connect.WarehousePath(p), connect.StorePath(p)} {
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a preview created %s: stat: %v", path, err)
		}
	}
	if _, err := preview(map[string]any{"model": "s.nope"}); err == nil || !strings.Contains(err.Error(), `unknown model "s.nope"`) {
		t.Fatalf("preview of an unknown model: %v", err)
	}

	c.mustCall("workspace/executeCommand", map[string]any{"command": cmdApply, "arguments": []any{map[string]any{"env": "dev"}}}, nil)
	res, err := preview(map[string]any{"model": "s.b"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Preview || res.Env != "dev" || len(res.Columns) != 1 || res.Columns[0].Name != "x" || len(res.Rows) != 1 || res.Truncated {
		t.Fatalf("preview of applied s.b: %+v", res)
	}
}
