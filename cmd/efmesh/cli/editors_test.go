package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"go.lsp.dev/jsonrpc2"

	"github.com/efmesh/efmesh/internal/testkit"
)

// editorServer is what an editor's configuration says about the efmesh
// server: the command it runs, and what it sends as initializationOptions.
type editorServer struct {
	command     string
	args        []string
	initOptions map[string]any
}

// TestEditorConfigs checks the configuration snippets shipped for editors
// that are not tested in their own client (Helix, Kakoune), and the
// Neovim plugin's server configuration, which scripts/test-editors runs in
// the Neovim installed (Debian's 0.7.2, the vim.lsp.start_client path)
// while Neovim 0.8 and later give the same configuration to vim.lsp.start.
// Each is parsed
// as the editor parses it, and the exact command it gives is started (with
// efmesh on PATH, as the snippets assume) and driven through initialize, a
// model with an unknown column and its diagnostic, a plan of the configured
// environment, and shutdown.
func TestEditorConfigs(t *testing.T) {
	root := testkit.Root(t)
	configs := map[string]func(t *testing.T, file string) editorServer{
		"editors/helix/languages.toml":     helixServer,
		"editors/kakoune/kak-lsp.toml":     kakLspServer,
		"editors/kakoune/efmesh.kak":       kakouneLspServer,
		"editors/nvim/lua/efmesh/init.lua": neovimServer,
	}
	// The test binary runs as efmesh under that name (TestMain).
	if _, err := exec.LookPath("efmesh"); err != nil {
		t.Fatalf("efmesh is not on PATH in the test: %v", err)
	}
	for _, rel := range slices.Sorted(maps.Keys(configs)) {
		t.Run(strings.TrimPrefix(rel, "editors/"), func(t *testing.T) {
			srv := configs[rel](t, filepath.Join(root, rel))
			if srv.command != "efmesh" || !slices.Equal(srv.args, []string{"lsp"}) {
				t.Errorf("%s runs %q %q, want efmesh lsp", rel, srv.command, srv.args)
			}
			roundTrip(t, srv)
		})
	}
}

// helixLanguage is a [[language]] of Helix's languages.toml.
type helixLanguage struct {
	Name            string   `toml:"name"`
	Roots           []string `toml:"roots"`
	LanguageServers []string `toml:"language-servers"`
}

// helixServer reads languages.toml as Helix does: the efmesh server under
// [language-server.efmesh], used by the sql language with efmesh.yaml as
// its root; `config` is sent as initializationOptions.
func helixServer(t *testing.T, file string) editorServer {
	var cfg struct {
		LanguageServer map[string]struct {
			Command string         `toml:"command"`
			Args    []string       `toml:"args"`
			Config  map[string]any `toml:"config"`
		} `toml:"language-server"`
		Language []helixLanguage `toml:"language"`
	}
	decodeTOML(t, file, &cfg)
	ls, ok := cfg.LanguageServer["efmesh"]
	if !ok {
		t.Fatalf("%s: no [language-server.efmesh]", file)
	}
	i := slices.IndexFunc(cfg.Language, func(l helixLanguage) bool { return l.Name == "sql" })
	if i < 0 {
		t.Fatalf("%s: no [[language]] named sql", file)
	}
	sql := cfg.Language[i]
	if !slices.Contains(sql.LanguageServers, "efmesh") || !slices.Contains(sql.Roots, "efmesh.yaml") {
		t.Errorf("%s: sql uses servers %q with roots %q, want efmesh with efmesh.yaml", file, sql.LanguageServers, sql.Roots)
	}
	return editorServer{command: ls.Command, args: ls.Args, initOptions: ls.Config}
}

// kakServer is a server of kak-lsp.toml ([language_server.NAME]) and of
// kakoune-lsp's lsp_servers option ([NAME]): settings[settings_section]
// is sent as initializationOptions.
type kakServer struct {
	Filetypes       []string       `toml:"filetypes"`
	Roots           []string       `toml:"roots"`
	RootGlobs       []string       `toml:"root_globs"`
	Command         string         `toml:"command"`
	Args            []string       `toml:"args"`
	SettingsSection string         `toml:"settings_section"`
	Settings        map[string]any `toml:"settings"`
}

