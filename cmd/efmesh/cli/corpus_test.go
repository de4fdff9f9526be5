package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/project"
)

// TestCorpusMatchesPlainDuckDB builds testdata/corpus (real-world analytical
// SQL: comma joins qualified by table names, correlated subqueries, ROLLUP,
// windows, LATERAL, QUALIFY, structs, non-ASCII text, …) with plan and
// apply, and compares every model's rows in the dev environment with what
// DuckDB returns for the same query with each @ref(x) replaced by x, run
// over the same data built without efmesh. Numbers compare within 0.01;
// order compares only where the query has a top-level ORDER BY.
func TestCorpusMatchesPlainDuckDB(t *testing.T) {
	dir := copyTree(t, filepath.Join("..", "..", "..", "testdata", "corpus"))
	mustRun(t, dir, "plan", "dev")
	mustRun(t, dir, "apply", "dev", "--yes")

	p := loadSweep(t, dir, 60)

	ctx := context.Background()
	plain, err := duckdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	built, err := duckdb.Open(filepath.Join(dir, "efmesh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()

	// The same data and models without efmesh, parents first.
	schemas := map[string]bool{}
	for _, m := range p.Models {
		if !schemas[m.Schema] {
			schemas[m.Schema] = true
			if err := plain.Exec(ctx, "CREATE SCHEMA "+engine.QuoteIdent(m.Schema)); err != nil {
				t.Fatal(err)
			}
		}
		rel := engine.QuoteIdent(m.Schema) + "." + engine.QuoteIdent(m.Table)
		var stmt string
		switch m.Kind.Name {
		case project.KindSeed:
			cols := make([]string, len(m.Columns))
			for i, c := range m.Columns {
				cols[i] = engine.QuoteString(c.Name) + ": " + engine.QuoteString(c.Type)
			}
			stmt = fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM read_csv(%s, header = true, columns = {%s})",
				rel, engine.QuoteString(filepath.Join(dir, m.Kind.Path)), strings.Join(cols, ", "))
		case project.KindView, project.KindEmbedded:
			stmt = "CREATE VIEW " + rel + " AS " + plainQuery(m)
		default:
			stmt = "CREATE TABLE " + rel + " AS " + plainQuery(m)
		}
		if err := plain.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s in plain DuckDB: %v", m.File, err)
		}
	}

	compared, refs := 0, 0
	for _, m := range p.Models {
		refs += checkAliases(t, plain, m)
		if m.Kind.Name == project.KindEmbedded || m.Kind.Name == project.KindSeed {
			continue // no environment view / not a query
		}
		q := plainQuery(m)
		want, got, ok := plainAndDev(t, plain, built, m, q)
		if !ok {
			continue
		}
		if len(want.Values) == 0 {
			t.Errorf("%s: the plain query returns no rows: a corpus query should prove something", m.File)
		}
		if msg := sameRows(got.Values, want.Values, topLevelOrderBy(t, plain, q)); msg != "" {
			t.Errorf("%s: efmesh and plain DuckDB differ: %s", m.File, msg)
		}
		compared++
	}
	// Column lineage through unaliased refs qualified by table name, an
	// EMBEDDED one included.
	for col, want := range map[string]string{
		"core.order_totals.customer_id":          "raw.orders.customer_id",
		"mart.big_order_customers.largest":       "raw.lineitem.unit_price",
		"core.shipping_priority.priority":        "raw.orders.priority",
		"mart.fulfilled_sample.order_date":       "raw.orders.order_date",
		"core.small_quantity_revenue.avg_yearly": "raw.lineitem.quantity",
	} {
		if out := mustRun(t, dir, "lineage", col); !strings.Contains(out, want) {
			t.Errorf("lineage of %s misses %s:\n%s", col, want, out)
		}
	}
	t.Logf("%d models compared with plain DuckDB; %d refs' aliases checked against DuckDB's parser", compared, refs)
}

// plainQuery is m's body as plain SQL: every @ref(x) replaced by x.
func plainQuery(m *project.Model) string {
	var b strings.Builder
	pos := m.BodyStart
	for _, mc := range m.Macros {
		if mc.Kind != project.MacroRef || mc.Start < m.BodyStart {
			continue
		}
		b.Write(m.Source[pos:mc.Start])
		b.WriteString(mc.Arg)
		pos = mc.End
	}
	b.Write(m.Source[pos:])
	return strings.TrimRight(strings.TrimSpace(b.String()), ";")
}

