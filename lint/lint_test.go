package lint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/project"
)

// parents are the models the cases read: two plain ones, one with a
// struct and a quoted non-ASCII column, one sharing orders' key, and an
// EXTERNAL source. The project turns the opt-in rules on.
var parents = map[string]string{
	"efmesh.yaml": "name: t\nstart: 2026-01-01\nlint: {rules: {missing_columns_contract: warn, unqualified_column: warn}}\n",
	"models/raw/orders.sql": `MODEL (name raw.orders, kind VIEW);
SELECT 1 AS id, 7 AS customer_id, 10 AS amount, TIMESTAMP '2026-01-01 10:00:00' AS ts
`,
	"models/raw/customers.sql": `MODEL (name raw.customers, kind VIEW);
SELECT 7 AS cid, 'Ann' AS name, {'first': 'Ann', 'last': 'Lee'} AS name_parts, 'x' AS "Käufer"
`,
	"models/raw/payments.sql": `MODEL (name raw.payments, kind VIEW);
SELECT 1 AS id, 10 AS paid
`,
	"models/raw/events.sql": `MODEL (name raw.events, kind EXTERNAL (files 'data/events.csv', format csv, header true), columns (id INT, kind TEXT));
`,
	"data/events.csv": "id,kind\n1,a\n",
	"models/raw/words.sql": `MODEL (name raw.words, kind VIEW);
SELECT 1 AS "select", 2 AS "Mixed Case", 3 AS "dq""q", 4 AS "from", 5 AS plain
`,
}

const view = "MODEL (name t.m, kind VIEW);\n"
const full = "MODEL (name t.m, kind FULL, columns (x INT));\n"
const incr = "MODEL (name t.m, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), columns (id INT, ts TIMESTAMP));\n"

// check lints the model t.m written as src on top of parents, failing on
// any analysis error, and returns its findings as "rule line:col".
func check(t *testing.T, src string) (*analysis.Analysis, []project.Diagnostic, string) {
	t.Helper()
	files := map[string]string{"models/t/m.sql": src}
	for k, v := range parents {
		files[k] = v
	}
	dir := testkit.WriteProject(t, files)
	a, ds := lintDir(t, dir)
	return a, ds, dir
}

func lintDir(t *testing.T, dir string) (*analysis.Analysis, []project.Diagnostic) {
	t.Helper()
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wb.Close() })
	a, err := analysis.Analyze(context.Background(), p, wb)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range a.Diagnostics {
		if d.Severity == project.SeverityError {
			t.Fatalf("analysis: %s", d)
		}
	}
	sev, cds := lint.Configure(p.Config.Lint)
	return a, append(cds, lint.Check(a, sev, []string{"t.m"})...)
}

func short(ds []project.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s %d:%d", d.Code, d.Range.Start.Line, d.Range.Start.Column))
	}
	return out
}

// applyFirst applies the first fix of every finding of rule to the files
// and returns the new text of the model.
func applyFirst(t *testing.T, dir string, ds []project.Diagnostic, rule string) string {
	t.Helper()
	byFile := map[string][]project.TextEdit{}
	for _, d := range ds {
		if d.Code == rule {
			if len(d.Fixes) == 0 {
				t.Fatalf("%s has no fix", d)
			}
			for _, e := range d.Fixes[0].Edits {
				byFile[e.File] = append(byFile[e.File], e)
			}
		}
	}
	var model string
	for f, edits := range byFile {
		path := filepath.Join(dir, filepath.FromSlash(f))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(edits, func(i, j int) bool { return edits[i].Start > edits[j].Start })
		for _, e := range edits {
			b = slices.Concat(b[:e.Start], []byte(e.NewText), b[e.End:])
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if f == "models/t/m.sql" {
			model = string(b)
		}
	}
	return model
}

type lintCase struct {
	name string
	src  string
	want []string // "rule line:col", in position order
	// fix, when set, is the rule whose first fixes are applied; the model
	// must then read fixed and lint without that rule's findings.
	fix   string
	fixed string
}

func run(t *testing.T, cases []lintCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ds, dir := check(t, c.src)
			if got := short(ds); !slices.Equal(got, c.want) {
				t.Fatalf("findings\n got %q\nwant %q\n%v", got, c.want, ds)
			}
			if c.fix == "" {
				return
			}
			got := applyFirst(t, dir, ds, c.fix)
			if got != c.fixed {
				t.Fatalf("fixed model\n got %q\nwant %q", got, c.fixed)
			}
			_, ds = lintDir(t, dir)
			for _, d := range ds {
				if d.Code == c.fix {
					t.Errorf("after the fix: %s", d)
				}
			}
		})
	}
}

