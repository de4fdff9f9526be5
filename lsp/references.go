package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/sqlscan"
)

func (s *Server) references(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.ReferenceParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	return referencesAt(d, p.Context.IncludeDeclaration), nil
}

// referencesAt is the references feature: on a model name, every place
// the project names it; on a column of a model, every use of it
// downstream (columnImpact: models, audits and unit tests, through `*`
// chains and bare pass-throughs).
func referencesAt(d *docPos, includeDecl bool) []protocol.Location {
	m, w := d.f.model, d.w
	if locs, ok := macroReferences(d, includeDecl); ok {
		return locs
	}
	if m == nil || w.snap.proj == nil {
		return nil
	}
	if name, _, _, ok := modelNameAt(m, d.off); ok {
		return modelReferences(w, name, includeDecl)
	}
	model, column, decl, ok := columnAt(d)
	if !ok {
		return nil
	}
	var out []protocol.Location
	if includeDecl && decl != nil {
		out = append(out, *decl)
	}
	// A column passed on by `*` is its defining model's: its uses are
	// the same wherever the search starts.
	model = w.definingModel(model, column)
	for _, sp := range sortedSpans(w.columnImpact(model, column, "").spans) {
		l := w.location(sp.rel, sp.start, sp.end)
		if decl == nil || l != *decl {
			out = append(out, l)
		}
	}
	return out
}

// modelReferences lists every place the project names a model.
func modelReferences(w *world, name string, includeDecl bool) []protocol.Location {
	var out []protocol.Location
	if t := w.model(name); t != nil && includeDecl {
		out = append(out, w.location(t.File, t.NameRange.Start.Offset, t.NameRange.End.Offset))
	}
	for _, sp := range modelSpans(w, name) {
		out = append(out, w.location(sp.rel, sp.start, sp.end))
	}
	return out
}

// columnAt names the model column at d.off: a declared column, an output
// name of the body, or a reference to a parent's column. decl locates its
// definition when known.
func columnAt(d *docPos) (model, column string, decl *protocol.Location, ok bool) {
	m, w := d.f.model, d.w
	for _, c := range m.Columns {
		if d.off >= c.Range.Start.Offset && d.off <= c.Range.End.Offset {
			col := sqlscan.FoldName(c.Name)
			if s, e, found := declaredColumnName(w, d.rel, col); found {
				l := w.location(d.rel, s, e)
				decl = &l
			}
			return m.Name, col, decl, true
		}
	}
	q := d.f.query()
	if q == nil || inHeader(m, d.off) {
		return "", "", nil, false
	}
	if scope, ref, onQual, found := refAt(q, d.off); found && !onQual {
		// A reference to a relation that is not a model (VALUES, a table
		// function) names no model's column; on a select item of the
		// model's own SELECT it still names the model's output column.
		if src, name := w.resolveRef(scope, ref); src != nil && src.Model != "" {
			if l, found := w.columnDefinition(d.rel, src, name, 0); found {
				decl = &l
			}
			return src.Model, name, decl, true
		}
	}
	if scope, it := itemAt(q, d.off); it != nil && scope == q {
		l := w.location(d.rel, it.NameStart, it.NameEnd)
		return m.Name, it.Name, &l, true
	}
	return "", "", nil, false
}
