package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
)

// TestEditCost edits one model of a project whose every chain ends in a
// broken model and counts, through the checker's and the analysis's own
// counters, what each keystroke's check walked: the edited model and its
// descendants in the analysis, and only the files whose diagnostics moved
// (or whose buffer changed) in the publication, never every model or
// every file with a diagnostic.
func TestEditCost(t *testing.T) {
	const chains = 12
	files := map[string]string{
		"efmesh.yaml":           "name: editcost\n",
		"models/raw/events.sql": "MODEL (name raw.events, kind EXTERNAL (table src.events), columns (id INTEGER, value DOUBLE));\n",
	}
	for i := range chains * 5 {
		chain, step := i/5, i%5
		parent := "raw.events"
		if step > 0 {
			parent = fmt.Sprintf("m.c%02d_%d", chain, step-1)
		}
		col := "value"
		if step == 4 {
			col = "valu"
		}
		files[fmt.Sprintf("models/m/c%02d_%d.sql", chain, step)] = fmt.Sprintf("MODEL (name m.c%02d_%d, kind FULL);\nSELECT p.id, p.%s + 1 AS value FROM @ref(%s) AS p\n", chain, step, col, parent)
	}
	root := testkit.WriteProject(t, files)
	c := newTestClient(t, root, clientOptions{})
	edited := "models/m/c05_2.sql"
	c.open(edited)
	c.waitIdle()
	broken := 0
	for rel := range files {
		if len(c.diagnostics(rel)) > 0 {
			broken++
		}
	}
	if broken != chains {
		t.Fatalf("%d files have diagnostics, want %d", broken, chains)
	}
	v := c.srv.allViews()[0]
	for k, st := range []struct{ from, to string }{
		{"p.value + 1", "p.valu + 1"},
		{"p.valu + 1", "p.value + 1"},
		{"p.value + 1", "p.value  + 1"}, // moves no finding
		{"p.value  + 1", "p.valu + 1"},
		{"p.valu + 1", "p.value + 1"},
	} {
		c.replace(edited, st.from, st.to)
		c.waitIdle()
		if got, want := len(c.diagnostics(edited)) > 0, st.to == "p.valu + 1"; got != want {
			t.Fatalf("edit %d: the edited file has diagnostics %v, want %v", k, got, want)
		}
		_, res := v.current()
		visited, _ := res.analysis.EditCost()
		if visited == 0 || visited > 3 {
			t.Errorf("edit %d: the analysis visited %d models, want the edited one and its 2 descendants", k, visited)
		}
		if n := v.ck.publishedFiles; n > 3 || n == 0 && k != 2 {
			t.Errorf("edit %d: the publication looked at %d files, want the edited one and those whose diagnostics moved", k, n)
		}
	}
	// What was not published again is still what the client holds.
	for rel := range files {
		if got, want := len(c.diagnostics(rel)) > 0, strings.HasSuffix(rel, "_4.sql"); got != want {
			t.Errorf("%s has diagnostics %v, want %v", rel, got, want)
		}
	}
}
