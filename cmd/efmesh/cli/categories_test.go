package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/state/sqlite"
)

type explainedPlan struct {
	HasChanges bool `json:"hasChanges"`
	Models     []struct {
		Name             string   `json:"name"`
		Change           string   `json:"change"`
		Build            bool     `json:"build"`
		PhysicalTable    string   `json:"physicalTable"`
		ReusedFrom       string   `json:"reusedFrom"`
		ReclassifiedFrom string   `json:"reclassifiedFrom"`
		Explain          []string `json:"explain"`
	} `json:"models"`
}

func explained(t *testing.T, dir string, args ...string) explainedPlan {
	t.Helper()
	out := mustRun(t, dir, append([]string{"plan", "dev", "--json"}, args...)...)
	var p explainedPlan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return p
}

const midModel = `MODEL (name m.mid, kind FULL, description 'middle');
SELECT s.id, s.name, s.score * 2 AS doubled
FROM @ref(raw.s) AS s
JOIN @ref(raw.s) AS o ON o.id = s.id
WHERE s.id > 0
`

func threeLevels() map[string]string {
	return map[string]string{
		"efmesh.yaml":    "name: three\n",
		"seeds/s.csv":    "id,name,score\n1,ada,3\n2,bob,4\n3,cy,5\n",
		"models/s.sql":   "MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, name TEXT, score INTEGER));\n",
		"models/mid.sql": midModel,
		"models/top.sql": "MODEL (name m.top, kind FULL);\nSELECT id, upper(name) AS name FROM @ref(m.mid)\n",
	}
}

// physicalTables lists the warehouse's physical tables.
func physicalTables(t *testing.T, dir string) string {
	return query(t, dir, `SELECT table_name FROM information_schema.tables WHERE table_schema = '_efmesh' ORDER BY 1`)
}

// TestChangeCategories edits the middle of a three-level DAG and checks
// category, explained path, what is built, and (for non-breaking) that
// the child keeps its physical table.
func TestChangeCategories(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		mid            string // change of m.mid
		midPath        string // an --explain entry of m.mid
		top            string // change of m.top
		topBuilt       bool
	}{
		{"append a column", "AS doubled\n", "AS doubled, s.score + 1 AS bumped\n", "non-breaking", "select_list[3] (added)", "indirect", false},
		{"change an expression", "s.score * 2", "s.score * 3", "breaking", "select_list[2]", "indirect", true},
		{"change the where clause", "s.id > 0", "s.id > 1", "breaking", "where_clause", "indirect", true},
		{"change the join", "o.id = s.id", "o.name = s.name", "breaking", "from_table", "indirect", true},
		{"drop a column", ", s.score * 2 AS doubled", "", "breaking", "select_list[2] (removed)", "indirect", true},
		{"reorder columns", "s.id, s.name", "s.name, s.id", "breaking", "select_list[0]", "indirect", true},
		{"change the description", "description 'middle'", "description 'the middle layer'", "metadata-only", "", "unchanged", false},
		{"add an audit", "description 'middle'", "description 'middle', audits (not_null(id))", "metadata-only", "", "unchanged", false},
		{"reformat", "WHERE s.id > 0", "where   s.id>0 -- positive ids", "unchanged", "", "unchanged", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, threeLevels())
			mustRun(t, dir, "apply", "dev", "--yes")
			before := physicalTables(t, dir)
			editFile(t, dir, "models/mid.sql", func(s string) string { return strings.Replace(s, tc.from, tc.to, 1) })
			p := explained(t, dir, "--explain")
			got := map[string]string{}
			for _, m := range p.Models {
				got[m.Name] = m.Change
				switch m.Name {
				case "m.mid":
					if tc.midPath != "" && !strings.Contains(strings.Join(m.Explain, "\n"), tc.midPath) {
						t.Errorf("m.mid explain %q lacks %q", m.Explain, tc.midPath)
					}
				case "m.top":
					if m.Build != tc.topBuilt {
						t.Errorf("m.top build = %v, want %v (%v)", m.Build, tc.topBuilt, m.Explain)
					}
					if !tc.topBuilt && tc.top == "indirect" && m.ReusedFrom == "" {
						t.Errorf("m.top does not name the snapshot it reuses")
					}
				}
			}
			if got["m.mid"] != tc.mid || got["m.top"] != tc.top || got["raw.s"] != "unchanged" {
				t.Fatalf("categories = %v, want m.mid %s, m.top %s", got, tc.mid, tc.top)
			}
			out := mustRun(t, dir, "apply", "dev", "--yes", "--json")
			var res struct {
				Built []string `json:"built"`
			}
			json.Unmarshal([]byte(out), &res)
			after := physicalTables(t, dir)
			switch tc.mid {
			case "metadata-only", "unchanged":
				if len(res.Built) != 0 || after != before {
					t.Fatalf("built %v; tables %s -> %s", res.Built, before, after)
				}
				if p := explained(t, dir); p.HasChanges {
					t.Fatalf("the metadata change was not recorded: %+v", p.Models)
				}
			case "non-breaking":
				// Exactly one new physical table: m.mid's.
				if fmt.Sprint(res.Built) != "[m.mid]" || strings.Count(after, "m__") != strings.Count(before, "m__")+1 {
					t.Fatalf("built %v; tables %s -> %s", res.Built, before, after)
				}
				// m.top's dev view still reads its old physical table.
				def := query(t, dir, `SELECT sql FROM duckdb_views() WHERE schema_name = 'dev__m' AND view_name = 'top'`)
				oldTop := ""
				for _, f := range strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(before)) {
					if strings.HasPrefix(f, "m__top__") {
						oldTop = f
					}
				}
				if oldTop == "" || !strings.Contains(def, oldTop) {
					t.Fatalf("m.top's view %s does not read %s", def, oldTop)
				}
				if got := query(t, dir, `SELECT count(*) FROM dev__m.top`); got != "[[3]]" {
					t.Fatalf("m.top rows = %s", got)
				}
			default:
				if len(res.Built) != 2 {
					t.Fatalf("built %v, want m.mid and m.top", res.Built)
				}
			}
		})
	}
}

