package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/efmesh/efmesh/internal/gen"
)

// lspRes is the language server's section of one size.
type lspRes struct {
	OpenColdMs   float64 `json:"openColdMs"`
	OpenWarmMs   float64 `json:"openWarmMs"`
	EditP50Ms    float64 `json:"editP50Ms"`
	EditP95Ms    float64 `json:"editP95Ms"`
	HoverP95Ms   float64 `json:"hoverP95Ms"`
	CompleteP95  float64 `json:"completionP95Ms"`
	ServerPeakMB float64 `json:"serverPeakMB"`
}

// lspWait bounds every wait for the server.
const lspWait = 15 * time.Minute

// The text an edit toggles in the edited model: the parent's column, then
// a typo of it (an unknown column: a diagnostic only the binder finds).
const (
	goodCol = "amount + "
	badCol  = "amout + "
)

// measureLSP runs `efmesh lsp` on a fresh clone in which the last model of
// every chain reads a column its parent lacks, so that "every diagnostic
// published" is observable from outside: each such file got its error,
// which needs its whole chain bound. Cold is the first server (no check
// cache), warm a second one on the cache the first left.
func measureLSP(ctx context.Context, bin string, n int) (*lspRes, error) {
	dir, err := writeProject(ctx, n, gen.NoMacros)
	defer os.RemoveAll(dir)
	if err != nil {
		return nil, err
	}
	res := &lspRes{}
	s, err := lspSession(bin, dir, n, goodCol, badCol)
	if s != nil && s.c != nil {
		defer s.c.kill()
	}
	if err != nil {
		return nil, err
	}
	c, edited, leaves := s.c, s.edited, s.leaves
	res.OpenColdMs = s.openMs
	fmt.Fprintf(os.Stderr, "  %-28s %9.1f ms\n", "lsp open → all diagnostics", res.OpenColdMs)
	res.EditP50Ms, res.EditP95Ms = pct(s.edits, 0.50), pct(s.edits, 0.95)

	text := c.texts[edited]
	hoverAt := strings.Index(text, goodCol) + 2               // inside "amount"
	completeAt := strings.Index(text, "@ref(") + len("@ref(") // model names
	var hovers, completes []time.Duration
	for range 30 {
		t := time.Now()
		out, err := c.call("textDocument/hover", c.docPos(edited, hoverAt))
		if err != nil {
			return nil, err
		}
		hovers = append(hovers, time.Since(t))
		if len(out) < 10 {
			return nil, fmt.Errorf("hover answered %s", out)
		}
		t = time.Now()
		out, err = c.call("textDocument/completion", c.docPos(edited, completeAt))
		if err != nil {
			return nil, err
		}
		completes = append(completes, time.Since(t))
		if !hasItems(out) {
			return nil, fmt.Errorf("completion answered %s", out)
		}
	}
	res.HoverP95Ms, res.CompleteP95 = pct(hovers, 0.95), pct(completes, 0.95)
	if res.ServerPeakMB, err = c.shutdown(); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "  %-28s %9.1f / %.1f ms, hover %.1f ms, completion %.1f ms, %0.f MB\n", "lsp edit p50 / p95",
		res.EditP50Ms, res.EditP95Ms, res.HoverP95Ms, res.CompleteP95, res.ServerPeakMB)

	w, err := startLSP(bin, dir)
	if err != nil {
		return nil, err
	}
	defer w.kill()
	if err := w.open(edited); err != nil {
		return nil, err
	}
	if err := w.waitAll(leaves); err != nil {
		return nil, err
	}
	res.OpenWarmMs = ms(time.Since(w.started))
	peak, err := w.shutdown()
	if err != nil {
		return nil, err
	}
	res.ServerPeakMB = max(res.ServerPeakMB, peak)
	fmt.Fprintf(os.Stderr, "  %-28s %9.1f ms\n", "lsp open → all, warm", res.OpenWarmMs)
	return res, nil
}

// session is a language server on a project whose leaves are broken, after
// its edits.
type session struct {
	c      *client
	edited string   // the file edited
	leaves []string // the files broken from the start
	openMs float64  // start → every leaf's diagnostic
	edits  []time.Duration
}

