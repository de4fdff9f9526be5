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
)

func (s *Server) prepareRename(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.PrepareRenameParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok || d.f.model == nil {
		return nil, nil
	}
	name, start, end, ok := modelNameAt(d.f.model, d.off)
	if !ok || d.w.model(name) == nil {
		return nil, nil
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
	if !ok || d.f.model == nil {
		return nil, nil
	}
	edit, err := renameModel(d, p.NewName)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return edit, nil
}

// renameModel is the rename feature: the model named at d.off gets a new
// name in its header and in every @ref across the project, as one edit.
func renameModel(d *docPos, newName string) (*protocol.WorkspaceEdit, error) {
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
		return &protocol.WorkspaceEdit{}, nil
	}
	if w.model(newName) != nil {
		return nil, fmt.Errorf("a model named %s already exists", newName)
	}
	changes := map[protocol.DocumentURI][]protocol.TextEdit{}
	add := func(rel string, start, end int) {
		f := w.snap.files[rel]
		uri := w.snap.uri(rel)
		changes[uri] = append(changes[uri], protocol.TextEdit{Range: f.Mapper().Range(start, end), NewText: newName})
	}
	add(target.File, target.NameRange.Start.Offset, target.NameRange.End.Offset)
	for _, rel := range slices.Sorted(maps.Keys(w.snap.files)) {
		f := w.snap.files[rel]
		if f.model == nil {
			continue
		}
		for _, mc := range f.model.Macros {
			if mc.Kind == project.MacroRef && mc.Arg == old {
				add(rel, mc.ArgStart, mc.ArgEnd)
			}
		}
	}
	return &protocol.WorkspaceEdit{Changes: changes}, nil
}

// validModelName checks a new model name: schema.table, lower case.
func validModelName(name string) error {
	parts := strings.Split(strings.ToLower(name), ".")
	if len(parts) != 2 || !project.ValidNamePart(parts[0]) || !project.ValidNamePart(parts[1]) {
		return fmt.Errorf("invalid model name %q: use schema.table, each part a letter then letters, digits and _", name)
	}
	return nil
}
