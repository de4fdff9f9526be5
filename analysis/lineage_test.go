package analysis

import (
	"fmt"
	"slices"
	"strings"
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
		got := refsText(ColumnSources(a, tc.model, tc.col))
		if got != tc.want {
			t.Errorf("%s.%s: got %s, want %s", tc.model, tc.col, got, tc.want)
		}
		// AllColumnSources, one outline per model, says the same.
		if all := refsText(AllColumnSources(a, tc.model)[tc.col]); all != tc.want {
			t.Errorf("AllColumnSources %s.%s: got %s, want %s", tc.model, tc.col, all, tc.want)
		}
	}
	if all := AllColumnSources(a, "m.a"); len(all) != 4 {
		t.Errorf("AllColumnSources m.a has %d columns, want 4: %v", len(all), all)
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

// TestStructAndUnnestLineage: a struct field is traced to the value a
// parent built it from; a subscript and struct_extract read the same
// field; an unnested column (select list, FROM, lateral) to the list.
func TestStructAndUnnestLineage(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"seeds/p.csv":  "id,fn,ln\n1,Ada,Lovelace\n",
		"models/p.sql": `MODEL (name raw.p, kind SEED (path 'seeds/p.csv'), columns (id INTEGER, fn TEXT, ln TEXT));`,
		"models/s.sql": `MODEL (name stg.p, kind VIEW);
SELECT a.id, {'first': a.fn, 'last': a.ln} AS name_parts, struct_pack(first := a.fn) AS short, [a.fn, a.ln] AS names
FROM @ref(raw.p) AS a`,
		"models/v.sql": `MODEL (name stg.v, kind VIEW);
SELECT id, name_parts, names FROM @ref(stg.p)`,
		"models/x.sql": `MODEL (name mart.x);
SELECT p.id, p.name_parts.first || ' ' || p.name_parts['last'] AS full_name, struct_extract(p.name_parts, 'first') AS first_name,
  unnest(p.names) AS one_name, u.n AS lateral_name
FROM @ref(stg.v) AS p, unnest(p.names) AS u(n)`,
	})
	mustClean(t, a)
	for _, tc := range []struct{ model, col, field, want string }{
		{"mart.x", "full_name", "", "[{stg.v name_parts first} {stg.v name_parts last}]"},
		{"mart.x", "first_name", "", "[{stg.v name_parts first}]"},
		{"stg.v", "name_parts", "first", "[{stg.p name_parts first}]"},
		{"stg.p", "name_parts", "first", "[{raw.p fn}]"},
		{"stg.p", "name_parts", "last", "[{raw.p ln}]"},
		{"stg.p", "short", "first", "[{raw.p fn}]"},
		{"mart.x", "one_name", "", "[{stg.v names}]"},
		{"mart.x", "lateral_name", "", "[{stg.v names}]"},
	} {
		got := refsText(FieldSources(a, tc.model, tc.col, tc.field))
		if got != tc.want {
			t.Errorf("%s.%s.%s: got %s, want %s", tc.model, tc.col, tc.field, got, tc.want)
		}
	}
	n, err := Lineage(a, "mart.x", "full_name")
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
	if fmt.Sprint(leaves) != "[raw.p.fn raw.p.ln]" {
		t.Errorf("leaves = %v", leaves)
	}
}

// TestColumnListsAndUnnamedItems: a column list renames the first
// columns of a subquery, a CTE or a model (AS t(y, z), WITH c(p) AS …),
// so the outer query reads them by the new names; an item the query does
// not name (sum(u.b), TPC-H's sum(l_quantity)) is the column the engine
// names after it, in a set operation too.
func TestColumnListsAndUnnamedItems(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/s.sql": `MODEL (name m.s);
SELECT 1 AS a, 2 AS b`,
		"models/x.sql": `MODEL (name m.x);
WITH c(p) AS (SELECT a, b FROM @ref(m.s))
SELECT t.y, t.z, c.p, c.b, u.v, sum(u.b)
FROM (SELECT b, a FROM @ref(m.s)) AS t (y, z), c, @ref(m.s) AS u (v)
GROUP BY ALL`,
		"models/u.sql": `MODEL (name m.u);
SELECT sum(a) FROM @ref(m.s) UNION ALL SELECT b FROM @ref(m.s)`,
	})
	mustClean(t, a)
	if got := a.Models["m.x"].Columns[5].Name; got != "sum(u.b)" {
		t.Fatalf("the engine names the last column %q", got)
	}
	for _, tc := range []struct{ model, col, want string }{
		{"m.x", "y", "[{m.s b}]"},
		{"m.x", "z", "[{m.s a}]"},
		{"m.x", "p", "[{m.s a}]"},
		{"m.x", "b", "[{m.s b}]"},
		{"m.x", "v", "[{m.s a}]"},
		{"m.x", "sum(u.b)", "[{m.s b}]"},
		{"m.u", "sum(a)", "[{m.s a} {m.s b}]"},
	} {
		if got := refsText(ColumnSources(a, tc.model, tc.col)); got != tc.want {
			t.Errorf("%s.%s: got %s, want %s", tc.model, tc.col, got, tc.want)
		}
	}
}

// refsText prints refs as {model column} or {model column field}.
func refsText(refs []ColumnRef) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = strings.TrimSpace(fmt.Sprintf("{%s %s %s", r.Model, r.Column, r.Field)) + "}"
		parts[i] = strings.Replace(parts[i], " }", "}", 1)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestSplitPath(t *testing.T) {
	for name, want := range map[string][]string{
		`x.structs.name_parts.first`: {"x", "structs", "name_parts", "first"},
		`x.uni2."Käufer"`:            {"x", "uni2", "Käufer"},
		`x.t."a.b"`:                  {"x", "t", "a.b"},
		`x.t."say ""hi"""`:           {"x", "t", `say "hi"`},
	} {
		got, err := splitPath(name)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("splitPath(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, bad := range []string{"x.comma.", ".x.comma", "x..comma", `x."open`} {
		if got, err := splitPath(bad); err == nil {
			t.Errorf("splitPath(%s) = %q, want an error", bad, got)
		}
	}
}

