package lsp

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/sqlread"
)

// cteColumnAt finds the name of a CTE's column list written at off.
func cteColumnAt(q *sqlread.Query, off int) (c *sqlread.CTE, i int) {
	sqlread.Walk(q, func(s *sqlread.Query) {
		for _, x := range s.CTEs {
			for j, col := range x.Cols {
				if c == nil && off >= col.Start && off <= col.End {
					c, i = x, j
				}
			}
		}
	})
	return c, i
}

// cteColumnHover describes the column of a CTE's column list under the
// cursor: its type where the query's item is one column, and where its
// data comes from.
func cteColumnHover(w *world, c *sqlread.CTE, i int) string {
	col := c.Cols[i]
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", col.Name)
	if c.Query != nil && i < len(c.Query.Items) {
		if it := c.Query.Items[i]; it.Plain && len(it.Refs) == 1 {
			if typ := w.refType(c.Query, it.Refs[0], 0); typ != "" {
				fmt.Fprintf(&b, " `%s`", typ)
			}
		}
	}
	fmt.Fprintf(&b, " · column %d of CTE %s", i+1, c.Name)
	if ups := w.upstream(c.Query, col.Name, 0); len(ups) > 0 {
		b.WriteString(lineageList(w, ups))
	}
	return b.String()
}
