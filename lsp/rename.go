package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

func (s *Server) prepareRename(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.PrepareRenameParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	if def, start, end, ok := macroNameAt(d); ok {
		return struct {
			Range       protocol.Range `json:"range"`
			Placeholder string         `json:"placeholder"`
		}{d.f.Mapper().Range(start, end), def.Name}, nil
	}
	if d.f.model == nil {
		return nil, nil
	}
	name, start, end, ok := modelNameAt(d.f.model, d.off)
	if !ok || d.w.model(name) == nil {
		if start, end, name, ok = columnPrepare(d); !ok {
			return nil, nil
		}
	}
	return struct {
		Range       protocol.Range `json:"range"`
		Placeholder string         `json:"placeholder"`
	}{d.f.Mapper().Range(start, end), name}, nil
}

func (s *Server) rename(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.RenameParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	if _, _, _, onMacro := macroNameAt(d); onMacro {
		edit, err := renameMacro(d, p.NewName)
		if err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
		return edit, nil
	}
	if d.f.model == nil {
		return nil, nil
	}
	if _, _, _, onModel := modelNameAt(d.f.model, d.off); !onModel {
		edit, err := renameColumn(d, p.NewName)
		if err != nil {
			return nil, jsonrpc2.NewError(requestFailed, err.Error())
		}
		return edit, nil
	}
	edit, err := renameModel(d, p.NewName)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	s.mu.Lock()
	renameFiles := s.client.renameFiles
	s.mu.Unlock()
	if renameFiles {
		moveModelFile(d, p.NewName, edit)
	}
	return edit, nil
}

// requestFailed is LSP's RequestFailed: the request was valid but cannot
// be carried out (a rename that would break the project).
const requestFailed jsonrpc2.Code = -32803

// renameModel is the rename feature: the model named at d.off gets a new
// name in its header and wherever the project names it (modelSpans), as
// one edit.
func renameModel(d *docPos, newName string) (*renameWorkspaceEdit, error) {
	w := d.w
	old, _, _, ok := modelNameAt(d.f.model, d.off)
	if !ok {
		return nil, fmt.Errorf("only a model name (in the MODEL header or in @ref) can be renamed here")
	}
	target := w.model(old)
	if target == nil {
		return nil, fmt.Errorf("unknown model %q", old)
	}
	// Model names are case-insensitive and kept in lower case.
	typed := strings.TrimSpace(newName)
	newName = strings.ToLower(typed)
	if err := validModelName(typed); err != nil {
		return nil, err
	}
	if newName == old {
		return &renameWorkspaceEdit{}, nil
	}
	if w.model(newName) != nil {
		return nil, fmt.Errorf("a model named %s already exists", newName)
	}
	spans := append([]nameSpan{{rel: target.File, start: target.NameRange.Start.Offset, end: target.NameRange.End.Offset}}, modelSpans(w, old)...)
	spans = append(spans, implicitAliasSpans(w, old, newName)...)
	return w.annotatedEdit(spans, newName, fmt.Sprintf("Rename model %s to %s", old, newName)), nil
}

// modelSpans lists where the project names a model outside its header:
// @ref in model bodies and custom audits, and the `model:` and input keys
// of unit tests.
func modelSpans(w *world, name string) []nameSpan {
	var out []nameSpan
	for _, rel := range slices.Sorted(maps.Keys(w.snap.files)) {
		f := w.snap.files[rel]
		var macros []project.Macro
		switch {
		case f.model != nil:
			macros = f.model.Macros
		case f.audit != nil:
			macros = f.audit.Macros
		}
		for _, mc := range macros {
			if mc.Kind == project.MacroRef && mc.Arg == name {
				out = append(out, nameSpan{rel: rel, start: mc.ArgStart, end: mc.ArgEnd, use: true})
			}
		}
		for _, t := range f.tests {
			if t.Model == name {
				s, e := unquoted(f.src, t.ModelRange.Start.Offset, t.ModelRange.End.Offset)
				out = append(out, nameSpan{rel: rel, start: s, end: e, use: true})
			}
			for _, in := range t.Inputs {
				if in.Model == name {
					s, e := unquoted(f.src, in.Range.Start.Offset, in.Range.End.Offset)
					out = append(out, nameSpan{rel: rel, start: s, end: e, use: true})
				}
			}
		}
	}
	return out
}

// implicitAliasSpans keeps the qualifiers that name a renamed model by
// its table name valid: an @ref without an alias is rendered with its
// table name as an implicit alias (SELECT people.pid FROM
// @ref(raw.people)), so where a body uses that name as a qualifier the
// rename writes it as an explicit alias after the @ref. Nothing is
// added when the table part of the name does not change.
func implicitAliasSpans(w *world, old, newName string) []nameSpan {
	alias := old[strings.LastIndexByte(old, '.')+1:]
	if alias == newName[strings.LastIndexByte(newName, '.')+1:] {
		return nil
	}
	var out []nameSpan
	for _, rel := range slices.Sorted(maps.Keys(w.snap.files)) {
		f := w.snap.files[rel]
		var macros []project.Macro
		var src []byte
		body := 0
		switch {
		case f.model != nil:
			macros, src, body = f.model.Macros, f.model.Source, f.model.BodyStart
		case f.audit != nil:
			macros, src, body = f.audit.Macros, f.audit.Source, f.audit.BodyStart
		default:
			continue
		}
		var refs []project.Macro
		for _, mc := range macros {
			if mc.Kind == project.MacroRef && mc.Arg == old && !mc.Aliased {
				refs = append(refs, mc)
			}
		}
		if len(refs) == 0 || !qualifies(src, body, alias) {
			continue
		}
		for _, mc := range refs {
			out = append(out, nameSpan{rel: rel, start: mc.End, end: mc.End, text: " AS " + sqlIdent(alias)})
		}
	}
	return out
}

// qualifies reports whether a SQL body uses name as a qualifier (name.x).
func qualifies(src []byte, from int, name string) bool {
	toks := sqlread.Scan(src, from, len(src))
	for i, t := range toks {
		if t.IsIdent() && sqlscan.SameName(t.Val, name) && i+1 < len(toks) && toks[i+1].IsPunct(".") {
			return true
		}
	}
	return false
}

// validModelName checks a new model name: schema.table, lower case.
func validModelName(name string) error {
	parts := strings.Split(strings.ToLower(name), ".")
	if len(parts) != 2 || !project.ValidNamePart(parts[0]) || !project.ValidNamePart(parts[1]) {
		return fmt.Errorf("invalid model name %q: use schema.table, each part a letter then letters, digits and _", name)
	}
	return nil
}
