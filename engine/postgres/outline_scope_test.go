package postgres

import (
	"fmt"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestOutlineScope: what a query's parts outside the select list read,
// its subquery expressions, nested stars and LIMIT — what binding a child
// against a parent's new columns needs, as the DuckDB outline records it.
func TestOutlineScope(t *testing.T) {
	refs := func(rs []engine.ColumnRef) string {
		out := ""
		for _, r := range rs {
			out += fmt.Sprintf("[%s.%s]", r.Qualifier, r.Column)
		}
		return out
	}
	o := outline(t, `SELECT a, row_to_json(t.*) AS j, (SELECT 1 FROM u WHERE u.k = t.a) AS s, count(*) AS n
FROM t JOIN w ON w.k = t.a AND w.k IN (SELECT k FROM z)
WHERE EXISTS (SELECT 1 FROM v WHERE n = 'FR') AND b > 0
GROUP BY a, 2 HAVING count(*) > c
WINDOW win AS (PARTITION BY e)
ORDER BY d FETCH FIRST 3 ROWS ONLY`)
	q := o.Query
	if got, want := refs(q.Reads), "[.b][.a][.c][.e][.d]"; got != want {
		t.Errorf("reads = %s, want %s", got, want)
	}
	if len(q.Subqueries) != 3 || q.Subqueries[0].From[0].Table != "v" || refs(q.Subqueries[0].Where) != "[.n]" ||
		q.Subqueries[1].From[0].Table != "u" || q.Subqueries[2].From[0].Table != "z" {
		t.Errorf("subqueries = %+v", q.Subqueries)
	}
	if !q.Items[2].Subquery || q.Items[0].Subquery || q.Items[3].Subquery {
		t.Errorf("item subquery flags = %v, %v, %v", q.Items[0].Subquery, q.Items[2].Subquery, q.Items[3].Subquery)
	}
	if len(q.Stars) != 1 || q.Stars[0] != "t" {
		// count(*) reads no column: it is no star.
		t.Errorf("stars = %q", q.Stars)
	}
	if !q.Limited || q.GroupAll || q.OrderAll {
		t.Errorf("limited %v, group all %v, order all %v", q.Limited, q.GroupAll, q.OrderAll)
	}
	o = outline(t, `SELECT * FROM t NATURAL JOIN u WHERE x IN (SELECT y FROM v) ORDER BY a`)
	if q := o.Query; q.Limited || len(q.Stars) != 0 || len(q.Subqueries) != 1 || refs(q.Reads) != "[.x][.a]" {
		t.Errorf("plain query: %+v", q)
	}
}

// TestOutlineColumnLists: the names a column list gives a subquery's, a
// table's, a table function's or a CTE's first columns, as the DuckDB
// outline records them.
func TestOutlineColumnLists(t *testing.T) {
	o := outline(t, `WITH c(p, q) AS (SELECT 1, 2) SELECT * FROM (SELECT 1, 2) AS s (y, z), c, generate_series(1, 3) AS r (k), m.t AS u (v), m.t`)
	q := o.Query
	got := fmt.Sprint(q.CTEs[0].Columns)
	for _, src := range q.From {
		got += fmt.Sprint(src.Columns)
	}
	if want := "[p q][y z][][k][v][]"; got != want {
		t.Errorf("column lists = %s, want %s", got, want)
	}
}