// lspSession breaks the last model of every chain of the project in dir
// (n models) by replacing good with bad, starts `efmesh lsp` on it, waits
// for every leaf's diagnostic, then toggles the middle model of a chain in
// the middle of the project between bad and good 30 times, each time
// waiting for its diagnostics. The caller shuts the server down.
func lspSession(bin, dir string, n int, good, bad string) (*session, error) {
	s := &session{}
	for i := 4; i < n; i += 5 {
		s.leaves = append(s.leaves, modelFile(i))
	}
	if n%5 != 0 {
		s.leaves = append(s.leaves, modelFile(n-1))
	}
	for _, rel := range s.leaves {
		path := filepath.Join(dir, rel)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(b), good) {
			return nil, fmt.Errorf("%s does not contain %q", rel, good)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), good, bad, 1)), 0o644); err != nil {
			return nil, err
		}
	}
	// The edited model: the middle of a chain in the middle of the
	// project, with a parent and children.
	s.edited = modelFile((n/10)*5 + 2)
	if n < 5 {
		s.edited = modelFile(0)
	}
	var err error
	if s.c, err = startLSP(bin, dir); err != nil {
		return s, err
	}
	if err := s.c.open(s.edited); err != nil {
		return s, err
	}
	if err := s.c.waitAll(s.leaves); err != nil {
		return s, err
	}
	s.openMs = ms(time.Since(s.c.started))
	for i := range 30 {
		broken := i%2 == 0
		from, to := good, bad
		if !broken {
			from, to = bad, good
		}
		t := time.Now()
		v, err := s.c.change(s.edited, from, to)
		if err != nil {
			return s, err
		}
		if err := s.c.waitDiags(s.edited, v, broken); err != nil {
			return s, err
		}
		s.edits = append(s.edits, time.Since(t))
	}
	return s, nil
}

// hasItems reports whether a completion answer offers anything: a list
// or a CompletionList with items.
func hasItems(out json.RawMessage) bool {
	var list []json.RawMessage
	if json.Unmarshal(out, &list) == nil {
		return len(list) > 0
	}
	var cl struct {
		Items []json.RawMessage `json:"items"`
	}
	return json.Unmarshal(out, &cl) == nil && len(cl.Items) > 0
}

func modelFile(i int) string { return fmt.Sprintf("models/m/model_%05d.sql", i) }

func pct(times []time.Duration, p float64) float64 {
	s := append([]time.Duration(nil), times...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return ms(s[min(len(s)-1, int(p*float64(len(s))))])
}

// client is an editor's side of `efmesh lsp`: Content-Length framed
// JSON-RPC over the child's stdin and stdout.
type client struct {
	root    string
	cmd     *exec.Cmd
	in      io.WriteCloser
	started time.Time

	wmu     sync.Mutex
	mu      sync.Mutex
	changed *sync.Cond
	nextID  int
	waiting map[int]chan rpcMsg
	diags   map[string]pubDiag // by file URI
	done    bool               // the server's output ended
	texts   map[string]string  // open documents by relative path
	version map[string]int
}

type pubDiag struct {
	version int
	count   int
}

type rpcMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func startLSP(bin, root string) (*client, error) {
	c := &client{root: root, waiting: map[int]chan rpcMsg{}, diags: map[string]pubDiag{}, texts: map[string]string{}, version: map[string]int{}}
	c.changed = sync.NewCond(&c.mu)
	c.cmd = exec.Command(bin, "lsp")
	c.cmd.Dir = root
	c.cmd.Stderr = io.Discard
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.started = time.Now()
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	go c.read(bufio.NewReaderSize(out, 1<<16))
	rootURI := c.uri("")
	_, err = c.call("initialize", map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          rootURI,
		"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": filepath.Base(root)}},
		"capabilities":     map[string]any{},
	})
	if err != nil {
		return nil, err
	}
	return c, c.notify("initialized", map[string]any{})
}

func (c *client) uri(rel string) string {
	u := url.URL{Scheme: "file", Path: filepath.Join(c.root, filepath.FromSlash(rel))}
	return u.String()
}

func (c *client) send(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
		return err
	}
	_, err = c.in.Write(b)
	return err
}

func (c *client) notify(method string, params any) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *client) call(method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan rpcMsg, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the server ended", method)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-time.After(lspWait):
		return nil, fmt.Errorf("%s: no answer in %s", method, lspWait)
	}
}

