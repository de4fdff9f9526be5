package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/efmesh/efmesh/internal/testkit"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// waitTimeout is how long tests wait for asynchronous results. It is a
// generous bound, never a measurement: tests poll until the condition
// holds.
const waitTimeout = 20 * time.Second

// benchWaitTimeout bounds a benchmark's waits, which include opening the
// largest generated projects.
const benchWaitTimeout = 5 * time.Minute

// testClient drives a real Server over an in-memory pipe, as an editor
// would. Its reading goroutine only records what the server sends (and
// answers the server's requests from another goroutine), so the
// synchronous pipe cannot deadlock.
type testClient struct {
	t    testing.TB
	root string
	// initResult is the server's answer to initialize.
	initResult json.RawMessage
	srv        *Server
	conn       jsonrpc2.Conn
	done       chan error

	shutdownOnce sync.Once

	mu       sync.Mutex
	diags    map[string]protocol.PublishDiagnosticsParams // by relative path
	pubs     map[string]int                               // publications by relative path and version, "rel@v"
	messages []string
	logs     []string
	progress []string
	texts    map[string][]byte // open buffers by relative path
	versions map[string]int32
}

type clientOptions struct {
	initOptions map[string]any
	progress    bool // the client supports window/workDoneProgress
	// noWatch: the client cannot register file watchers (Neovim 0.7).
	noWatch bool
	// beforeWholeCheck is the server's hook between the open files' check
	// and the whole project's.
	beforeWholeCheck func(open map[string]openDoc)
	// beforeLint is the server's hook between a whole-project check's
	// first publication and its linting.
	beforeLint func()
	// beforeLoad is the server's hook before a view loads its project.
	beforeLoad func(root string)
	// logger receives the server's log (and the use cases'); nil:
	// discarded.
	logger *slog.Logger
	// workspaceEdit is the client's workspace.workspaceEdit capability
	// (documentChanges, resourceOperations), when it has one.
	workspaceEdit map[string]any
}

func newTestClient(t testing.TB, root string, opts clientOptions) *testClient {
	t.Helper()
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	c := &testClient{
		t: t, root: root, done: make(chan error, 1),
		diags: map[string]protocol.PublishDiagnosticsParams{}, pubs: map[string]int{}, texts: map[string][]byte{}, versions: map[string]int32{},
	}
	ctx := context.Background()
	c.srv = newServer(ctx, Options{Logger: opts.logger})
	c.srv.beforeWholeCheck = opts.beforeWholeCheck
	c.srv.beforeLint = opts.beforeLint
	c.srv.beforeLoad = opts.beforeLoad
	go func() { c.done <- c.srv.serve(ctx, b) }()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(a))
	c.conn.Go(ctx, c.handle)

	caps := map[string]any{
		"workspace":    map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
		"textDocument": map[string]any{"publishDiagnostics": map[string]any{"relatedInformation": true}},
	}
	if opts.noWatch {
		caps["workspace"] = map[string]any{}
	}
	if opts.progress {
		caps["window"] = map[string]any{"workDoneProgress": true}
	}
	if opts.workspaceEdit != nil {
		caps["workspace"].(map[string]any)["workspaceEdit"] = opts.workspaceEdit
	}
	init := map[string]any{
		"processId":        nil,
		"rootUri":          string(uriOf(root)),
		"workspaceFolders": []any{map[string]any{"uri": string(uriOf(root)), "name": filepath.Base(root)}},
		"capabilities":     caps,
	}
	if opts.initOptions != nil {
		init["initializationOptions"] = opts.initOptions
	}
	c.call("initialize", init, &c.initResult)
	c.notify("initialized", map[string]any{})
	t.Cleanup(c.shutdown)
	return c
}