func TestNoSelectStar(t *testing.T) {
	run(t, []lintCase{
		{name: "bare star", src: view + "SELECT * FROM @ref(raw.orders)\n", want: []string{"no_select_star 2:8"},
			fix: "no_select_star", fixed: view + "SELECT id, customer_id, amount, ts FROM @ref(raw.orders)\n"},
		{name: "qualified star with EXCLUDE in a join", src: view + "SELECT o.* EXCLUDE (ts), c.name FROM @ref(raw.orders) AS o JOIN @ref(raw.customers) AS c ON o.customer_id = c.cid\n",
			want: []string{"no_select_star 2:8"},
			fix:  "no_select_star", fixed: view + "SELECT o.id, o.customer_id, o.amount, c.name FROM @ref(raw.orders) AS o JOIN @ref(raw.customers) AS c ON o.customer_id = c.cid\n"},
		{name: "star with QUALIFY and a window", src: view + "SELECT * FROM @ref(raw.orders) QUALIFY row_number() OVER (PARTITION BY id ORDER BY ts) = 1\n", want: []string{"no_select_star 2:8"}},
		{name: "quoted non-ASCII column expanded quoted", src: view + "SELECT c.* FROM @ref(raw.customers) c\n", want: []string{"no_select_star 2:8"},
			fix: "no_select_star", fixed: view + "SELECT c.cid, c.name, c.name_parts, c.\"Käufer\" FROM @ref(raw.customers) c\n"},
		{name: "keyword and quoted columns expanded quoted", src: view + "SELECT * FROM @ref(raw.words)\n", want: []string{"no_select_star 2:8"},
			fix: "no_select_star", fixed: view + "SELECT \"select\", \"Mixed Case\", \"dq\"\"q\", \"from\", plain FROM @ref(raw.words)\n"},
		{name: "a product before the star", src: view + "SELECT amount * 2 AS twice, * FROM @ref(raw.orders)\n", want: []string{"no_select_star 2:29"},
			fix: "no_select_star", fixed: view + "SELECT amount * 2 AS twice, id, customer_id, amount, ts FROM @ref(raw.orders)\n"},
		{name: "count star", src: view + "SELECT count(*) AS n FROM @ref(raw.orders)\n", want: []string{}},
		{name: "star over a CTE", src: view + "WITH x AS (SELECT id FROM @ref(raw.orders)) SELECT * FROM x\n", want: []string{}},
		{name: "star over EXTERNAL", src: view + "SELECT * FROM @ref(raw.events)\n", want: []string{}},
		{name: "star of the EXTERNAL side of a join", src: view + "SELECT e.*, o.amount FROM @ref(raw.events) e JOIN @ref(raw.orders) o USING (id)\n", want: []string{}},
		// DuckDB's FROM-first: without a select list it is SELECT *.
		{name: "FROM alone", src: view + "FROM @ref(raw.orders) WHERE amount > 0\n", want: []string{"no_select_star 2:1"}},
		{name: "FROM first, then a star", src: view + "FROM @ref(raw.orders) AS o SELECT o.* EXCLUDE (ts)\n", want: []string{"no_select_star 2:35"},
			fix: "no_select_star", fixed: view + "FROM @ref(raw.orders) AS o SELECT o.id, o.customer_id, o.amount\n"},
		{name: "FROM first, columns", src: view + "FROM @ref(raw.orders) AS o SELECT o.id WHERE o.amount > 0\n", want: []string{}},
	})
}

