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
