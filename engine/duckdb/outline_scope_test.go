package duckdb

import (
	"fmt"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestOutlineScope: what a query's parts outside the select list read,
// its subquery expressions, nested stars and the modifiers that make the
// select list part of the row key — what binding a child against a
// parent's new columns needs.
func TestOutlineScope(t *testing.T) {
	db := open(t)
	refs := func(rs []engine.ColumnRef) string {
		out := ""
		for _, r := range rs {
			out += fmt.Sprintf("[%s.%s]", r.Qualifier, r.Column)
		}
		return out
	}
	o := outline(t, db, `SELECT a, list_filter(l, x -> x > b) AS f, (SELECT 1 FROM u WHERE u.k = t.a) AS s
FROM t WHERE EXISTS (SELECT 1 FROM v WHERE n = 'FR') AND COLUMNS(*) IS NOT NULL
GROUP BY ALL HAVING count(*) > c QUALIFY row_number() OVER (ORDER BY d) = 1 ORDER BY ALL LIMIT 3`)
	q := o.Query
	if got, want := refs(q.Reads), "[.c][.d]"; got != want {
		// WHERE reads no column outside its subquery but through COLUMNS(*).
		t.Errorf("reads = %s, want %s", got, want)
	}
	if got, want := refs(q.Items[1].Refs), "[.l][.b]"; got != want {
		t.Errorf("lambda item refs = %s, want %s (x is a parameter)", got, want)
	}
	if len(q.Subqueries) != 2 || q.Subqueries[0].From[0].Table != "v" || refs(q.Subqueries[0].Where) != "[.n]" || q.Subqueries[1].From[0].Table != "u" {
		t.Errorf("subqueries = %+v", q.Subqueries)
	}
	if !q.Items[2].Subquery || q.Items[0].Subquery {
		t.Errorf("item subquery flags = %v, %v", q.Items[0].Subquery, q.Items[2].Subquery)
	}
	if len(q.Stars) != 1 || q.Stars[0] != "" {
		t.Errorf("stars = %q", q.Stars)
	}
	if !q.GroupAll || !q.OrderAll || !q.Limited {
		t.Errorf("group all %v, order all %v, limited %v", q.GroupAll, q.OrderAll, q.Limited)
	}
	o = outline(t, db, `SELECT a FROM t NATURAL JOIN u ORDER BY a`)
	if q := o.Query; q.GroupAll || q.OrderAll || q.Limited || q.From[1].Join != "natural" {
		t.Errorf("plain query: %+v", q)
	}
}

// TestOutlineColumnLists: the names a column list gives a subquery's, a
// table's, a table function's or a CTE's first columns.
func TestOutlineColumnLists(t *testing.T) {
	db := open(t)
	o := outline(t, db, `WITH c(p, q) AS (SELECT 1, 2) SELECT * FROM (SELECT 1, 2) AS s (y, z), c, range(3) AS r (k), m.t AS u (v), m.t`)
	q := o.Query
	got := fmt.Sprint(q.CTEs[0].Columns)
	for _, src := range q.From {
		got += fmt.Sprint(src.Columns)
	}
	if want := "[p q][y z][][k][v][]"; got != want {
		t.Errorf("column lists = %s, want %s", got, want)
	}
}