// checkAliases proves efmesh's lexical decision of whether a ref has an
// alias (project.Macro.Aliased, which decides the implicit alias) against
// DuckDB's own parser: in the body with every ref replaced by its model
// name, the table the parser reads at each ref has an alias exactly when
// Aliased says so.
func checkAliases(t *testing.T, db *duckdb.DB, m *project.Model) (refs int) {
	t.Helper()
	var b strings.Builder
	at := map[int]project.Macro{} // rendered offset of a ref -> the ref
	pos := m.BodyStart
	for _, mc := range m.Macros {
		if mc.Kind != project.MacroRef || mc.Start < m.BodyStart {
			continue
		}
		b.Write(m.Source[pos:mc.Start])
		at[b.Len()] = mc
		b.WriteString(mc.Arg)
		pos = mc.End
	}
	b.Write(m.Source[pos:])
	if len(at) == 0 {
		return 0
	}
	rows, err := db.Query(context.Background(), "SELECT CAST(json_serialize_sql("+engine.QuoteString(b.String())+") AS VARCHAR)")
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal([]byte(fmt.Sprint(rows.Values[0][0])), &tree); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["type"] == "BASE_TABLE" {
				loc, _ := x["query_location"].(float64)
				alias, _ := x["alias"].(string)
				if mc, ok := at[int(loc)]; ok {
					seen[int(loc)] = true
					if mc.Aliased != (alias != "") {
						t.Errorf("%s: @ref(%s) at byte %d: efmesh says aliased=%v, DuckDB's parser reads alias %q", m.File, mc.Arg, mc.Start, mc.Aliased, alias)
					}
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(tree)
	for off, mc := range at {
		if !seen[off] {
			t.Errorf("%s: @ref(%s) at byte %d: DuckDB's parser reads no table there", m.File, mc.Arg, mc.Start)
		}
	}
	return len(at)
}

// topLevelOrderBy asks DuckDB's parser whether q's outermost query has an
// ORDER BY.
func topLevelOrderBy(t *testing.T, db *duckdb.DB, q string) bool {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT CAST(json_serialize_sql("+engine.QuoteString(q)+") AS VARCHAR)")
	if err != nil {
		t.Fatal(err)
	}
	var tree struct {
		Statements []struct {
			Node struct {
				Modifiers []struct {
					Type string `json:"type"`
				} `json:"modifiers"`
			} `json:"node"`
		} `json:"statements"`
	}
	if err := json.Unmarshal([]byte(fmt.Sprint(rows.Values[0][0])), &tree); err != nil || len(tree.Statements) != 1 {
		t.Fatalf("json_serialize_sql: %v %v", err, rows.Values[0][0])
	}
	for _, mod := range tree.Statements[0].Node.Modifiers {
		if mod.Type == "ORDER_MODIFIER" {
			return true
		}
	}
	return false
}

// sameRows compares two results: in order when ordered, else as
// multisets; numbers within 0.01. It returns "" when they agree.
func sameRows(got, want [][]any, ordered bool) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	g, w := normRows(got), normRows(want)
	if !ordered {
		sortRows(g)
		sortRows(w)
	}
	for i := range g {
		if len(g[i]) != len(w[i]) {
			return fmt.Sprintf("row %d has %d columns, want %d", i+1, len(g[i]), len(w[i]))
		}
		for j := range g[i] {
			if !sameValue(g[i][j], w[i][j]) {
				return fmt.Sprintf("row %d column %d: %v, want %v\n got: %v\nwant: %v", i+1, j+1, g[i][j], w[i][j], g[i], w[i])
			}
		}
	}
	return ""
}

// normRows turns every value into a float64 (numbers) or a string.
func normRows(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = make([]any, len(r))
		for j, v := range r {
			out[i][j] = normValue(v)
		}
	}
	return out
}

func normValue(v any) any {
	switch x := v.(type) {
	case nil:
		return "<NULL>"
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint:
		var f float64
		fmt.Sscan(fmt.Sprint(x), &f)
		return f
	case float32:
		return float64(x)
	case float64:
		return x
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f
	case interface{ Float64() float64 }: // DECIMAL
		return x.Float64()
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fmt.Sprint(nested(normValue(e)))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + fmt.Sprint(nested(normValue(x[k])))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return fmt.Sprint(x)
	}
}