func TestUnqualifiedColumn(t *testing.T) {
	join := " FROM @ref(raw.orders) AS o JOIN @ref(raw.customers) AS c ON o.customer_id = c.cid\n"
	run(t, []lintCase{
		{name: "one owner", src: view + "SELECT amount, c.name" + join, want: []string{"unqualified_column 2:8"},
			fix: "unqualified_column", fixed: view + "SELECT o.amount, c.name" + join},
		{name: "quoted non-ASCII", src: view + "SELECT o.id, \"Käufer\"" + join, want: []string{"unqualified_column 2:14"},
			fix: "unqualified_column", fixed: view + "SELECT o.id, c.\"Käufer\"" + join},
		{name: "GROUP BY ALL", src: view + "SELECT name, sum(o.amount) AS total" + strings.TrimSuffix(join, "\n") + " GROUP BY ALL\n", want: []string{"unqualified_column 2:8"}},
		{name: "all qualified, window", src: view + "SELECT o.id, row_number() OVER (PARTITION BY c.cid ORDER BY o.ts) AS rn" + join, want: []string{}},
		{name: "struct field", src: view + "SELECT o.id, c.name_parts.first AS f" + join, want: []string{}},
		{name: "USING column", src: view + "SELECT id, o.amount, p.paid FROM @ref(raw.orders) AS o JOIN @ref(raw.payments) AS p USING (id)\n", want: []string{}},
		{name: "comma join with table-name qualifiers", src: view + "WITH orders AS (SELECT id, customer_id FROM @ref(raw.orders)), customers AS (SELECT cid, name FROM @ref(raw.customers))\nSELECT orders.id, customers.name FROM orders, customers WHERE orders.customer_id = customers.cid\n", want: []string{}},
		{name: "CTE column in a comma join", src: view + "WITH orders AS (SELECT id, customer_id FROM @ref(raw.orders)), customers AS (SELECT cid, name FROM @ref(raw.customers))\nSELECT id, customers.name FROM orders, customers WHERE orders.customer_id = customers.cid\n",
			want: []string{"unqualified_column 3:8"}, fix: "unqualified_column",
			fixed: view + "WITH orders AS (SELECT id, customer_id FROM @ref(raw.orders)), customers AS (SELECT cid, name FROM @ref(raw.customers))\nSELECT orders.id, customers.name FROM orders, customers WHERE orders.customer_id = customers.cid\n"},
		{name: "one relation", src: view + "SELECT amount FROM @ref(raw.orders)\n", want: []string{}},
	})
}

