package lsp

import (
	"fmt"
	"strings"
)

// cteColumn is a name of a CTE's column list, `name(col, …)`.
type cteColumn struct {
	name       string // lower case
	start, end int
}

// cteColumns reads a CTE's column list, from its "(" to its ")"; a list
// that is not plain names is skipped whole and yields nothing.
func (p *qparser) cteColumns() []cteColumn {
	save := p.i
	p.next() // (
	var cols []cteColumn
	for !p.eof() {
		t := p.next()
		if !t.isIdent() {
			break
		}
		cols = append(cols, cteColumn{name: identName(t), start: t.start, end: t.end})
		if p.peek().isPunct(",") {
			p.next()
			continue
		}
		if p.peek().isPunct(")") {
			p.next()
			return cols
		}
		break
	}
	p.i = save
	p.skipParens()
	return nil
}

// renameOutputs gives a CTE's query the names of its column list, in
// order, as the engine does: `per_day(d, n) AS (SELECT x, count(*) …)`
// yields d and n. A star in the list's reach leaves the rest as they are
// (which columns it yields is not known here).
func renameOutputs(q *query, cols []cteColumn) {
	if q == nil {
		return
	}
	for i, c := range cols {
		if i >= len(q.items) || q.items[i].star {
			return
		}
		q.items[i].name = c.name
	}
}

// cteColumnAt finds the name of a CTE's column list written at off.
func cteColumnAt(q *query, off int) (c *cte, i int) {
	walkQueries(q, func(s *query) {
		for _, x := range s.ctes {
			for j, col := range x.cols {
				if c == nil && off >= col.start && off <= col.end {
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
func cteColumnHover(w *world, c *cte, i int) string {
	col := c.cols[i]
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", col.name)
	if c.q != nil && i < len(c.q.items) {
		if it := c.q.items[i]; it.plain && len(it.refs) == 1 {
			if typ := w.refType(c.q, it.refs[0], 0); typ != "" {
				fmt.Fprintf(&b, " `%s`", typ)
			}
		}
	}
	fmt.Fprintf(&b, " · column %d of CTE %s", i+1, c.name)
	if ups := w.upstream(c.q, col.name, 0); len(ups) > 0 {
		b.WriteString(lineageList(w, ups))
	}
	return b.String()
}
