package lsp

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// A column of a model is the same column in every model that passes it
// on under its name: through `*`, or through a bare reference without an
// alias (SELECT v.c). Renaming it renames it in all of them, so the
// impact of a column is computed over those carriers, generation by
// generation. Where a use is found comes from the scope-aware outline of
// each body (sqlread.Parse, resolved by resolve.go); which children compute
// from the column is checked against the engine's column lineage
// (analysis.ColumnSources), so a use the outline could not place is a
// refusal, never a silent miss.

// columnImpact is what renaming a model's column touches.
type columnImpact struct {
	model, column string // the column renamed, lower case
	newName       string // "" when only the uses are wanted
	// carriers are the models whose output column `column` is the
	// renamed one, the origin first.
	carriers []string
	// spans are the places the name is written, each edited once.
	spans []nameSpan
	// refusals say why the rename cannot be done safely.
	refusals []string
}

// nameSpan is one place a column's name is written. text replaces the
// span when set (an inserted alias), else the new name does.
type nameSpan struct {
	rel        string
	start, end int
	text       string
	use        bool // a use (for references), not the renamed definition itself
	yaml       bool // a unit-test row key: written as YAML, not SQL
}

func (imp *columnImpact) add(rel string, start, end int, use bool) {
	imp.addSpan(nameSpan{rel: rel, start: start, end: end, use: use})
}

func (imp *columnImpact) addSpan(n nameSpan) {
	for _, s := range imp.spans {
		if s.rel == n.rel && s.start == n.start && s.end == n.end {
			return
		}
	}
	imp.spans = append(imp.spans, n)
}

func (imp *columnImpact) refuse(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !slices.Contains(imp.refusals, msg) {
		imp.refusals = append(imp.refusals, msg)
	}
}

// columnImpact finds every place column of model is written in the
// models, audits and unit tests downstream of it, following `*` chains.
// newName, when not empty, is also checked for collisions.
func (w *world) columnImpact(model, column, newName string) *columnImpact {
	imp := &columnImpact{model: model, column: sqlscan.FoldName(column), newName: newName}
	if w.snap.proj == nil {
		return imp
	}
	seen := map[string]bool{model: true}
	queue := []string{model}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		imp.carriers = append(imp.carriers, x)
		if x == model {
			w.aliasUses(imp, x)
		}
		// A case-only rename (id to "ID") keeps the name the engine
		// matches, so the column does not collide with itself.
		if newName != "" && newName != imp.column && w.hasOutput(x, newName) {
			imp.refuse("%s already has a column named %s", x, newName)
		}
		w.headerUses(imp, x)
		w.testUses(imp, x)
		w.auditUses(imp, x)
		for _, child := range w.snap.proj.Children[x] {
			if w.childUses(imp, x, child) && !seen[child] {
				seen[child] = true
				queue = append(queue, child)
			}
		}
	}
	return imp
}

// hasOutput reports whether a model has an output column named col.
func (w *world) hasOutput(model, col string) bool {
	for _, c := range w.columns(model) {
		if sqlscan.SameName(c.Name, col) {
			return true
		}
	}
	if q := w.fileOf(model).query(); q != nil {
		outs, _ := w.outputs(q, 0)
		return slices.Contains(outs, sqlscan.FoldName(col))
	}
	return false
}

// aliasUses records the uses of the renamed column's alias in its own
// model's query: the engine resolves a select alias in WHERE, GROUP BY,
// HAVING, QUALIFY, WINDOW, ORDER BY and in later select items, where no
// column of a source has that name. A use that could be either the alias
// or a source's column is refused: which one the engine picks depends on
// the clause (ORDER BY prefers the alias, GROUP BY the column), so the
// rename cannot keep its meaning for certain. A bare reference that
// passes a parent's column on (SELECT id … ORDER BY id) keeps reading
// that column after the rename gives it an alias, so it is not a use.
func (w *world) aliasUses(imp *columnImpact, model string) {
	f := w.fileOf(model)
	q := f.query()
	if q == nil {
		return
	}
	def, starSrc := w.outputItem(q, imp.column, 0)
	if def == nil || starSrc != nil || bareRef(def) {
		return
	}
	refs := slices.Clone(q.Refs)
	for _, it := range q.Items {
		if it != def {
			refs = append(refs, it.Refs...)
		}
	}
	uses := 0
	for _, r := range refs {
		if r.Qual != "" || r.Name != imp.column {
			continue
		}
		at := f.Mapper().Position(r.Start)
		if src, known := w.scopeColumn(q, r.Name); src != nil || !known {
			what := "a column of a source whose columns are unknown"
			if src != nil {
				what = "the column of " + sourceName(src)
			}
			imp.refuse("%s:%d:%d: %s could be the alias or %s; qualify it or rename the alias by hand", f.rel, at.Line+1, at.Character+1, r.Name, what)
			continue
		}
		uses++
		imp.add(f.rel, r.Start, r.End, true)
	}
	if uses > 0 && imp.newName != "" && imp.newName != imp.column {
		if src, _ := w.scopeColumn(q, imp.newName); src != nil {
			imp.refuse("%s: %s is also a column of %s there, which the renamed uses of the alias would read instead", f.rel, imp.newName, sourceName(src))
		}
	}
}

