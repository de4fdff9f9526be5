package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
	"go.lsp.dev/protocol"
)

// TestShop32EditorActions: on the shared 32-model project, an incremental
// model offers render, plan and apply as source actions, and its plan runs
// from one; @start's hover has the model's interval and backfill; the
// engine's functions complete and their signatures follow the cursor.
func TestShop32EditorActions(t *testing.T) {
	root := testkit.Shop32(t)
	t.Setenv("EFMESH_NOW", "2026-03-01T00:00:00Z")
	c := newTestClient(t, root, clientOptions{})
	defer c.shutdown()
	const rel = "models/core/c_0.sql"
	c.open(rel)
	c.waitIdle()

	var actions []protocol.CodeAction
	c.mustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": c.uri(rel)},
		"range":        protocol.Range{},
		"context":      map[string]any{"diagnostics": []any{}, "only": []string{"source"}},
	}, &actions)
	var kinds []string
	var plan *protocol.Command
	for _, a := range actions {
		kinds = append(kinds, string(a.Kind))
		if a.Kind == kindPlan {
			plan = a.Command
		}
	}
	if got := strings.Join(kinds, " "); got != "source.efmesh.render source.efmesh.plan source.efmesh.apply" {
		t.Fatalf("source actions: %s", got)
	}
	var res struct {
		Models []struct {
			Name   string `json:"name"`
			Change string `json:"change"`
		} `json:"models"`
	}
	var raw json.RawMessage
	c.mustCall("workspace/executeCommand", map[string]any{"command": plan.Command, "arguments": plan.Arguments}, &raw)
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Models) < 30 {
		t.Fatalf("the plan action planned %d models (%v): %s", len(res.Models), err, raw)
	}

	var h *protocol.Hover
	c.mustCall("textDocument/hover", c.docPos(rel, "@st|art"), &h)
	if h == nil || !strings.Contains(h.Contents.Value, "INCREMENTAL_BY_TIME_RANGE") || !strings.Contains(h.Contents.Value, "to backfill") {
		t.Fatalf("hover on @start: %+v", h)
	}

	c.replace(rel, "a.amount + b.amount AS amount", "round(a.amount + b.amount, 0) AS amount, abs")
	var list *protocol.CompletionList
	c.mustCall("textDocument/completion", c.docPos(rel, "AS amount, abs|"), &list)
	found := false
	for _, it := range list.Items {
		found = found || it.Label == "abs" && strings.HasPrefix(it.Detail, "abs(")
	}
	if !found {
		t.Errorf("completion of abs: %+v", list.Items)
	}
	var sig *protocol.SignatureHelp
	c.mustCall("textDocument/signatureHelp", c.docPos(rel, "b.amount, |0)"), &sig)
	if sig == nil || sig.ActiveParameter != 1 || !strings.HasPrefix(sig.Signatures[sig.ActiveSignature].Label, "round(") {
		t.Errorf("signature help in round(…, |0): %+v", sig)
	}
}
