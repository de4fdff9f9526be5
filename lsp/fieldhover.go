package lsp

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// fieldHover describes a struct field read by path (s.f, p.s.f, p.s.a.b,
// s['f'], c.s.f where c is a CTE or subquery that passes the struct
// column s through, or builds it): its type from the struct column's, and
// where the field's value comes from (the value a parent built the struct
// from, see analysis.FieldSources; for a struct a CTE builds,
// analysis.ReferenceFieldSourcesIn). "" when path is not a field of a
// struct column in scope. m and top are the model and its query.
func fieldHover(w *world, m *project.Model, top, scope *sqlread.Query, path []string) string {
	return fieldHoverOf(w, m, top, scope, path, false)
}

// fieldHoverOf is fieldHover; paren marks a field read as (s).f, which
// names a field whether or not its type can be told: a Postgres composite
// type's fields are the server's to say (w.exprType).
func fieldHoverOf(w *world, m *project.Model, top, scope *sqlread.Query, path []string, paren bool) string {
	if len(path) < 2 {
		return ""
	}
	var src *sqlread.Source
	col, fields := path[0], path[1:]
	qual := ""
	if s := scope.SourceByAlias(path[0]); s != nil && len(path) >= 3 {
		src, col, fields, qual = s, path[1], path[2:], path[0]
	} else {
		src, _ = w.resolveRef(scope, sqlread.ColRef{Name: col})
	}
	if src == nil {
		return ""
	}
	// The model column behind the source's column: itself for a model,
	// through the CTEs and subqueries that pass it on whole.
	mc := modelColumn{Model: src.Model, Column: col}
	if src.Model == "" {
		ups := w.through(src, col, 0)
		if len(ups) != 1 || ups[0].Field != "" || w.staticType(m.Source, scope, sqlread.ColRef{Qual: qual, Name: col}, 0) == "" {
			// Not a struct passed on whole: one the CTE builds.
			return builtFieldHover(w, m, top, scope, qual, col, fields)
		}
		mc = ups[0]
	}
	base := w.columnType(mc.Model, mc.Column)
	typ, kind := base, "struct"
	for _, f := range fields {
		t, ok := engine.StructFieldType(typ, f)
		if !ok {
			// Not a struct type whose fields it writes: the engine may
			// know the type's fields (a composite type).
			typ, kind = "", "composite"
			if w.exprType != nil && base != "" {
				typ = w.exprType(fieldProbe(base, fields))
			}
			if typ == "" && !paren {
				return ""
			}
			break
		}
		typ = t
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", shownPath(col, base, fields))
	if typ != "" {
		fmt.Fprintf(&b, " `%s`", typ)
	}
	fmt.Fprintf(&b, " · field of the %s column %s.%s", kind, mc.Model, columnName(mc.Column))
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
func bracketFieldAt(src []byte, q *sqlread.Query, off int) (scope *sqlread.Query, path []string, start, end int, ok bool) {
	toks := sqlscan.Tokens(src, q.Start)
	for i, t := range toks {
		if t.Start > off {
			break
		}
		if t.Kind != sqlscan.String || off > t.End || i < 1 || i+1 >= len(toks) ||
			toks[i-1].Text(src) != "[" || toks[i+1].Text(src) != "]" {
			continue
		}
		open := toks[i-1].Start
		sqlread.Walk(q, func(s *sqlread.Query) {
			if ok {
				return
			}
			refs := s.Refs
			for _, it := range s.Items {
				refs = append(refs[:len(refs):len(refs)], it.Refs...)
			}
			for _, r := range refs {
				if r.End == open && len(r.Path) > 0 {
					scope, path, ok = s, append(append([]string(nil), r.Path...), sqlscan.FoldName(t.Value(src))), true
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
func cteOf(top, scope *sqlread.Query) (name string, ok bool) {
	if scope == top {
		return "", true
	}
	for _, c := range top.CTEs {
		if c.Query == scope {
			return c.Name, true
		}
	}
	return "", false
}

// builtFieldHover describes a field of a struct column that a CTE of the
// query builds (k.st.b where k's st is {'b': …}): where the field's value
// comes from, as efmesh lineage resolves it. "" when it cannot be told.
func builtFieldHover(w *world, m *project.Model, top, scope *sqlread.Query, qual, col string, fields []string) string {
	if m == nil || w.res == nil || w.res.analysis == nil {
		return ""
	}
	cteName, ok := cteOf(top, scope)
	if !ok {
		return ""
	}
	var from []modelColumn
	for _, r := range analysis.ReferenceFieldSourcesIn(w.res.analysis, m.Name, cteName, qual, col, fields[0]) {
		from = appendUnique(from, modelColumn{Model: r.Model, Column: r.Column, Field: r.Field})
	}
	// The field's type: the engine's type of the struct column (deepType
	// asks it to describe the CTE or subquery), read down the fields.
	base := w.deepType(m.Source, scope, sqlread.ColRef{Qual: qual, Name: col}, 0)
	typ := base
	for _, f := range fields {
		t, ok := engine.StructFieldType(typ, f)
		if !ok {
			typ = ""
			break
		}
		typ = t
	}
	if len(from) == 0 && typ == "" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", shownPath(col, base, fields))
	if typ != "" {
		fmt.Fprintf(&b, " `%s`", typ)
	}
	fmt.Fprintf(&b, " · field of the struct %s", columnName(col))
	if src, _ := w.resolveRef(scope, sqlread.ColRef{Qual: qual, Name: col}); src != nil && src.CTE != nil {
		fmt.Fprintf(&b, " built in CTE %s", src.CTE.Name)
	} else if src != nil && src.Sub != nil {
		b.WriteString(" built in a subquery")
	}
	switch {
	case len(from) == 0:
		// A field of constants: no column feeds it.
	case len(fields) > 1:
		fmt.Fprintf(&b, "\n\n%s is built from: ", columnName(fields[0]))
		parts := make([]string, len(from))
		for i, f := range from {
			parts[i] = w.shownColumn(f)
		}
		b.WriteString(strings.Join(parts, ", "))
	default:
		b.WriteString(lineageList(w, from))
	}
	return b.String()
}

// cteRefHover describes a column of a CTE or subquery read in the query or
// in a CTE's body: its type (followed through the CTEs' items, struct
// fields and unnests) and where it comes from, as efmesh lineage resolves
// it (analysis.ReferenceSourcesIn). "" when the analysis cannot tell.
func cteRefHover(w *world, m *project.Model, top, scope *sqlread.Query, ref sqlread.ColRef, src *sqlread.Source, name, shown string) string {
	if w.res == nil || w.res.analysis == nil || src == nil || src.CTE == nil && src.Sub == nil {
		return ""
	}
	cteName, ok := cteOf(top, scope)
	if !ok {
		return ""
	}
	var from []modelColumn
	for _, r := range analysis.ReferenceSourcesIn(w.res.analysis, m.Name, cteName, ref.Qual, name) {
		from = appendUnique(from, modelColumn{Model: r.Model, Column: r.Column, Field: r.Field})
	}
	if len(from) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", shown)
	if typ := w.deepType(m.Source, scope, ref, 0); typ != "" {
		fmt.Fprintf(&b, " `%s`", typ)
	}
	if src.CTE != nil {
		fmt.Fprintf(&b, " · column of CTE %s", src.CTE.Name)
	} else {
		b.WriteString(" · column of a subquery")
	}
	b.WriteString(lineageList(w, from))
	return b.String()
}

// deepType is the type of a column reference followed through the items
// of CTEs and subqueries that pass a column on, read a struct field of it
// (st.a AS sa) or unnest a list of it (unnest(tags) AS tg); past what
// those tell, the engine's description of the CTE or subquery, when w
// has one (withEngineTypes). text is the model's source. "" when it cannot
// be told.
func (w *world) deepType(text []byte, q *sqlread.Query, r sqlread.ColRef, depth int) string {
	t := w.staticType(text, q, r, depth)
	if t == "" && w.relTypes != nil && depth <= maxDepth {
		if s, name := w.resolveRef(q, r); s != nil {
			t = w.engineType(q, s, name)
		}
	}
	return t
}

// staticType is deepType as far as the parents' columns tell.
func (w *world) staticType(text []byte, q *sqlread.Query, r sqlread.ColRef, depth int) string {
	if depth > maxDepth {
		return ""
	}
	s, name := w.resolveRef(q, r)
	if s == nil {
		if len(r.Path) >= 2 {
			return w.fieldType(text, q, r.Path, depth+1)
		}
		return ""
	}
	if t := w.sourceType(s, name, depth); t != "" {
		return t
	}
	body := s.Sub
	if s.CTE != nil {
		body = s.CTE.Query
	}
	if body == nil {
		return ""
	}
	it, star := w.outputItem(body, name, depth)
	if star != nil {
		return w.deepType(text, body, sqlread.ColRef{Qual: star.Alias, Name: name}, depth+1)
	}
	if it == nil || len(it.Refs) != 1 {
		return ""
	}
	t := w.deepType(text, body, it.Refs[0], depth+1)
	if it.Plain {
		return t
	}
	if unnestOf(text, it) && strings.HasSuffix(t, "[]") {
		return strings.TrimSuffix(t, "[]")
	}
	if fields, ok := bracketFields(text, it); ok && t != "" {
		for _, f := range fields {
			ft, ok := engine.StructFieldType(t, f)
			if !ok {
				return ""
			}
			t = ft
		}
		return t
	}
	return ""
}

// exprToks are the tokens of an item's expression, without its alias.
func exprToks(text []byte, it *sqlread.SelectItem) []sqlscan.Token {
	end := it.End
	if it.Name != "" && it.NameStart > it.Start && it.NameEnd == it.End {
		end = it.NameStart
	}
	if end > len(text) || it.Start > end {
		return nil
	}
	toks := sqlscan.Tokens(text[:end], it.Start)
	if n := len(toks); n > 0 && strings.EqualFold(toks[n-1].Text(text), "as") {
		toks = toks[:n-1]
	}
	return toks
}

// bracketFields reads an item that is its one reference followed by
// struct fields read with strings (p.s['a']['b']): the fields, in order.
func bracketFields(text []byte, it *sqlread.SelectItem) ([]string, bool) {
	if len(it.Refs) != 1 {
		return nil, false
	}
	r := it.Refs[0]
	toks := exprToks(text, it)
	i := 0
	for i < len(toks) && toks[i].End <= r.End {
		i++
	}
	rest := toks[i:]
	if len(rest) == 0 || len(rest)%3 != 0 {
		return nil, false
	}
	var fields []string
	for k := 0; k < len(rest); k += 3 {
		if rest[k].Text(text) != "[" || rest[k+1].Kind != sqlscan.String || rest[k+2].Text(text) != "]" {
			return nil, false
		}
		fields = append(fields, sqlscan.FoldName(rest[k+1].Value(text)))
	}
	return fields, true
}

// fieldType is the type of the struct field read by path (s.f, p.s.f) in
// q, the struct's type followed by deepType.
func (w *world) fieldType(text []byte, q *sqlread.Query, path []string, depth int) string {
	col, fields, qual := path[0], path[1:], ""
	if s := q.SourceByAlias(path[0]); s != nil && len(path) >= 3 {
		col, fields, qual = path[1], path[2:], path[0]
	}
	typ := w.deepType(text, q, sqlread.ColRef{Qual: qual, Name: col}, depth)
	for _, f := range fields {
		t, ok := engine.StructFieldType(typ, f)
		if !ok {
			return ""
		}
		typ = t
	}
	return typ
}

// unnestOf: the item is unnest(r) of its one reference r.
func unnestOf(text []byte, it *sqlread.SelectItem) bool {
	if len(it.Refs) != 1 {
		return false
	}
	toks := exprToks(text, it)
	if len(toks) < 4 || !strings.EqualFold(toks[0].Text(text), "unnest") || toks[1].Text(text) != "(" {
		return false
	}
	r := it.Refs[0]
	first := r.Start
	if r.Qual != "" {
		first = r.QualStart
	}
	for i, t := range toks {
		if t.End == r.End {
			return toks[2].Start == first && i+2 == len(toks) && toks[i+1].Text(text) == ")"
		}
	}
	return false
}

// shownPath is how hover writes the field path fields of column col: each
// field as the struct type typ (col's) names it, its case kept, where typ
// says; as read otherwise.
func shownPath(col, typ string, fields []string) string {
	shown := []string{columnName(col)}
	for _, f := range fields {
		name := f
		for _, n := range engine.StructFields(typ) {
			if strings.EqualFold(n, f) {
				name = n
				break
			}
		}
		shown = append(shown, columnName(name))
		typ, _ = engine.StructFieldType(typ, f)
	}
	return strings.Join(shown, ".")
}
