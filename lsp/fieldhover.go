package lsp

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/sqlscan"
)

// fieldHover describes a struct field read by path (s.f, p.s.f, p.s.a.b,
// s['f'], c.s.f where c is a CTE or subquery that passes the struct
// column s through): its type from the struct column's, and where the
// field's value comes from (the value a parent built the struct from, see
// analysis.FieldSources). "" when path is not a field of a struct column
// a model in scope yields.
func fieldHover(w *world, scope *query, path []string) string {
	if len(path) < 2 {
		return ""
	}
	var src *source
	col, fields := path[0], path[1:]
	if s := scope.sourceByAlias(path[0]); s != nil && len(path) >= 3 {
		src, col, fields = s, path[1], path[2:]
	} else {
		src, _ = w.resolveRef(scope, colRef{name: col})
	}
	if src == nil {
		return ""
	}
	// The model column behind the source's column: itself for a model,
	// through the CTEs and subqueries that pass it on whole.
	mc := modelColumn{Model: src.model, Column: col}
	if src.model == "" {
		ups := w.through(src, col, 0)
		if len(ups) != 1 || ups[0].Field != "" {
			return ""
		}
		mc = ups[0]
	}
	typ := w.columnType(mc.Model, mc.Column)
	for _, f := range fields {
		t, ok := engine.StructFieldType(typ, f)
		if !ok {
			return ""
		}
		typ = t
	}
	shown := make([]string, 0, len(fields)+1)
	shown = append(shown, columnName(col))
	for _, f := range fields {
		shown = append(shown, columnName(f))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s` · field of the struct column %s.%s", strings.Join(shown, "."), typ, mc.Model, columnName(mc.Column))
	self := modelColumn{Model: mc.Model, Column: mc.Column, Field: fields[0]}
	if w.res == nil || w.res.analysis == nil {
		return b.String()
	}
	var from []modelColumn
	for _, r := range analysis.FieldSources(w.res.analysis, mc.Model, mc.Column, fields[0]) {
		from = appendUnique(from, modelColumn{Model: r.Model, Column: r.Column, Field: r.Field})
	}
	switch {
	case len(from) > 0 && len(fields) > 1:
		// Lineage follows a struct's top-level fields: a nested field
		// comes from what its top-level field is built from.
		fmt.Fprintf(&b, "\n\n%s is built from: ", columnName(fields[0]))
		parts := make([]string, len(from))
		for i, f := range from {
			parts[i] = w.shownColumn(f)
		}
		b.WriteString(strings.Join(parts, ", "))
	case len(from) > 0:
		b.WriteString(lineageList(w, from))
	default:
		if raw := w.rawSources(self); len(raw) > 0 && !(len(raw) == 1 && raw[0] == self) {
			b.WriteString("\n\nraw sources: " + columnsText(raw))
		}
	}
	return b.String()
}

// bracketFieldAt finds a struct field read with a string at off (s['f'],
// p.s['f']): the scope of the reference before the bracket, the field's
// path, and the string's span.
func bracketFieldAt(src []byte, q *query, off int) (scope *query, path []string, start, end int, ok bool) {
	toks := sqlscan.Tokens(src, q.start)
	for i, t := range toks {
		if t.Start > off {
			break
		}
		if t.Kind != sqlscan.String || off > t.End || i < 1 || i+1 >= len(toks) ||
			toks[i-1].Text(src) != "[" || toks[i+1].Text(src) != "]" {
			continue
		}
		open := toks[i-1].Start
		walkQueries(q, func(s *query) {
			if ok {
				return
			}
			refs := s.refs
			for _, it := range s.items {
				refs = append(refs[:len(refs):len(refs)], it.refs...)
			}
			for _, r := range refs {
				if r.end == open && len(r.path) > 0 {
					scope, path, ok = s, append(append([]string(nil), r.path...), sqlscan.FoldName(t.Value(src))), true
					return
				}
			}
		})
		return scope, path, t.Start, t.End, ok
	}
	return nil, nil, 0, 0, false
}

// cteOf names the CTE of the top-level query top whose body is scope: ""
// for top itself; ok is false for any other scope (a subquery).
func cteOf(top, scope *query) (name string, ok bool) {
	if scope == top {
		return "", true
	}
	for _, c := range top.ctes {
		if c.q == scope {
			return c.name, true
		}
	}
	return "", false
}