func TestUnqualifiedColumnOffersEachOwner(t *testing.T) {
	src := view + "WITH a AS (SELECT 1 AS k, 2 AS v), b AS (SELECT 1 AS k, 3 AS w)\nSELECT a.k, v, w FROM a JOIN b ON a.k = b.k\n"
	_, ds, _ := check(t, src)
	if got, want := short(ds), []string{"unqualified_column 3:13", "unqualified_column 3:16"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// k is in both: the engine refuses it, so a query with a bare k does
	// not get here; a and b's own columns each get their one qualifier.
	if ds[0].Fixes[0].Title != "Qualify as a.v" || ds[1].Fixes[0].Title != "Qualify as b.w" {
		t.Errorf("fixes: %+v", ds)
	}
}

func TestUnusedCTE(t *testing.T) {
	run(t, []lintCase{
		{name: "first of two", src: view + "WITH dead AS (SELECT 1 AS x), live AS (SELECT id FROM @ref(raw.orders))\nSELECT id FROM live\n",
			want: []string{"unused_cte 2:6"}, fix: "unused_cte",
			fixed: view + "WITH live AS (SELECT id FROM @ref(raw.orders))\nSELECT id FROM live\n"},
		{name: "last of two", src: view + "WITH live AS (SELECT id FROM @ref(raw.orders)), dead AS (SELECT 1 AS x)\nSELECT id FROM live\n",
			want: []string{"unused_cte 2:49"}, fix: "unused_cte",
			fixed: view + "WITH live AS (SELECT id FROM @ref(raw.orders))\nSELECT id FROM live\n"},
		{name: "the only one", src: view + "WITH dead AS (SELECT 1 AS x)\nSELECT id FROM @ref(raw.orders)\n",
			want: []string{"unused_cte 2:6"}, fix: "unused_cte", fixed: view + "SELECT id FROM @ref(raw.orders)\n"},
		{name: "nested", src: view + "WITH outer_q AS (WITH inner_q AS (SELECT 1 AS x), dead AS (SELECT 2 AS y) SELECT x FROM inner_q)\nSELECT x FROM outer_q\n",
			want: []string{"unused_cte 2:51"}, fix: "unused_cte",
			fixed: view + "WITH outer_q AS (WITH inner_q AS (SELECT 1 AS x) SELECT x FROM inner_q)\nSELECT x FROM outer_q\n"},
		{name: "read by a later CTE", src: view + "WITH a AS (SELECT id FROM @ref(raw.orders)), b AS (SELECT id FROM a)\nSELECT id FROM b\n", want: []string{}},
		{name: "read in a scalar subquery", src: view + "WITH m AS (SELECT max(amount) AS mx FROM @ref(raw.orders))\nSELECT id, (SELECT mx FROM m) AS mx FROM @ref(raw.orders)\n", want: []string{}},
	})
}

func TestMissingColumnsContract(t *testing.T) {
	run(t, []lintCase{
		{name: "FULL without columns", src: "MODEL (name t.m, kind FULL);\nSELECT o.id, c.\"Käufer\" FROM @ref(raw.orders) o JOIN @ref(raw.customers) c ON o.customer_id = c.cid\n",
			want: []string{"missing_columns_contract 1:13"}, fix: "missing_columns_contract",
			fixed: "MODEL (name t.m, kind FULL, columns (id INTEGER, \"Käufer\" VARCHAR));\nSELECT o.id, c.\"Käufer\" FROM @ref(raw.orders) o JOIN @ref(raw.customers) c ON o.customer_id = c.cid\n"},
		{name: "incremental, header on lines", src: "MODEL (\n  name t.m,\n  kind INCREMENTAL_BY_TIME_RANGE (time_column ts)\n);\nSELECT id, ts FROM @ref(raw.orders) WHERE ts >= @start AND ts < @end\n",
			want: []string{"missing_columns_contract 2:8"}, fix: "missing_columns_contract",
			fixed: "MODEL (\n  name t.m,\n  kind INCREMENTAL_BY_TIME_RANGE (time_column ts),\n  columns (id INTEGER, ts TIMESTAMP)\n);\nSELECT id, ts FROM @ref(raw.orders) WHERE ts >= @start AND ts < @end\n"},
		{name: "keywords and quotes", src: "MODEL (name t.m, kind FULL);\nSELECT u.* FROM (SELECT 1 AS \"select\", 2 AS \"Mixed Case\", 3 AS \"dq\"\"q\") u\n",
			want: []string{"missing_columns_contract 1:13"}, fix: "missing_columns_contract",
			fixed: "MODEL (name t.m, kind FULL, columns (\"select\" INTEGER, \"Mixed Case\" INTEGER, \"dq\"\"q\" INTEGER));\nSELECT u.* FROM (SELECT 1 AS \"select\", 2 AS \"Mixed Case\", 3 AS \"dq\"\"q\") u\n"},
		{name: "VIEW", src: view + "SELECT id FROM @ref(raw.orders)\n", want: []string{}},
		{name: "FULL with columns", src: full + "SELECT id AS x FROM @ref(raw.orders)\n", want: []string{}},
	})
}

func TestNondeterministicIncremental(t *testing.T) {
	where := " FROM @ref(raw.orders) WHERE ts >= @start AND ts < @end"
	run(t, []lintCase{
		{name: "now in WHERE", src: incr + "SELECT id, ts" + where + " AND ts < now()\n", want: []string{"nondeterministic_incremental 2:79"}},
		{name: "current_timestamp bare, random", src: incr + "SELECT id, CURRENT_TIMESTAMP::TIMESTAMP AS ts" + where + " AND random() < 2\n",
			want: []string{"nondeterministic_incremental 2:12", "nondeterministic_incremental 2:106"}},
		{name: "uuid in a CTE", src: incr + "WITH u AS (SELECT id, ts, uuid() AS k FROM @ref(raw.orders))\nSELECT id, ts FROM u WHERE ts >= @start AND ts < @end\n", want: []string{"nondeterministic_incremental 2:27"}},
		{name: "bare current_date alone", src: incr + "SELECT id, ts" + where + " AND ts::DATE <= current_date\n", want: []string{"nondeterministic_incremental 2:86"}},
		{name: "unique key", src: "MODEL (name t.m, kind INCREMENTAL_BY_UNIQUE_KEY (key id), columns (id INT, at TIMESTAMP));\nSELECT id, now()::TIMESTAMP AS at FROM @ref(raw.orders)\n", want: []string{"nondeterministic_incremental 2:12"}},
		{name: "FULL may", src: full + "SELECT 1 AS x WHERE now() > TIMESTAMP '2000-01-01'\n", want: []string{}},
		{name: "a column named like one", src: incr + "SELECT id, ts FROM (SELECT id, ts, 1 AS now FROM @ref(raw.orders)) WHERE now = 1 AND ts >= @start AND ts < @end\n", want: []string{}},
	})
}

func TestImplicitCrossJoin(t *testing.T) {
	run(t, []lintCase{
		{name: "comma, no WHERE", src: view + "SELECT o.id, c.name FROM @ref(raw.orders) o, @ref(raw.customers) c\n", want: []string{"implicit_cross_join 2:44"},
			fix: "implicit_cross_join", fixed: view + "SELECT o.id, c.name FROM @ref(raw.orders) o CROSS JOIN @ref(raw.customers) c\n"},
		{name: "comma, WHERE on one side", src: view + "SELECT o.id, c.name FROM @ref(raw.orders) o, @ref(raw.customers) c WHERE o.amount > 0\n", want: []string{"implicit_cross_join 2:44"}},
		{name: "comma with a join predicate", src: view + "SELECT o.id, c.name FROM @ref(raw.orders) o, @ref(raw.customers) c WHERE o.customer_id = c.cid\n", want: []string{}},
		{name: "unqualified join predicate", src: view + "SELECT o.id, c.name FROM @ref(raw.orders) o, @ref(raw.customers) c WHERE customer_id = cid\n", want: []string{"unqualified_column 2:74", "unqualified_column 2:88"}},
		{name: "LATERAL subquery", src: view + "SELECT o.id, top.paid FROM @ref(raw.orders) o, LATERAL (SELECT p.paid FROM @ref(raw.payments) p WHERE p.id = o.id LIMIT 1) AS top\n", want: []string{}},
		{name: "correlated subquery without LATERAL", src: view + "SELECT o.id, top.paid FROM @ref(raw.orders) o, (SELECT p.paid FROM @ref(raw.payments) p WHERE p.id = o.id) AS top\n", want: []string{}},
		{name: "unnest of a column before it", src: view + "SELECT o.id, u.x FROM (SELECT id, [1, 2] AS xs FROM @ref(raw.orders)) o, unnest(o.xs) AS u(x)\n", want: []string{}},
		{name: "uncorrelated subquery", src: view + "SELECT o.id, s.n FROM @ref(raw.orders) o, (SELECT p.id AS n FROM @ref(raw.payments) p) AS s\n", want: []string{"implicit_cross_join 2:41"}},
		// A side that yields one row multiplies nothing (TPC-DS q28, q61,
		// q88, q90 put single-row aggregates side by side).
		{name: "one-row aggregate", src: view + "SELECT o.id, s.n FROM @ref(raw.orders) o, (SELECT count(*) AS n FROM @ref(raw.payments)) AS s\n", want: []string{}},
		{name: "one-row aggregates only", src: view + "SELECT a.n / b.m AS r FROM (SELECT count(*) AS n FROM @ref(raw.orders)) a, (SELECT sum(paid) + 1 AS m FROM @ref(raw.payments)) b\n", want: []string{}},
		{name: "one-row aggregate first", src: view + "SELECT s.n, o.id FROM (SELECT max(paid) AS n FROM @ref(raw.payments)) AS s, @ref(raw.orders) o\n", want: []string{}},
		{name: "one-row CTE", src: view + "WITH t AS (SELECT max(paid) AS top FROM @ref(raw.payments))\nSELECT o.id, t.top FROM @ref(raw.orders) o, t\n", want: []string{}},
		{name: "LIMIT 1", src: view + "SELECT o.id, s.paid FROM @ref(raw.orders) o, (SELECT p.paid FROM @ref(raw.payments) p ORDER BY p.paid DESC LIMIT 1) AS s\n", want: []string{}},
		{name: "VALUES of one row", src: view + "SELECT o.id, v.k FROM @ref(raw.orders) o, (VALUES (1, 'a')) AS v(k, l)\n", want: []string{}},
		{name: "SELECT without FROM", src: view + "SELECT o.id, s.d FROM @ref(raw.orders) o, (SELECT DATE '2026-01-01' AS d, (SELECT max(paid) FROM @ref(raw.payments)) AS m) AS s\n", want: []string{}},
		{name: "VALUES of two rows", src: view + "SELECT o.id, v.k FROM @ref(raw.orders) o, (VALUES (1), (2)) AS v(k)\n", want: []string{"implicit_cross_join 2:41"}},
		{name: "LIMIT 2", src: view + "SELECT o.id, s.paid FROM @ref(raw.orders) o, (SELECT p.paid FROM @ref(raw.payments) p LIMIT 2) AS s\n", want: []string{"implicit_cross_join 2:44"}},
		{name: "aggregate with GROUP BY", src: view + "SELECT o.id, s.n FROM @ref(raw.orders) o, (SELECT p.id, count(*) AS n FROM @ref(raw.payments) p GROUP BY p.id) AS s\n", want: []string{"implicit_cross_join 2:41"}},
		{name: "window aggregate", src: view + "SELECT o.id, s.n FROM @ref(raw.orders) o, (SELECT count(*) OVER () AS n FROM @ref(raw.payments)) AS s\n", want: []string{"implicit_cross_join 2:41"}},
		{name: "unnest of an aggregate", src: view + "SELECT o.id, s.n FROM @ref(raw.orders) o, (SELECT unnest(list(paid)) AS n FROM @ref(raw.payments)) AS s\n", want: []string{"implicit_cross_join 2:41"}},
		{name: "UNION of one-row queries", src: view + "SELECT o.id, s.n FROM @ref(raw.orders) o, (SELECT count(*) AS n FROM @ref(raw.payments) UNION ALL SELECT 2) AS s\n", want: []string{"implicit_cross_join 2:41"}},
		{name: "explicit CROSS JOIN", src: view + "SELECT o.id, c.name FROM @ref(raw.orders) o CROSS JOIN @ref(raw.customers) c\n", want: []string{}},
		{name: "FROM first, comma, no WHERE", src: view + "FROM @ref(raw.orders) o, @ref(raw.customers) c SELECT o.id, c.name\n", want: []string{"implicit_cross_join 2:24"}},
		{name: "USING", src: view + "SELECT id, p.paid FROM @ref(raw.orders) o JOIN @ref(raw.payments) p USING (id)\n", want: []string{}},
		{name: "third relation unlinked", src: view + "SELECT o.id FROM @ref(raw.orders) o, @ref(raw.payments) p, @ref(raw.customers) c WHERE o.id = p.id\n", want: []string{"implicit_cross_join 2:58"}},
		// The column that links may be one of a subquery's * (TPC-DS's
		// (SELECT substr(w_warehouse_name, 1, 20) w_substr, * FROM warehouse)),
		// or renamed by a column list.
		{name: "linked through a subquery's star", src: view + "SELECT o.id FROM @ref(raw.orders) o, (SELECT 1 AS one, * FROM @ref(raw.customers)) c WHERE o.customer_id = cid\n", want: []string{"no_select_star 2:56"}},
		{name: "star subquery unlinked", src: view + "SELECT o.id FROM @ref(raw.orders) o, (SELECT 1 AS one, * FROM @ref(raw.customers)) c WHERE o.amount > 0\n", want: []string{"implicit_cross_join 2:36", "no_select_star 2:56"}},
		{name: "linked by a column list's name", src: view + "SELECT o.id FROM @ref(raw.orders) o, (SELECT cid, name FROM @ref(raw.customers)) AS c (k, n) WHERE o.customer_id = k\n", want: []string{"unqualified_column 2:116"}},
	})
}

func TestConfigure(t *testing.T) {
	sev, ds := lint.Configure(project.LintConfig{})
	if len(ds) > 0 || sev[lint.UnqualifiedColumn] != 0 || sev[lint.MissingColumnsContract] != 0 || sev[lint.ImplicitCrossJoin] != project.SeverityError {
		t.Errorf("defaults %v %v", sev, ds)
	}
	cfg, diags := project.ParseConfig("efmesh.yaml", []byte("lint:\n  rules: {no_select_star: error, unused_cte: off, unqualifed_column: warn}\n"))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	sev, ds = lint.Configure(cfg.Lint)
	if sev[lint.NoSelectStar] != project.SeverityError || sev[lint.UnusedCTE] != 0 || sev[lint.UnqualifiedColumn] != 0 {
		t.Errorf("severities %v", sev)
	}
	if len(ds) != 1 || ds[0].String() != `efmesh.yaml:2:51: error: unknown lint rule "unqualifed_column" (known: no_select_star, unqualified_column, unused_cte, missing_columns_contract, nondeterministic_incremental, implicit_cross_join, file_in_body); did you mean unqualified_column?` {
		t.Fatalf("%v", ds)
	}
	if f := ds[0].Fixes; len(f) != 1 || f[0].Edits[0].NewText != "unqualified_column" {
		t.Errorf("fix %+v", f)
	}
	_, diags = project.ParseConfig("efmesh.yaml", []byte("lint:\n  rules: {no_select_star: eror}\n"))
	if len(diags) != 1 || !strings.Contains(diags[0].String(), `efmesh.yaml:2:27: error: lint rule no_select_star: severity "eror" must be one of error, warn, info, off`) {
		t.Fatalf("%v", diags)
	}
}

// TestConfigureRenamedRule: a project that names ambiguous_column, the
// rule's old id, is told the new one with a fix, and keeps its setting.
func TestConfigureRenamedRule(t *testing.T) {
	cfg, diags := project.ParseConfig("efmesh.yaml", []byte("lint:\n  rules: {ambiguous_column: error}\n"))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	sev, ds := lint.Configure(cfg.Lint)
	if sev[lint.UnqualifiedColumn] != project.SeverityError {
		t.Errorf("severities %v", sev)
	}
	if len(ds) != 1 || ds[0].String() != `efmesh.yaml:2:11: warning: lint rule ambiguous_column is now unqualified_column: it reports columns that are merely unqualified (an ambiguous column is an error of the check) and is off by default; rename the key (its setting applies to unqualified_column meanwhile)` {
		t.Fatalf("%v", ds)
	}
	if f := ds[0].Fixes; len(f) != 1 || f[0].Title != "Rename to unqualified_column" || f[0].Edits[0].NewText != "unqualified_column" || f[0].Edits[0].End-f[0].Edits[0].Start != len("ambiguous_column") {
		t.Errorf("fix %+v", f)
	}
}

// TestSettlesInOnePass applies the first fix of every finding once, on
// several models (unqualified columns in the select list, join ON, WHERE,
// GROUP BY, HAVING, QUALIFY, ORDER BY), and lints again: nothing new may
// be reported (only
// findings without a fix may remain, as they were).
func TestSettlesInOnePass(t *testing.T) {
	join := " FROM @ref(raw.orders) o JOIN @ref(raw.customers) c ON o.customer_id = c.cid"
	for _, c := range []struct {
		src  string
		want []string // the first lint's findings
	}{
		{view + "SELECT o.*, \"Käufer\"" + join + "\n", []string{"no_select_star 2:8", "unqualified_column 2:13"}},
		{view + "SELECT *" + join + "\n", []string{"no_select_star 2:8"}},
		{view + "SELECT o.id, name" + join + " QUALIFY row_number() OVER (PARTITION BY cid ORDER BY amount) = 1\n", []string{"unqualified_column 2:14", "unqualified_column 2:135", "unqualified_column 2:148"}},
		{view + "SELECT o.id, count(*) AS n" + join + " WHERE amount > 1 GROUP BY o.id, name HAVING max(cid) > 0 ORDER BY name\n", []string{"unqualified_column 2:110", "unqualified_column 2:136", "unqualified_column 2:152", "unqualified_column 2:170"}},
		{view + "SELECT o.id" + join + " AND amount > 0\n", []string{"unqualified_column 2:93"}},
		{view + "SELECT o.id FROM @ref(raw.orders) o JOIN @ref(raw.customers) c ON customer_id = cid WINDOW w AS (PARTITION BY name)\n", []string{"unqualified_column 2:67", "unqualified_column 2:81"}},
		{"MODEL (name t.m, kind FULL);\nSELECT * FROM @ref(raw.words)\n", []string{"missing_columns_contract 1:13", "no_select_star 2:8"}},
		{view + "SELECT o.id, c.name FROM @ref(raw.orders) o, @ref(raw.customers) c\n", []string{"implicit_cross_join 2:44"}},
		{view + "WITH dead AS (SELECT 1 AS x) SELECT w.* FROM @ref(raw.words) w JOIN @ref(raw.payments) p ON w.plain = p.id WHERE paid > 0\n", []string{"unused_cte 2:6", "no_select_star 2:37", "unqualified_column 2:114"}},
	} {
		t.Run(c.src[len(view):], func(t *testing.T) {
			_, ds, dir := check(t, c.src)
			if got := short(ds); !slices.Equal(got, c.want) {
				t.Fatalf("findings\n got %q\nwant %q", got, c.want)
			}
			byFile := map[string][]project.TextEdit{}
			var rest []string
			for _, d := range ds {
				if len(d.Fixes) == 0 {
					rest = append(rest, d.Code)
					continue
				}
				for _, e := range d.Fixes[0].Edits {
					byFile[e.File] = append(byFile[e.File], e)
				}
			}
			for f, edits := range byFile {
				path := filepath.Join(dir, filepath.FromSlash(f))
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				sort.Slice(edits, func(i, j int) bool { return edits[i].Start > edits[j].Start })
				for _, e := range edits {
					b = slices.Concat(b[:e.Start], []byte(e.NewText), b[e.End:])
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, again := lintDir(t, dir)
			var got []string
			for _, d := range again {
				got = append(got, d.Code)
			}
			if !slices.Equal(got, rest) {
				b, _ := os.ReadFile(filepath.Join(dir, "models/t/m.sql"))
				t.Errorf("first lint %q; after its fixes %q, want %q\n%s", short(ds), short(again), rest, b)
			}
		})
	}
}
