package postgres

import (
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

func outline(t *testing.T, sql string) *engine.Outline {
	t.Helper()
	c, err := Parser{}.Canonicalize(sql)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Parser{}.Outline(c)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOutline(t *testing.T) {
	o := outline(t, `WITH c AS (SELECT id AS key FROM "raw"."s")
SELECT DISTINCT c.key, u.name AS label, sum(u.amount) OVER (PARTITION BY u.name) AS running,
  upper(u.name), count(*) AS n, x.*, (SELECT max(z) FROM t WHERE rank() OVER () = 1) AS sub, u.amount::int
FROM c JOIN "raw"."u" AS u ON u.id = c.key, (SELECT 1 AS a, 2 AS b) AS x
WHERE u.id > $1
GROUP BY 1`)
	q := o.Query
	if q.Kind != engine.Select || !q.Distinct || !q.Grouped {
		t.Fatalf("kind %s distinct %v grouped %v", q.Kind, q.Distinct, q.Grouped)
	}
	if len(q.CTEs) != 1 || q.CTEs[0].Name != "c" || q.CTEs[0].Query.Items[0].Name != "key" {
		t.Errorf("CTEs = %+v", q.CTEs)
	}
	var from []string
	for _, s := range q.From {
		from = append(from, fmt.Sprintf("%s.%s as %s (subquery %v)", s.Schema, s.Table, s.Name(), s.Query != nil))
	}
	if got := strings.Join(from, "; "); got != ".c as c (subquery false); raw.u as u (subquery false); . as x (subquery true)" {
		t.Errorf("from = %s", got)
	}
	var items []string
	for _, it := range q.Items {
		items = append(items, fmt.Sprintf("%s%v star=%v/%s calls=%v windows=%v", it.Name, refsOf(it.Refs), it.Star, it.StarOf, it.Calls, it.Windows))
	}
	want := []string{
		"key[{c key}] star=false/ calls=[] windows=[]",
		"label[{u name}] star=false/ calls=[] windows=[]",
		"running[{u amount} {u name}] star=false/ calls=[] windows=[sum]",
		"upper[{u name}] star=false/ calls=[upper] windows=[]",
		"n[] star=false/ calls=[count] windows=[]",
		"[] star=true/x calls=[] windows=[]",
		"sub[] star=false/ calls=[] windows=[]",
		"amount[{u amount}] star=false/ calls=[] windows=[]",
	}
	if strings.Join(items, "\n") != strings.Join(want, "\n") {
		t.Errorf("items:\n%s\nwant:\n%s", strings.Join(items, "\n"), strings.Join(want, "\n"))
	}
	// Windows anywhere, subqueries included.
	if fmt.Sprint(o.Windows) != "[rank sum]" {
		t.Errorf("windows = %v", o.Windows)
	}

	set := outline(t, `SELECT a FROM t UNION ALL SELECT b FROM u`).Query
	if set.Kind != engine.SetOperation || len(set.Branches) != 2 || set.Branches[1].Items[0].Name != "b" {
		t.Errorf("set operation = %+v", set)
	}
	if v := outline(t, `VALUES (1)`).Query; v.Kind == engine.Select || v.Kind == engine.SetOperation {
		t.Errorf("VALUES is a %s", v.Kind)
	}
}

// TestOutlineRest: versions that differ only in their select lists have
// equal Rest; another change names its part by DuckDB's name for it.
func TestOutlineRest(t *testing.T) {
	base := outline(t, `SELECT s.id FROM s JOIN t ON t.id = s.id WHERE s.id > 0 ORDER BY 1`).Query
	for sql, want := range map[string]string{
		`SELECT s.id, s.name AS n FROM s JOIN t ON t.id = s.id WHERE s.id > 0 ORDER BY 1`: "[]",
		`select s.id from s join t on t.id = s.id where s.id > 0 /* c */ order by 1`:      "[]",
		`SELECT s.id FROM s JOIN t ON t.id = s.id WHERE s.id > 1 ORDER BY 1`:              "[where_clause]",
		`SELECT s.id FROM s JOIN t ON t.name = s.id WHERE s.id > 0 ORDER BY 1`:            "[from_table]",
		`SELECT s.id FROM s JOIN t ON t.id = s.id WHERE s.id > 0 ORDER BY 1 LIMIT 2`:      "[modifiers]",
		`SELECT s.id FROM s JOIN t ON t.id = s.id WHERE s.id > 0 GROUP BY 1 ORDER BY 1`:   "[group_expressions]",
	} {
		q := outline(t, sql).Query
		var differ []string
		for k, v := range base.Rest {
			if q.Rest[k] != v {
				differ = append(differ, k)
			}
		}
		for k := range q.Rest {
			if _, ok := base.Rest[k]; !ok {
				differ = append(differ, k)
			}
		}
		if fmt.Sprint(differ) != want {
			t.Errorf("%s: parts that differ = %v, want %s", sql, differ, want)
		}
		if q.Items[0].Hash != base.Items[0].Hash {
			t.Errorf("%s: an unchanged item changed its hash", sql)
		}
	}
}

// refsOf prints refs as {qualifier column}, the reading lineage tries
// first.
func refsOf(refs []engine.ColumnRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = "{" + r.Qualifier + " " + r.Column + "}"
	}
	return out
}

// TestOutlineFieldsAndTableFunctions: composite and JSON field reads are
// paths as DuckDB's struct fields are, a JSON object built from columns
// has fields, and table functions name their function, the columns their
// arguments read and the names their alias gives.
func TestOutlineFieldsAndTableFunctions(t *testing.T) {
	q := outline(t, `SELECT (p.np).first AS f, (np).last AS l, p.np.mid AS m, p.j->>'k' AS k, j->'a'->>'b' AS ab,
  jsonb_build_object('first', a.fn, 'n', a.id + 1) AS o, u.x, p.arr[1] AS one
FROM p, a, unnest(p.arr) AS u(x), generate_series(1, p.n) AS g,
  LATERAL jsonb_array_elements(p.j) WITH ORDINALITY AS e(v, i), jsonb_array_elements_text(p.j) AS jt`).Query
	var items []string
	for _, it := range q.Items {
		var refs []string
		for _, r := range it.Refs {
			refs = append(refs, fmt.Sprintf("%s.%s%v", r.Qualifier, r.Column, r.Path))
		}
		line := fmt.Sprintf("%s: %s plain=%v", it.Name, strings.Join(refs, " "), it.Plain)
		for _, f := range it.Fields {
			line += fmt.Sprintf(" field %s%v", f.Name, refsOf(f.Refs))
		}
		items = append(items, line)
	}
	want := []string{
		"f: np.first[p np first] plain=false",
		"l: np.last[np last] plain=false",
		"m: np.mid[p np mid] plain=true",
		"k: j.k[p j k] plain=false",
		"ab: a.b[j a b] plain=false",
		"o: a.fn[a fn] a.id[a id] plain=false field first[{a fn}] field n[{a id}]",
		"x: u.x[u x] plain=true",
		"one: p.arr[p arr] plain=false",
	}
	if strings.Join(items, "\n") != strings.Join(want, "\n") {
		t.Errorf("items:\n%s\nwant:\n%s", strings.Join(items, "\n"), strings.Join(want, "\n"))
	}
	var from []string
	for _, s := range q.From {
		from = append(from, fmt.Sprintf("%s fn=%s args=%v cols=%v", s.Name(), s.Function, refsOf(s.Args), s.Columns))
	}
	wantFrom := []string{
		"p fn= args=[] cols=[]",
		"a fn= args=[] cols=[]",
		"u fn=unnest args=[{p arr}] cols=[x]",
		"g fn=generate_series args=[{p n}] cols=[]",
		"e fn=jsonb_array_elements args=[{p j}] cols=[v i]",
		"jt fn=jsonb_array_elements_text args=[{p j}] cols=[value]",
	}
	if strings.Join(from, "\n") != strings.Join(wantFrom, "\n") {
		t.Errorf("from:\n%s\nwant:\n%s", strings.Join(from, "\n"), strings.Join(wantFrom, "\n"))
	}
}