func (k kakServer) server(t *testing.T, file string, roots []string) editorServer {
	if !slices.Contains(roots, "efmesh.yaml") {
		t.Errorf("%s: roots %q do not name efmesh.yaml", file, roots)
	}
	opts, _ := k.Settings[k.SettingsSection].(map[string]any)
	if opts == nil {
		t.Errorf("%s: no settings.%s to send as initializationOptions", file, k.SettingsSection)
	}
	return editorServer{command: k.Command, args: k.Args, initOptions: opts}
}

// kakLspServer reads kak-lsp.toml (kak-lsp up to 16).
func kakLspServer(t *testing.T, file string) editorServer {
	var cfg struct {
		LanguageServer map[string]kakServer `toml:"language_server"`
	}
	decodeTOML(t, file, &cfg)
	k, ok := cfg.LanguageServer["efmesh"]
	if !ok {
		t.Fatalf("%s: no [language_server.efmesh]", file)
	}
	if !slices.Contains(k.Filetypes, "sql") {
		t.Errorf("%s: filetypes %q do not name sql", file, k.Filetypes)
	}
	return k.server(t, file, k.Roots)
}

// lspServersOption is the %{…} value of `set-option … lsp_servers`.
var lspServersOption = regexp.MustCompile(`(?s)set-option\s+\S+\s+lsp_servers\s+%\{(.*?)\n\s*\}`)

// kakouneLspServer reads the lsp_servers option an efmesh.kak hook sets
// for sql buffers (kakoune-lsp 17 and later).
func kakouneLspServer(t *testing.T, file string) editorServer {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "filetype=sql") {
		t.Errorf("%s: the hook is not for filetype=sql", file)
	}
	m := lspServersOption.FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s: no `set-option buffer lsp_servers %%{…}`", file)
	}
	var cfg map[string]kakServer
	if _, err := toml.Decode(string(m[1]), &cfg); err != nil {
		t.Fatalf("%s: lsp_servers is not TOML: %v", file, err)
	}
	k, ok := cfg["efmesh"]
	if !ok {
		t.Fatalf("%s: lsp_servers has no [efmesh]", file)
	}
	return k.server(t, file, k.RootGlobs)
}

// The Neovim plugin's defaults, and what it gives vim.lsp.start (0.8+) and
// vim.lsp.start_client (0.7) alike.
var (
	nvimDefaults    = regexp.MustCompile(`(?s)\nlocal defaults = \{(.*?)\n\}`)
	nvimCmd         = regexp.MustCompile(`\n\s*cmd = \{ '([^']*)', '([^']*)' \}`)
	nvimEnvironment = regexp.MustCompile(`\n\s*environment = '([^']*)'`)
)

// neovimServer reads the server command and initialization options of the
// Neovim plugin: its defaults, as client_config passes them on.
func neovimServer(t *testing.T, file string) editorServer {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"vim.lsp.start(client_config(root)",
		"vim.lsp.start_client(client_config(root))",
		"cmd = c.cmd,",
		"init_options = { environment = c.environment },",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("%s: no %q", file, want)
		}
	}
	d := nvimDefaults.FindSubmatch(src)
	if d == nil {
		t.Fatalf("%s: no `local defaults = {…}`", file)
	}
	c, e := nvimCmd.FindSubmatch(d[1]), nvimEnvironment.FindSubmatch(d[1])
	if c == nil || e == nil {
		t.Fatalf("%s: the defaults name no cmd = { '…', '…' } or environment = '…'", file)
	}
	return editorServer{command: string(c[1]), args: []string{string(c[2])}, initOptions: map[string]any{"environment": string(e[1])}}
}