func TestReclassify(t *testing.T) {
	dir := writeProject(t, threeLevels())
	mustRun(t, dir, "apply", "dev", "--yes")
	restore := editFile(t, dir, "models/mid.sql", func(s string) string { return strings.Replace(s, "s.score * 2", "s.score * 2.0", 1) })
	p := explained(t, dir, "--reclassify", "m.mid=non-breaking")
	for _, m := range p.Models {
		if m.Name == "m.mid" && (m.Change != "non-breaking" || m.ReclassifiedFrom != "breaking") {
			t.Fatalf("m.mid = %+v", m)
		}
		if m.Name == "m.top" && (m.Build || m.ReusedFrom == "") {
			t.Fatalf("m.top should reuse its table under a non-breaking parent: %+v", m)
		}
	}
	mustRun(t, dir, "apply", "dev", "--yes", "--reclassify", "m.mid=non-breaking")
	// The verdict is journaled with who gave it.
	if !strings.Contains(storeJournal(t, dir), `"reclassifiedFrom":"breaking"`) {
		t.Fatal("the reclassification is not in the plans journal")
	}
	restore()
	mustRun(t, dir, "apply", "dev", "--yes")

	// Dropping a column can never be non-breaking.
	editFile(t, dir, "models/mid.sql", func(s string) string { return strings.Replace(s, ", s.score * 2 AS doubled", "", 1) })
	code, _, errs := run(t, dir, "plan", "dev", "--reclassify", "m.mid=non-breaking")
	if code != ExitError || !strings.Contains(errs, "m.mid=non-breaking is refused") {
		t.Fatalf("contradicting reclassify: exit %d %s", code, errs)
	}
}

// storeJournal returns the newest entry of dev's plans journal.
func storeJournal(t *testing.T, dir string) string {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plans, err := st.Plans(context.Background(), "dev", 1)
	if err != nil || len(plans) == 0 {
		t.Fatalf("journal: %v", err)
	}
	if plans[0].AppliedBy == "" {
		t.Fatal("journal entry without applied_by")
	}
	return string(plans[0].Summary)
}

