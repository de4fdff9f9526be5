package analysis

import (
	"fmt"
	"testing"
)

func TestColumnSources(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"seeds/s.csv":  "id,name,amount\n1,a,2\n",
		"models/s.sql": `MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, name TEXT, amount DOUBLE));`,
		"models/u.sql": `MODEL (name raw.u, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, name TEXT, amount DOUBLE));`,
		"models/a.sql": `MODEL (name m.a);
WITH c AS (SELECT id AS key, amount * 2 AS twice FROM @ref(raw.s))
SELECT c.key, u.name AS label, c.twice + u.amount AS total, sum(u.amount) OVER (PARTITION BY u.name) AS running
FROM c JOIN @ref(raw.u) AS u ON u.id = c.key
QUALIFY row_number() OVER (PARTITION BY c.key) = 1`,
		"models/b.sql": `MODEL (name m.b, kind VIEW);
SELECT * EXCLUDE (running) FROM (SELECT * FROM @ref(m.a)) AS x
UNION ALL
SELECT id, name, amount FROM @ref(raw.s)`,
		"models/c.sql": `MODEL (name m.c, kind VIEW);
SELECT x.* EXCLUDE (x.id) FROM @ref(raw.s) AS x
UNION ALL
SELECT u.name, u.amount FROM @ref(raw.u) AS u`,
	})
	mustClean(t, a)
	for _, tc := range []struct{ model, col, want string }{
		{"m.a", "key", "[{raw.s id}]"},
		{"m.a", "label", "[{raw.u name}]"},
		{"m.a", "total", "[{raw.s amount} {raw.u amount}]"},
		{"m.a", "running", "[{raw.u amount} {raw.u name}]"},
		{"m.b", "key", "[{m.a key} {raw.s id}]"},
		{"m.b", "total", "[{m.a total} {raw.s amount}]"},
		{"m.b", "running", "[]"},
		// A qualified EXCLUDE leaves the column out of the star.
		{"m.c", "name", "[{raw.s name} {raw.u name}]"},
		{"m.c", "amount", "[{raw.s amount} {raw.u amount}]"},
	} {
		got := fmt.Sprint(ColumnSources(a, tc.model, tc.col))
		if got != tc.want {
			t.Errorf("%s.%s: got %s, want %s", tc.model, tc.col, got, tc.want)
		}
	}
	n, err := Lineage(a, "m.b", "total")
	if err != nil {
		t.Fatal(err)
	}
	var leaves []string
	var walk func(*LineageNode)
	walk = func(n *LineageNode) {
		if len(n.Sources) == 0 {
			leaves = append(leaves, n.Model+"."+n.Column)
		}
		for _, s := range n.Sources {
			walk(s)
		}
	}
	walk(n)
	if fmt.Sprint(leaves) != "[raw.s.amount raw.u.amount raw.s.amount]" {
		t.Errorf("leaves = %v", leaves)
	}
	if _, err := Lineage(a, "m.b", "nope"); err == nil {
		t.Error("unknown column accepted")
	}
}
