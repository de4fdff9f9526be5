package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

func (s *Server) hover(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.HoverParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	text, start, end, ok := hoverAt(ctx, d)
	if !ok {
		return nil, nil
	}
	r := d.f.Mapper().Range(start, end)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: text}, Range: &r}, nil
}

// varHover is the hover of @var(name): its value in the editor's
// environment and where it is set.
func varHover(snap *snapshot, name string) string {
	o, ok := snap.variable(name)
	if !ok {
		return fmt.Sprintf("**@var(%s)**: not defined in %s for environment %s", name, project.ConfigFile, snap.env)
	}
	return fmt.Sprintf("**@var(%s)** = `%s` in environment %s\n\nset in %s", name, engine.QuoteString(o.Value), snap.env, variableWhere(o))
}

// hoverAt is the hover feature: markdown for what is at d.off, and the
// span it is about.
func hoverAt(ctx context.Context, d *docPos) (text string, start, end int, ok bool) {
	m := d.f.model
	if len(d.f.defs) > 0 {
		return macroHoverAt(d, true)
	}
	if m == nil {
		if a := d.f.audit; a != nil {
			// An audit's @var has the value of the model it audits.
			for _, mc := range a.Macros {
				if mc.Kind == project.MacroVar && d.off >= mc.Start && d.off <= mc.End {
					return varHover(d.w.snap, mc.Arg), mc.Start, mc.End, true
				}
				if mc.Kind == project.MacroThis && d.off >= mc.Start && d.off <= mc.End && d.w.res != nil {
					return auditThisHover(d.w, a, d.v.s.environment()), mc.Start, mc.End, true
				}
			}
		}
		return "", 0, 0, false
	}
	w := d.w
	if mc, found := macroAt(m, project.MacroVar, d.off); found {
		return varHover(w.snap, mc.Arg), mc.Start, mc.End, true
	}
	if mc, found := timeMacroAt(m, d.off); found {
		return timeMacroHover(ctx, d, mc, d.v.s.environment()), mc.Start, mc.End, true
	}
	if mc, found := refMacroAt(m, d.off); found {
		if target := w.model(mc.Arg); target != nil {
			return modelSummary(w, target), mc.Start, mc.End, true
		}
		return "", 0, 0, false
	}
	if text, start, end, ok := macroHoverAt(d, true); ok {
		return text, start, end, true
	}
	if onHeaderName(m, d.off) {
		return headerHover(ctx, d), m.NameRange.Start.Offset, m.NameRange.End.Offset, true
	}
	if inHeader(m, d.off) {
		for _, c := range m.Columns {
			if d.off >= c.Range.Start.Offset && d.off <= c.Range.End.Offset {
				return declaredColumnHover(w, m, c), c.Range.Start.Offset, c.Range.End.Offset, true
			}
		}
		return "", 0, 0, false
	}
	q := d.f.query()
	if q == nil {
		return "", 0, 0, false
	}
	w = withEngineTypes(ctx, d.v, w, m, q)
	if scope, ref, onQual, found := refAt(q, d.off); found {
		src, name := w.resolveRef(scope, ref)
		if onQual {
			if src == nil && len(ref.Path) >= 3 {
				// The middle of p.s.a.b: the struct field a.
				if text := fieldHover(w, m, q, scope, ref.Path[:len(ref.Path)-1]); text != "" {
					return text, ref.QualStart, ref.QualEnd, true
				}
			}
			if src == nil {
				// The struct column in the middle of its field path
				// (k.st.b, st.a): the column itself, as a hover on it
				// alone.
				inner := sqlread.ColRef{Qual: ref.Outer, Name: ref.Qual, Start: ref.QualStart, End: ref.QualEnd, Path: ref.Path[:len(ref.Path)-1]}
				if isrc, iname := w.resolveRef(scope, inner); isrc != nil {
					return columnHover(w, m, q, scope, inner, isrc, iname), inner.Start, inner.End, true
				}
				return "", 0, 0, false
			}
			return sourceHover(w, src), ref.QualStart, ref.QualEnd, true
		}
		if src == nil && isDatePart(name) {
			return "", 0, 0, false // EXTRACT(year FROM …), not a column
		}
		if src == nil {
			if text := fieldHover(w, m, q, scope, ref.Path); text != "" {
				return text, ref.Start, ref.End, true
			}
		}
		return columnHover(w, m, q, scope, ref, src, name), ref.Start, ref.End, true
	}
	if scope, path, start, end, found := parenFieldAt(m.Source, q, d.off); found {
		if text := fieldHoverOf(w, m, q, scope, path, true); text != "" {
			return text, start, end, true
		}
		return "", 0, 0, false
	}
	if scope, path, start, end, found := bracketFieldAt(m.Source, q, d.off); found {
		if text := fieldHover(w, m, q, scope, path); text != "" {
			return text, start, end, true
		}
		return "", 0, 0, false
	}
	if text, start, end, ok := expansionAt(w, m, q, d.off); ok {
		return text, start, end, true
	}
	if c, i := cteColumnAt(q, d.off); c != nil {
		return cteColumnHover(w, c, i), c.Cols[i].Start, c.Cols[i].End, true
	}
	if scope, it := itemAt(q, d.off); it != nil {
		return itemHover(w, m, q, scope, it), it.NameStart, it.NameEnd, true
	}
	if src, start, end := sourceAt(q, d.off); src != nil {
		return sourceHover(w, src), start, end, true
	}
	// Inside a macro call's arguments, with nothing more precise: the
	// call's expansion.
	return macroHoverAt(d, false)
}