func TestForwardOnly(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("id,ts\n")
	for d := 1; d <= 9; d++ {
		fmt.Fprintf(&csv, "%d,2026-01-%02d 12:00:00\n", d, d)
	}
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":  "name: fwd\nstart: 2026-01-01\n",
		"seeds/e.csv":  csv.String(),
		"models/e.sql": "MODEL (name raw.e, kind SEED (path 'seeds/e.csv'), columns (id INTEGER, ts TIMESTAMP));\n",
		"models/inc.sql": `MODEL (name m.inc, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), interval day, columns (ts TIMESTAMP, id INTEGER));
SELECT ts, id FROM @ref(raw.e) WHERE ts >= @start AND ts < @end
`,
	})
	t.Setenv("EFMESH_NOW", "2026-01-06T00:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT count(*) FROM dev__m.inc"); got != "[[5]]" {
		t.Fatalf("rows through Jan 5: %s", got)
	}
	restore := editFile(t, dir, "models/inc.sql", func(s string) string {
		s = strings.Replace(s, "id INTEGER))", "id INTEGER, tenfold INTEGER))", 1)
		return strings.Replace(s, "SELECT ts, id FROM", "SELECT ts, id, id * 10 AS tenfold FROM", 1)
	})
	t.Setenv("EFMESH_NOW", "2026-01-08T00:00:00Z")
	p := explained(t, dir, "--forward-only", "m.inc")
	out := mustRun(t, dir, "plan", "dev", "--json", "--forward-only", "m.inc")
	for _, m := range p.Models {
		if m.Name == "m.inc" && (m.Change != "forward-only" || m.Build || m.ReusedFrom == "") {
			t.Fatalf("m.inc = %+v", m)
		}
	}
	// Only the two new days are due: history is not recomputed.
	if !strings.Contains(out, `"backfill": [
        [
          "2026-01-06T00:00:00Z",
          "2026-01-08T00:00:00Z"
        ]
      ]`) {
		t.Fatalf("backfill is not just the new days:\n%s", out)
	}
	mustRun(t, dir, "apply", "dev", "--yes", "--forward-only", "m.inc")
	got := query(t, dir, "SELECT id, tenfold FROM dev__m.inc ORDER BY id")
	if got != "[[1 <nil>] [2 <nil>] [3 <nil>] [4 <nil>] [5 <nil>] [6 60] [7 70]]" {
		t.Fatalf("history should read NULL, new intervals filled: %s", got)
	}
	if p := explained(t, dir); p.HasChanges {
		t.Fatalf("after a forward-only apply the plan has changes: %+v", p.Models)
	}
	restore()

	// Dropping a column cannot be forward-only.
	editFile(t, dir, "models/inc.sql", func(s string) string {
		s = strings.Replace(s, "columns (ts TIMESTAMP, id INTEGER)", "columns (ts TIMESTAMP)", 1)
		return strings.Replace(s, "SELECT ts, id FROM", "SELECT ts FROM", 1)
	})
	code, _, errs := run(t, dir, "plan", "dev", "--forward-only", "m.inc")
	if code != ExitError || !strings.Contains(errs, "column(s) tenfold, id would be dropped") && !strings.Contains(errs, "would be dropped") {
		t.Fatalf("dropping under forward-only: exit %d %s", code, errs)
	}
	if !strings.Contains(errs, "id") {
		t.Fatalf("the refusal does not name the column: %s", errs)
	}
}

// TestIdenticalDefinitions: two models with the same SQL over the same
// parent are two snapshots, each with its own table, whether they arrive
// together or one after the other.
func TestIdenticalDefinitions(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     "name: twins\n",
		"models/base.sql": "MODEL (name raw.base, kind FULL);\nSELECT 1 AS x UNION ALL SELECT 2\n",
		"models/a.sql":    "MODEL (name m.a, kind FULL);\nSELECT x FROM @ref(raw.base)\n",
		"models/b.sql":    "MODEL (name m.b, kind FULL);\nSELECT x FROM @ref(raw.base)\n",
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	if err := os.WriteFile(filepath.Join(dir, "models", "c.sql"), []byte("MODEL (name m.c, kind FULL);\nSELECT x FROM @ref(raw.base)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := planJSONOf(t, dir, "dev")
	for _, m := range p.Models {
		if m.Name == "m.c" && !m.Build {
			t.Fatalf("m.c would reuse another model's table: %+v", m)
		}
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	for _, v := range []string{"dev__m.a", "dev__m.b", "dev__m.c"} {
		if got := query(t, dir, "SELECT sum(x) FROM "+v); got != "[[3]]" {
			t.Fatalf("%s: %s", v, got)
		}
	}
}
