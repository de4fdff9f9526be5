package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

func init() {
	// A method that always panics, to test recovery.
	requestTable["efmesh/test/panic"] = request{fn: func(*Server, context.Context, json.RawMessage) (any, error) {
		panic("boom")
	}}
}

// writeProject writes files (slash path → content) into a new folder.
var writeProject = testkit.WriteProject

var smallProject = map[string]string{
	"efmesh.yaml":  "name: small\n",
	"models/a.sql": "MODEL (name s.a, kind FULL);\nSELECT 1 AS x\n",
	"models/b.sql": "MODEL (name s.b, kind VIEW);\nSELECT x FROM @ref(s.a)\n",
}

func TestRobustRequests(t *testing.T) {
	c := newTestClient(t, writeProject(t, smallProject), clientOptions{})

	var code func(error) jsonrpc2.Code = func(err error) jsonrpc2.Code {
		var je *jsonrpc2.Error
		if errors.As(err, &je) {
			return je.Code
		}
		return 0
	}
	if err := c.call("efmesh/test/panic", map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a panicking handler: %v", err)
	}
	if err := c.call("textDocument/nope", map[string]any{}, nil); code(err) != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: %v", err)
	}
	if err := c.call("textDocument/hover", []int{1, 2}, nil); code(err) != jsonrpc2.InvalidParams {
		t.Errorf("bad params: %v", err)
	}
	if err := c.call("textDocument/hover", nil, nil); code(err) != jsonrpc2.InvalidParams {
		t.Errorf("no params: %v", err)
	}
	if err := c.call("initialize", map[string]any{}, nil); code(err) != jsonrpc2.InvalidRequest {
		t.Errorf("a second initialize: %v", err)
	}
	// Unknown and non-file documents answer null.
	for _, uri := range []string{"untitled:Untitled-1", "file:///nowhere/x.sql", "::", string(c.uri("README.md"))} {
		var h json.RawMessage
		c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 0}}, &h)
		if string(h) != "null" && len(h) != 0 {
			t.Errorf("hover on %s = %s", uri, h)
		}
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": "x"}}})
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
	// Positions far outside the document clamp.
	c.open("models/b.sql")
	var h json.RawMessage
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": c.uri("models/b.sql")}, "position": map[string]any{"line": 1e6, "character": 1e6}}, &h)
	c.waitIdle()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.logs {
		if strings.Contains(l, "internal error") && !strings.Contains(l, "boom") {
			t.Errorf("unexpected internal error: %s", l)
		}
	}
}

func TestLifecycle(t *testing.T) {
	root := writeProject(t, smallProject)

	t.Run("before initialize", func(t *testing.T) {
		a, b := net.Pipe()
		s := newServer(context.Background(), Options{})
		done := make(chan error, 1)
		go func() { done <- s.serve(context.Background(), b) }()
		conn := jsonrpc2.NewConn(jsonrpc2.NewStream(a))
		conn.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
		_, err := conn.Call(context.Background(), "textDocument/hover", map[string]any{}, nil)
		var je *jsonrpc2.Error
		if !errors.As(err, &je) || je.Code != jsonrpc2.ServerNotInitialized {
			t.Errorf("a request before initialize: %v", err)
		}
		_ = conn.Notify(context.Background(), "exit", nil)
		if err := <-done; !errors.Is(err, ErrNoShutdown) {
			t.Errorf("exit without shutdown: %v", err)
		}
		conn.Close()
	})

	t.Run("after shutdown", func(t *testing.T) {
		c := newTestClient(t, root, clientOptions{})
		c.waitIdle()
		c.mustCall("shutdown", nil, nil)
		err := c.call("textDocument/hover", map[string]any{}, nil)
		var je *jsonrpc2.Error
		if !errors.As(err, &je) || je.Code != jsonrpc2.InvalidRequest {
			t.Errorf("a request after shutdown: %v", err)
		}
		// The cleanup sends shutdown again (refused) and exit.
	})

	t.Run("the stream ends", func(t *testing.T) {
		a, b := net.Pipe()
		s := newServer(context.Background(), Options{})
		done := make(chan error, 1)
		go func() { done <- s.serve(context.Background(), b) }()
		a.Close()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNoShutdown) {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(waitTimeout):
			t.Fatal("the server did not notice the end of its input")
		}
	})
}

// rawConn feeds fixed bytes to a server and collects what it writes.
type rawConn struct {
	r *bytes.Reader
	w bytes.Buffer
}

func (c *rawConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *rawConn) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *rawConn) Close() error                { return nil }

// serveBytes runs a server over input until the input ends.
func serveBytes(t testing.TB, input []byte) string {
	t.Helper()
	conn := &rawConn{r: bytes.NewReader(input)}
	s := newServer(context.Background(), Options{})
	done := make(chan error, 1)
	go func() { done <- s.serve(context.Background(), conn) }()
	select {
	case <-done:
	case <-time.After(waitTimeout):
		t.Fatalf("the server did not finish with input %q", input)
	}
	return conn.w.String()
}

func frame(body string) string {
	return "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestGarbageInput(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	hover := `{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.sql"},"position":{"line":0,"character":0}}}`
	input := "garbage line\r\n\r\n" + // no Content-Length
		frame(`{not json`) + // not JSON
		frame(`{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}`) + // a bad id
		frame(`[1,2,3]`) +
		frame(init) + frame(hover) +
		"Content-Length: 99999999999\r\n\r\n{" // too large: read to the end, never allocated
	out := serveBytes(t, []byte(input))
	if !strings.Contains(out, `"id":1`) || !strings.Contains(out, `"capabilities"`) || !strings.Contains(out, `"id":2`) {
		t.Errorf("initialize after garbage was not answered:\n%s", out)
	}
}

// TestBodyEditKeepsAuditErrors: an edit of a model's body keeps what the
// project's checks (here, an unknown audit) said of the file.
func TestBodyEditKeepsAuditErrors(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "efmesh.yaml"), []byte("name: t\n"), 0o644)
	os.WriteFile(filepath.Join(root, "models/a.sql"), []byte("MODEL (name m.a, audits (nope));\nSELECT 1 AS x"), 0o644)
	s, err := loadSnapshot(1, root, "dev", os.ReadFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !project.HasErrors(s.proj.Diagnostics) {
		t.Fatalf("no error for an unknown audit: %v", s.proj.Diagnostics)
	}
	n := s.withFile(2, "models/a.sql", []byte("MODEL (name m.a, audits (nope));\nSELECT 2 AS x"), true, nil)
	if !project.HasErrors(n.proj.Diagnostics) {
		t.Errorf("the unknown-audit error is gone after a body edit: %v", n.proj.Diagnostics)
	}
}
