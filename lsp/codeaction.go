package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
	"github.com/efmesh/efmesh/workspace"
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
	// Source actions only when asked for: a client that lists quick fixes
	// (no only, or only quickfix) would show them in every fix menu.
	var source []protocol.CodeAction
	if wantsSource(p.Context.Only) {
		source = sourceActions(d, s.environment())
	}
	if onlySource(p.Context.Only) {
		// No fix is asked for: answer without waiting for a check.
		return onlyKinds(source, p.Context.Only), nil
	}
	wctx, cancel := context.WithTimeout(ctx, awaitTimeout)
	defer cancel()
	res := d.v.await(wctx, d.w.snap.seq)
	if res == nil {
		return onlyKinds(source, p.Context.Only), nil
	}
	// Fixes are byte edits of the text that was checked: offer them only
	// when that is the text the client has.
	f := res.snap.file(d.rel)
	if f == nil || !bytes.Equal(f.src, d.f.src) {
		return onlyKinds(source, p.Context.Only), nil
	}
	start, end := f.Mapper().Offsets(p.Range)
	w := &world{snap: res.snap, res: res}
	out := codeActions(w, d.rel, start, end)
	if a, ok := s.externalColumnsAction(wctx, d.v, w, f.model, start); ok {
		out = append(out, a)
	}
	return onlyKinds(append(out, source...), p.Context.Only), nil
}

// externalColumnsAction offers, in the header of an EXTERNAL model whose
// columns are missing or differ from what the engine infers for its
// source, to write the inferred ones: what `efmesh create-external` writes
// (workspace.CreateExternal, not writing: the client applies the edit). It
// runs on the checker's workbench, so only in the header, where the user
// asks for it, not at every cursor move in a body.
func (s *Server) externalColumnsAction(ctx context.Context, v *view, w *world, m *project.Model, at int) (protocol.CodeAction, bool) {
	if m == nil || m.Kind.Name != project.KindExternal || !inHeader(m, at) || w.res.analysis == nil || w.res.analysis.Models[m.Name] == nil {
		return protocol.CodeAction{}, false
	}
	var cols []workspace.ExternalColumns
	err := v.ck.do(ctx, func(wb analysis.Workbench) error {
		var err error
		cols, err = workspace.New(w.res.analysis, wb, s.workspaceOptions()).CreateExternal(ctx, []string{m.Name}, true)
		return err
	})
	if err != nil || len(cols) != 1 || !cols[0].Changed {
		// A source that is not there is the plan's diagnostic already.
		return protocol.CodeAction{}, false
	}
	title := "Write inferred columns"
	if m.Columns != nil {
		title = "Write inferred columns (the declared ones differ from the source)"
	}
	edit := project.TextEdit{File: m.File, Start: m.Header.Start.Offset, End: m.Header.End.Offset, NewText: cols[0].Header}
	return protocol.CodeAction{Title: title, Kind: protocol.QuickFix, Edit: w.workspaceEdit([]project.TextEdit{edit})}, true
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

// columnName spells a column name for the header and hovers: quoted
// unless plain lower case and not a keyword (sqlscan.WriteIdent), so a
// quoted name keeps its case ("Käufer", "MixedCase") on every engine.
func columnName(n string) string { return sqlscan.WriteIdent(n) }

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
