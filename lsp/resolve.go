package lsp

import (
	"slices"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
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
	relTypes func(scope *sqlread.Query, s *sqlread.Source) []engine.Column
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
func (w *world) sourceColumns(s *sqlread.Source, depth int) ([]string, bool) {
	if s == nil || depth > maxDepth {
		return nil, false
	}
	switch {
	case len(s.ColAliases) > 0:
		return s.ColAliases, true
	case s.Model != "":
		cols := w.columns(s.Model)
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = sqlscan.FoldName(c.Name)
		}
		return names, cols != nil
	case s.CTE != nil:
		return w.outputs(s.CTE.Query, depth+1)
	case s.Sub != nil:
		return w.outputs(s.Sub, depth+1)
	}
	return nil, false
}

// outputs returns the output column names of a query, expanding stars.
func (w *world) outputs(q *sqlread.Query, depth int) ([]string, bool) {
	if q == nil || depth > maxDepth {
		return nil, false
	}
	var out []string
	known := true
	for _, it := range q.Items {
		if !it.Star {
			if it.Name != "" {
				out = append(out, it.Name)
			}
			continue
		}
		for _, s := range q.Sources {
			if it.StarQual != "" && s.Alias != it.StarQual {
				continue
			}
			cols, ok := w.sourceColumns(s, depth+1)
			known = known && ok
			for _, c := range cols {
				if !slices.Contains(it.Exclude, c) {
					out = append(out, c)
				}
			}
		}
	}
	return out, known
}

// resolveRef finds the source a column reference reads in scope q, and
// the column's name there.
func (w *world) resolveRef(q *sqlread.Query, r sqlread.ColRef) (*sqlread.Source, string) {
	if r.Qual != "" {
		return q.SourceByAlias(r.Qual), r.Name
	}
	for s := q; s != nil; s = s.Parent {
		for _, src := range s.Sources {
			if cols, ok := w.sourceColumns(src, 0); ok && slices.Contains(cols, r.Name) {
				return src, r.Name
			}
		}
	}
	if len(q.Sources) == 1 {
		return q.Sources[0], r.Name
	}
	return nil, r.Name
}

// outputItem finds the item of q that produces column col: a named item,
// or a star together with the source it takes col from.
func (w *world) outputItem(q *sqlread.Query, col string, depth int) (*sqlread.SelectItem, *sqlread.Source) {
	for _, it := range q.Items {
		if !it.Star && it.Name == col {
			return it, nil
		}
	}
	for _, it := range q.Items {
		if !it.Star || slices.Contains(it.Exclude, col) {
			continue
		}
		for _, s := range q.Sources {
			if it.StarQual != "" && s.Alias != it.StarQual {
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
func (w *world) upstream(q *sqlread.Query, col string, depth int) []modelColumn {
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
	for _, r := range it.Refs {
		src, name := w.resolveRef(q, r)
		out = appendUnique(out, w.through(src, name, depth+1)...)
	}
	return out
}

// through follows column col of a source to the model columns behind it.
func (w *world) through(s *sqlread.Source, col string, depth int) []modelColumn {
	switch {
	case s == nil || depth > maxDepth:
		return nil
	case s.Model != "":
		return []modelColumn{{Model: s.Model, Column: col}}
	case s.CTE != nil:
		return w.upstream(s.CTE.Query, col, depth+1)
	case s.Sub != nil:
		return w.upstream(s.Sub, col, depth+1)
	}
	return nil
}

// refType returns the type of a column reference when it can be told: the
// parent model's column type, looked up through plain pass-through items
// of CTEs and subqueries.
func (w *world) refType(q *sqlread.Query, r sqlread.ColRef, depth int) string {
	src, name := w.resolveRef(q, r)
	return w.sourceType(src, name, depth)
}

func (w *world) sourceType(s *sqlread.Source, col string, depth int) string {
	if s == nil || depth > maxDepth {
		return ""
	}
	if s.Model != "" {
		return w.columnType(s.Model, col)
	}
	var sub *sqlread.Query
	switch {
	case s.CTE != nil:
		sub = s.CTE.Query
	case s.Sub != nil:
		sub = s.Sub
	default:
		return ""
	}
	it, starSrc := w.outputItem(sub, col, depth)
	if starSrc != nil {
		return w.sourceType(starSrc, col, depth+1)
	}
	if it != nil && it.Plain && len(it.Refs) == 1 {
		return w.refType(sub, it.Refs[0], depth+1)
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

// refAt finds the column reference at off in the body: the scope it is
// in, the reference, and whether off is on its qualifier.
func refAt(q *sqlread.Query, off int) (scope *sqlread.Query, ref sqlread.ColRef, onQual bool, ok bool) {
	sqlread.Walk(q, func(s *sqlread.Query) {
		if ok {
			return
		}
		refs := slices.Clone(s.Refs)
		for _, it := range s.Items {
			refs = append(refs, it.Refs...)
		}
		for _, r := range refs {
			if off >= r.Start && off <= r.End {
				scope, ref, ok = s, r, true
				return
			}
			if r.Qual != "" && off >= r.QualStart && off <= r.QualEnd {
				scope, ref, onQual, ok = s, r, true, true
				return
			}
		}
	})
	return
}

// itemAt finds the select item whose output name is written at off.
func itemAt(q *sqlread.Query, off int) (scope *sqlread.Query, it *sqlread.SelectItem) {
	sqlread.Walk(q, func(s *sqlread.Query) {
		if it != nil {
			return
		}
		for _, i := range s.Items {
			if i.Name != "" && i.NameEnd > i.NameStart && off >= i.NameStart && off <= i.NameEnd {
				scope, it = s, i
				return
			}
		}
	})
	return
}

// sourceAt finds the FROM source whose alias or relation name is written
// at off, and that span.
func sourceAt(q *sqlread.Query, off int) (src *sqlread.Source, start, end int) {
	sqlread.Walk(q, func(s *sqlread.Query) {
		for _, x := range s.Sources {
			switch {
			case src != nil:
			case x.AliasEnd > x.AliasStart && off >= x.AliasStart && off <= x.AliasEnd:
				src, start, end = x, x.AliasStart, x.AliasEnd
			case x.NameEnd > x.NameStart && off >= x.NameStart && off <= x.NameEnd:
				src, start, end = x, x.NameStart, x.NameEnd
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
