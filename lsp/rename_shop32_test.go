package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
	"go.lsp.dev/protocol"
)

// TestRenameColumnShop32 renames columns of the shared 32-model project
// (five generations, seeds, incrementals, unit tests) from the editor,
// applies the edits and checks that the project still checks clean and
// that its unit tests still pass.
func TestRenameColumnShop32(t *testing.T) {
	root := testkit.Shop32(t)
	c := newTestClient(t, root, clientOptions{})
	c.open("models/staging/s_0.sql")
	c.open("models/core/c_0.sql")
	c.waitIdle()

	rename := func(rel, marker, newName string) map[string][]protocol.TextEdit {
		t.Helper()
		p := c.docPos(rel, marker)
		p["newName"] = newName
		var edit protocol.WorkspaceEdit
		c.mustCall("textDocument/rename", p, &edit)
		got := map[string][]protocol.TextEdit{}
		for u, edits := range edit.Changes {
			path, err := pathOf(u)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := relPath(root, path)
			got[rel] = edits
			c.mu.Lock()
			_, open := c.texts[rel]
			c.mu.Unlock()
			if !open {
				c.open(rel)
			}
			c.edit(rel, edits)
		}
		c.waitIdle()
		return got
	}
	noErrors := func() {
		t.Helper()
		c.mu.Lock()
		defer c.mu.Unlock()
		for rel, d := range c.diags {
			for _, x := range d.Diagnostics {
				if x.Severity == protocol.DiagnosticSeverityError {
					t.Errorf("%s:%d: %s", rel, x.Range.Start.Line+1, x.Message)
				}
			}
		}
	}

	// The time column of a view, passed on by a bare reference into an
	// incremental model whose kind names it as its time column.
	got := rename("models/staging/s_0.sql", "SELECT id, amount, t|s", "event_ts")
	if n := len(got["models/core/c_0.sql"]); n != 4 { // the kind's time_column, a.ts, two in WHERE
		t.Errorf("core.c_0: %d edits, want 4: %v", n, got["models/core/c_0.sql"])
	}
	if !strings.Contains(string(c.text("models/core/c_0.sql")), "time_column event_ts") {
		t.Errorf("core.c_0's time column not renamed:\n%s", c.text("models/core/c_0.sql"))
	}
	if !strings.Contains(string(c.text("models/staging/s_0.sql")), "ts AS event_ts") {
		t.Errorf("stg.s_0's column not aliased:\n%s", c.text("models/staging/s_0.sql"))
	}
	noErrors()

	// An output column read by two marts and fixture rows of a unit test.
	got = rename("models/core/c_0.sql", "AS amo|unt", "total")
	for _, rel := range []string{"models/mart/m_0.sql", "tests/m_0.yaml"} {
		if len(got[rel]) != 1 {
			t.Errorf("%s: %d edits, want 1", rel, len(got[rel]))
		}
	}
	noErrors()
	var res struct {
		Passed, Failed int
	}
	var raw json.RawMessage
	c.mustCall("workspace/executeCommand", map[string]any{"command": "efmesh.test", "arguments": []any{map[string]any{"model": "mart.m_0"}}}, &raw)
	if err := json.Unmarshal(raw, &res); err != nil || res.Passed != 1 || res.Failed != 0 {
		t.Errorf("unit test of mart.m_0 after the rename: %s (%v)", raw, err)
	}

	// A seed's columns are its file's: refused with the reason.
	c.open("models/raw/src_0.sql")
	p := c.docPos("models/raw/src_0.sql", "columns (i|d")
	p["newName"] = "key"
	err := c.call("textDocument/rename", p, nil)
	if err == nil || !strings.Contains(err.Error(), "SEED") {
		t.Errorf("renaming a seed's column: %v, want a refusal naming SEED", err)
	}
}

// TestRenameAliasShop32 renames, on the shared 32-model project with one
// more report, select aliases that their own query uses (QUALIFY, ORDER
// BY) to names typed in another case and script, and a parent's column
// read through @ref: every use follows and the project checks clean.
func TestRenameAliasShop32(t *testing.T) {
	root := testkit.Shop32(t)
	top := "models/mart/reports/top.sql"
	src := "MODEL (name report.top, kind VIEW, tags (report));\n" +
		"SELECT d.id, row_number() OVER (ORDER BY d.delta DESC) AS rn, d.delta AS gap\n" +
		"FROM @ref(report.r_0) AS d\nQUALIFY rn <= 3\nORDER BY gap\n"
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(top)), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, root, clientOptions{})
	c.open(top)
	c.open("models/mart/reports/r_0.sql")
	c.waitIdle()
	rename := func(rel, marker, newName string) {
		t.Helper()
		p := c.docPos(rel, marker)
		p["newName"] = newName
		var edit protocol.WorkspaceEdit
		c.mustCall("textDocument/rename", p, &edit)
		for u, edits := range edit.Changes {
			path, err := pathOf(u)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := relPath(root, path)
			c.mu.Lock()
			_, open := c.texts[rel]
			c.mu.Unlock()
			if !open {
				c.open(rel)
			}
			c.edit(rel, edits)
		}
		c.waitIdle()
		c.mu.Lock()
		defer c.mu.Unlock()
		for rel, d := range c.diags {
			for _, x := range d.Diagnostics {
				if x.Severity == protocol.DiagnosticSeverityError {
					t.Errorf("after renaming to %s: %s:%d: %s", newName, rel, x.Range.Start.Line+1, x.Message)
				}
			}
		}
	}
	rename(top, "AS r|n", "Rang")
	rename(top, "AS g|ap", "Lücke")
	rename("models/mart/reports/r_0.sql", "AS del|ta", `"Delta €"`)
	want := "MODEL (name report.top, kind VIEW, tags (report));\n" +
		`SELECT d.id, row_number() OVER (ORDER BY d."Delta €" DESC) AS "Rang", d."Delta €" AS "Lücke"` + "\n" +
		"FROM @ref(report.r_0) AS d\nQUALIFY \"Rang\" <= 3\nORDER BY \"Lücke\"\n"
	if got := string(c.text(top)); got != want {
		t.Errorf("report.top after the renames:\n%s\nwant:\n%s", got, want)
	}
}