// TestRecursiveCTELineage: a WITH RECURSIVE CTE's column comes from its
// anchor and from its recursive part, which reads the CTE's own rows (the
// anchor's columns) and the models it joins; a column only the anchor
// feeds (a constant, the depth) has none beyond what it reads.
func TestRecursiveCTELineage(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/e.sql": `MODEL (name raw.e);
SELECT 1 AS src, 2 AS dst, 'x' AS label`,
		"models/w.sql": `MODEL (name m.w);
WITH RECURSIVE walk(node, path, depth) AS (
  SELECT e.src, [e.label], 0 FROM @ref(raw.e) AS e WHERE e.src = 1
  UNION ALL
  SELECT e.dst, list_append(w.path, e.label), w.depth + 1
  FROM walk AS w JOIN @ref(raw.e) AS e ON e.src = w.node
)
SELECT node, path, depth FROM walk`,
	})
	mustClean(t, a)
	for _, tc := range []struct{ col, want string }{
		{"node", "[{raw.e dst} {raw.e src}]"},
		{"path", "[{raw.e label}]"},
		{"depth", "[]"},
	} {
		if got := refsText(ColumnSources(a, "m.w", tc.col)); got != tc.want {
			t.Errorf("m.w.%s: got %s, want %s", tc.col, got, tc.want)
		}
	}
}

// TestPivotLineage: an UNPIVOT's value column comes from the columns it
// stacks (named, or matched by COLUMNS('re')), the columns it leaves keep
// theirs and its name column has none; a PIVOT's columns (the IN values
// joined with the aggregates' aliases) come from what the aggregate and
// the ON expression read, its groups from themselves.
func TestPivotLineage(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/s.sql": `MODEL (name raw.s);
SELECT 'n' AS region, 'apple' AS product, 1 AS q1, 2 AS q2, 3 AS q3`,
		"models/u.sql": `MODEL (name m.u);
UNPIVOT @ref(raw.s) ON q1, q2 INTO NAME quarter VALUE amount`,
		"models/r.sql": `MODEL (name m.r);
SELECT region, k, v FROM (UNPIVOT @ref(raw.s) ON COLUMNS('^q[23]$') INTO NAME k VALUE v) AS x`,
		"models/p.sql": `MODEL (name m.p);
SELECT * FROM (PIVOT @ref(raw.s) ON product IN ('apple', 'pear' AS p) USING sum(q1) AS s1, max(q3) AS m3 GROUP BY region) AS pv`,
		"models/i.sql": `MODEL (name m.i);
PIVOT @ref(raw.s) ON product IN ('apple') USING sum(q2)`,
	})
	mustClean(t, a)
	for _, tc := range []struct{ model, col, want string }{
		{"m.u", "amount", "[{raw.s q1} {raw.s q2}]"},
		{"m.u", "quarter", "[]"},
		{"m.u", "q3", "[{raw.s q3}]"},
		{"m.r", "v", "[{raw.s q2} {raw.s q3}]"},
		{"m.r", "region", "[{raw.s region}]"},
		{"m.p", "region", "[{raw.s region}]"},
		{"m.p", "apple_s1", "[{raw.s product} {raw.s q1}]"},
		{"m.p", "p_m3", "[{raw.s product} {raw.s q3}]"},
		{"m.i", "apple", "[{raw.s product} {raw.s q2}]"},
		{"m.i", "q3", "[{raw.s q3}]"},
	} {
		if got := refsText(ColumnSources(a, tc.model, tc.col)); got != tc.want {
			t.Errorf("%s.%s: got %s, want %s", tc.model, tc.col, got, tc.want)
		}
	}
	if cols := fmt.Sprint(a.Models["m.p"].Columns); cols != "[{region VARCHAR} {apple_s1 HUGEINT} {apple_m3 INTEGER} {p_s1 HUGEINT} {p_m3 INTEGER}]" {
		t.Errorf("m.p yields %s", cols)
	}
}