// read dispatches the server's messages: answers to their callers,
// published diagnostics to diags, and the server's own requests answered
// with an empty result.
func (c *client) read(r *bufio.Reader) {
	defer func() {
		c.mu.Lock()
		c.done = true
		for id, ch := range c.waiting {
			close(ch)
			delete(c.waiting, id)
		}
		c.changed.Broadcast()
		c.mu.Unlock()
	}()
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				length, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if length < 0 {
			continue
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m rpcMsg
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch {
		case m.Method == "textDocument/publishDiagnostics":
			var p struct {
				URI         string            `json:"uri"`
				Version     int               `json:"version"`
				Diagnostics []json.RawMessage `json:"diagnostics"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				c.mu.Lock()
				c.diags[p.URI] = pubDiag{version: p.Version, count: len(p.Diagnostics)}
				c.changed.Broadcast()
				c.mu.Unlock()
			}
		case m.Method != "" && len(m.ID) > 0:
			var result any
			if m.Method == "workspace/configuration" {
				var p struct {
					Items []any `json:"items"`
				}
				json.Unmarshal(m.Params, &p)
				result = make([]any, len(p.Items))
			}
			c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		case m.Method == "":
			id, err := strconv.Atoi(string(m.ID))
			if err != nil {
				continue
			}
			c.mu.Lock()
			ch := c.waiting[id]
			delete(c.waiting, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

// until waits for cond (called with c.mu held) or lspWait.
func (c *client) until(what string, cond func() bool) error {
	deadline := time.Now().Add(lspWait)
	stop := time.AfterFunc(lspWait, func() {
		c.mu.Lock()
		c.changed.Broadcast()
		c.mu.Unlock()
	})
	defer stop.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !cond() {
		if c.done {
			return fmt.Errorf("the server ended while waiting for %s", what)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s in %s", what, lspWait)
		}
		c.changed.Wait()
	}
	return nil
}

func (c *client) open(rel string) error {
	b, err := os.ReadFile(filepath.Join(c.root, rel))
	if err != nil {
		return err
	}
	c.texts[rel] = string(b)
	c.version[rel] = 1
	return c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": c.uri(rel), "languageId": "sql", "version": 1, "text": string(b)}})
}

// change replaces from with to in an open document (the whole text as the
// change) and returns the new version.
func (c *client) change(rel, from, to string) (int, error) {
	t := c.texts[rel]
	if !strings.Contains(t, from) {
		return 0, fmt.Errorf("%s does not contain %q", rel, from)
	}
	t = strings.Replace(t, from, to, 1)
	c.texts[rel] = t
	c.version[rel]++
	v := c.version[rel]
	return v, c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": c.uri(rel), "version": v},
		"contentChanges": []any{map[string]any{"text": t}},
	})
}

// waitAll waits until every file in rels has diagnostics published.
func (c *client) waitAll(rels []string) error {
	uris := make([]string, len(rels))
	for i, rel := range rels {
		uris[i] = c.uri(rel)
	}
	return c.until("diagnostics of every file", func() bool {
		for _, u := range uris {
			if c.diags[u].count == 0 {
				return false
			}
		}
		return true
	})
}

// waitDiags waits for the diagnostics of version v of rel: some when
// broken, none otherwise.
func (c *client) waitDiags(rel string, v int, broken bool) error {
	u := c.uri(rel)
	return c.until(fmt.Sprintf("diagnostics of %s version %d", rel, v), func() bool {
		d := c.diags[u]
		return d.version >= v && (d.count > 0) == broken
	})
}

// docPos is a TextDocumentPositionParams at byte offset off of rel (the
// generated files are ASCII: bytes are UTF-16 units).
func (c *client) docPos(rel string, off int) map[string]any {
	t := c.texts[rel][:off]
	line := strings.Count(t, "\n")
	char := off - (strings.LastIndex(t, "\n") + 1)
	return map[string]any{
		"textDocument": map[string]any{"uri": c.uri(rel)},
		"position":     map[string]any{"line": line, "character": char},
	}
}

// shutdown ends the session politely and returns the server's peak
// resident memory.
func (c *client) shutdown() (float64, error) {
	if _, err := c.call("shutdown", nil); err != nil {
		return 0, err
	}
	if err := c.notify("exit", nil); err != nil {
		return 0, err
	}
	c.in.Close()
	if err := c.cmd.Wait(); err != nil {
		return 0, fmt.Errorf("efmesh lsp: %w", err)
	}
	return peakMB(c.cmd.ProcessState), nil
}

// kill ends a server that is still running (after an error).
func (c *client) kill() {
	if c.cmd.ProcessState == nil && c.cmd.Process != nil {
		c.cmd.Process.Kill()
		c.cmd.Wait()
	}
}
