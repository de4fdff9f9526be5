package planner

import (
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
)

// TestCategorize edits the middle model of a three-level DAG and checks the
// verdict and the explained paths against real canonical trees.
func TestCategorize(t *testing.T) {
	const mid = `MODEL (name m.mid, description 'd');
SELECT s.id, s.name FROM @ref(raw.s) AS s JOIN @ref(raw.s) AS t ON t.id = s.id WHERE s.id > 0 GROUP BY ALL`
	files := func(body string) map[string]string {
		return map[string]string{
			"seeds/s.csv":    "id,name\n1,a\n",
			"models/s.sql":   `MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, name TEXT));`,
			"models/mid.sql": body,
			"models/top.sql": "MODEL (name m.top, kind VIEW);\nSELECT id FROM @ref(m.mid)",
		}
	}
	const contracted = `MODEL (name m.mid, columns (id INTEGER, name TEXT));
SELECT s.id, s.name FROM @ref(raw.s) AS s`
	for _, tc := range []struct {
		name, from, to string
		want           Change
		path           string
	}{
		{"append a column", "s.name FROM", "s.name, upper(s.name) AS shout FROM", NonBreaking, "select_list[2] (added)"},
		{"append with contract", "name TEXT)", "name TEXT, n TEXT)", NonBreaking, "select_list[2] (added)"},
		{"change an expression", "SELECT s.id,", "SELECT s.id + 0 AS id,", Breaking, "select_list[0]"},
		{"change the where clause", "s.id > 0", "s.id > 1", Breaking, "where_clause"},
		{"change the join", "ON t.id = s.id", "ON t.name = s.name", Breaking, "from_table"},
		{"drop a column", "columns (id INTEGER, name TEXT)", "columns (id INTEGER)", Breaking, "columns"},
		{"drop a select item", "SELECT s.id, s.name FROM", "SELECT s.id FROM", Breaking, "select_list[1] (removed)"},
		{"reorder columns", "SELECT s.id, s.name", "SELECT s.name, s.id", Breaking, "select_list[0]"},
		{"append an unnest", "s.name FROM", "s.name, unnest([1, 2]) AS k FROM", Breaking, "select_list[2] (added)"},
		{"append an aggregate to a grouped query", "s.name FROM", "s.name, count(*) AS n FROM", NonBreaking, "select_list[2] (added)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := mid
			if strings.Contains(tc.from, "TEXT)") || strings.HasPrefix(tc.from, "columns") {
				base = contracted
			}
			before := analyzeFiles(t, files(base))
			mustClean(t, before)
			old := before.Models["m.mid"]
			body := strings.Replace(base, tc.from, tc.to, 1)
			if body == base {
				t.Fatalf("edit did not apply")
			}
			if tc.name == "append with contract" {
				body = strings.Replace(body, "s.name FROM", "s.name, s.name AS n FROM", 1)
			}
			if tc.name == "drop a column" {
				body = strings.Replace(body, "SELECT s.id, s.name FROM", "SELECT s.id FROM", 1)
			}
			after := analyzeFiles(t, files(body))
			mustClean(t, after)
			nw := after.Models["m.mid"]
			v := categorize(analysis.DefinitionOfInfo(old), analysis.DefinitionOfInfo(nw), old.Canonical, nw.Canonical, after.Outliner())
			if v.change != tc.want {
				t.Fatalf("change = %s (%v: %s), want %s", v.change, v.paths, v.reason, tc.want)
			}
			found := false
			for _, p := range v.paths {
				found = found || p == tc.path
			}
			if !found {
				t.Fatalf("paths %v lack %q", v.paths, tc.path)
			}
		})
	}
}

// TestCategorizeExcludeNothing: an EXCLUDE entry that names no column the
// star yields leaves the output identical, so it is not breaking; one that
// drops a column a child reads stays breaking.
func TestCategorizeExcludeNothing(t *testing.T) {
	files := func(body string) map[string]string {
		return map[string]string{
			"seeds/s.csv":    "id,name,note\n1,a,x\n",
			"seeds/u.csv":    "id,extra\n1,y\n",
			"models/s.sql":   `MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, name TEXT, note TEXT));`,
			"models/u.sql":   `MODEL (name raw.u, kind SEED (path 'seeds/u.csv'), columns (id INTEGER, extra TEXT));`,
			"models/mid.sql": "MODEL (name m.mid);\n" + body,
			"models/top.sql": "MODEL (name m.top, kind VIEW);\nSELECT id, note FROM @ref(m.mid)",
		}
	}
	// USING (id) merges the two ids into one column: t.id is not a
	// column of its own in what the star yields.
	const base = "SELECT * FROM @ref(raw.s) AS s JOIN @ref(raw.u) AS t USING (id)"
	for _, tc := range []struct {
		name, to string
		want     Change
	}{
		{"exclude a column the query does not yield", "SELECT * EXCLUDE (t.id) FROM @ref(raw.s) AS s JOIN @ref(raw.u) AS t USING (id)", NonBreaking},
		{"exclude a column a child reads", "SELECT * EXCLUDE (note) FROM @ref(raw.s) AS s JOIN @ref(raw.u) AS t USING (id)", Breaking},
		{"exclude a column that moves another", "SELECT * EXCLUDE (s.id) FROM @ref(raw.s) AS s JOIN @ref(raw.u) AS t USING (id)", Breaking},
		{"replace a column", "SELECT * REPLACE (upper(name) AS name) FROM @ref(raw.s) AS s JOIN @ref(raw.u) AS t USING (id)", Breaking},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := analyzeFiles(t, files(base))
			mustClean(t, before)
			after := analyzeFiles(t, files(tc.to))
			if tc.want == NonBreaking {
				mustClean(t, after)
			}
			old, nw := before.Models["m.mid"], after.Models["m.mid"]
			v := categorize(analysis.DefinitionOfInfo(old), analysis.DefinitionOfInfo(nw), old.Canonical, nw.Canonical, after.Outliner())
			if v.change != tc.want {
				t.Fatalf("change = %s (%v: %s), want %s", v.change, v.paths, v.reason, tc.want)
			}
			if v.change == NonBreaking && !strings.Contains(v.reason, "EXCLUDE") {
				t.Fatalf("reason %q does not name the rule", v.reason)
			}
		})
	}
}

