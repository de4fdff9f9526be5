package analysis

import (
	"fmt"
	"strings"
	"testing"
)

// TestJoinKeys: the equalities a query matches its parents' rows by, one
// group a condition, each column traced to its parent: ON (an expression
// on one side still pairs its column), USING, a comma join's WHERE, a
// FROM subquery renaming a column (an alias or a column list), a CTE, a
// subquery expression seeing the relations around it, a set operation's
// columns; a self join, a filter and a column computed from the parents'
// (a rank) pair nothing.
func TestJoinKeys(t *testing.T) {
	seed := `MODEL (name raw.%s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, cust INTEGER, code TEXT));`
	a := analyzeFiles(t, map[string]string{
		"seeds/s.csv":  "id,cust,code\n1,2,a\n",
		"models/o.sql": fmt.Sprintf(seed, "o"),
		"models/c.sql": fmt.Sprintf(seed, "c"),
		"models/r.sql": fmt.Sprintf(seed, "r"),
		"models/on.sql": `MODEL (name m.on_);
SELECT o.id FROM @ref(raw.o) o LEFT JOIN @ref(raw.c) c ON o.cust = c.id + 1 AND c.code <> 'x'`,
		"models/using.sql": `MODEL (name m.using);
SELECT o.id FROM @ref(raw.o) o JOIN @ref(raw.r) r USING (code)`,
		"models/comma.sql": `MODEL (name m.comma);
SELECT o.id FROM @ref(raw.o) o, @ref(raw.c) c, @ref(raw.r) r WHERE o.cust = c.id AND c.code = r.code AND o.id > 0`,
		"models/sub.sql": `MODEL (name m.sub);
WITH k AS (SELECT id AS kid FROM @ref(raw.c))
SELECT o.id FROM @ref(raw.o) o JOIN (SELECT cust AS who FROM @ref(raw.r)) x ON x.who = o.id
JOIN k ON k.kid = o.cust
WHERE EXISTS (SELECT 1 FROM @ref(raw.c) c2 WHERE c2.code = o.code)`,
		"models/self.sql": `MODEL (name m.self);
SELECT a.id FROM @ref(raw.o) a JOIN @ref(raw.o) b ON a.cust = b.id`,
		// TPC-DS's v1.rn = v1_lag.rn + 1: a column computed from several
		// parents' columns matches none of their rows.
		"models/rank.sql": `MODEL (name m.rank);
WITH v AS (SELECT o.id, c.code, rank() OVER (PARTITION BY c.code ORDER BY o.cust) AS rn FROM @ref(raw.o) o JOIN @ref(raw.c) c ON o.cust = c.id)
SELECT v1.id FROM v v1, v v2 WHERE v1.rn = v2.rn + 1 AND v1.code = v2.code`,
		"models/union.sql": `MODEL (name m.union_);
SELECT o.id FROM @ref(raw.o) o JOIN (SELECT id FROM @ref(raw.c) UNION ALL SELECT id FROM @ref(raw.r)) u ON u.id = o.cust
JOIN (SELECT cust FROM @ref(raw.r)) AS x (who) ON x.who = o.id`,
	})
	mustClean(t, a)
	show := func(groups [][]JoinKey) string {
		var out []string
		for _, g := range groups {
			var ks []string
			for _, k := range g {
				ks = append(ks, k.A.Model+"."+k.A.Column+"="+k.B.Model+"."+k.B.Column)
			}
			out = append(out, "("+strings.Join(ks, " ")+")")
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct{ model, want string }{
		{"m.on_", "(raw.o.cust=raw.c.id)"},
		{"m.using", "(raw.o.code=raw.r.code)"},
		{"m.comma", "(raw.o.cust=raw.c.id raw.c.code=raw.r.code)"},
		{"m.sub", "(raw.r.cust=raw.o.id) (raw.c.id=raw.o.cust) (raw.c.code=raw.o.code)"},
		{"m.self", ""},
		{"m.rank", "(raw.o.cust=raw.c.id)"},
		{"m.union_", "(raw.c.id=raw.o.cust raw.r.id=raw.o.cust) (raw.r.cust=raw.o.id)"},
	} {
		if got := show(JoinKeys(a, tc.model)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.model, got, tc.want)
		}
	}
}
