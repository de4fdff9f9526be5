package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestHospitalAsAClient edits examples/hospital as an editor would: a typo
// in a column is an error at exactly that column, fixing it clears it, a
// declared type that the query does not produce breaks the contract, and
// the quick fix rewrites `columns (...)` back to what the query yields.
func TestHospitalAsAClient(t *testing.T) {
	root := t.TempDir()
	copyDir(t, "../examples/hospital", root)
	c := newTestClient(t, root, clientOptions{})
	const file = "models/med/stays.sql"
	c.open(file)
	c.waitIdle()
	if ds := c.diagnostics(file); len(ds) != 0 {
		t.Fatalf("diagnostics on the untouched example: %+v", ds)
	}

	// A typo in a column.
	c.replace(file, "  case_id,\n  dept,", "  cse_id,\n  dept,")
	c.waitFor("the unknown column diagnostic", func() bool { return len(c.diagnostics(file)) > 0 })
	ds := c.diagnostics(file)
	want := c.position(file, "  |cse_id,")
	if len(ds) != 1 || ds[0].Code != "unknown-column" || ds[0].Range.Start != want ||
		ds[0].Range.End != (protocol.Position{Line: want.Line, Character: want.Character + uint32(len("cse_id"))}) {
		t.Fatalf("want one unknown-column at %v, got %+v", want, ds)
	}
	if !strings.Contains(ds[0].Message, `"case_id"`) {
		t.Errorf("the message should suggest case_id: %q", ds[0].Message)
	}

	// Fixed: cleared.
	c.replace(file, "  cse_id,", "  case_id,")
	c.waitFor("the diagnostics to clear", func() bool { return len(c.diagnostics(file)) == 0 })

	// A declared type the query does not produce.
	c.replace(file, "hours DOUBLE", "hours TEXT")
	c.waitFor("the contract diagnostic", func() bool { return len(c.diagnostics(file)) > 0 })
	ds = c.diagnostics(file)
	if len(ds) != 1 || ds[0].Code != "contract-mismatch" {
		t.Fatalf("want one contract-mismatch, got %+v", ds)
	}

	var actions []protocol.CodeAction
	c.mustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": c.uri(file)},
		"range":        ds[0].Range,
		"context":      map[string]any{"diagnostics": ds},
	}, &actions)
	var fix *protocol.CodeAction
	for i := range actions {
		if strings.HasPrefix(actions[i].Title, "Rewrite columns") {
			fix = &actions[i]
		}
	}
	if fix == nil || fix.Edit == nil {
		b, _ := json.Marshal(actions)
		t.Fatalf("no contract quick fix among %s", b)
	}
	c.edit(file, fix.Edit.Changes[c.uri(file)])
	c.waitFor("the contract diagnostic to clear", func() bool { return len(c.diagnostics(file)) == 0 })
	if !strings.Contains(string(c.text(file)), "columns (stay_id TEXT, case_id TEXT, dept TEXT, started_at TIMESTAMP, ended_at TIMESTAMP, hours DOUBLE)") {
		t.Errorf("columns after the fix:\n%s", c.text(file))
	}

	// Through `*`: hours of longest_stays is med.stays' hours, computed
	// from raw.moves.moved_at.
	const view = "models/mart/longest_stays.sql"
	c.open(view)
	c.waitIdle()
	var h protocol.Hover
	c.mustCall("textDocument/hover", c.docPos(view, "ORDER BY ho|urs"), &h)
	for _, want := range []string{"**hours** `DOUBLE`", "column of med.stays", "raw.moves.moved_at"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover on hours lacks %q:\n%s", want, h.Contents.Value)
		}
	}
	var g lineageGraph
	c.mustCall("workspace/executeCommand", map[string]any{"command": "efmesh.lineage",
		"arguments": []any{map[string]any{"model": "mart.longest_stays", "column": "hours"}}}, &g)
	var ids []string
	for _, n := range g.Nodes {
		ids = append(ids, n.ID)
	}
	if got := strings.Join(ids, " "); !strings.Contains(got, "med.stays.hours") || !strings.Contains(got, "raw.moves.moved_at") {
		t.Errorf("lineage of mart.longest_stays.hours: %s", got)
	}
}