// sourceName names a source in a message: its model, else its alias.
func sourceName(s *sqlread.Source) string {
	if s.Model != "" && s.AliasStart == s.AliasEnd {
		return s.Model
	}
	return s.Alias
}

// scopeColumn finds the source of q (or of an enclosing query) that has
// a column named col; known is false when some source's columns are not
// known, so a miss proves nothing.
func (w *world) scopeColumn(q *sqlread.Query, col string) (src *sqlread.Source, known bool) {
	known = true
	for s := q; s != nil; s = s.Parent {
		for _, x := range s.Sources {
			cols, ok := w.sourceColumns(x, 0)
			if slices.Contains(cols, col) {
				return x, true
			}
			known = known && ok
		}
	}
	return nil, known
}

// childUses records the uses of column of x in child's body, and reports
// whether child passes the column on under its name.
func (w *world) childUses(imp *columnImpact, x, child string) bool {
	cf := w.fileOf(child)
	q := cf.query()
	if q == nil {
		return false
	}
	want := modelColumn{Model: x, Column: imp.column}
	found := false
	sqlread.Walk(q, func(scope *sqlread.Query) {
		refs := slices.Clone(scope.Refs)
		for _, it := range scope.Items {
			refs = append(refs, it.Refs...)
			if it.Star && slices.Contains(it.Exclude, imp.column) && w.starReaches(scope, it, want) {
				imp.refuse("%s: `* EXCLUDE (%s)` names the column; rename it there by hand first", cf.rel, sqlscan.WriteIdent(imp.column))
				found = true
			}
			if it.Star && slices.Contains(it.Replaced, imp.column) && w.starReaches(scope, it, want) {
				imp.refuse("%s: the REPLACE or RENAME list of a * names the column; rename it there by hand first", cf.rel)
				found = true
			}
		}
		for _, r := range refs {
			if r.Name != imp.column {
				continue
			}
			if r.Using {
				if w.usingUse(imp, cf, scope, r) {
					found = true
				}
				continue
			}
			src, name := w.resolveRef(scope, r)
			if !w.sameColumn(src, name, want, 0) {
				continue
			}
			found = true
			imp.add(cf.rel, r.Start, r.End, true)
			if r.Qual == "" {
				w.checkUnknown(imp, cf, scope, src, r)
			}
			if r.Qual == "" && imp.newName != "" {
				w.checkAmbiguous(imp, cf.rel, scope, src)
			}
		}
	})
	passes := w.carries(q, want)
	if !found && !passes && w.res != nil && w.res.analysis != nil {
		// The engine's lineage says the child computes from the column,
		// but no use of it could be placed: its name is written where
		// efmesh cannot edit it.
		for _, c := range w.columns(child) {
			for _, s := range analysis.ColumnSources(w.res.analysis, child, c.Name) {
				if s.Model == x && sqlscan.SameName(s.Column, imp.column) {
					imp.refuse("%s reads %s.%s for its column %s, but not through a reference that can be edited (a string or dynamic SQL?)", cf.rel, x, w.spelling(x, imp.column), columnName(c.Name))
				}
			}
		}
	}
	return passes
}

// usingUse records a column of JOIN … USING (col) that names the renamed
// column, and reports whether it does. USING names the column of every
// joined side, so it can be renamed only when each side that has the
// column passes on the renamed one; otherwise the rename is refused,
// naming the USING.
func (w *world) usingUse(imp *columnImpact, f *file, scope *sqlread.Query, r sqlread.ColRef) bool {
	var renamed, kept []string
	for _, s := range scope.Sources {
		cols, ok := w.sourceColumns(s, 0)
		switch {
		case w.reaches(s, r.Name, imp.model, 0):
			renamed = append(renamed, sourceName(s))
		case !ok:
			kept = append(kept, sourceName(s)+" (whose columns are not known)")
		case slices.Contains(cols, r.Name):
			kept = append(kept, sourceName(s))
		}
	}
	if len(renamed) == 0 {
		return false
	}
	if len(kept) > 0 {
		at := f.Mapper().Position(r.Start)
		imp.refuse("%s:%d:%d: JOIN … USING (%s) joins %s with %s, whose %s the rename does not rename; write the join with ON, or rename the other side first", f.rel, at.Line+1, at.Character+1, r.Name, strings.Join(renamed, ", "), strings.Join(kept, ", "), r.Name)
		return true
	}
	imp.add(f.rel, r.Start, r.End, true)
	return true
}

