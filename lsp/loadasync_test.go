package lsp

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// TestRequestsDuringLoad: while the project's load is held (by the hook
// before it reads the files), the session answers requests on an open
// file from that file alone, publishes nothing, and takes the edits made
// meanwhile into the snapshot it installs once the load ends.
func TestRequestsDuringLoad(t *testing.T) {
	root, leaves := openFirstProject(t, 4)
	open := leaves[1]
	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	letGo := func() { once.Do(func() { close(release) }) }
	t.Cleanup(letGo)
	hook := func(string) {
		entered <- struct{}{}
		<-release
	}
	c := newTestClient(t, root, clientOptions{beforeLoad: hook})
	<-entered // initialize was answered; the load is held from here on

	c.open(open)
	var symbols []map[string]any
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": c.uri(open)}}, &symbols)
	if len(symbols) == 0 {
		t.Fatal("documentSymbol during the load answered nothing")
	}
	var hover json.RawMessage
	c.mustCall("textDocument/hover", c.docPos(open, "MODEL (name m.c01|_2"), &hover)
	if !strings.Contains(string(hover), "m.c01_2") {
		t.Fatalf("hover on the open model during the load answered %s", hover)
	}
	// The open file's typo is fixed while the load is held.
	c.replace(open, "p.valeu", "p.value")
	var tokens json.RawMessage
	c.mustCall("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": c.uri(open)}}, &tokens)
	if len(tokens) < 10 {
		t.Fatalf("semantic tokens during the load answered %s", tokens)
	}
	views := c.srv.allViews()
	if len(views) != 1 {
		t.Fatalf("%d views", len(views))
	}
	snap := views[0].snapshot()
	if !snap.partial || len(snap.files) != 1 {
		t.Fatalf("during the load the snapshot holds %d files (partial %v)", len(snap.files), snap.partial)
	}
	if got := string(snap.files[open].src); strings.Contains(got, "valeu") {
		t.Fatal("the edit made during the load is not in the open files' snapshot")
	}
	for _, rel := range leaves {
		if len(c.diagnostics(rel)) > 0 {
			t.Fatalf("%s: diagnostics published before the project loaded", rel)
		}
	}

	letGo()
	c.waitIdle()
	if snap := views[0].snapshot(); snap.partial || len(snap.files) != 13 {
		t.Fatalf("after the load the snapshot holds %d files (partial %v)", len(snap.files), snap.partial)
	}
	for _, rel := range leaves {
		got := len(c.diagnostics(rel))
		if rel == open && got > 0 {
			t.Errorf("%s: the edit made during the load was lost: %+v", rel, c.diagnostics(rel))
		}
		if rel != open && got == 0 {
			t.Errorf("%s: no diagnostics after the load", rel)
		}
	}
}
