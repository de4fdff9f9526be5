package duckdb

import (
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

func outline(t *testing.T, db *DB, sql string) *engine.Outline {
	t.Helper()
	c, err := db.Canonicalize(sql)
	if err != nil {
		t.Fatal(err)
	}
	o, err := db.Outline(c)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOutline(t *testing.T) {
	db := open(t)
	o := outline(t, db, `WITH c AS (SELECT id AS key FROM "raw"."s")
SELECT DISTINCT c.key, u.name AS label, sum(u.amount) OVER (PARTITION BY u.name) AS running,
  upper(u.name), count(*) AS n, x.* EXCLUDE (a), (SELECT max(z) FROM t) AS sub
FROM c JOIN "raw"."u" AS u ON u.id = c.key, (SELECT 1 AS a, 2 AS b) AS x
GROUP BY ALL QUALIFY rank() OVER () = 1`)
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
		items = append(items, fmt.Sprintf("%s%v star=%v/%s%v calls=%v windows=%v", it.Name, refsOf(it.Refs), it.Star, it.StarOf, it.Exclude, it.Calls, it.Windows))
	}
	want := []string{
		"key[{c key}] star=false/[] calls=[] windows=[]",
		"label[{u name}] star=false/[] calls=[] windows=[]",
		"running[{u amount} {u name}] star=false/[] calls=[] windows=[sum]",
		"[{u name}] star=false/[] calls=[upper] windows=[]",
		"n[] star=false/[] calls=[count_star] windows=[]",
		"[] star=true/x[a] calls=[] windows=[]",
		"sub[] star=false/[] calls=[] windows=[]",
	}
	if strings.Join(items, "\n") != strings.Join(want, "\n") {
		t.Errorf("items:\n%s\nwant:\n%s", strings.Join(items, "\n"), strings.Join(want, "\n"))
	}
	if fmt.Sprint(o.Windows) != "[rank sum]" {
		t.Errorf("windows = %v", o.Windows)
	}

	set := outline(t, db, `SELECT a FROM t UNION ALL SELECT b FROM u`).Query
	if set.Kind != engine.SetOperation || len(set.Branches) != 2 || set.Branches[1].Items[0].Name != "b" {
		t.Errorf("set operation = %+v", set)
	}
}

// TestOutlineRest: versions that differ only in their select lists have
// equal Rest; another change names its part.
func TestOutlineRest(t *testing.T) {
	db := open(t)
	base := outline(t, db, `SELECT s.id FROM s JOIN t ON t.id = s.id WHERE s.id > 0`).Query
	appended := outline(t, db, `SELECT s.id, s.name AS n FROM s JOIN t ON t.id = s.id WHERE s.id > 0`).Query
	where := outline(t, db, `SELECT s.id FROM s JOIN t ON t.id = s.id WHERE s.id > 1`).Query
	if fmt.Sprint(base.Rest) != fmt.Sprint(appended.Rest) {
		t.Errorf("appending a column changed Rest: %v vs %v", base.Rest, appended.Rest)
	}
	if base.Items[0].Hash != appended.Items[0].Hash {
		t.Error("an unchanged item changed its hash")
	}
	var differ []string
	for k, v := range base.Rest {
		if where.Rest[k] != v {
			differ = append(differ, k)
		}
	}
	if fmt.Sprint(differ) != "[where_clause]" {
		t.Errorf("parts that differ = %v", differ)
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
