package lsp

import (
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
	"go.lsp.dev/protocol"
)

// TestShop32Editor: on the shared 32-model project, the side bar's
// commands list every model by schema with its status and the active
// environment, and every model file's semantic tokens name the model and
// each model it refs.
func TestShop32Editor(t *testing.T) {
	root := testkit.Shop32(t)
	c := newTestClient(t, root, clientOptions{})
	c.waitIdle()

	var models modelsResult
	c.mustCall("workspace/executeCommand", map[string]any{"command": cmdModels, "arguments": []any{map[string]any{"root": root}}}, &models)
	if len(models.Models) != 32 || models.Problem != "" {
		t.Fatalf("efmesh.models: %d models, problem %q; want 32", len(models.Models), models.Problem)
	}
	schemas := map[string]int{}
	last := ""
	for _, m := range models.Models {
		key := m.Schema + "\x00" + m.Table
		if key < last {
			t.Errorf("efmesh.models is not sorted by schema and table at %s", m.Name)
		}
		last = key
		schemas[m.Schema]++
		if m.Change != "added" || !m.Build {
			t.Errorf("%s: change %q build %v, want added and built against a fresh state", m.Name, m.Change, m.Build)
		}
		if !strings.HasSuffix(m.URI, ".sql") || m.Name != m.Schema+"."+m.Table {
			t.Errorf("%s: uri %s, schema %s, table %s", m.Name, m.URI, m.Schema, m.Table)
		}
	}
	want := map[string]int{"raw": 6, "stg": 8, "core": 8, "mart": 6, "report": 4}
	for s, n := range want {
		if schemas[s] != n {
			t.Errorf("schema %s: %d models, want %d (all: %v)", s, schemas[s], n, schemas)
		}
	}

	var envs []treeEnvironment
	c.mustCall("workspace/executeCommand", map[string]any{"command": cmdEnvironments, "arguments": []any{map[string]any{"root": root}}}, &envs)
	if len(envs) != 1 || envs[0].Name != "dev" || !envs[0].Current {
		t.Errorf("efmesh.environments = %+v, want the active dev only", envs)
	}

	for _, m := range models.Models {
		path, _ := pathOf(protocol.DocumentURI(m.URI))
		rel, _ := relPath(root, path)
		var toks protocol.SemanticTokens
		c.mustCall("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": m.URI}}, &toks)
		src := c.text(rel)
		got := decodeTokens(src, toks.Data)
		if got[m.Name+"/class+1"] != 1 {
			t.Errorf("%s: no declaration token for the model name: %v", rel, got)
		}
		for _, ref := range refsIn(string(src)) {
			if got[ref+"/class+0"] == 0 || got["@ref/macro+0"] == 0 {
				t.Errorf("%s: @ref(%s) has no macro and model tokens: %v", rel, ref, got)
			}
		}
	}
}

// decodeTokens counts the tokens by "text/type+modifiers".
func decodeTokens(src []byte, data []uint32) map[string]int {
	mp := NewMapper(src)
	out := map[string]int{}
	var line, char uint32
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			char = 0
		}
		line += data[i]
		char += data[i+1]
		start := mp.Offset(protocol.Position{Line: line, Character: char})
		end := mp.Offset(protocol.Position{Line: line, Character: char + data[i+2]})
		out[string(src[start:end])+"/"+string(semanticTypes[data[i+3]])+"+"+string(rune('0'+data[i+4]))]++
	}
	return out
}

func refsIn(src string) []string {
	var out []string
	for _, part := range strings.Split(src, "@ref(")[1:] {
		if i := strings.IndexByte(part, ')'); i > 0 {
			out = append(out, part[:i])
		}
	}
	return out
}
