package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/internal/testkit"
)

// TestPostgresFunctions: in a Postgres project with a server configured,
// function completion and signature help come from the server's pg_proc
// and pg_description.
func TestPostgresFunctions(t *testing.T) {
	server := testkit.PostgresURL(t)
	root := t.TempDir()
	for rel, src := range map[string]string{
		"efmesh.yaml":     fmt.Sprintf("name: pg\nengine: {type: postgres, url: %q}\n", server),
		"models/raw.sql":  "MODEL (name raw.t, kind EXTERNAL (table src.t), columns (id INT, at TIMESTAMP));\n",
		"models/mart.sql": "MODEL (name mart.m, kind FULL);\nSELECT date_trunc('day', at) AS day FROM @ref(raw.t)\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newTestClient(t, root, clientOptions{})
	defer c.shutdown()
	c.open("models/mart.sql")
	c.waitIdle()

	var list *protocol.CompletionList
	c.mustCall("textDocument/completion", c.docPos("models/mart.sql", "SELECT date_tr|unc"), &list)
	var detail string
	for _, it := range list.Items {
		if it.Label == "date_trunc" {
			detail = it.Detail
		}
	}
	if !strings.Contains(detail, "date_trunc(text, ") {
		t.Errorf("completion of date_tr: date_trunc's detail is %q; items: %v", detail, list.Items)
	}

	var h *protocol.SignatureHelp
	c.mustCall("textDocument/signatureHelp", c.docPos("models/mart.sql", "'day', |at"), &h)
	if h == nil || len(h.Signatures) == 0 {
		t.Fatal("no signature help in date_trunc(")
	}
	if h.ActiveParameter != 1 || !strings.Contains(h.Signatures[h.ActiveSignature].Label, "timestamp") {
		t.Errorf("active parameter %d of %q, want 1", h.ActiveParameter, h.Signatures[h.ActiveSignature].Label)
	}
	if doc, _ := h.Signatures[0].Documentation.(string); doc == "" {
		t.Errorf("no description from pg_description: %+v", h.Signatures[0])
	}

	// COALESCE, which pg_proc lacks, with its signature; the column of
	// the prefix first.
	c.replace("models/mart.sql", "date_trunc('day', at) AS day", "coalesce(at, at) AS day, a")
	c.waitIdle()
	c.mustCall("textDocument/completion", c.docPos("models/mart.sql", "SELECT coal|esce"), &list)
	if len(list.Items) == 0 || list.Items[0].Label != "coalesce" || list.Items[0].Detail != "coalesce(value anyelement, anyelement...) -> anyelement" {
		t.Errorf("completion of coal: %+v", list.Items)
	}
	c.mustCall("textDocument/completion", c.docPos("models/mart.sql", "AS day, a|"), &list)
	if len(list.Items) == 0 || list.Items[0].Label != "at" || !strings.Contains(list.Items[0].Detail, "raw.t") {
		t.Errorf("completion of a: %+v", list.Items)
	}
}