func (c *testClient) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			path, _ := pathOf(p.URI)
			rel, _ := relPath(c.root, path)
			c.mu.Lock()
			c.diags[rel] = p
			c.pubs[fmt.Sprintf("%s@%d", rel, p.Version)]++
			c.mu.Unlock()
		}
	case protocol.MethodWindowShowMessage:
		var p protocol.ShowMessageParams
		_ = json.Unmarshal(req.Params(), &p)
		c.mu.Lock()
		c.messages = append(c.messages, p.Message)
		c.mu.Unlock()
	case protocol.MethodWindowLogMessage:
		var p protocol.LogMessageParams
		_ = json.Unmarshal(req.Params(), &p)
		c.mu.Lock()
		c.logs = append(c.logs, p.Message)
		c.mu.Unlock()
	case protocol.MethodProgress:
		var p struct {
			Value struct {
				Kind    string `json:"kind"`
				Title   string `json:"title"`
				Message string `json:"message"`
			} `json:"value"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		c.mu.Lock()
		c.progress = append(c.progress, strings.TrimSpace(p.Value.Kind+" "+p.Value.Title+" "+p.Value.Message))
		c.mu.Unlock()
	}
	if _, ok := req.(*jsonrpc2.Call); ok {
		go reply(ctx, nil, nil) // never write from the reading goroutine
	}
	return nil
}

func (c *testClient) call(method string, params, result any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *testClient) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *testClient) shutdown() { c.shutdownOnce.Do(c.shutdownNow) }

func (c *testClient) shutdownNow() {
	var je *jsonrpc2.Error
	if err := c.call("shutdown", nil, nil); err != nil && !(errors.As(err, &je) && je.Code == jsonrpc2.InvalidRequest) {
		c.t.Errorf("shutdown: %v", err)
	}
	_ = c.conn.Notify(context.Background(), "exit", nil)
	select {
	case err := <-c.done:
		if err != nil {
			c.t.Errorf("serve: %v", err)
		}
	case <-time.After(waitTimeout):
		c.t.Errorf("the server did not exit")
	}
	c.conn.Close()
}

func (c *testClient) uri(rel string) protocol.DocumentURI {
	return uriOf(filepath.Join(c.root, filepath.FromSlash(rel)))
}

// text returns the client's view of a file: its buffer, else the disk.
func (c *testClient) text(rel string) []byte {
	c.mu.Lock()
	t, ok := c.texts[rel]
	c.mu.Unlock()
	if ok {
		return t
	}
	b, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		c.t.Fatalf("read %s: %v", rel, err)
	}
	return b
}

func (c *testClient) open(rel string) {
	c.t.Helper()
	text := c.text(rel)
	c.mu.Lock()
	c.texts[rel] = text
	c.versions[rel] = 1
	c.mu.Unlock()
	lang := "sql"
	if strings.HasSuffix(rel, ".yaml") {
		lang = "yaml"
	}
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": c.uri(rel), "languageId": lang, "version": 1, "text": string(text)}})
}

func (c *testClient) close(rel string) {
	c.mu.Lock()
	delete(c.texts, rel)
	delete(c.versions, rel)
	c.mu.Unlock()
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": c.uri(rel)}})
}

// replaceAll sends the whole new text of an open document.
func (c *testClient) replaceAll(rel, text string) {
	c.t.Helper()
	c.mu.Lock()
	c.texts[rel] = []byte(text)
	c.versions[rel]++
	v := c.versions[rel]
	c.mu.Unlock()
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": c.uri(rel), "version": v},
		"contentChanges": []any{map[string]any{"text": text}},
	})
}

// edit applies LSP text edits to an open document as one incremental
// change per edit, last first so earlier ranges stay valid.
func (c *testClient) edit(rel string, edits []protocol.TextEdit) {
	c.t.Helper()
	c.mu.Lock()
	text := c.texts[rel]
	c.mu.Unlock()
	sorted := append([]protocol.TextEdit(nil), edits...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && posLess(sorted[j-1].Range.Start, sorted[j].Range.Start); j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	var changes []any
	for _, e := range sorted {
		s, en := NewMapper(text).Offsets(e.Range)
		text = []byte(string(text[:s]) + e.NewText + string(text[en:]))
		changes = append(changes, map[string]any{"range": e.Range, "text": e.NewText})
	}
	c.mu.Lock()
	c.texts[rel] = text
	c.versions[rel]++
	v := c.versions[rel]
	c.mu.Unlock()
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": c.uri(rel), "version": v},
		"contentChanges": changes,
	})
}

func posLess(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// replace edits the first occurrence of old in an open document.
func (c *testClient) replace(rel, old, new string) {
	c.t.Helper()
	text := c.text(rel)
	i := strings.Index(string(text), old)
	if i < 0 {
		c.t.Fatalf("%s does not contain %q", rel, old)
	}
	m := NewMapper(text)
	c.edit(rel, []protocol.TextEdit{{Range: m.Range(i, i+len(old)), NewText: new}})
}

// waitIdle waits until every project checked and published its latest
// snapshot, then makes a round trip so the client has read everything
// the server sent before.
func (c *testClient) waitIdle() {
	c.t.Helper()
	var out json.RawMessage
	// The server handles messages in order: once this answer is back, it
	// has taken every notification sent before into a snapshot.
	c.mustCall("workspace/symbol", map[string]any{"query": "\x00sync"}, &out)
	c.waitFor("the server to be idle", func() bool {
		for _, v := range c.srv.allViews() {
			if !v.idle() {
				return false
			}
		}
		return true
	})
	c.mustCall("workspace/symbol", map[string]any{"query": "\x00sync"}, &out)
}

// waitFor polls cond until it holds or waitTimeout passes.
func (c *testClient) waitFor(what string, cond func() bool) {
	c.t.Helper()
	d := waitTimeout
	if _, ok := c.t.(*testing.B); ok {
		d = benchWaitTimeout // a cold start at 10,000 models on a busy machine
	}
	testkit.Eventually(c.t, d, what, cond)
}

// diagnostics returns the latest diagnostics published for a file.
func (c *testClient) diagnostics(rel string) []protocol.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.diags[rel].Diagnostics
}

// position finds a marker in a file: marker is text of the file with one
// '|' where the cursor is (at the start when there is none).
func (c *testClient) position(rel, marker string) protocol.Position {
	c.t.Helper()
	text := c.text(rel)
	cursor := strings.Index(marker, "|")
	plain := strings.Replace(marker, "|", "", 1)
	if cursor < 0 {
		cursor = 0
	}
	i := strings.Index(string(text), plain)
	if i < 0 {
		c.t.Fatalf("%s does not contain %q", rel, plain)
	}
	return NewMapper(text).Position(i + cursor)
}

func (c *testClient) docPos(rel, marker string) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": c.uri(rel)}, "position": c.position(rel, marker)}
}

// copyDir copies a fixture project to dst, leaving out what a run leaves
// behind.
var copyDir = testkit.CopyDir
