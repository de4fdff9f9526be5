package planner

import (
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
)

// TestJudgeChildren appends a column to q.p and binds one child against
// its old and new columns: the append is breaking exactly when the child
// would read q.p (or anything) differently.
func TestJudgeChildren(t *testing.T) {
	const parent = "MODEL (name q.p, kind FULL);\nSELECT c_id, c_name FROM @ref(raw.customer)"
	files := func(p, child string) map[string]string {
		return map[string]string{
			"models/raw/customer.sql": customerModel,
			"models/q/p.sql":          p,
			"models/q/child.sql":      "MODEL (name q.child, kind FULL);\n" + child,
		}
	}
	for _, tc := range []struct {
		name, child string
		want        Change
		why         string // in the child's reason
		only        string // the one engine whose SQL this is; "" for both
	}{
		{"natural join", "SELECT c_id, c_name FROM @ref(q.p) NATURAL JOIN @ref(raw.customer)", Breaking,
			"q.child: NATURAL JOIN now also joins on c_nation", ""},
		{"natural join of a star subquery", "SELECT c_id FROM (SELECT * FROM @ref(q.p)) AS s NATURAL JOIN @ref(raw.customer)", Breaking,
			"NATURAL JOIN now also joins on c_nation", ""},
		{"natural join of a CTE", "WITH s AS (SELECT * FROM @ref(q.p)) SELECT c_id FROM s NATURAL JOIN @ref(raw.customer)", Breaking,
			"NATURAL JOIN now also joins on c_nation", ""},
		{"unqualified name captured by a subquery", "SELECT c.c_id, c.c_name FROM @ref(raw.customer) c WHERE EXISTS (SELECT 1 FROM @ref(q.p) x WHERE x.c_id > 0 AND c_nation = 'FR')", Breaking,
			"q.child: c_nation now resolves to x.c_nation", ""},
		{"select alias captured by WHERE", "SELECT c_id, upper(c_name) AS c_nation FROM @ref(q.p) WHERE c_nation <> 'X'", Breaking,
			"c_nation now resolves to p.c_nation", "duckdb"},
		{"distinct star in a subquery", "SELECT count(*) AS n FROM (SELECT DISTINCT * FROM @ref(q.p)) AS s", Breaking,
			"the query is DISTINCT", ""},
		{"COLUMNS in WHERE", "SELECT c_id FROM @ref(q.p) WHERE COLUMNS(*) IS NOT NULL", Breaking,
			"COLUMNS(…) over q.p now also covers c_nation", "duckdb"},
		{"union of a star", "SELECT count(*) AS n FROM (SELECT * FROM @ref(q.p) UNION SELECT * FROM @ref(q.p)) AS s", Breaking,
			"a set operation's branch now also yields c_nation", ""},
		{"a nested star", "SELECT c_id, row_to_json(p.*) AS j FROM @ref(q.p) AS p", Breaking,
			"a * or COLUMNS(…) over q.p now also covers c_nation", "postgres"},
		{"captured inside a scalar subquery", "SELECT c.c_id, (SELECT max(x.c_id) FROM @ref(q.p) x WHERE c_nation = 'FR') AS m FROM @ref(raw.customer) c", Breaking,
			"q.child: c_nation now resolves to x.c_nation", ""},
		{"captured inside a subquery of a join condition", "SELECT c.c_id FROM @ref(raw.customer) c JOIN @ref(q.p) d ON d.c_id = c.c_id AND EXISTS (SELECT 1 FROM @ref(q.p) x WHERE x.c_id = d.c_id AND c_nation = 'FR')", Breaking,
			"q.child: c_nation now resolves to x.c_nation", ""},
		{"captured inside an IN subquery of the select list", "SELECT c.c_id, c.c_id IN (SELECT x.c_id FROM @ref(q.p) x WHERE c_nation = 'FR') AS fr FROM @ref(raw.customer) c", Breaking,
			"q.child: c_nation now resolves to x.c_nation", ""},
		{"join using", "SELECT c_id, p.c_name, c.c_nation FROM @ref(q.p) AS p JOIN @ref(raw.customer) AS c USING (c_id)", NonBreaking, "", ""},
		{"qualified names", "SELECT c.c_id, c.c_name FROM @ref(raw.customer) c WHERE EXISTS (SELECT 1 FROM @ref(q.p) x WHERE x.c_id = c.c_id AND c.c_nation = 'FR')", NonBreaking, "", ""},
		{"plain star", "SELECT * FROM @ref(q.p)", NonBreaking, "", ""},
		{"distinct star of another relation", "SELECT count(*) AS n FROM (SELECT DISTINCT c.* FROM @ref(q.p) AS p JOIN @ref(raw.customer) AS c USING (c_id)) AS s", NonBreaking, "", ""},
		{"lambda parameter", "SELECT c_id, list_filter([1, 2], c_nation -> c_nation > 1) AS l FROM @ref(q.p)", NonBreaking, "", "duckdb"},
	} {
		for _, eng := range engines {
			if tc.only != "" && tc.only != eng {
				continue
			}
			t.Run(eng+"/"+tc.name, func(t *testing.T) {
				before := analyzeOn(t, eng, files(parent, tc.child))
				mustClean(t, before)
				after := analyzeOn(t, eng, files(strings.Replace(parent, "c_name FROM", "c_name, 'XX' AS c_nation FROM", 1), tc.child))
				mustClean(t, after)
				old, nw := before.Models["q.p"], after.Models["q.p"]
				v := judge(after, nw, analysis.DefinitionOfInfo(old), old.Canonical)
				if v.change != tc.want {
					t.Fatalf("change = %s (%s; %v), want %s", v.change, v.reason, v.children, tc.want)
				}
				got := strings.Join(v.children, "\n")
				if tc.why == "" && got != "" || !strings.Contains(got, tc.why) {
					t.Fatalf("children = %q, want %q", got, tc.why)
				}
			})
		}
	}
}
