package analysis

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/project"
)

// TestEveryBinderError: a body with several bad references yields one
// diagnostic per reference, each on its own token, in every clause, after
// replacements of other lengths and non-ASCII text; each unknown column
// carries the fix to the nearest column in scope, an ambiguous one a fix
// per qualifier.
func TestEveryBinderError(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/src.sql": "MODEL (name a.src);\nSELECT 1 AS id, 'x' AS \"Käufer\", {'first': 'a'} AS np",
		"models/oth.sql": "MODEL (name a.oth);\nSELECT 1 AS id, 2 AS qty",
		"models/m.sql": "MODEL (name a.m);\n" +
			"SELECT 'ä' AS x, s.idd, \"Kaufer\", s.np.frist, id, qtty\n" +
			"FROM @ref(a.src) AS s JOIN @ref(a.oth) AS o ON s.id = o.id\n" +
			"WHERE s.xid > 0 GROUP BY ALL",
	})
	m := a.Project.ByName["a.m"]
	var got []string
	for _, d := range a.Diagnostics {
		line := fmt.Sprintf("%s: %s", m.Source[d.Range.Start.Offset:d.Range.End.Offset], d.Message)
		for _, f := range d.Fixes {
			for _, e := range f.Edits {
				line += fmt.Sprintf(" [%s: %q]", f.Title, e.NewText)
			}
		}
		got = append(got, line)
	}
	want := []string{
		`idd: unknown column "idd"; did you mean "id"? [Change to id: "id"]`,
		`"Kaufer": unknown column "Kaufer"; did you mean "Käufer"? [Change to "Käufer": "\"Käufer\""]`,
		`frist: unknown struct field "frist"; did you mean "first"? [Change to first: "first"]`,
		`id: ambiguous column "id": more than one relation in scope has it; qualify it as s.id or o.id [Qualify as s.id: "s.id"] [Qualify as o.id: "o.id"]`,
		`qtty: unknown column "qtty"; did you mean "qty"? [Change to qty: "qty"]`,
		`xid: unknown column "xid"; did you mean "id"? [Change to id: "id"]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// unshift maps offsets of an edited text back through every edit.
func TestUnshift(t *testing.T) {
	// "SELECT ab, c.de FROM t" → "SELECT NULL, c.de FROM t" → "SELECT NULL, NULL FROM t"
	edits := []sqlEdit{{at: 7, oldLen: 2, newLen: 4}, {at: 13, oldLen: 4, newLen: 4}}
	for _, c := range [][2]int{{0, 0}, {7, 7}, {9, 7}, {11, 9}, {13, 11}, {19, 17}} {
		if got := unshift(edits, c[0]); got != c[1] {
			t.Errorf("unshift(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// TestUngroupedColumns: every column beside an aggregate that is neither
// grouped nor aggregated is named at its token, inside expressions too,
// and nothing else is reported.
func TestUngroupedColumns(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/src.sql": "MODEL (name a.src);\nSELECT 1 AS id, 'x' AS v, 2 AS n",
		"models/m.sql":   "MODEL (name a.m);\nSELECT upper(v) AS u, sum(id) AS total, n + 1 AS k FROM @ref(a.src) GROUP BY id",
	})
	m := a.Project.ByName["a.m"]
	var got []string
	for _, d := range a.Diagnostics {
		got = append(got, fmt.Sprintf("%s: %s", m.Source[d.Range.Start.Offset:d.Range.End.Offset], d.Message))
	}
	want := []string{
		`v: column "v" is neither grouped nor aggregated: cannot mix aggregates and non-aggregates; add it to GROUP BY or aggregate it`,
		`n: column "n" is neither grouped nor aggregated: cannot mix aggregates and non-aggregates; add it to GROUP BY or aggregate it`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFieldStringsAndAliases: a struct field named by a string (s['f'],
// struct_extract(s, 'f')) is reported at the string, each one, with a fix
// that writes a string, and the errors after it are found; a far name gets
// no suggestion; ORDER BY and GROUP BY suggest the select list's aliases.
func TestFieldStringsAndAliases(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/src.sql": "MODEL (name a.src);\nSELECT 1 AS id, 2 AS amount, {'first': 'a', 'last': 'b'} AS np, ['x'] AS l",
		"models/m.sql": "MODEL (name a.m);\n" +
			"SELECT s.np['frst'], struct_extract(s.np, 'lastt') AS b, u.vv, fn FROM @ref(a.src) s, unnest(s.l) AS u(v)",
		"models/o.sql": "MODEL (name a.o);\n" +
			"SELECT id AS key, count(*) AS cnt FROM @ref(a.src) GROUP BY kye ORDER BY cnnt",
	})
	var got []string
	for _, d := range a.Diagnostics {
		src := a.Project.ByName["a.m"].Source
		if strings.HasSuffix(d.File, "o.sql") {
			src = a.Project.ByName["a.o"].Source
		}
		line := fmt.Sprintf("%s: %s", src[d.Range.Start.Offset:d.Range.End.Offset], d.Message)
		for _, f := range d.Fixes {
			for _, e := range f.Edits {
				line += fmt.Sprintf(" [%q]", e.NewText)
			}
		}
		got = append(got, line)
	}
	slices.Sort(got)
	want := []string{
		`'frst': unknown struct field "frst"; did you mean "first"? ["'first'"]`,
		`'lastt': unknown struct field "lastt"; did you mean "last"? ["'last'"]`,
		`cnnt: unknown column "cnnt"; did you mean "cnt"? ["cnt"]`,
		`fn: unknown column "fn"`,
		`kye: unknown column "kye"; did you mean "key"? ["key"]`,
		`vv: unknown column "vv"; did you mean "v"? ["v"]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEveryClauseEveryTypo: several unknown names in one list of every
// clause (GROUP BY items and expressions, HAVING, QUALIFY, ORDER BY, a
// window's PARTITION BY and ORDER BY inline or named, USING (…), a chain
// of ON conditions) are each reported at their token with the nearest
// column in scope; replacing a GROUP BY item does not report the columns
// it leaves ungrouped.
func TestEveryClauseEveryTypo(t *testing.T) {
	cases := []struct{ name, query, want string }{
		{"group list", "SELECT id, name, count(*) AS c FROM @ref(a.src) GROUP BY idd, amout, nme",
			"idd→id amout→amount nme→name"},
		{"group expressions", "SELECT count(*) AS c FROM @ref(a.src) GROUP BY upper(nme), idd + 1, amout",
			"nme→name idd→id amout→amount"},
		{"group in a subquery", "SELECT * FROM (SELECT id, name, count(*) AS c FROM @ref(a.src) GROUP BY idd, nme) AS q",
			"idd→id nme→name"},
		{"having", "SELECT id, count(*) AS c FROM @ref(a.src) GROUP BY id HAVING sum(amout) > 0 AND max(nme) > 'a'",
			"amout→amount nme→name"},
		{"qualify", "SELECT id FROM @ref(a.src) QUALIFY row_number() OVER (PARTITION BY idd, nme ORDER BY amout) = 1",
			"idd→id nme→name amout→amount"},
		{"order", "SELECT id FROM @ref(a.src) ORDER BY idd, amout DESC, nme",
			"idd→id amout→amount nme→name"},
		{"window", "SELECT id, sum(amount) OVER (PARTITION BY idd, nme ORDER BY amout) AS w FROM @ref(a.src)",
			"idd→id nme→name amout→amount"},
		{"named window", "SELECT id, sum(amount) OVER w AS x FROM @ref(a.src) WINDOW w AS (PARTITION BY idd, nme ORDER BY amout)",
			"idd→id nme→name amout→amount"},
		{"using", "SELECT s.id FROM @ref(a.src) AS s JOIN @ref(a.oth) AS o USING (idd, qtty)",
			"idd→id qtty→qty"},
		{"using, one item", "SELECT s.id, amout FROM @ref(a.src) AS s JOIN @ref(a.oth) AS o USING (idd)",
			"amout→amount idd→id"},
		{"on chain", "SELECT s.id FROM @ref(a.src) AS s JOIN @ref(a.oth) AS o ON s.idd = o.idd AND s.nme = o.qtty JOIN @ref(a.oth) AS p ON p.idd = s.id",
			"idd→id idd→id nme→name qtty→qty idd→id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := analyzeFiles(t, map[string]string{
				"models/src.sql": "MODEL (name a.src);\nSELECT 1 AS id, 2.0 AS amount, 'n' AS name",
				"models/oth.sql": "MODEL (name a.oth);\nSELECT 1 AS id, 2 AS qty",
				"models/m.sql":   "MODEL (name a.m);\n" + c.query,
			})
			src := a.Project.ByName["a.m"].Source
			var got []string
			for _, d := range a.Diagnostics {
				if len(d.Fixes) != 1 || len(d.Fixes[0].Edits) != 1 {
					t.Errorf("%s: %s: fixes %v", src[d.Range.Start.Offset:d.Range.End.Offset], d.Message, d.Fixes)
					continue
				}
				got = append(got, fmt.Sprintf("%s→%s", src[d.Range.Start.Offset:d.Range.End.Offset], d.Fixes[0].Edits[0].NewText))
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("got  %s\nwant %s", strings.Join(got, " "), c.want)
			}
		})
	}
}

