package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

func (s *Server) definition(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DefinitionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	if loc, ok := definitionAt(d); ok {
		return []protocol.Location{loc}, nil
	}
	return nil, nil
}

// definitionAt is the definition feature: a ref goes to the model's
// header, a column to where its parent defines it (the select item that
// produces it, across `*`, else the declared column), an alias to where
// it is bound.
func definitionAt(d *docPos) (protocol.Location, bool) {
	m, w := d.f.model, d.w
	if loc, ok := macroDefinitionAt(d); ok {
		return loc, true
	}
	if m == nil {
		return protocol.Location{}, false
	}
	if mc, ok := refMacroAt(m, d.off); ok {
		if t := w.model(mc.Arg); t != nil {
			return w.location(t.File, t.NameRange.Start.Offset, t.NameRange.End.Offset), true
		}
		return protocol.Location{}, false
	}
	q := d.f.query()
	if q == nil || inHeader(m, d.off) {
		return protocol.Location{}, false
	}
	if scope, ref, onQual, ok := refAt(q, d.off); ok {
		src, name := w.resolveRef(scope, ref)
		if src == nil {
			return protocol.Location{}, false
		}
		if onQual {
			return sourceDefinition(w, d.rel, src), true
		}
		return w.columnDefinition(d.rel, src, name, 0)
	}
	if src, _, _ := sourceAt(q, d.off); src != nil {
		if src.CTE != nil {
			return w.location(d.rel, src.CTE.NameStart, src.CTE.NameEnd), true
		}
		if src.Model != "" {
			if t := w.model(src.Model); t != nil {
				return w.location(t.File, t.NameRange.Start.Offset, t.NameRange.End.Offset), true
			}
		}
	}
	if scope, it := itemAt(q, d.off); it != nil && it.Plain && len(it.Refs) == 1 {
		if src, name := w.resolveRef(scope, it.Refs[0]); src != nil {
			return w.columnDefinition(d.rel, src, name, 0)
		}
	}
	return protocol.Location{}, false
}

// sourceDefinition locates where an alias is bound: its alias, or the CTE
// an unaliased name reads.
func sourceDefinition(w *world, rel string, src *sqlread.Source) protocol.Location {
	switch {
	case src.AliasEnd > src.AliasStart:
		return w.location(rel, src.AliasStart, src.AliasEnd)
	case src.CTE != nil:
		return w.location(rel, src.CTE.NameStart, src.CTE.NameEnd)
	}
	return w.location(rel, src.Start, src.End)
}

// columnDefinition locates column name of a source: in the parent model's
// file for a ref (the projection that produces it, through `*` chains
// into the grandparents; the declared column when no projection names
// it), in this file (rel) for a CTE or subquery.
func (w *world) columnDefinition(rel string, src *sqlread.Source, name string, depth int) (protocol.Location, bool) {
	if depth > maxDepth {
		return protocol.Location{}, false
	}
	var q *sqlread.Query
	switch {
	case src.Model != "":
		t := w.model(src.Model)
		if t == nil {
			return protocol.Location{}, false
		}
		rel, q = t.File, w.snap.files[t.File].query()
		// A model without a body (EXTERNAL, SEED) or whose body does not
		// name the column defines it in its `columns`.
		var it *sqlread.SelectItem
		var starSrc *sqlread.Source
		if q != nil {
			it, starSrc = w.outputItem(q, name, depth)
		}
		if starSrc == nil && (it == nil || it.NameEnd <= it.NameStart) {
			if start, end, ok := declaredColumnName(w, t.File, name); ok {
				return w.location(t.File, start, end), true
			}
		}
	case src.CTE != nil:
		q = src.CTE.Query
	case src.Sub != nil:
		q = src.Sub
	}
	if q == nil {
		return protocol.Location{}, false
	}
	it, starSrc := w.outputItem(q, name, depth)
	switch {
	case starSrc != nil:
		return w.columnDefinition(rel, starSrc, name, depth+1)
	case it != nil && it.NameEnd > it.NameStart:
		return w.location(rel, it.NameStart, it.NameEnd), true
	}
	return protocol.Location{}, false
}

// declaredColumnName returns the span of a declared column's name in a
// model's `columns (...)`.
func declaredColumnName(w *world, rel, name string) (int, int, bool) {
	f := w.snap.files[rel]
	if f == nil || f.model == nil {
		return 0, 0, false
	}
	for _, c := range f.model.Columns {
		if sqlscan.SameName(c.Name, name) {
			toks := sqlread.Scan(f.src, c.Range.Start.Offset, c.Range.End.Offset)
			if len(toks) > 0 {
				return toks[0].Start, toks[0].End, true
			}
			return c.Range.Start.Offset, c.Range.End.Offset, true
		}
	}
	return 0, 0, false
}
