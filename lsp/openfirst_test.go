package lsp

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
)

// openFirstProject is chains of three models over one external table; the
// last model of every chain reads a column its parent lacks, so each
// chain's leaf gets a diagnostic only a check of its whole chain finds.
func openFirstProject(t *testing.T, chains int) (root string, leaves []string) {
	files := map[string]string{
		"efmesh.yaml": "name: openfirst\n",
		"models/raw/events.sql": `MODEL (name raw.events, kind EXTERNAL (table src.events), columns (id INTEGER, value DOUBLE));
`,
	}
	for c := range chains {
		parent := "raw.events"
		for step := range 3 {
			name := fmt.Sprintf("m.c%02d_%d", c, step)
			col := "value"
			if step == 2 {
				col = "valeu"
			}
			rel := fmt.Sprintf("models/m/c%02d_%d.sql", c, step)
			files[rel] = fmt.Sprintf("MODEL (name %s, kind FULL);\n\nSELECT p.id, p.%s AS value\nFROM @ref(%s) AS p\n", name, col, parent)
			parent = name
			if step == 2 {
				leaves = append(leaves, rel)
			}
		}
	}
	return testkit.WriteProject(t, files), leaves
}

// TestOpenFileDiagnosticsFirst: the initial check publishes the open
// file's diagnostics before it checks the rest of the project, and hover,
// completion and definition are answered while that whole-project check
// is held (by the hook between the two).
func TestOpenFileDiagnosticsFirst(t *testing.T) {
	root, leaves := openFirstProject(t, 8)
	open := leaves[3]
	type entry struct{ open int }
	entered := make(chan entry)
	release := make(chan struct{})
	var once sync.Once
	done := make(chan struct{}) // closed: the hook no longer holds checks
	hook := func(docs map[string]openDoc) {
		select {
		case <-done:
			return
		case entered <- entry{open: len(docs)}:
		}
		select {
		case <-done:
		case <-release:
		}
	}
	c := newTestClient(t, root, clientOptions{beforeWholeCheck: hook})
	letGo := func() { once.Do(func() { close(done) }) }
	t.Cleanup(letGo)

	// The first check started with nothing open: the file opens while it
	// is held, which supersedes it (it publishes nothing).
	if e := <-entered; e.open != 0 {
		t.Fatalf("first check saw %d open files", e.open)
	}
	c.open(open)
	c.waitFor("the snapshot with the open file", func() bool {
		views := c.srv.allViews()
		return len(views) == 1 && len(views[0].snapshot().open) == 1
	})
	release <- struct{}{}

	// The check of the snapshot with the open file: its diagnostics are
	// published, the other leaves' are not, until the hook lets go.
	if e := <-entered; e.open != 1 {
		t.Fatalf("second check saw %d open files", e.open)
	}
	c.waitFor("the open file's diagnostics", func() bool { return len(c.diagnostics(open)) > 0 })
	if ds := c.diagnostics(open); ds[0].Source != "efmesh" {
		t.Fatalf("open file's diagnostics: %+v", ds)
	}
	for _, rel := range leaves {
		if rel != open && len(c.diagnostics(rel)) > 0 {
			t.Fatalf("%s published before the whole-project check ran", rel)
		}
	}
	for _, req := range []struct{ method, marker string }{
		{"textDocument/hover", "@ref(m.c03|_1)"},
		{"textDocument/definition", "@ref(m.c03|_1)"},
		{"textDocument/completion", "@ref(|m.c03_1)"},
	} {
		var out json.RawMessage
		c.mustCall(req.method, c.docPos(open, req.marker), &out)
		if len(out) < 10 {
			t.Errorf("%s while the check is held answered %s", req.method, out)
		}
	}

	// Let the whole-project check run: every leaf gets its diagnostic.
	letGo()
	c.waitIdle()
	for _, rel := range leaves {
		if len(c.diagnostics(rel)) == 0 {
			t.Errorf("%s: no diagnostics after the whole check", rel)
		}
	}
}