// TestNonASCIINamesAgreeWithEngine: DuckDB folds only ASCII letters when
// it compares names (Käufer is käufer, not KÄUFER; straße is STRAßE, not
// STRASSE; no Turkish or Greek special cases). For every spelling, what
// the engine binds is not flagged, and what it refuses is reported at the
// name, with the column meant as the fix where the names differ in case
// only.
func TestNonASCIINamesAgreeWithEngine(t *testing.T) {
	parent := `SELECT 1 AS "Käufer", 2 AS "straße", 3 AS "ıd", 4 AS "ΣΟΦΟΣ", 5 AS "İx", 6 AS "Ωmega"`
	spellings := []string{"Käufer", "käufer", `"käufer"`, "KÄUFER", `"KÄUFER"`, "straße", "STRAßE", "STRASSE", "straẞe",
		"ıd", "ID", "ΣΟΦΟΣ", "σοφος", "σοφοσ", "İx", "İX", "ix", "ωmega", "ΩMEGA"}
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wb.Close() })
	files := map[string]string{"models/src.sql": "MODEL (name a.src);\n" + parent}
	for i, s := range spellings {
		files[fmt.Sprintf("models/m%02d.sql", i)] = fmt.Sprintf("MODEL (name a.m%02d);\nSELECT %s AS c FROM @ref(a.src)", i, s)
	}
	a := analyzeFiles(t, files)
	refused := 0
	for i, s := range spellings {
		_, engineErr := wb.Describe(context.Background(), "SELECT "+s+" AS c FROM ("+parent+")")
		m := a.Project.ByName[fmt.Sprintf("a.m%02d", i)]
		var diags []string
		for _, d := range a.Diagnostics {
			if d.File == m.File {
				diags = append(diags, fmt.Sprintf("%s: %s", m.Source[d.Range.Start.Offset:d.Range.End.Offset], d.Message))
			}
		}
		switch {
		case engineErr == nil && len(diags) > 0:
			t.Errorf("%s: the engine binds it, but it is flagged: %v", s, diags)
		case engineErr != nil && len(diags) != 1:
			t.Errorf("%s: the engine refuses it (%v), diagnostics: %v", s, engineErr, diags)
		case engineErr != nil && !strings.HasPrefix(diags[0], s+": unknown column"):
			t.Errorf("%s: want an unknown column at the name, got %v", s, diags)
		}
		if engineErr != nil {
			refused++
		}
		if s == "KÄUFER" && (len(diags) != 1 || !strings.HasSuffix(diags[0], `did you mean "Käufer"?`)) {
			t.Errorf("%s: want the fix to \"Käufer\", got %v", s, diags)
		}
	}
	if refused == 0 || refused == len(spellings) {
		t.Fatalf("the engine refused %d of %d spellings: the cases do not tell folding apart", refused, len(spellings))
	}
}