// TestCategorizeRowKeys: appending an item is non-breaking only when the
// select list takes no part in deciding the rows (a row key or the row
// set), or the new item is a function of the existing keys.
func TestCategorizeRowKeys(t *testing.T) {
	files := func(body string) map[string]string {
		return map[string]string{
			"models/raw/customer.sql": customerModel,
			"models/q/m.sql":          "MODEL (name q.m, kind FULL);\n" + body,
		}
	}
	const from = " FROM @ref(raw.customer)"
	for _, tc := range []struct {
		name, old, added string
		rest             string // after FROM
		want             Change
		why              string
		only             string // the one engine whose SQL this is; "" for both
	}{
		{"GROUP BY ALL and a plain column", "c_nation, count(*) AS n", "c_name", " GROUP BY ALL", Breaking, "GROUP BY ALL", "duckdb"},
		{"GROUP BY ALL and an aggregate", "c_nation, count(*) AS n", "max(c_name) AS top", " GROUP BY ALL", NonBreaking, "", "duckdb"},
		{"GROUP BY ALL and a function of a key", "c_nation, count(*) AS n", "lower(c_nation) AS nat", " GROUP BY ALL", NonBreaking, "", "duckdb"},
		{"explicit GROUP BY and a key column", "c_nation, count(*) AS n", "c_nation AS nat", " GROUP BY c_nation", NonBreaking, "", ""},
		{"explicit GROUP BY and an aggregate", "c_nation, count(*) AS n", "max(c_name) AS top", " GROUP BY c_nation", NonBreaking, "", ""},
		{"DISTINCT and a column", "DISTINCT c_nation", "c_name", "", Breaking, "DISTINCT", ""},
		{"DISTINCT and a constant", "DISTINCT c_nation", "'x' AS tag", "", NonBreaking, "", ""},
		{"DISTINCT and random()", "DISTINCT c_nation", "random() AS r", "", Breaking, "DISTINCT", ""},
		{"DISTINCT and a window", "DISTINCT c_nation", "row_number() OVER () AS rn", "", Breaking, "DISTINCT", ""},
		{"ORDER BY ALL under LIMIT", "c_nation", "c_name", " ORDER BY ALL LIMIT 2", Breaking, "ORDER BY ALL", "duckdb"},
		{"ORDER BY ALL without LIMIT", "c_nation", "c_name", " ORDER BY ALL", NonBreaking, "", "duckdb"},
		{"an aggregate into a plain query", "1 AS one", "count(*) AS n", "", Breaking, "aggregation", ""},
		{"a set-returning function", "c_nation", "unnest([1, 2]) AS k", "", Breaking, "set-returning", "duckdb"},
		{"a set-returning function over an array", "c_nation", "unnest(ARRAY[1, 2]) AS k", "", Breaking, "set-returning", "postgres"},
		{"generate_series", "c_nation", "generate_series(1, 2) AS k", "", Breaking, "set-returning", ""},
		{"DISTINCT ON and a column", "DISTINCT ON (c_nation) c_nation", "c_name", " ORDER BY c_nation, c_id", Breaking, "DISTINCT", ""},
		{"FETCH FIRST names the new alias", "c_id", "upper(c_nation) AS c_name", " ORDER BY c_name FETCH FIRST 2 ROWS ONLY", Breaking, "c_name", ""},
		{"a subquery in WHERE", "c_id", "c_name", " WHERE c_id IN (SELECT c_id FROM @ref(raw.customer) WHERE c_nation = 'FR')", NonBreaking, "", ""},
		{"QUALIFY names the new alias", "c_id, c_name", "c_id % 2 AS c_nation", " QUALIFY row_number() OVER (PARTITION BY c_nation ORDER BY c_id) = 1", Breaking, "c_nation", "duckdb"},
		{"ORDER BY names the new alias under LIMIT", "c_id", "upper(c_nation) AS c_name", " ORDER BY c_name LIMIT 2", Breaking, "c_name", ""},
		{"ORDER BY and LIMIT with an unrelated column", "c_id", "upper(c_nation) AS shout", " ORDER BY c_name LIMIT 2", NonBreaking, "", ""},
		{"a plain column", "c_id", "c_name", " WHERE c_id > 1", NonBreaking, "", ""},
	} {
		for _, eng := range engines {
			if tc.only != "" && tc.only != eng {
				continue
			}
			t.Run(eng+"/"+tc.name, func(t *testing.T) {
				before := analyzeOn(t, eng, files("SELECT "+tc.old+from+tc.rest))
				mustClean(t, before)
				after := analyzeOn(t, eng, files("SELECT "+tc.old+", "+tc.added+from+tc.rest))
				mustClean(t, after)
				old, nw := before.Models["q.m"], after.Models["q.m"]
				v := categorize(analysis.DefinitionOfInfo(old), analysis.DefinitionOfInfo(nw), old.Canonical, nw.Canonical, after.Outliner())
				if v.change != tc.want {
					t.Fatalf("change = %s (%v: %s), want %s", v.change, v.paths, v.reason, tc.want)
				}
				if !strings.Contains(v.reason, tc.why) {
					t.Fatalf("reason %q lacks %q", v.reason, tc.why)
				}
			})
		}
	}
}
