package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// awaitTimeout bounds how long a request waits for the check of the
// snapshot it is about.
const awaitTimeout = 5 * time.Second

func (s *Server) codeAction(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.document(p.TextDocument.URI)
	if !ok || d.f.model == nil {
		return nil, nil
	}
	wctx, cancel := context.WithTimeout(ctx, awaitTimeout)
	defer cancel()
	res := d.v.await(wctx, d.w.snap.seq)
	if res == nil {
		return nil, nil
	}
	// Fixes are byte edits of the text that was checked: offer them only
	// when that is the text the client has.
	f := res.snap.file(d.rel)
	if f == nil || !bytes.Equal(f.src, d.f.src) {
		return nil, nil
	}
	start, end := f.Mapper().Offsets(p.Range)
	return codeActions(&world{snap: res.snap, res: res}, d.rel, start, end), nil
}

// codeActions is the code action feature: the quick fixes of the
// diagnostics touching [start, end] of file rel, and the contract fix.
func codeActions(w *world, rel string, start, end int) []protocol.CodeAction {
	out := []protocol.CodeAction{}
	f := w.snap.file(rel)
	m := f.model
	var contract []protocol.Diagnostic
	for _, d := range w.res.diags {
		if d.File != rel || d.Range.Start.Offset > end || d.Range.End.Offset < start {
			continue
		}
		pd := protocolDiagnostic(f.Mapper(), d)
		for i, fix := range d.Fixes {
			out = append(out, protocol.CodeAction{
				Title:       fix.Title,
				Kind:        protocol.QuickFix,
				Diagnostics: []protocol.Diagnostic{pd},
				IsPreferred: i == 0,
				Edit:        w.workspaceEdit(fix.Edits),
			})
		}
		if d.Code == project.CodeContract {
			contract = append(contract, pd)
		}
	}
	if m == nil {
		return out
	}
	if len(contract) > 0 {
		if edit, ok := contractFix(w, m); ok {
			out = append(out, protocol.CodeAction{
				Title:       "Rewrite columns (…) from the query",
				Kind:        protocol.QuickFix,
				Diagnostics: contract,
				IsPreferred: true,
				Edit:        w.workspaceEdit([]project.TextEdit{edit}),
			})
		}
	} else if m.Columns == nil && inHeader(m, start) {
		if edit, ok := declareColumns(w, m); ok {
			out = append(out, protocol.CodeAction{
				Title: "Declare columns (…) from the query",
				Kind:  protocol.RefactorRewrite,
				Edit:  w.workspaceEdit([]project.TextEdit{edit}),
			})
		}
	}
	return out
}

// workspaceEdit converts project edits (byte offsets, per file) into an
// LSP edit.
func (w *world) workspaceEdit(edits []project.TextEdit) *protocol.WorkspaceEdit {
	changes := map[protocol.DocumentURI][]protocol.TextEdit{}
	for _, e := range edits {
		m := mapperFor(w.snap, e.File)
		uri := w.snap.uri(e.File)
		changes[uri] = append(changes[uri], protocol.TextEdit{Range: m.Range(e.Start, e.End), NewText: e.NewText})
	}
	return &protocol.WorkspaceEdit{Changes: changes}
}

// contractFix rewrites a model's `columns (...)` to what its query
// produces, in the query's order. A declared column whose type is of the
// inferred type's family keeps its spelling (INTEGER stays INTEGER when
// the engine says INT32); others take the engine's type.
func contractFix(w *world, m *project.Model) (project.TextEdit, bool) {
	prop, ok := m.Property("columns")
	info := w.res.info(m.Name)
	if !ok || info == nil || len(info.Inferred) == 0 {
		return project.TextEdit{}, false
	}
	cols := info.Inferred
	if len(cols) == 0 {
		return project.TextEdit{}, false
	}
	decl := map[string]project.Column{}
	for _, c := range m.Columns {
		decl[strings.ToLower(c.Name)] = c
	}
	entries := make([]string, len(cols))
	for i, c := range cols {
		name, typ := columnName(c.Name), c.Type
		if dc, ok := decl[strings.ToLower(c.Name)]; ok {
			if engine.Compatible(engine.TypeFamily(dc.Type), engine.TypeFamily(c.Type)) {
				name, typ = dc.Name, dc.Type
			}
		}
		entries[i] = name + " " + typ
	}
	start, end := prop.ValueRange.Start.Offset, prop.ValueRange.End.Offset
	return project.TextEdit{File: m.File, Start: start, End: end, NewText: columnList(m.Source, start, end, entries)}, true
}

// declareColumns adds `columns (...)` with the inferred schema to a model
// that declares none, as the last header property.
func declareColumns(w *world, m *project.Model) (project.TextEdit, bool) {
	info := w.res.info(m.Name)
	if info == nil || len(info.Columns) == 0 || !m.Kind.Name.HasBody() || len(m.Properties) == 0 {
		return project.TextEdit{}, false
	}
	entries := make([]string, len(info.Columns))
	for i, c := range info.Columns {
		entries[i] = columnName(c.Name) + " " + c.Type
	}
	last := m.Properties[len(m.Properties)-1]
	at := last.Range.End.Offset
	indent := lineIndent(m.Source, last.Range.Start.Offset)
	sep := ",\n" + indent
	if !bytes.Contains(m.Source[m.Header.Start.Offset:at], []byte("\n")) {
		sep = ", "
	}
	return project.TextEdit{File: m.File, Start: at, End: at, NewText: sep + "columns (" + strings.Join(entries, ", ") + ")"}, true
}

var plainName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// columnName spells a column name for the header and hovers: quoted
// unless plain and lower-case, so a quoted name keeps its case ("Käufer",
// "MixedCase") on every engine.
func columnName(n string) string {
	if plainName.MatchString(n) {
		return n
	}
	return engine.QuoteIdent(n)
}

// columnList formats entries like the list they replace at src[start:end]:
// one line when it was one line, else one entry per line with its
// indentation.
func columnList(src []byte, start, end int, entries []string) string {
	old := src[start:end]
	if !bytes.Contains(old, []byte("\n")) {
		return "(" + strings.Join(entries, ", ") + ")"
	}
	inner := "    "
	if i := bytes.IndexByte(old, '\n'); i >= 0 {
		rest := old[i+1:]
		j := 0
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		inner = string(rest[:j])
	}
	outer := lineIndent(src, start)
	return "(\n" + inner + strings.Join(entries, ",\n"+inner) + "\n" + outer + ")"
}

// lineIndent returns the leading whitespace of the line holding off.
func lineIndent(src []byte, off int) string {
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	j := ls
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return string(src[ls:j])
}
