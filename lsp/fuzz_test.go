package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// FuzzJSONRPC feeds raw bytes to the server's stream: whatever arrives,
// the server must neither panic nor hang, and it must end when the input
// does. Seeds run as part of `go test`.
func FuzzJSONRPC(f *testing.F) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	f.Add([]byte(frame(init)))
	f.Add([]byte(frame(init) + frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`) +
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/efmesh-fuzz/x.sql","version":1,"text":"MODEL (name a.b);\nSELECT 1"}}}`) +
		frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///tmp/efmesh-fuzz/x.sql"},"position":{"line":1,"character":3}}}`) +
		frame(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`)))
	f.Add([]byte("Content-Length: 5\r\n\r\n{}{}{Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: -1\r\n\r\n"))
	f.Add([]byte("Content-Length: 18446744073709551616\r\n\r\n"))
	f.Add([]byte("Content-Length: 10\r\nContent-Type: x\r\n\r\n" + `{"id":null}`))
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":"s","method":"$/cancelRequest","params":{"id":"s"}}`)))
	f.Add([]byte(frame(init) + frame(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"efmesh.lineage","arguments":["x"]}}`)))
	f.Add([]byte(frame(init) + frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///x"},"contentChanges":[{"range":{"start":{"line":-1}},"text":1}]}}`)))
	f.Add([]byte("\x00\xff\r\n\r\n"))
	f.Fuzz(func(t *testing.T, input []byte) {
		if strings.Contains(string(input), `"rootUri"`) || strings.Contains(string(input), `"workspaceFolders"`) {
			t.Skip("would scan the machine's file system for projects")
		}
		serveBytes(t, input)
	})
}

// FuzzDocument opens arbitrary text as a model file of a small project
// and asks for everything at several positions: no request may fail or
// panic, and the checker must keep up.
func FuzzDocument(f *testing.F) {
	for _, seed := range []string{
		"",
		"MODEL (",
		"MODEL (name s.f, kind FULL);\nSELECT x FROM @ref(s.a)",
		"MODEL (name s.f, kind VIEW, columns (x INTEGER, y TEXT));\nSELECT a.x, 'é🙂' AS y FROM @ref(s.a) AS a WHERE a.",
		"MODEL (name s.f, kind INCREMENTAL_BY_TIME_RANGE (time_column t), audits (warn(not_null(",
		"WITH a AS (SELECT * FROM (SELECT 1) q), b AS (SELECT a.* EXCLUDE (x) FROM a) SELECT b. FROM b JOIN @ref(",
		"MODEL (name s.f);\nSELECT @ref(s.a).x, @start, @end, @this, $1 FROM @ref() JOIN @ref(s.f) ON",
		"MODEL (name s.f, kind EXTERNAL (files 'nope/*.csv'));",
		"MODEL (name \"s\".\"f\", kind SEED (path '../../etc/passwd'));",
		"MODEL (name s.f); SELECT (((((((((( ))))) FROM ,,, AS AS . .. '\"\x00\xff\r\n\r",
		"MODEL (name s.f, kind FULL); SELECT 1 UNION ALL SELECT 2 EXCEPT (SELECT 3) INTERSECT BY NAME SELECT 4;;; -- x\n/* y",
	} {
		f.Add(seed)
	}
	for _, p := range []string{"../examples/hospital/models/med/stays.sql", "../examples/hospital/models/mart/daily_census.sql"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	root := writeProject(f, smallProject)
	c := newTestClient(f, root, clientOptions{})
	const file = "models/f.sql"
	if err := os.WriteFile(root+"/"+file, []byte("MODEL (name s.f, kind FULL);\nSELECT 1 AS y\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	c.open(file)
	f.Fuzz(func(t *testing.T, text string) {
		c.t = t
		defer func() { c.t = f }()
		// A hang must crash the worker so the fuzzer keeps the input.
		watchdog := time.AfterFunc(waitTimeout, func() {
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("FuzzDocument hangs on %q:\n%s", text, buf[:runtime.Stack(buf, true)]))
		})
		defer watchdog.Stop()
		c.replaceAll(file, text)
		c.waitIdle()
		src := []byte(text)
		m := NewMapper(src)
		offsets := []int{0, len(src) / 3, len(src) / 2, len(src) - 1, len(src)}
		for _, off := range offsets {
			p := map[string]any{"textDocument": map[string]any{"uri": c.uri(file)}, "position": m.Position(off)}
			var out json.RawMessage
			for _, method := range []string{"textDocument/hover", "textDocument/completion", "textDocument/definition",
				"textDocument/references", "textDocument/prepareRename"} {
				if method == "textDocument/references" {
					p["context"] = map[string]any{"includeDeclaration": true}
				}
				if err := c.call(method, p, &out); err != nil {
					t.Fatalf("%s at %d: %v", method, off, err)
				}
			}
			for _, name := range []string{"s.renamed", "renamed"} { // a model's, a column's
				p["newName"] = name
				// It may refuse (not on a name, not safe), never fail inside.
				if err := c.call("textDocument/rename", p, &out); err != nil && strings.Contains(err.Error(), "internal error") {
					t.Fatalf("rename at %d: %v", off, err)
				}
			}
			r := m.Range(off, off)
			if err := c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": c.uri(file)},
				"range": r, "context": map[string]any{"diagnostics": []any{}}}, &out); err != nil {
				t.Fatalf("codeAction: %v", err)
			}
		}
		doc := map[string]any{"textDocument": map[string]any{"uri": c.uri(file)}}
		var out json.RawMessage
		for _, method := range []string{"textDocument/documentSymbol", "textDocument/codeLens"} {
			if err := c.call(method, doc, &out); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, l := range c.logs {
			if strings.Contains(l, "internal error") {
				t.Fatalf("the server recovered from a panic on %q:\n%s", text, l)
			}
		}
	})
}