// reaches reports whether column col of source s is column col of model,
// passed on unchanged (by `*` or a bare reference without an alias)
// through CTEs, subqueries and models.
func (w *world) reaches(s *sqlread.Source, col, model string, depth int) bool {
	if s == nil || depth > maxDepth || len(s.ColAliases) > 0 {
		return false
	}
	var q *sqlread.Query
	switch {
	case s.Model == model:
		return true
	case s.Model != "":
		if f := w.fileOf(s.Model); f != nil {
			q = f.query()
		}
	case s.CTE != nil:
		q = s.CTE.Query
	case s.Sub != nil:
		q = s.Sub
	}
	if q == nil {
		return false
	}
	it, starSrc := w.outputItem(q, col, depth)
	if starSrc != nil {
		return w.reaches(starSrc, col, model, depth+1)
	}
	if it == nil || !bareRef(it) {
		return false
	}
	src, name := w.resolveRef(q, it.Refs[0])
	return name == col && w.reaches(src, col, model, depth+1)
}

// checkUnknown refuses a rename of an unqualified reference r that
// resolves to src when a relation at least as near (in r's scope or one
// between it and src's) has columns efmesh does not know: the engine may
// bind r to that relation instead.
func (w *world) checkUnknown(imp *columnImpact, f *file, scope *sqlread.Query, src *sqlread.Source, r sqlread.ColRef) {
	for s := scope; s != nil; s = s.Parent {
		for _, other := range s.Sources {
			if other == src {
				continue
			}
			if _, ok := w.sourceColumns(other, 0); !ok {
				at := f.Mapper().Position(r.Start)
				imp.refuse("%s:%d:%d: %s could also be a column of %s, whose columns are not known; qualify it", f.rel, at.Line+1, at.Character+1, r.Name, other.Alias)
			}
		}
		if slices.Contains(s.Sources, src) {
			return
		}
	}
}

// checkAmbiguous refuses a rename that would make an unqualified
// reference ambiguous: another relation in scope has the new name.
func (w *world) checkAmbiguous(imp *columnImpact, rel string, scope *sqlread.Query, src *sqlread.Source) {
	for s := scope; s != nil; s = s.Parent {
		for _, other := range s.Sources {
			if other == src {
				continue
			}
			if cols, ok := w.sourceColumns(other, 0); ok && slices.Contains(cols, imp.newName) {
				imp.refuse("%s: %s would be ambiguous there (%s also has a column %s)", rel, imp.newName, other.Alias, imp.newName)
			}
		}
	}
}

// starReaches reports whether a star item of scope takes want from one of
// its sources.
func (w *world) starReaches(scope *sqlread.Query, it *sqlread.SelectItem, want modelColumn) bool {
	for _, s := range scope.Sources {
		if it.StarQual != "" && s.Alias != it.StarQual {
			continue
		}
		if w.sameColumn(s, want.Column, want, 0) {
			return true
		}
	}
	return false
}

// sameColumn reports whether column name of source s is want itself,
// passed on unchanged through CTEs and subqueries (by `*` or a bare
// reference without an alias).
func (w *world) sameColumn(s *sqlread.Source, name string, want modelColumn, depth int) bool {
	if s == nil || depth > maxDepth || name != want.Column || len(s.ColAliases) > 0 {
		return false
	}
	var q *sqlread.Query
	switch {
	case s.Model != "":
		return s.Model == want.Model
	case s.CTE != nil:
		q = s.CTE.Query
	case s.Sub != nil:
		q = s.Sub
	default:
		return false
	}
	return depth < maxDepth && w.carriesAt(q, want, depth+1)
}

// carries reports whether q's output column want.Column is want itself.
func (w *world) carries(q *sqlread.Query, want modelColumn) bool { return w.carriesAt(q, want, 0) }

// carriesAt is carries at depth of a walk through sources, which ends at
// maxDepth whatever the text (a name that resolves back to the query
// reading it).
func (w *world) carriesAt(q *sqlread.Query, want modelColumn, depth int) bool {
	if q == nil || depth > maxDepth {
		return false
	}
	it, starSrc := w.outputItem(q, want.Column, depth)
	if starSrc != nil {
		return w.sameColumn(starSrc, want.Column, want, depth+1)
	}
	if it == nil || !bareRef(it) {
		return false
	}
	src, name := w.resolveRef(q, it.Refs[0])
	return w.sameColumn(src, name, want, depth+1)
}

