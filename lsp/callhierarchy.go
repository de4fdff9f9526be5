package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// Call hierarchy is lineage in the client's own navigation UI (Neovim,
// Emacs, Helix and VS Code all have one): on a model, incoming calls are
// the models that ref it and outgoing calls its parents, from the
// project's DAG; on a column, incoming calls are the columns computed
// from it one model downstream and outgoing calls the parent columns it
// is computed from, from the check's column lineage.

// callData is what an item carries from prepare to the incoming and
// outgoing requests (CallHierarchyItem.data, kept by the client).
type callData struct {
	Model  string `json:"model"`
	Column string `json:"column,omitempty"`
}

func (s *Server) prepareCallHierarchy(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.CallHierarchyPrepareParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	if it, ok := callItemAt(d); ok {
		return []protocol.CallHierarchyItem{it}, nil
	}
	return nil, nil
}

func (s *Server) incomingCalls(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.CallHierarchyIncomingCallsParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	w, data, ok := s.callWorld(p.Item)
	if !ok {
		return nil, nil
	}
	return w.incomingCalls(data), nil
}

func (s *Server) outgoingCalls(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.CallHierarchyOutgoingCallsParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	w, data, ok := s.callWorld(p.Item)
	if !ok {
		return nil, nil
	}
	return w.outgoingCalls(data), nil
}

// callWorld finds the snapshot of an item's file and what the item names.
// A client that drops data still sends the name: a model item's name is
// the model.
func (s *Server) callWorld(it protocol.CallHierarchyItem) (*world, callData, bool) {
	d, ok := s.document(it.URI)
	if !ok {
		return nil, callData{}, false
	}
	var data callData
	if it.Data != nil {
		b, _ := json.Marshal(it.Data)
		_ = json.Unmarshal(b, &data)
	}
	if data.Model == "" && it.Kind == protocol.SymbolKindModule {
		data.Model = it.Name
	}
	if data.Model == "" || d.w.model(data.Model) == nil {
		return nil, callData{}, false
	}
	return d.w, data, true
}

// callItemAt is the item at the cursor: the model named there (its header
// name or a @ref), else the model column there (a declared column, an
// output name, or a reference to a parent's column).
func callItemAt(d *docPos) (protocol.CallHierarchyItem, bool) {
	m, w := d.f.model, d.w
	if m == nil || w.snap.proj == nil {
		return protocol.CallHierarchyItem{}, false
	}
	if name, _, _, ok := modelNameAt(m, d.off); ok {
		return w.modelItem(name)
	}
	if model, column, _, ok := columnAt(d); ok {
		return w.columnItem(model, column)
	}
	return protocol.CallHierarchyItem{}, false
}

// modelItem is a model's item: its header, with its name selected.
func (w *world) modelItem(name string) (protocol.CallHierarchyItem, bool) {
	m := w.model(name)
	if m == nil {
		return protocol.CallHierarchyItem{}, false
	}
	sel := w.location(m.File, m.NameRange.Start.Offset, m.NameRange.End.Offset)
	full := sel
	if m.Header.End.Offset > m.Header.Start.Offset {
		full = w.location(m.File, m.Header.Start.Offset, m.Header.End.Offset)
	}
	return protocol.CallHierarchyItem{
		Name:           m.Name,
		Kind:           protocol.SymbolKindModule,
		Detail:         string(m.Kind.Name),
		URI:            sel.URI,
		Range:          full.Range,
		SelectionRange: sel.Range,
		Data:           callData{Model: m.Name},
	}, true
}

// columnItem is a model column's item, at the projection or declared
// column that defines it (the model's name when neither is found).
func (w *world) columnItem(model, column string) (protocol.CallHierarchyItem, bool) {
	m := w.model(model)
	if m == nil {
		return protocol.CallHierarchyItem{}, false
	}
	loc, ok := w.columnDefinition(m.File, &sqlread.Source{Model: model}, column, 0)
	if !ok {
		loc = w.location(m.File, m.NameRange.Start.Offset, m.NameRange.End.Offset)
	}
	return protocol.CallHierarchyItem{
		Name:           w.shownColumn(modelColumn{Model: model, Column: column}),
		Kind:           protocol.SymbolKindField,
		Detail:         string(m.Kind.Name),
		URI:            loc.URI,
		Range:          loc.Range,
		SelectionRange: loc.Range,
		Data:           callData{Model: model, Column: column},
	}, true
}

// refRanges are the spans of a model file's @ref(name) calls.
func (w *world) refRanges(m *project.Model, name string) []protocol.Range {
	out := []protocol.Range{}
	for _, mc := range m.Macros {
		if mc.Kind == project.MacroRef && mc.Arg == name {
			out = append(out, w.location(m.File, mc.ArgStart, mc.ArgEnd).Range)
		}
	}
	return out
}

// incomingCalls are a model's dependants (each with the @refs that name
// it), or the columns one model downstream computed from a column.
func (w *world) incomingCalls(c callData) []protocol.CallHierarchyIncomingCall {
	out := []protocol.CallHierarchyIncomingCall{}
	if w.snap.proj == nil {
		return out
	}
	children := w.snap.proj.Children[c.Model]
	if c.Column == "" {
		for _, child := range children {
			cm := w.model(child)
			it, ok := w.modelItem(child)
			if cm == nil || !ok {
				continue
			}
			out = append(out, protocol.CallHierarchyIncomingCall{From: it, FromRanges: w.refRanges(cm, c.Model)})
		}
		return out
	}
	for _, child := range children {
		for _, col := range w.columns(child) {
			reads := slices.ContainsFunc(w.directSources(child, col.Name), func(s modelColumn) bool {
				return s.Model == c.Model && sqlscan.SameName(s.Column, c.Column)
			})
			if !reads {
				continue
			}
			if it, ok := w.columnItem(child, col.Name); ok {
				out = append(out, protocol.CallHierarchyIncomingCall{From: it, FromRanges: []protocol.Range{it.SelectionRange}})
			}
		}
	}
	return out
}

// outgoingCalls are a model's parents (with the @refs naming each), or
// the parent columns a column is computed from.
func (w *world) outgoingCalls(c callData) []protocol.CallHierarchyOutgoingCall {
	out := []protocol.CallHierarchyOutgoingCall{}
	m := w.model(c.Model)
	if m == nil {
		return out
	}
	if c.Column == "" {
		for _, parent := range m.Refs() {
			if it, ok := w.modelItem(parent); ok {
				out = append(out, protocol.CallHierarchyOutgoingCall{To: it, FromRanges: w.refRanges(m, parent)})
			}
		}
		return out
	}
	self, ok := w.columnItem(c.Model, c.Column)
	if !ok {
		return out
	}
	seen := map[modelColumn]bool{}
	for _, src := range w.directSources(c.Model, c.Column) {
		key := modelColumn{Model: src.Model, Column: sqlscan.FoldName(src.Column)}
		if seen[key] {
			continue
		}
		seen[key] = true
		if it, ok := w.columnItem(src.Model, src.Column); ok {
			out = append(out, protocol.CallHierarchyOutgoingCall{To: it, FromRanges: []protocol.Range{self.SelectionRange}})
		}
	}
	return out
}