func decodeTOML(t *testing.T, file string, v any) {
	t.Helper()
	if _, err := toml.DecodeFile(file, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// childIO joins a process's stdout and stdin into the stream of a client.
type childIO struct {
	io.ReadCloser
	io.WriteCloser
}

func (s childIO) Close() error {
	werr := s.WriteCloser.Close()
	if rerr := s.ReadCloser.Close(); rerr != nil {
		return rerr
	}
	return werr
}

// roundTrip starts srv's command in a copy of examples/hospital and
// drives it as an editor would.
func roundTrip(t *testing.T, srv editorServer) {
	dir := testkit.Example(t, "hospital")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cmd := exec.CommandContext(ctx, srv.command, srv.args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s %s: %v", srv.command, strings.Join(srv.args, " "), err)
	}
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		exited <- err
		cancel() // a server that dies fails the pending call at once
	}()

	var mu sync.Mutex
	diags := map[string][]lspDiagnostic{}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(childIO{out, in}))
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "textDocument/publishDiagnostics" {
			var p struct {
				URI         string          `json:"uri"`
				Diagnostics []lspDiagnostic `json:"diagnostics"`
			}
			if err := json.Unmarshal(req.Params(), &p); err == nil {
				mu.Lock()
				diags[p.URI] = p.Diagnostics
				mu.Unlock()
			}
		}
		if _, ok := req.(*jsonrpc2.Call); ok {
			go func() { _ = reply(ctx, nil, nil) }()
		}
		return nil
	})
	defer conn.Close()
	call := func(method string, params, result any) {
		t.Helper()
		if _, err := conn.Call(ctx, method, params, result); err != nil {
			t.Fatalf("%s: %v\nserver stderr:\n%s", method, err, stderr.String())
		}
	}
	notify := func(method string, params any) {
		t.Helper()
		if err := conn.Notify(ctx, method, params); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}

	rootURI := fileURI(dir)
	var init struct {
		Capabilities struct {
			HoverProvider      bool `json:"hoverProvider"`
			DefinitionProvider bool `json:"definitionProvider"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	params := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          rootURI,
		"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": filepath.Base(dir)}},
		"capabilities":     map[string]any{},
	}
	if srv.initOptions != nil {
		params["initializationOptions"] = srv.initOptions
	}
	call("initialize", params, &init)
	if !init.Capabilities.HoverProvider || !init.Capabilities.DefinitionProvider {
		t.Errorf("initialize: hover %v, definition %v; want both", init.Capabilities.HoverProvider, init.Capabilities.DefinitionProvider)
	}
	notify("initialized", map[string]any{})

	// The configured environment is the server's: a plan without one is of it.
	rel := "models/med/stays_by_dept.sql"
	uri := fileURI(filepath.Join(dir, rel))
	src, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "sql", "version": 1, "text": string(src),
	}})
	env, _ := srv.initOptions["environment"].(string)
	if env == "" {
		t.Fatalf("the configuration sends no environment: %v", srv.initOptions)
	}
	var plan struct {
		Env     string `json:"env"`
		Summary string `json:"summary"`
	}
	call("workspace/executeCommand", map[string]any{
		"command": "efmesh.plan", "arguments": []any{map[string]any{"uri": uri}},
	}, &plan)
	if plan.Env != env || !strings.Contains(plan.Summary, "Plan for environment "+env) {
		t.Errorf("efmesh.plan without an environment planned %q (%q), want the configured %q", plan.Env, plan.Summary, env)
	}

	// An unknown column: its diagnostic, at its exact range.
	text := strings.Replace(string(src), "avg(s.hours)", "avg(s.hourz)", 1)
	line, char := lineChar(text, strings.Index(text, "hourz"))
	notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": text}},
	})
	var got *lspDiagnostic
	testkit.Eventually(t, 30*time.Second, "a diagnostic of the unknown column hourz", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, d := range diags[uri] {
			if strings.Contains(d.Message, `"hourz"`) {
				got = &d
				return true
			}
		}
		return false
	})
	want := lspRange{Start: lspPos{line, char}, End: lspPos{line, char + len("hourz")}}
	if got.Range != want || got.Severity != 1 {
		t.Errorf("diagnostic %s at %v (severity %d), want %v (error)", got.Message, got.Range, got.Severity, want)
	}

	var shutdown json.RawMessage
	call("shutdown", nil, &shutdown)
	notify("exit", nil)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the server exited with %v\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Errorf("the server did not exit after shutdown and exit")
	}
}

type lspPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start lspPos `json:"start"`
	End   lspPos `json:"end"`
}

func (r lspRange) String() string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1)
}

type lspDiagnostic struct {
	Range    lspRange `json:"range"`
	Severity int      `json:"severity"`
	Message  string   `json:"message"`
}

// lineChar is the 0-based line and UTF-16 character of a byte offset in
// ASCII text.
func lineChar(text string, off int) (int, int) {
	line := strings.Count(text[:off], "\n")
	return line, off - (strings.LastIndex(text[:off], "\n") + 1)
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