// TestQualifyClause: the QUALIFY clause describeAll binds without, up to
// the next clause at its depth.
func TestQualifyClause(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"SELECT a FROM t GROUP BY ALL QUALIFY row_number() OVER (ORDER BY a) = 1", "QUALIFY row_number() OVER (ORDER BY a) = 1"},
		{"SELECT a FROM t GROUP BY ALL QUALIFY a > 1 ORDER BY a LIMIT 3", "QUALIFY a > 1 "},
		{"SELECT * FROM (SELECT a FROM t GROUP BY ALL QUALIFY a > 1) AS s", "QUALIFY a > 1"},
		{"SELECT a FROM t GROUP BY ALL", ""},
	} {
		start, end, ok := qualifyClause(tc.sql)
		got := ""
		if ok {
			got = tc.sql[start:end]
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// TestErrorsPlacedByWhatTheyName: DuckDB gives some binder errors no
// position; each is placed on what its message names — the field of a
// struct access on a scalar, the UNPIVOT column, the ASOF keyword, the call
// a lambda is passed to (not the FROM clause its "or:" line mentions) —
// and a typed literal or cast of a literal that does not cast, or a string
// literal cast to the type it meets (which binds, and fails the build on
// its first row), is an error at the literal.
func TestErrorsPlacedByWhatTheyName(t *testing.T) {
	files := map[string]string{
		"models/src.sql": "MODEL (name a.src);\nSELECT 1 AS id, 'x' AS name, [1] AS tags, 2 AS q1, TIMESTAMP '2024-01-01' AS ts",
	}
	cases := map[string]string{
		"field":   "SELECT s.id, s.name.first FROM @ref(a.src) AS s",
		"unpivot": "UNPIVOT @ref(a.src) ON q1, q9 INTO NAME k VALUE v",
		"asof":    "SELECT s.id FROM @ref(a.src) AS s\nASOF JOIN @ref(a.src) AS t ON s.id = t.id",
		"lambda":  "SELECT s.id,\n  list_transform(s.id, x -> x + 1) AS y\nFROM @ref(a.src) AS s",
		"date":    "SELECT s.id, DATE '2024-02-30' AS d FROM @ref(a.src) AS s",
		"enum":    "SELECT s.id FROM @ref(a.src) AS s WHERE s.name = CAST('é' AS ENUM('a', 'b'))",
		"exclude": "SELECT * EXCLUDE (id, nope) FROM @ref(a.src)",
		"implied": "SELECT s.id FROM @ref(a.src) AS s WHERE s.name = 'x' AND s.ts > 'last week'",
		"fine":    "SELECT s.id, DATE '2024-02-29', TRY_CAST('x' AS INTEGER), s.name::VARCHAR, s.tags[1] FROM @ref(a.src) AS s",
	}
	want := map[string]string{
		"field":   "first",
		"unpivot": "q9",
		"asof":    "ASOF",
		"lambda":  "list_transform",
		"date":    "'2024-02-30'",
		"enum":    "CAST",
		"exclude": "nope",
		"implied": "'last week'",
	}
	for name, body := range cases {
		files["models/"+name+".sql"] = "MODEL (name a." + name + ");\n" + body
	}
	a := analyzeFiles(t, files)
	got := map[string]string{}
	for _, d := range a.Diagnostics {
		m := a.Project.ByName["a."+strings.TrimSuffix(strings.TrimPrefix(d.File, "models/"), ".sql")]
		if m == nil || d.Severity != project.SeverityError {
			continue
		}
		got[m.Table] += string(m.Source[d.Range.Start.Offset:d.Range.End.Offset])
	}
	for name := range cases {
		if got[name] != want[name] {
			t.Errorf("%s: the error is on %q, want %q (%v)", name, got[name], want[name], a.Models["a."+name].Diagnostics)
		}
	}
}
