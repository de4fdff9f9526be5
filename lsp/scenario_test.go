package lsp

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"golang.org/x/tools/txtar"

	"github.com/efmesh/efmesh/engine/duckdb"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/*.txtar")

// TestScenarios runs every testdata/*.txtar: a project (the archive's
// files), a script of editor actions (the "script" section) and the
// expected output (the "want" section, rewritten with -update). Files
// under "new/" are not part of the project; scripts use them as contents.
//
// Script commands (FILE is relative to the project root; MARKER is text of
// the file, Go-quoted, with '|' at the cursor):
//
//	open FILE | close FILE | save FILE
//	change FILE SECTION          replace a buffer by an archive section
//	replace FILE "old" "new"     edit the first occurrence (incremental sync)
//	write FILE SECTION           write to disk and send a watched-file event
//	rm FILE                      delete from disk and send a watched-file event
//	diags                        wait for the checks, print every diagnostic
//	hover|def|refs|complete FILE MARKER
//	sig FILE MARKER              signature help (> the active signature, [the active parameter])
//	rename FILE MARKER NAME [apply]   apply: edit the client's buffers (and rename files)
//	format FILE [MARKER MARKER]  textDocument/formatting (rangeFormatting
//	                             between the markers), applied to the buffer
//	actions FILE MARKER          code actions at the cursor
//	fix FILE MARKER TITLE        apply the code action whose title starts with TITLE
//	sources FILE ONLY            source actions (ONLY: kinds, comma-separated, or -)
//	source FILE KIND             run the one source action of KIND
//	symbols FILE | wsymbols QUERY | lens FILE
//	command NAME JSON            workspace/executeCommand
//	sql "STATEMENTS"             run on the warehouse (efmesh.duckdb), print the rows
//	cat FILE                     print the client's text of a file
//	messages                     print (and forget) messages and progress shown
//	environment NAME             switch the editor's environment (its vars)
//	calls FILE MARKER            call hierarchy: the item, its incoming and outgoing calls
//	highlight FILE MARKER        document highlights
//	folds FILE                   folding ranges, each with its first line
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runScenario(t, file)
		})
	}
}

func runScenario(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	sections := map[string][]byte{}
	var script string
	wantIdx := -1
	opts := clientOptions{progress: true}
	for i, f := range ar.Files {
		switch {
		case f.Name == "script":
			script = string(f.Data)
		case f.Name == "want":
			wantIdx = i
		case f.Name == "client-workspace-edit":
			// The client's workspace.workspaceEdit capability, as JSON.
			if err := json.Unmarshal(f.Data, &opts.workspaceEdit); err != nil {
				t.Fatalf("client-workspace-edit: %v", err)
			}
		case strings.HasPrefix(f.Name, "new/"):
			sections[f.Name] = f.Data
		default:
			path := filepath.Join(root, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := newTestClient(t, root, opts)
	r := &scenario{t: t, c: c, sections: sections}
	for n, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fmt.Fprintf(&r.out, "> %s\n", line)
		if err := r.run(line); err != nil {
			t.Fatalf("script line %d: %s: %v", n+1, line, err)
		}
	}
	got := r.mask(r.out.String())
	if *update {
		if wantIdx < 0 {
			ar.Files = append(ar.Files, txtar.File{Name: "want"})
			wantIdx = len(ar.Files) - 1
		}
		ar.Files[wantIdx].Data = []byte(got)
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if wantIdx < 0 {
		t.Fatalf("no want section; run with -update\n%s", got)
	}
	if want := string(ar.Files[wantIdx].Data); got != want {
		t.Errorf("output differs from the want section (run with -update to accept):\n%s", lineDiff(want, got))
	}
}

type scenario struct {
	t        *testing.T
	c        *testClient
	sections map[string][]byte
	out      strings.Builder
}

func (r *scenario) printf(format string, args ...any) { fmt.Fprintf(&r.out, format, args...) }

func (r *scenario) run(line string) error {
	args, err := splitArgs(line)
	if err != nil {
		return err
	}
	c := r.c
	need := func(n int) error {
		if len(args) != n+1 {
			return fmt.Errorf("%s takes %d argument(s)", args[0], n)
		}
		return nil
	}
	// A request is asked of a checked project, as a user who waits for
	// the squiggles does: the project loads in the background, and an
	// answer from the files alone would race the check (requests during
	// the load are TestRequestsDuringLoad's).
	switch args[0] {
	case "hover", "def", "refs", "complete", "sig", "rename", "actions", "fix", "sources", "source", "format", "calls", "highlight", "folds":
		c.waitIdle()
	}
	switch args[0] {
	case "open", "close", "save", "symbols", "lens", "cat", "rm", "tokens":
		if err := need(1); err != nil {
			return err
		}
		switch args[0] {
		case "open":
			c.open(args[1])
		case "close":
			c.close(args[1])
		case "save":
			if err := os.WriteFile(filepath.Join(c.root, args[1]), c.text(args[1]), 0o644); err != nil {
				return err
			}
			c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": c.uri(args[1])}})
		case "symbols":
			var syms []protocol.DocumentSymbol
			c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": c.uri(args[1])}}, &syms)
			r.symbols(syms, "")
		case "lens":
			var lenses []protocol.CodeLens
			c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": c.uri(args[1])}}, &lenses)
			for _, l := range lenses {
				r.printf("%s %q -> %s\n", rangeText(l.Range), l.Command.Title, l.Command.Command)
			}
		case "tokens":
			var toks protocol.SemanticTokens
			c.mustCall("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": c.uri(args[1])}}, &toks)
			r.semanticTokens(c.text(args[1]), c.initResult, toks.Data)
		case "rm":
			if err := os.Remove(filepath.Join(c.root, filepath.FromSlash(args[1]))); err != nil {
				return err
			}
			c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": c.uri(args[1]), "type": protocol.FileChangeTypeDeleted}}})
		case "cat":
			r.printf("%s", c.text(args[1]))
			if !strings.HasSuffix(string(c.text(args[1])), "\n") {
				r.printf("\n")
			}
		}
	case "change", "write":
		if err := need(2); err != nil {
			return err
		}
		data, ok := r.sections[args[2]]
		if !ok {
			return fmt.Errorf("no section %s", args[2])
		}
		if args[0] == "change" {
			c.replaceAll(args[1], string(data))
			return nil
		}
		path := filepath.Join(c.root, filepath.FromSlash(args[1]))
		_, statErr := os.Stat(path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		typ := protocol.FileChangeTypeChanged
		if statErr != nil {
			typ = protocol.FileChangeTypeCreated
		}
		c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": c.uri(args[1]), "type": typ}}})
	case "replace":
		if err := need(3); err != nil {
			return err
		}
		c.replace(args[1], args[2], args[3])
	case "diags":
		c.waitIdle()
		r.diags()
	case "messages":
		c.mu.Lock()
		msgs, prog := c.messages, c.progress
		c.messages, c.progress = nil, nil
		c.mu.Unlock()
		for _, m := range msgs {
			r.printf("message: %s\n", m)
		}
		for _, p := range prog {
			r.printf("progress: %s\n", p)
		}
	case "hover":
		if err := need(2); err != nil {
			return err
		}
		var h *protocol.Hover
		c.mustCall("textDocument/hover", c.docPos(args[1], args[2]), &h)
		if h == nil {
			r.printf("no hover\n")
			return nil
		}
		rng := ""
		if h.Range != nil {
			rng = rangeText(*h.Range)
		}
		r.printf("%s\n%s\n", rng, indent(h.Contents.Value))
	case "def", "refs":
		if err := need(2); err != nil {
			return err
		}
		var locs []protocol.Location
		if args[0] == "def" {
			c.mustCall("textDocument/definition", c.docPos(args[1], args[2]), &locs)
		} else {
			p := c.docPos(args[1], args[2])
			p["context"] = map[string]any{"includeDeclaration": true}
			c.mustCall("textDocument/references", p, &locs)
		}
		if len(locs) == 0 {
			r.printf("none\n")
		}
		for _, l := range locs {
			r.printf("%s:%s %q\n", r.rel(l.URI), rangeText(l.Range), r.textAt(l))
		}
	case "complete":
		if err := need(2); err != nil {
			return err
		}
		var list *protocol.CompletionList
		c.mustCall("textDocument/completion", c.docPos(args[1], args[2]), &list)
		if list == nil || len(list.Items) == 0 {
			r.printf("none\n")
			return nil
		}
		for _, it := range list.Items {
			edit := ""
			if it.TextEdit != nil {
				edit = " @" + rangeText(it.TextEdit.Range)
				if it.TextEdit.NewText != it.Label {
					edit += fmt.Sprintf(" %q", it.TextEdit.NewText)
				}
			}
			r.printf("%s%s", it.Label, edit)
			if it.Detail != "" {
				r.printf(" (%s)", it.Detail)
			}
			r.printf("\n")
		}
	case "sig": // sig FILE MARKER: signature help, the active signature and parameter marked
		if err := need(2); err != nil {
			return err
		}
		var h *protocol.SignatureHelp
		c.mustCall("textDocument/signatureHelp", c.docPos(args[1], args[2]), &h)
		if h == nil {
			r.printf("none\n")
			return nil
		}
		for i, si := range h.Signatures {
			mark := " "
			if uint32(i) == h.ActiveSignature {
				mark = ">"
			}
			var ps []string
			for j, p := range si.Parameters {
				if uint32(j) == si.ActiveParameter {
					p.Label = "[" + p.Label + "]"
				}
				ps = append(ps, p.Label)
			}
			r.printf("%s %s {%s}", mark, si.Label, strings.Join(ps, ", "))
			if doc, ok := si.Documentation.(string); ok && doc != "" {
				r.printf(" -- %s", doc)
			}
			r.printf("\n")
		}
		if len(h.Signatures) > 0 {
			r.printf("active parameter %d\n", h.ActiveParameter)
		}
	case "rename":
		if len(args) != 5 || args[4] != "apply" {
			if err := need(3); err != nil {
				return err
			}
		}
		p := c.docPos(args[1], args[2])
		p["newName"] = args[3]
		var raw json.RawMessage
		if err := c.call("textDocument/rename", p, &raw); err != nil {
			r.printf("error: %v\n", err)
			return nil
		}
		var edit *protocol.WorkspaceEdit
		if err := json.Unmarshal(raw, &edit); err != nil {
			return err
		}
		r.edit(edit)
		ops := r.fileRenames(raw)
		if len(args) > 4 && args[4] == "apply" && edit != nil {
			r.apply(edit)
			if err := r.renameFiles(ops); err != nil {
				return err
			}
		}
	case "format":
		if len(args) != 2 && len(args) != 4 {
			return fmt.Errorf("bad arguments")
		}
		c.waitIdle()
		var edits []protocol.TextEdit
		doc := map[string]any{"uri": c.uri(args[1])}
		var err error
		if len(args) == 4 {
			rng := protocol.Range{Start: c.position(args[1], args[2]), End: c.position(args[1], args[3])}
			err = c.call("textDocument/rangeFormatting", map[string]any{"textDocument": doc, "range": rng, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
		} else {
			err = c.call("textDocument/formatting", map[string]any{"textDocument": doc, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
		}
		if err != nil {
			r.printf("error: %v\n", err)
			return nil
		}
		if len(edits) == 0 {
			r.printf("no edits\n")
			return nil
		}
		for _, e := range edits {
			r.printf("edit %s\n", rangeText(e.Range))
		}
		r.apply(&protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{c.uri(args[1]): edits}})
	case "actions", "fix":
		if args[0] == "actions" && len(args) != 3 || args[0] == "fix" && len(args) != 4 {
			return fmt.Errorf("bad arguments")
		}
		c.waitIdle()
		pos := c.position(args[1], args[2])
		var actions []protocol.CodeAction
		c.mustCall("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": c.uri(args[1])},
			"range":        protocol.Range{Start: pos, End: pos},
			"context":      map[string]any{"diagnostics": []any{}},
		}, &actions)
		if args[0] == "actions" {
			// No only: the source actions (render, plan, apply) are
			// not asked for and must not be listed; the sources
			// command shows them.
			if len(actions) == 0 {
				r.printf("none\n")
			}
			for _, a := range actions {
				r.printf("%s [%s]\n", a.Title, a.Kind)
				r.edit(a.Edit)
			}
			return nil
		}
		for _, a := range actions {
			if strings.HasPrefix(a.Title, args[3]) && a.Edit != nil {
				r.printf("applied %q\n", a.Title)
				r.apply(a.Edit)
				return nil
			}
		}
		return fmt.Errorf("no action %q among %d", args[3], len(actions))
	case "sources", "source": // sources FILE ONLY: the source actions of a file; source FILE KIND: run one
		if err := need(2); err != nil {
			return err
		}
		var only []string
		if args[0] == "sources" && args[2] != "-" {
			only = strings.Split(args[2], ",")
		}
		if args[0] == "source" {
			only = []string{args[2]}
		}
		var actions []protocol.CodeAction
		c.mustCall("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": c.uri(args[1])},
			"range":        protocol.Range{},
			"context":      map[string]any{"diagnostics": []any{}, "only": only},
		}, &actions)
		if args[0] == "sources" {
			if len(actions) == 0 {
				r.printf("none\n")
			}
			for _, a := range actions {
				// A quick fix carries an edit and no command.
				if a.Command == nil {
					r.printf("%s [%s]\n", a.Title, a.Kind)
					r.edit(a.Edit)
					continue
				}
				b, _ := json.Marshal(a.Command.Arguments)
				r.printf("%s [%s] -> %s %s\n", a.Title, a.Kind, a.Command.Command, r.mask(string(b)))
			}
			return nil
		}
		if len(actions) != 1 || actions[0].Command == nil {
			return fmt.Errorf("want one action of kind %s, got %d", args[2], len(actions))
		}
		var res json.RawMessage
		if err := c.call("workspace/executeCommand", map[string]any{"command": actions[0].Command.Command, "arguments": actions[0].Command.Arguments}, &res); err != nil {
			r.printf("error: %v\n", err)
			return nil
		}
		var s string
		if json.Unmarshal(res, &s) == nil {
			r.printf("%s\n", s)
			return nil
		}
		var v any
		_ = json.Unmarshal(res, &v)
		b, _ := json.MarshalIndent(v, "", "  ")
		r.printf("%s\n", b)
	case "calls", "highlight", "folds":
		return r.navigation(args)
	case "wsymbols":
		query := ""
		if len(args) > 1 {
			query = args[1]
		}
		var syms []protocol.SymbolInformation
		c.mustCall("workspace/symbol", map[string]any{"query": query}, &syms)
		for _, s := range syms {
			r.printf("%s (%s) %s:%s\n", s.Name, s.ContainerName, r.rel(s.Location.URI), rangeText(s.Location.Range))
		}
	case "environment": // environment NAME: the editor's efmesh environment (settings)
		if err := need(1); err != nil {
			return err
		}
		c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"efmesh": map[string]any{"environment": args[1]}}})
		c.waitIdle()
	case "lint": // lint JSON: the editor's efmesh.lint setting (settings)
		if err := need(1); err != nil {
			return err
		}
		c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"efmesh": map[string]any{"lint": json.RawMessage(args[1])}}})
		c.waitIdle()
	case "env": // env NAME VALUE: the server's environment, e.g. its clock
		if err := need(2); err != nil {
			return err
		}
		r.t.Setenv(args[1], args[2])
	case "sql": // sql "STATEMENTS": run on the project's DuckDB warehouse, print the rows
		if err := need(1); err != nil {
			return err
		}
		db, err := duckdb.Open(filepath.Join(c.root, "efmesh.duckdb"))
		if err != nil {
			return err
		}
		defer db.Close()
		rows, err := db.Query(context.Background(), args[1])
		if err != nil {
			return err
		}
		for _, v := range rows.Values {
			r.printf("%v\n", v)
		}
	case "command":
		if err := need(2); err != nil {
			return err
		}
		var arg any
		js := strings.ReplaceAll(args[2], "file://$ROOT", string(uriOf(c.root)))
		js = strings.ReplaceAll(js, "$ROOT", c.root)
		if err := json.Unmarshal([]byte(js), &arg); err != nil {
			return err
		}
		var res json.RawMessage
		if err := c.call("workspace/executeCommand", map[string]any{"command": args[1], "arguments": []any{arg}}, &res); err != nil {
			r.printf("error: %v\n", err)
			return nil
		}
		var s string
		if json.Unmarshal(res, &s) == nil {
			r.printf("%s\n", s)
			return nil
		}
		var v any
		_ = json.Unmarshal(res, &v)
		b, _ := json.MarshalIndent(v, "", "  ")
		r.printf("%s\n", b)
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
	return nil
}

// diags prints the latest diagnostics of every file, by file.
func (r *scenario) diags() {
	c := r.c
	c.mu.Lock()
	var rels []string
	for rel, p := range c.diags {
		if len(p.Diagnostics) > 0 {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	snapshot := map[string]protocol.PublishDiagnosticsParams{}
	for _, rel := range rels {
		snapshot[rel] = c.diags[rel]
	}
	c.mu.Unlock()
	if len(rels) == 0 {
		r.printf("no diagnostics\n")
	}
	for _, rel := range rels {
		p := snapshot[rel]
		version := ""
		if p.Version > 0 {
			version = fmt.Sprintf(" (v%d)", p.Version)
		}
		for _, d := range p.Diagnostics {
			sev := map[protocol.DiagnosticSeverity]string{1: "error", 2: "warning", 3: "info", 4: "hint"}[d.Severity]
			r.printf("%s:%s%s %s %v: %s\n", rel, rangeText(d.Range), version, sev, d.Code, d.Message)
			for _, ri := range d.RelatedInformation {
				path, _ := pathOf(ri.Location.URI)
				rp, _ := filepath.Rel(r.c.root, path)
				r.printf("  related %s:%s %s\n", filepath.ToSlash(rp), rangeText(ri.Location.Range), ri.Message)
			}
		}
	}
}

// semanticTokens decodes the wire form with the legend the server
// advertised in initialize and prints one token a line: position, text,
// type and modifiers.
func (r *scenario) semanticTokens(src []byte, init json.RawMessage, data []uint32) {
	var caps struct {
		Capabilities struct {
			SemanticTokensProvider struct {
				Legend protocol.SemanticTokensLegend `json:"legend"`
				Full   bool                          `json:"full"`
			} `json:"semanticTokensProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &caps); err != nil || !caps.Capabilities.SemanticTokensProvider.Full {
		r.printf("semanticTokensProvider with full is not advertised\n")
		return
	}
	legend := caps.Capabilities.SemanticTokensProvider.Legend
	mp := NewMapper(src)
	var line, char uint32
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			char = 0
		}
		line += data[i]
		char += data[i+1]
		start := mp.Offset(protocol.Position{Line: line, Character: char})
		end := mp.Offset(protocol.Position{Line: line, Character: char + data[i+2]})
		typ := "?"
		if int(data[i+3]) < len(legend.TokenTypes) {
			typ = string(legend.TokenTypes[data[i+3]])
		}
		for b, m := range legend.TokenModifiers {
			if data[i+4]&(1<<b) != 0 {
				typ += "+" + string(m)
			}
		}
		r.printf("%d:%d %q %s\n", line+1, char+1, src[start:end], typ)
	}
}

func (r *scenario) symbols(syms []protocol.DocumentSymbol, prefix string) {
	for _, s := range syms {
		r.printf("%s%s [%s] %s sel %s", prefix, s.Name, s.Kind, rangeText(s.Range), rangeText(s.SelectionRange))
		if s.Detail != "" {
			r.printf(" (%s)", s.Detail)
		}
		r.printf("\n")
		r.symbols(s.Children, prefix+"  ")
	}
}

// edit prints a workspace edit, file by file.
func (r *scenario) edit(e *protocol.WorkspaceEdit) {
	if e == nil {
		return
	}
	var uris []string
	for u := range e.Changes {
		uris = append(uris, string(u))
	}
	sort.Strings(uris)
	for _, u := range uris {
		for _, te := range e.Changes[protocol.DocumentURI(u)] {
			r.printf("  %s:%s -> %q\n", r.rel(protocol.DocumentURI(u)), rangeText(te.Range), te.NewText)
		}
	}
	for _, a := range e.ChangeAnnotations {
		r.printf("  (annotated: %s)\n", a.Label)
	}
}

// apply applies a workspace edit to the client's buffers, opening files
// that are not open yet.
func (r *scenario) apply(e *protocol.WorkspaceEdit) {
	for u, edits := range e.Changes {
		rel := r.rel(u)
		r.c.mu.Lock()
		_, open := r.c.texts[rel]
		r.c.mu.Unlock()
		if !open {
			r.c.open(rel)
		}
		r.c.edit(rel, edits)
	}
}

func (r *scenario) rel(u protocol.DocumentURI) string {
	path, err := pathOf(u)
	if err != nil {
		return string(u)
	}
	rel, ok := relPath(r.c.root, path)
	if !ok {
		return path
	}
	return rel
}

func (r *scenario) textAt(l protocol.Location) string {
	text := r.c.text(r.rel(l.URI))
	m := NewMapper(text)
	s, e := m.Offsets(l.Range)
	return string(text[s:e])
}

var (
	fpRE   = regexp.MustCompile(`[0-9a-f]{64}`)
	planRE = regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{8}`)
	fp8RE  = regexp.MustCompile(`__[0-9a-f]{8}\b|` + "`[0-9a-f]{8}`")
)

// mask hides what changes between runs and machines: the project path
// and fingerprints (frozen by the planner's own golden tests).
func (r *scenario) mask(s string) string {
	s = strings.ReplaceAll(s, string(uriOf(r.c.root)), "file://$ROOT")
	s = strings.ReplaceAll(s, r.c.root, "$ROOT")
	s = fpRE.ReplaceAllString(s, "<fp>")
	s = planRE.ReplaceAllString(s, "<plan-id>")
	return fp8RE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "__") {
			return "__<fp8>"
		}
		return "`<fp8>`"
	})
}

// rangeText prints a range as 1-based line:column (UTF-16 columns).
func rangeText(r protocol.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1)
}

func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("  | "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// splitArgs splits a script line into words; Go-quoted strings are one
// word, and a JSON object or array runs to the end of the line.
func splitArgs(line string) ([]string, error) {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		switch line[0] {
		case '"':
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, err
			}
			s, _ := strconv.Unquote(q)
			out = append(out, s)
			line = line[len(q):]
		case '{', '[':
			out = append(out, line)
			line = ""
		default:
			i := strings.IndexAny(line, " \t")
			if i < 0 {
				i = len(line)
			}
			out = append(out, line[:i])
			line = line[i:]
		}
	}
	return out, nil
}

// lineDiff shows want and got side by side where they differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
