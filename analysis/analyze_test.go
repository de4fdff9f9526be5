package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// analyzeFiles writes a project into a temporary folder and analyzes it.
func analyzeFiles(t *testing.T, files map[string]string) *Analysis {
	t.Helper()
	if _, ok := files["efmesh.yaml"]; !ok {
		files["efmesh.yaml"] = "name: t\nstart: 2026-01-01\n"
	}
	dir := testkit.WriteProject(t, files)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wb.Close() })
	a, err := Analyze(context.Background(), p, wb)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustClean(t *testing.T, a *Analysis) {
	t.Helper()
	if len(a.Diagnostics) > 0 {
		var b strings.Builder
		for _, d := range a.Diagnostics {
			b.WriteString(d.String() + "\n")
		}
		t.Fatalf("unexpected diagnostics:\n%s", b.String())
	}
}

func TestLastPartAt(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"amout)", "amout"},
		{"o.amout, x", "amout"},
		{"s.t.nme FROM", "nme"},
		{`"Weird ""o""".nope)`, "nope"},
		{`w . "Ünï x" + 1`, `"Ünï x"`},
		{"régions.é1 =", "é1"},
		{"o.", "o"},
		{"(x)", "("},
	} {
		s, e := lastPartAt([]byte(tc.src), 0)
		if got := tc.src[s:e]; got != tc.want {
			t.Errorf("lastPartAt(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestPropertyColumns: the columns a header names are checked against what
// the query yields, and reported on the name in the header.
func TestPropertyColumns(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/src.sql": "MODEL (name a.src);\nSELECT 1 AS id, TIMESTAMP '2026-01-01' AS ts, 'x' AS txt, DATE '2026-01-01' AS day",
		"models/i.sql":   "MODEL (name a.i, kind INCREMENTAL_BY_TIME_RANGE (time_column nope), interval day);\nSELECT id, ts FROM @ref(a.src) WHERE ts >= @start AND ts < @end",
		"models/t.sql":   "MODEL (name a.t, kind INCREMENTAL_BY_TIME_RANGE (time_column txt), interval day);\nSELECT id, txt FROM @ref(a.src)",
		"models/d.sql":   "MODEL (name a.d, kind INCREMENTAL_BY_TIME_RANGE (time_column DAY), interval day);\nSELECT id, day FROM @ref(a.src)",
		"models/u.sql":   "MODEL (name a.u, kind INCREMENTAL_BY_UNIQUE_KEY (key (id, idd)), grain (id, tss));\nSELECT id, ts FROM @ref(a.src)",
		"models/s.sql":   "MODEL (name a.s, kind SCD_TYPE_2 (key (\"Id\")), grain (id, valid_from));\nSELECT id, ts FROM @ref(a.src)",
	})
	var got []string
	for _, d := range a.Diagnostics {
		m := a.Project.ByName["a."+strings.TrimSuffix(strings.TrimPrefix(d.File, "models/"), ".sql")]
		text := string(m.Source[d.Range.Start.Offset:d.Range.End.Offset])
		got = append(got, fmt.Sprintf("%s %q: %s", d.File, text, d.Message))
	}
	want := []string{
		`models/i.sql "nope": time_column nope is not a column of the query; it yields id, ts`,
		`models/t.sql "txt": time_column txt is VARCHAR; it must hold dates or timestamps`,
		`models/u.sql "idd": key idd is not a column of the query; did you mean "id"?`,
		`models/u.sql "tss": grain column tss is not a column of the query; did you mean "ts"?`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBodyMessages: problems the engine would explain badly get their own
// message, at the place that causes them.
func TestBodyMessages(t *testing.T) {
	for _, tc := range []struct{ body, at, msg string }{
		{"SELECT id /* abc FROM @ref(a.src)", "/*", "unterminated /* comment"},
		{"PIVOT @ref(a.src) ON v USING sum(id)", "PIVOT", "a PIVOT without IN (…) takes its columns from the data"},
		{"SELECT *\nFROM (PIVOT @ref(a.src) ON v USING sum(id))", "PIVOT", "list the values (PIVOT … ON col IN ('a', 'b')"},
		{"INSERT INTO t VALUES (1)", "INSERT", "must be one SELECT query"},
		{"SELECT 1 AS x, 2 AS X", "X", `yields column "X" twice`},
		{"SELECT id, v AS \"MixedCase\", (SELECT 1 AS mixedcase), s.id AS k, s.v AS \"mixedCASE\" FROM @ref(a.src) AS s", "\"mixedCASE\"", `yields column "mixedCASE" twice`},
		{"WITH c AS (SELECT 1 AS x, 2 AS y) SELECT c.x, c.y AS x FROM c", "x FROM", `yields column "x" twice`},
		{"SELECT *, id FROM @ref(a.src)", "SELECT", `yields column "id" twice`},
		{"SELECT 'caf\xe9' AS x", "\xe9", "not valid UTF-8"},
		{"SELECT '/* no' AS \"a /* b\", 1 AS y -- /* nor\n/* a /* nested */ one */", "", ""},
	} {
		a := analyzeFiles(t, map[string]string{
			"models/src.sql": "MODEL (name a.src);\nSELECT 1 AS id, 'x' AS v",
			"models/m.sql":   "MODEL (name a.m);\n" + tc.body,
		})
		m := a.Project.ByName["a.m"]
		var got []string
		for _, d := range a.Diagnostics {
			got = append(got, fmt.Sprintf("%q %s", m.Source[d.Range.Start.Offset:], d.Message))
			if tc.msg == "" || !strings.Contains(d.Message, tc.msg) || !strings.HasPrefix(string(m.Source[d.Range.Start.Offset:]), tc.at) {
				t.Errorf("%q: %s at %q, want %q at %q", tc.body, d.Message, m.Source[d.Range.Start.Offset:], tc.msg, tc.at)
			}
		}
		if tc.msg != "" && len(a.Diagnostics) != 1 {
			t.Errorf("%q: %d diagnostics %v, want 1", tc.body, len(a.Diagnostics), got)
		}
	}
}

// TestSeedAndThisMessages: an empty seed is an error, without declared
// columns (not a column0 VARCHAR table) and with them (at the seed's line
// 1: it once loaded as no rows and emptied everything downstream); a
// header alone is a seed of no rows. @this in a model is one error.
func TestSeedAndThisMessages(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"seeds/empty.csv":  "\n",
		"seeds/header.csv": "id\n",
		"models/s.sql":     "MODEL (name a.s, kind SEED (path 'seeds/empty.csv'));",
		"models/d.sql":     "MODEL (name a.d, kind SEED (path 'seeds/empty.csv'), columns (id INTEGER));",
		"models/h.sql":     "MODEL (name a.h, kind SEED (path 'seeds/header.csv'), columns (id INTEGER));",
		"models/t.sql":     "MODEL (name a.t);\nSELECT * FROM @this",
	})
	var got []string
	for _, d := range a.Diagnostics {
		got = append(got, fmt.Sprintf("%s:%d:%d: %s: %s", d.File, d.Range.Start.Line, d.Range.Start.Column, d.Severity, d.Message))
	}
	want := "models/d.sql:1:18: info: seed file seeds/empty.csv does not load: it is empty, without the header (line 1) naming the declared columns\n" +
		"models/s.sql:1:18: error: seed file seeds/empty.csv is empty: write a header line naming its columns (a header alone is a seed of no rows)\n" +
		"models/t.sql:2:15: error: @this is only valid in audits\n" +
		"seeds/empty.csv:1:1: error: the seed file is empty: its first line must be a header naming the declared columns, id"
	if strings.Join(got, "\n") != want {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}