// bareRef reports whether a select item is one column reference whose
// name is also its output name (no alias written).
func bareRef(it *sqlread.SelectItem) bool {
	return it.Plain && len(it.Refs) == 1 && it.NameStart == it.Refs[0].Start
}

// headerUses records where a carrier's header names the column: its
// `columns` contract, and the grain, kind, audits and redact properties.
func (w *world) headerUses(imp *columnImpact, x string) {
	m := w.model(x)
	if m == nil {
		return
	}
	f := w.snap.files[m.File]
	if f == nil {
		return
	}
	use := x != imp.model
	if s, e, ok := declaredColumnName(w, m.File, imp.column); ok {
		imp.add(m.File, s, e, use)
	}
	for _, p := range m.Properties {
		switch p.Name {
		case "grain", "kind", "audits", "redact":
		default:
			continue
		}
		for _, t := range sqlread.Scan(f.src, p.ValueRange.Start.Offset, p.ValueRange.End.Offset) {
			if t.Kind == sqlscan.Ident && t.Val == imp.column {
				imp.add(m.File, t.Start, t.End, true)
			}
		}
	}
}

// testUses records the keys of unit-test rows that name the column of a
// carrier: expected rows of its tests, fixture rows of its inputs.
func (w *world) testUses(imp *columnImpact, x string) {
	for _, rel := range slices.Sorted(maps.Keys(w.snap.files)) {
		for _, t := range w.snap.files[rel].tests {
			var rows []project.TestRow
			if t.Model == x {
				rows = append(rows, t.Expect...)
			}
			for _, in := range t.Inputs {
				if in.Model == x {
					rows = append(rows, in.Rows...)
				}
			}
			for _, r := range rows {
				for _, v := range r.Values {
					if sqlscan.SameName(v.Column, imp.column) {
						s, e := unquoted(t.Source, v.Range.Start.Offset, v.Range.End.Offset)
						imp.addSpan(nameSpan{rel: rel, start: s, end: e, use: true, yaml: true})
					}
				}
			}
		}
	}
}

// auditUses records the uses of the column in custom audit files that
// @ref a carrier, and refuses where an audit the carrier runs reads a
// column of that name from @this: the audit file is shared by every model
// that names it, so it cannot follow one model's rename.
func (w *world) auditUses(imp *columnImpact, x string) {
	m := w.model(x)
	want := modelColumn{Model: x, Column: imp.column}
	for _, rel := range slices.Sorted(maps.Keys(w.snap.files)) {
		a := w.snap.files[rel].audit
		if a == nil {
			continue
		}
		q := sqlread.Parse(a.Source, a.BodyStart)
		runs := m != nil && runsAudit(m.Audits, a.Name)
		sqlread.Walk(q, func(scope *sqlread.Query) {
			refs := slices.Clone(scope.Refs)
			for _, it := range scope.Items {
				refs = append(refs, it.Refs...)
			}
			for _, r := range refs {
				if r.Name != imp.column {
					continue
				}
				src, name := w.resolveRef(scope, r)
				switch {
				case w.sameColumn(src, name, want, 0):
					imp.add(rel, r.Start, r.End, true)
				case runs && (src == nil || src.Model == ""):
					imp.refuse("%s: the audit %s reads %s of @this and is shared by every model that runs it; rename it there by hand", rel, a.Name, imp.column)
				}
			}
		})
	}
}

func runsAudit(calls []project.AuditCall, name string) bool {
	for _, c := range calls {
		if strings.EqualFold(c.Name, name) || c.Inner != nil && runsAudit([]project.AuditCall{*c.Inner}, name) {
			return true
		}
	}
	return false
}

// unquoted shrinks a span of a YAML scalar to the text inside its quotes.
func unquoted(src []byte, s, e int) (int, int) {
	if e-s >= 2 && e <= len(src) && (src[s] == '\'' || src[s] == '"') && src[e-1] == src[s] {
		return s + 1, e - 1
	}
	return s, e
}

// sortedSpans orders spans by file and position.
func sortedSpans(spans []nameSpan) []nameSpan {
	out := slices.Clone(spans)
	sort.Slice(out, func(i, j int) bool {
		if out[i].rel != out[j].rel {
			return out[i].rel < out[j].rel
		}
		return out[i].start < out[j].start
	})
	return out
}