// columnHover describes the column ref (read in scope of m's query q) that
// resolves to name of src (nil when it resolves to none).
func columnHover(w *world, m *project.Model, q, scope *sqlread.Query, ref sqlread.ColRef, src *sqlread.Source, name string) string {
	written := writtenName(m.Source, ref.Start, ref.End, name)
	if src != nil && src.Table != "" && src.CTE == nil && src.Sub == nil && src.Model == "" {
		if cteName, ok := cteOf(q, scope); ok {
			if text := tableFunctionHover(w, m, cteName, src, name, written); text != "" {
				return text
			}
		}
	}
	if src != nil && (src.CTE != nil || src.Sub != nil) {
		if text := cteRefHover(w, m, q, scope, ref, src, name, written); text != "" {
			return text
		}
	}
	return refHover(w, scope, ref, src, name, written, string(m.Source[ref.Start:ref.End]))
}

// isDatePart reports the date parts, which read like column names in
// EXTRACT(year FROM x) and date_trunc-like calls.
func isDatePart(w string) bool {
	switch w {
	case "year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond", "microsecond",
		"decade", "century", "millennium", "epoch", "dow", "doy", "isodow", "isoyear":
		return true
	}
	return false
}

// modelSummary describes a model for a hover on @ref(x).
func modelSummary(w *world, m *project.Model) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · %s · `%s`\n", m.Name, kindText(m.Kind), m.File)
	if m.Description != "" {
		fmt.Fprintf(&b, "\n%s\n", m.Description)
	}
	if len(m.Grain) > 0 {
		fmt.Fprintf(&b, "\ngrain: %s\n", strings.Join(m.Grain, ", "))
	}
	if cols := w.columns(m.Name); len(cols) > 0 {
		b.WriteString("\n| column | type |\n|---|---|\n")
		for _, c := range cols {
			fmt.Fprintf(&b, "| %s | %s |\n", c.Name, c.Type)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func kindText(k project.Kind) string {
	switch k.Name {
	case project.KindExternal:
		if k.Table != "" {
			return fmt.Sprintf("EXTERNAL (table %s)", k.Table)
		}
		return fmt.Sprintf("EXTERNAL (files '%s')", k.Files)
	case project.KindSeed:
		return fmt.Sprintf("SEED ('%s')", k.Path)
	case project.KindIncrementalByTimeRange:
		return fmt.Sprintf("INCREMENTAL_BY_TIME_RANGE (time_column %s)", k.TimeColumn)
	case project.KindIncrementalByUniqueKey, project.KindSCDType2:
		return fmt.Sprintf("%s (key (%s))", k.Name, strings.Join(k.Key, ", "))
	}
	return string(k.Name)
}

// headerHover describes the model version being edited: its fingerprint,
// physical table, and what each environment of the state store points at.
func headerHover(ctx context.Context, d *docPos) string {
	m, w := d.f.model, d.w
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · %s\n", m.Name, kindText(m.Kind))
	info := w.res.info(m.Name)
	fp := ""
	switch {
	case info == nil:
		b.WriteString("\nnot checked yet\n")
	case info.Fingerprint == "":
		b.WriteString("\nno fingerprint: the model or a parent has errors\n")
	default:
		fp = info.Fingerprint
		fmt.Fprintf(&b, "\nfingerprint: `%s`\n", fp)
		if !m.Kind.Name.Virtual() {
			fmt.Fprintf(&b, "\nphysical table: `%s`\n", analysis.PhysicalRelation(w.res.analysis.Dialect(), m, fp))
		}
	}
	envs, err := d.v.environments(ctx, w.snap.proj)
	switch {
	case err != nil:
		fmt.Fprintf(&b, "\nstate store: %v\n", err)
	case envs == nil:
		b.WriteString("\nno state store yet: no environment has this model\n")
	default:
		names := make([]string, 0, len(envs))
		for env := range envs {
			names = append(names, env)
		}
		sort.Strings(names)
		b.WriteString("\nenvironments:\n")
		if len(names) == 0 {
			b.WriteString("- none yet\n")
		}
		for _, env := range names {
			ptr, ok := envs[env][m.Name]
			switch {
			case !ok:
				fmt.Fprintf(&b, "- %s: not there\n", env)
			case ptr == fp:
				fmt.Fprintf(&b, "- %s: this version (`%s`)\n", env, short(ptr))
			default:
				fmt.Fprintf(&b, "- %s: another version (`%s`)\n", env, short(ptr))
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func short(fp string) string {
	if len(fp) > 8 {
		return fp[:8]
	}
	return fp
}

// declaredColumnHover compares a declared column with what the query
// yields.
func declaredColumnHover(w *world, m *project.Model, c project.Column) string {
	text := fmt.Sprintf("**%s** `%s` · declared column of %s", columnName(c.Name), c.Type, m.Name)
	for _, g := range inferredColumns(w.res, m.Name) {
		if sqlscan.SameName(g.Name, c.Name) && !strings.EqualFold(g.Type, c.Type) {
			text += fmt.Sprintf("\n\nthe query yields `%s`", g.Type)
		}
	}
	return text + lineageText(w, m.Name, sqlscan.FoldName(c.Name))
}

// refHover describes a column reference: its type and where it comes from.
// written is the reference as the text has it.
func refHover(w *world, scope *sqlread.Query, ref sqlread.ColRef, src *sqlread.Source, name, shown, written string) string {
	typ := w.refType(scope, ref, 0)
	if src != nil && src.Model != "" {
		// The engine matches names without ASCII case: show the column as
		// the parent yields it, whatever case the reference is written in.
		cols := w.columns(src.Model)
		found := false
		for _, c := range cols {
			if sqlscan.SameName(c.Name, name) {
				shown, found = columnName(c.Name), true
				break
			}
		}
		if !found && cols != nil {
			// KÄUFER is not "Käufer": only A-Z fold.
			return fmt.Sprintf("**%s** · %s has no column of this name (names match without case in A-Z only)", written, src.Model)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", shown)
	if typ != "" {
		fmt.Fprintf(&b, " `%s`", typ)
	}
	switch {
	case src == nil:
		b.WriteString(" · column")
	case src.Model != "":
		fmt.Fprintf(&b, " · column of %s", src.Model)
	case src.CTE != nil:
		fmt.Fprintf(&b, " · column of CTE %s", src.CTE.Name)
	case src.Sub != nil:
		b.WriteString(" · column of a subquery")
	case src.Table != "":
		fmt.Fprintf(&b, " · column of %s", src.Table)
	}
	if src != nil && src.Model != "" {
		// The parent's column itself: show where its data comes from.
		self := modelColumn{Model: src.Model, Column: name}
		if raw := w.rawSources(self); len(raw) > 0 && !(len(raw) == 1 && raw[0] == self) {
			b.WriteString("\n\nraw sources: " + columnsText(raw))
		}
		return b.String()
	}
	if parents := w.through(src, name, 0); len(parents) > 0 {
		b.WriteString(lineageList(w, parents))
	}
	return b.String()
}

func columnsText(cs []modelColumn) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Model + "." + columnName(c.Column)
	}
	return strings.Join(parts, ", ")
}

// itemHover describes an output column of a query.
func itemHover(w *world, m *project.Model, top, scope *sqlread.Query, it *sqlread.SelectItem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", writtenName(m.Source, it.NameStart, it.NameEnd, it.Name))
	if scope == top {
		for _, c := range inferredColumns(w.res, m.Name) {
			if sqlscan.SameName(c.Name, it.Name) && c.Type != "" {
				fmt.Fprintf(&b, " `%s`", c.Type)
			}
		}
		fmt.Fprintf(&b, " · output column of %s", m.Name)
		b.WriteString(lineageText(w, m.Name, it.Name))
		return b.String()
	}
	if it.Plain && len(it.Refs) == 1 {
		if typ := w.refType(scope, it.Refs[0], 0); typ != "" {
			fmt.Fprintf(&b, " `%s`", typ)
		}
	}
	b.WriteString(" · output column of a CTE or subquery")
	if ups := w.upstream(scope, it.Name, 0); len(ups) > 0 {
		b.WriteString(lineageList(w, ups))
	}
	return b.String()
}

// sourceHover describes a FROM alias.
func sourceHover(w *world, src *sqlread.Source) string {
	switch {
	case src.Model != "":
		if m := w.model(src.Model); m != nil {
			return fmt.Sprintf("**%s** · alias of @ref(%s)\n\n", src.Alias, src.Model) + modelSummary(w, m)
		}
		return fmt.Sprintf("**%s** · alias of @ref(%s)", src.Alias, src.Model)
	case src.CTE != nil:
		if src.Alias == src.CTE.Name {
			return fmt.Sprintf("**%s** · CTE", src.Alias)
		}
		return fmt.Sprintf("**%s** · alias of CTE %s", src.Alias, src.CTE.Name)
	case src.Sub != nil:
		return fmt.Sprintf("**%s** · subquery", src.Alias)
	}
	return fmt.Sprintf("**%s** · %s", src.Alias, src.Table)
}

// lineageText is the lineage of a model's output column, for hovers.
func lineageText(w *world, model, column string) string {
	parents := w.directSources(model, column)
	if len(parents) == 0 {
		return ""
	}
	return lineageList(w, parents)
}

// lineageList renders the direct parents of a column and the raw sources
// (columns of models without parents) they come from.
func lineageList(w *world, parents []modelColumn) string {
	var b strings.Builder
	b.WriteString("\n\nfrom: ")
	for i, p := range parents {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w.shownColumn(p))
	}
	var raw []string
	for _, p := range parents {
		for _, r := range w.rawSources(p) {
			if s := w.shownColumn(r); !slices.Contains(raw, s) {
				raw = append(raw, s)
			}
		}
	}
	if len(raw) > 0 && !(len(raw) == len(parents) && sameColumns(w, raw, parents)) {
		b.WriteString("\n\nraw sources: " + strings.Join(raw, ", "))
	}
	b.WriteString("\n")
	return strings.TrimRight(b.String(), "\n")
}

func sameColumns(w *world, raw []string, ps []modelColumn) bool {
	for _, p := range ps {
		if !slices.Contains(raw, w.shownColumn(p)) {
			return false
		}
	}
	return true
}

// tableFunctionHover describes a column of a table function in the FROM
// clause of a model's query, or of one of its CTEs named by cteName
// (unnest(p.names) AS u(n)): what it reads, and
// for an unnest the element type of the list it expands. "" when the
// analysis cannot tell.
func tableFunctionHover(w *world, m *project.Model, cteName string, src *sqlread.Source, name, shown string) string {
	if w.res == nil || w.res.analysis == nil {
		return ""
	}
	var from []modelColumn
	for _, r := range analysis.ReferenceSourcesIn(w.res.analysis, m.Name, cteName, src.Alias, name) {
		from = appendUnique(from, modelColumn{Model: r.Model, Column: r.Column, Field: r.Field})
	}
	if len(from) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", shown)
	if strings.EqualFold(src.Table, "unnest") && len(from) == 1 && from[0].Field == "" {
		if typ := w.columnType(from[0].Model, from[0].Column); strings.HasSuffix(typ, "[]") {
			fmt.Fprintf(&b, " `%s`", strings.TrimSuffix(typ, "[]"))
		}
		fmt.Fprintf(&b, " · element of the list %s, unnested", w.shownColumn(from[0]))
	} else {
		fmt.Fprintf(&b, " · column of %s", src.Table)
	}
	b.WriteString(lineageList(w, from))
	return b.String()
}
