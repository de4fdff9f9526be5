package lsp

import (
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// writtenName is how a hover names the identifier at src[start:end]
// whose lower-cased value is lower: a quoted identifier as written, so
// it keeps its case and letters ("Käufer"), else the name spelled as SQL.
func writtenName(src []byte, start, end int, lower string) string {
	if start >= 0 && end <= len(src) && start < end {
		if w := string(src[start:end]); strings.HasPrefix(w, `"`) && strings.HasSuffix(w, `"`) && len(w) >= 2 {
			return w
		}
	}
	return columnName(lower)
}

// shownColumn names a model's column for a hover, model.column, in the
// case the model yields it (lineage compares names in lower case).
func (w *world) shownColumn(c modelColumn) string {
	name := c.Column
	for _, col := range w.columns(c.Model) {
		if sqlscan.SameName(col.Name, name) {
			name = col.Name
			break
		}
	}
	if c.Field != "" {
		return c.Model + "." + columnName(name) + "." + columnName(c.Field)
	}
	return c.Model + "." + columnName(name)
}