// nested prints a number inside a list or struct rounded, so that sums
// computed in another order print alike.
func nested(v any) any {
	if f, ok := v.(float64); ok {
		return fmt.Sprintf("%.4f", f)
	}
	return v
}

func sameValue(a, b any) bool {
	fa, aok := a.(float64)
	fb, bok := b.(float64)
	if aok && bok {
		return math.Abs(fa-fb) <= 0.01 || (math.IsNaN(fa) && math.IsNaN(fb))
	}
	return a == b
}

func sortRows(rows [][]any) {
	key := func(r []any) string {
		var b strings.Builder
		for _, v := range r {
			fmt.Fprintf(&b, "%v\x00", nested(v))
		}
		return b.String()
	}
	sort.SliceStable(rows, func(i, j int) bool { return key(rows[i]) < key(rows[j]) })
}

// TestRefsSharingATableName: two unaliased refs to different models of one
// table name read like plain SQL's raw.orders JOIN core.orders: no implicit
// alias is given twice (Postgres refuses that), the USING join and
// unqualified columns bind, and plan and apply agree.
func TestRefsSharingATableName(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":  "name: x\n",
		"models/a.sql": "MODEL (name raw.orders, kind FULL);\nSELECT 1 AS id, 10 AS amount\n",
		"models/b.sql": "MODEL (name core.orders, kind FULL);\nSELECT id, 'x' AS note FROM @ref(raw.orders)\n",
		"models/c.sql": "MODEL (name mart.j, kind FULL);\nSELECT amount, note FROM @ref(raw.orders) JOIN @ref(core.orders) USING (id)\n",
		// Each branch of a set operation has a FROM of its own: both keep
		// their table name.
		"models/u.sql": "MODEL (name mart.u, kind FULL);\nSELECT orders.id FROM @ref(raw.orders) UNION ALL SELECT orders.id FROM @ref(core.orders)\n" +
			"EXCEPT SELECT orders.id + 1 FROM @ref(raw.orders)\n",
		// A parenthesized join is part of the FROM around it.
		"models/p.sql": "MODEL (name mart.p, kind FULL);\nSELECT id FROM @ref(raw.orders) JOIN (@ref(core.orders) JOIN @ref(mart.j) ON true) USING (id)\n",
	})
	mustRun(t, dir, "plan", "dev")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT amount, note FROM dev__mart.j"); got != "[[10 x]]" {
		t.Fatalf("mart.j: %s", got)
	}
	if got := query(t, dir, "SELECT count(*) FROM dev__mart.u"); got != "[[1]]" {
		t.Fatalf("mart.u: %s", got)
	}
	if got := query(t, dir, "SELECT id FROM dev__mart.p"); got != "[[1]]" {
		t.Fatalf("mart.p: %s", got)
	}
}

// loadSweep loads the project of a sweep (the corpus, the dialects) copied
// into dir: it must load without error and hold at least `least` models, so
// that a sweep cut short by a broken glob proves nothing silently.
func loadSweep(t *testing.T, dir string, least int) *project.Project {
	t.Helper()
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if project.HasErrors(p.Diagnostics) {
		t.Fatalf("%s does not load: %v", filepath.Base(dir), p.Diagnostics)
	}
	if n := len(p.Models); n < least {
		t.Fatalf("%s has %d models, want at least %d", filepath.Base(dir), n, least)
	}
	return p
}

// plainAndDev runs q, model m's query, on plain DuckDB and reads what dev
// serves of m from the warehouse apply built; ok is false (an error
// reported) when either fails.
func plainAndDev(t *testing.T, plain, built *duckdb.DB, m *project.Model, q string) (want, got *engine.Rows, ok bool) {
	t.Helper()
	ctx := context.Background()
	want, err := plain.Query(ctx, q)
	if err != nil {
		t.Errorf("%s: plain DuckDB: %v", m.File, err)
		return nil, nil, false
	}
	got, err = built.Query(ctx, "SELECT * FROM "+engine.QuoteIdent("dev__"+m.Schema)+"."+engine.QuoteIdent(m.Table))
	if err != nil {
		t.Errorf("%s: dev: %v", m.File, err)
		return nil, nil, false
	}
	return want, got, true
}
