package lsp

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
)

// expansionAt finds a * or the word COLUMNS written at off in an item of
// m's top-level select list q, and describes the columns the engine
// expands it to (analysis.Expansion): names, types and origins. ok is
// false elsewhere, or when the analysis cannot tell.
func expansionAt(w *world, m *project.Model, q *sqlread.Query, off int) (text string, start, end int, ok bool) {
	if w.res == nil || w.res.analysis == nil {
		return "", 0, 0, false
	}
	src := m.Source
	start, end = off, off
	for start > 0 && isWordByte(src[start-1]) {
		start--
	}
	for end < len(src) && isWordByte(src[end]) {
		end++
	}
	switch {
	case strings.EqualFold(string(src[start:end]), "columns"):
	case off < len(src) && src[off] == '*':
		start, end = off, off+1
	case off > 0 && src[off-1] == '*':
		start, end = off-1, off
	default:
		return "", 0, 0, false
	}
	idx := -1
	for i, it := range q.Items {
		if start >= it.Start && end <= it.End {
			idx = i
		}
	}
	if idx < 0 {
		return "", 0, 0, false
	}
	item, items, cols, found := analysis.Expansion(w.res.analysis, m.Name)
	if !found || item != idx || items != len(q.Items) {
		return "", 0, 0, false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` expands to %d column", string(src[start:end]), len(cols))
	if len(cols) != 1 {
		b.WriteString("s")
	}
	b.WriteString("\n\n| column | type | from |\n|---|---|---|\n")
	for _, c := range cols {
		var from []string
		for _, s := range c.Sources {
			from = append(from, w.shownColumn(modelColumn{Model: s.Model, Column: s.Column, Field: s.Field}))
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", analysis.ShowName(c.Name), c.Type, strings.Join(from, ", "))
	}
	return strings.TrimRight(b.String(), "\n"), start, end, true
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
