package lsp

import (
	"slices"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// world answers semantic questions about a snapshot: positions and text
// come from the snapshot (what the user sees now), column types from the
// latest check result (which may be one edit behind).
type world struct {
	snap *snapshot
	res  *checkResult
	// relTypes, when set, describes a CTE or subquery that scope reads in
	// the engine (withEngineTypes); deepType falls back to it.
	relTypes func(scope *query, s *source) []engine.Column
	// exprType, when set, is the type the engine gives an expression that
	// reads no relation ("" when it cannot tell).
	exprType func(expr string) string
}

// maxDepth bounds every walk through CTEs, subqueries and models.
const maxDepth = 32

// model returns the named model of the snapshot, or nil.
func (w *world) model(name string) *project.Model {
	if w.snap.proj == nil {
		return nil
	}
	return w.snap.proj.ByName[name]
}

// fileOf returns the snapshot file defining a model.
func (w *world) fileOf(name string) *file {
	if m := w.model(name); m != nil {
		return w.snap.files[m.File]
	}
	return nil
}

// columns returns a model's output columns with types: what the check
// found, else the declared ones.
func (w *world) columns(name string) []engine.Column {
	if info := w.res.info(name); info != nil && info.Columns != nil {
		return w.reported(info.Model, info.Columns)
	}
	if m := w.model(name); m != nil && m.Columns != nil {
		out := make([]engine.Column, len(m.Columns))
		for i, c := range m.Columns {
			out[i] = engine.Column{Name: c.Name, Type: c.Type}
		}
		return out
	}
	return nil
}

// reported is a declared model's columns with their types as the engine
// reports those of the table built with them (TEXT is VARCHAR in DuckDB):
// what a reader of the table gets. Inferred columns are the engine's
// already.
func (w *world) reported(m *project.Model, cols []engine.Column) []engine.Column {
	if m == nil || m.Columns == nil || w.res == nil || w.res.analysis == nil {
		return cols
	}
	sc, ok := w.res.analysis.Dialect().(engine.Scratch)
	if !ok {
		return cols
	}
	out := make([]engine.Column, len(cols))
	for i, c := range cols {
		out[i] = c
		// A nested type's field names keep their case and spaces: only
		// a scalar type (or a list of one) is named as reported.
		if t := strings.TrimRight(c.Type, "[]0123456789 "); !strings.ContainsAny(t, `"(`) || strings.HasPrefix(strings.ToUpper(t), "DECIMAL(") || strings.HasPrefix(strings.ToUpper(t), "NUMERIC(") {
			out[i].Type = sc.ReportedType(c.Type)
		}
	}
	return out
}

func (w *world) columnType(model, column string) string {
	for _, c := range w.columns(model) {
		if sqlscan.SameName(c.Name, column) {
			return c.Type
		}
	}
	return ""
}

// sourceColumns returns the output column names of a FROM source, and
// whether they are known.
func (w *world) sourceColumns(s *source, depth int) ([]string, bool) {
	if s == nil || depth > maxDepth {
		return nil, false
	}
	switch {
	case len(s.colAliases) > 0:
		return s.colAliases, true
	case s.model != "":
		cols := w.columns(s.model)
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = sqlscan.FoldName(c.Name)
		}
		return names, cols != nil
	case s.cte != nil:
		return w.outputs(s.cte.q, depth+1)
	case s.sub != nil:
		return w.outputs(s.sub, depth+1)
	}
	return nil, false
}

// outputs returns the output column names of a query, expanding stars.
func (w *world) outputs(q *query, depth int) ([]string, bool) {
	if q == nil || depth > maxDepth {
		return nil, false
	}
	var out []string
	known := true
	for _, it := range q.items {
		if !it.star {
			if it.name != "" {
				out = append(out, it.name)
			}
			continue
		}
		for _, s := range q.sources {
			if it.starQual != "" && s.alias != it.starQual {
				continue
			}
			cols, ok := w.sourceColumns(s, depth+1)
			known = known && ok
			for _, c := range cols {
				if !slices.Contains(it.exclude, c) {
					out = append(out, c)
				}
			}
		}
	}
	return out, known
}

// resolveRef finds the source a column reference reads in scope q, and
// the column's name there.
func (w *world) resolveRef(q *query, r colRef) (*source, string) {
	if r.qual != "" {
		return q.sourceByAlias(r.qual), r.name
	}
	for s := q; s != nil; s = s.parent {
		for _, src := range s.sources {
			if cols, ok := w.sourceColumns(src, 0); ok && slices.Contains(cols, r.name) {
				return src, r.name
			}
		}
	}
	if len(q.sources) == 1 {
		return q.sources[0], r.name
	}
	return nil, r.name
}

// outputItem finds the item of q that produces column col: a named item,
// or a star together with the source it takes col from.
func (w *world) outputItem(q *query, col string, depth int) (*selectItem, *source) {
	for _, it := range q.items {
		if !it.star && it.name == col {
			return it, nil
		}
	}
	for _, it := range q.items {
		if !it.star || slices.Contains(it.exclude, col) {
			continue
		}
		for _, s := range q.sources {
			if it.starQual != "" && s.alias != it.starQual {
				continue
			}
			if cols, ok := w.sourceColumns(s, depth+1); ok && slices.Contains(cols, col) {
				return it, s
			}
		}
	}
	return nil, nil
}

// modelColumn is a column of a model.
type modelColumn struct {
	Model  string `json:"model"`
	Column string `json:"column"`
	// Field is a struct field of the column; "" for the whole column.
	Field string `json:"field,omitempty"`
}

// upstream returns the model columns that q's output column col is
// computed from, looking through CTEs, subqueries and stars.
func (w *world) upstream(q *query, col string, depth int) []modelColumn {
	if q == nil || depth > maxDepth {
		return nil
	}
	it, starSrc := w.outputItem(q, col, depth)
	if starSrc != nil {
		return w.through(starSrc, col, depth+1)
	}
	if it == nil {
		return nil
	}
	var out []modelColumn
	for _, r := range it.refs {
		src, name := w.resolveRef(q, r)
		out = appendUnique(out, w.through(src, name, depth+1)...)
	}
	return out
}

// through follows column col of a source to the model columns behind it.
func (w *world) through(s *source, col string, depth int) []modelColumn {
	switch {
	case s == nil || depth > maxDepth:
		return nil
	case s.model != "":
		return []modelColumn{{Model: s.model, Column: col}}
	case s.cte != nil:
		return w.upstream(s.cte.q, col, depth+1)
	case s.sub != nil:
		return w.upstream(s.sub, col, depth+1)
	}
	return nil
}

// refType returns the type of a column reference when it can be told: the
// parent model's column type, looked up through plain pass-through items
// of CTEs and subqueries.
func (w *world) refType(q *query, r colRef, depth int) string {
	src, name := w.resolveRef(q, r)
	return w.sourceType(src, name, depth)
}

func (w *world) sourceType(s *source, col string, depth int) string {
	if s == nil || depth > maxDepth {
		return ""
	}
	if s.model != "" {
		return w.columnType(s.model, col)
	}
	var sub *query
	switch {
	case s.cte != nil:
		sub = s.cte.q
	case s.sub != nil:
		sub = s.sub
	default:
		return ""
	}
	it, starSrc := w.outputItem(sub, col, depth)
	if starSrc != nil {
		return w.sourceType(starSrc, col, depth+1)
	}
	if it != nil && it.plain && len(it.refs) == 1 {
		return w.refType(sub, it.refs[0], depth+1)
	}
	return ""
}

func appendUnique(out []modelColumn, more ...modelColumn) []modelColumn {
	for _, m := range more {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// walkQueries calls f for q and every query nested in it.
func walkQueries(q *query, f func(*query)) {
	if q == nil {
		return
	}
	f(q)
	for _, s := range q.subs {
		walkQueries(s, f)
	}
	for _, b := range q.branches {
		walkQueries(b, f)
	}
}

// refAt finds the column reference at off in the body: the scope it is
// in, the reference, and whether off is on its qualifier.
func refAt(q *query, off int) (scope *query, ref colRef, onQual bool, ok bool) {
	walkQueries(q, func(s *query) {
		if ok {
			return
		}
		refs := slices.Clone(s.refs)
		for _, it := range s.items {
			refs = append(refs, it.refs...)
		}
		for _, r := range refs {
			if off >= r.start && off <= r.end {
				scope, ref, ok = s, r, true
				return
			}
			if r.qual != "" && off >= r.qualStart && off <= r.qualEnd {
				scope, ref, onQual, ok = s, r, true, true
				return
			}
		}
	})
	return
}

// itemAt finds the select item whose output name is written at off.
func itemAt(q *query, off int) (scope *query, it *selectItem) {
	walkQueries(q, func(s *query) {
		if it != nil {
			return
		}
		for _, i := range s.items {
			if i.name != "" && i.nameEnd > i.nameStart && off >= i.nameStart && off <= i.nameEnd {
				scope, it = s, i
				return
			}
		}
	})
	return
}

// sourceAt finds the FROM source whose alias or relation name is written
// at off, and that span.
func sourceAt(q *query, off int) (src *source, start, end int) {
	walkQueries(q, func(s *query) {
		for _, x := range s.sources {
			switch {
			case src != nil:
			case x.aliasEnd > x.aliasStart && off >= x.aliasStart && off <= x.aliasEnd:
				src, start, end = x, x.aliasStart, x.aliasEnd
			case x.nameEnd > x.nameStart && off >= x.nameStart && off <= x.nameEnd:
				src, start, end = x, x.nameStart, x.nameEnd
			}
		}
	})
	return
}

// refMacroAt returns the @ref macro whose model name (or whole call) holds
// off.
func refMacroAt(m *project.Model, off int) (project.Macro, bool) {
	return macroAt(m, project.MacroRef, off)
}

// macroAt returns the macro of kind k of m's source around off.
func macroAt(m *project.Model, k project.MacroKind, off int) (project.Macro, bool) {
	if m == nil {
		return project.Macro{}, false
	}
	for _, mc := range m.Macros {
		if mc.Kind == k && off >= mc.Start && off <= mc.End {
			return mc, true
		}
	}
	return project.Macro{}, false
}

// onHeaderName reports whether off is on the name in the MODEL header.
func onHeaderName(m *project.Model, off int) bool {
	return m != nil && m.Name != "" && off >= m.NameRange.Start.Offset && off <= m.NameRange.End.Offset &&
		m.NameRange.End.Offset > m.NameRange.Start.Offset
}

// inHeader reports whether off is inside the MODEL header.
func inHeader(m *project.Model, off int) bool {
	return m != nil && off >= m.Header.Start.Offset && off <= m.Header.End.Offset && m.Header.End.Offset > m.Header.Start.Offset
}

// modelNameAt returns the model named at off: the header's own name or a
// @ref argument.
func modelNameAt(m *project.Model, off int) (name string, start, end int, ok bool) {
	if onHeaderName(m, off) {
		return m.Name, m.NameRange.Start.Offset, m.NameRange.End.Offset, true
	}
	if mc, found := refMacroAt(m, off); found {
		return mc.Arg, mc.ArgStart, mc.ArgEnd, true
	}
	return "", 0, 0, false
}
