package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/project"
)

// TestTPCHMatchesPlainDuckDB builds the 22 TPC-H queries as an efmesh
// project — SQL nobody on the team wrote for efmesh — and holds efmesh to
// what plain DuckDB does with them (see benchmarkMatchesPlainDuckDB).
// generate.sql's data gives every query rows.
func TestTPCHMatchesPlainDuckDB(t *testing.T) {
	benchmarkMatchesPlainDuckDB(t, "tpch", 8, 22, 22, true, map[string]string{
		// Through a subquery's column list (c_orders (c_custkey, c_count)).
		"tpch_q.q13.c_count": "tpch.orders.o_orderkey",
		// A column the query does not name.
		`tpch_q.q18."sum(l_quantity)"`: "tpch.lineitem.l_quantity",
		"tpch_q.q08.mkt_share":         "tpch.lineitem.l_extendedprice",
	})
}

// TestTPCDSMatchesPlainDuckDB does the same with TPC-DS queries over its
// 24 tables.
func TestTPCDSMatchesPlainDuckDB(t *testing.T) {
	benchmarkMatchesPlainDuckDB(t, "tpcds", 24, 0, 85, false, map[string]string{
		`tpcds_q.q02."round((sun_sales1 / sun_sales2), 2)"`: "tpcds.web_sales.ws_ext_sales_price",
		"tpcds_q.q05.sales":     "tpcds.catalog_sales.cs_ext_sales_price",
		`tpcds_q.q50."30 days"`: "tpcds.store_returns.sr_returned_date_sk",
	})
}

// benchmarkMatchesPlainDuckDB builds testdata/<suite> as an efmesh project
// and holds efmesh to what plain DuckDB does with its queries: the plan
// reports no error, the apply succeeds, the columns the check infers are
// those apply builds, and every model's rows and column types in the dev
// environment are those of the original query over the same data. Numbers
// compare within 0.01; order only where the query has a top-level ORDER BY.
//
// DuckDB's tpch and tpcds extensions (dbgen, tpch_queries()) are not in the
// driver's static library, and loading them would download them: the data
// and the queries are testdata's own. The data is the suite's generate.sql,
// run once in plain DuckDB and written as parquet files, each an EXTERNAL
// model <suite>.<table> with the columns DuckDB reads from it. Each query of
// the suite's queries/ becomes a FULL model <suite>_q.<file> whose table
// names are @ref(<suite>.<table>): the tables DuckDB's parser reads (a CTE
// of the same name excepted), not substrings, so aliases, CTE names and
// columns stay as written.
//
// wantQueries is the number of queries (0: any); at least wantRows of them
// must return a row that is not all NULL. lineage maps a column to a source
// column its lineage must name. With createTests, efmesh create-test writes
// a unit test of each query from rows sampled in dev, and efmesh test
// passes them.
func benchmarkMatchesPlainDuckDB(t *testing.T, suite string, wantTables, wantQueries, wantRows int, createTests bool, lineage map[string]string) {
	src := filepath.Join("..", "..", "..", "testdata", suite)
	ctx := context.Background()
	dir := t.TempDir()

	plain, err := duckdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	gen, err := os.ReadFile(filepath.Join(src, "generate.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Exec(ctx, string(gen)); err != nil {
		t.Fatalf("generate.sql: %v", err)
	}
	rows, err := plain.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]bool{}
	files := map[string]string{
		"efmesh.yaml": "name: " + suite + "\nmodels: [\"models/**/*.sql\"]\nstart: 2024-01-01\n" +
			"engine: {type: duckdb, path: efmesh.duckdb}\nstate: {type: sqlite, path: .efmesh/state.db}\n",
	}
	if err := plain.Exec(ctx, "CREATE SCHEMA "+suite); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows.Values {
		name := fmt.Sprint(r[0])
		tables[name] = true
		file := filepath.Join(dir, "data", name+".parquet")
		if err := plain.Exec(ctx, fmt.Sprintf("COPY %s TO %s (FORMAT parquet)", engine.QuoteIdent(name), engine.QuoteString(file))); err != nil {
			t.Fatal(err)
		}
		// Plain DuckDB reads the same files under the same names.
		rel := suite + "." + engine.QuoteIdent(name)
		if err := plain.Exec(ctx, fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_parquet(%s)", rel, engine.QuoteString(file))); err != nil {
			t.Fatal(err)
		}
		cols, err := plain.Describe(ctx, "SELECT * FROM "+rel)
		if err != nil {
			t.Fatal(err)
		}
		decl := make([]string, len(cols))
		for i, c := range cols {
			decl[i] = c.Name + " " + c.Type
		}
		files["models/"+suite+"/"+name+".sql"] = fmt.Sprintf("MODEL (\n  name %s.%s,\n  kind EXTERNAL (files 'data/%s.parquet', format parquet),\n  columns (%s)\n);\n",
			suite, name, name, strings.Join(decl, ", "))
	}
	if len(tables) != wantTables {
		t.Fatalf("generate.sql makes %d tables, want %d", len(tables), wantTables)
	}

	queries, err := filepath.Glob(filepath.Join(src, "queries", "*.sql"))
	if err != nil || len(queries) == 0 || wantQueries > 0 && len(queries) != wantQueries {
		t.Fatalf("%d queries, want %d (%v)", len(queries), wantQueries, err)
	}
	for _, path := range queries {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".sql")
		body := realdb.RefTables(t, plain, string(b), tables, suite)
		files["models/"+suite+"_q/"+name+".sql"] = fmt.Sprintf("MODEL (name %s_q.%s, kind FULL);\n\n%s", suite, name, body)
	}
	for rel, body := range files {
		writeFile(t, dir, rel, body)
	}

	planApplyReplan(t, dir)

	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The check the editor runs (and plan's gate), for the columns it
	// predicts.
	wb, err := duckdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	checked, err := analysis.Analyze(ctx, p, wb)
	if err != nil {
		t.Fatal(err)
	}
	if checked.Errors() {
		t.Fatalf("the check reports errors: %v", checked.Diagnostics)
	}
	built, err := duckdb.OpenReadOnly(filepath.Join(dir, "efmesh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	compared, withRows := 0, 0
	for _, m := range p.Models {
		if m.Kind.Name == project.KindExternal {
			continue
		}
		checkAliases(t, plain, m)
		q := plainQuery(m)
		want, got, ok := plainAndDev(t, plain, built, m, q)
		if !ok {
			continue
		}
		if msg := sameColumns(got.Columns, want.Columns); msg != "" {
			t.Errorf("%s: efmesh and plain DuckDB name or type the columns differently: %s", m.File, msg)
		}
		if msg := sameColumns(checked.Models[m.Name].Inferred, got.Columns); msg != "" {
			t.Errorf("%s: the check predicts other columns than apply built: %s", m.File, msg)
		}
		if msg := sameRows(got.Values, want.Values, topLevelOrderBy(t, plain, q)); msg != "" {
			t.Errorf("%s: efmesh and plain DuckDB differ: %s", m.File, msg)
		}
		if !onlyNulls(want.Values) {
			withRows++
		} else {
			t.Logf("%s: no rows (or only NULLs) over generate.sql's data", m.Name)
		}
		compared++
	}
	if compared != len(queries) {
		t.Errorf("%d queries compared, want %d", compared, len(queries))
	}
	// create-test samples each query's parents in dev and writes a test
	// that passes at once. Each run loads and checks the whole project:
	// the 97 TPC-DS queries would take minutes.
	for _, m := range p.Models {
		if !createTests {
			break
		}
		if m.Kind.Name != project.KindExternal {
			mustRun(t, dir, "create-test", m.Name, "--env", "dev")
		}
	}
	if out := mustRun(t, dir, "test"); createTests && !strings.Contains(out, fmt.Sprintf("%d passed, 0 failed", len(queries))) {
		t.Errorf("the sampled tests do not pass:\n%s", out)
	}
	for col, want := range lineage {
		if out := mustRun(t, dir, "lineage", col); !strings.Contains(out, want) {
			t.Errorf("lineage of %s misses %s:\n%s", col, want, out)
		}
	}
	if withRows < wantRows {
		t.Errorf("%d queries return rows over generate.sql's data, want %d: a query should prove something", withRows, wantRows)
	}
	t.Logf("%s: %d queries compared with plain DuckDB, %d of them with rows", suite, compared, withRows)
}

// onlyNulls reports whether rows hold no value but NULL (an aggregate
// over nothing is one such row).
func onlyNulls(rows [][]any) bool {
	for _, r := range rows {
		for _, v := range r {
			if v != nil {
				return false
			}
		}
	}
	return true
}

// sameColumns compares two results' column names and types; "" when they
// agree.
func sameColumns(got, want []engine.Column) string {
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		return fmt.Sprintf("%s, want %s", g, w)
	}
	return ""
}

// planApplyReplan plans dev (no error), applies it, and plans it again:
// the plan right after the apply has no changes.
func planApplyReplan(t *testing.T, dir string) {
	t.Helper()
	code, out, errs := run(t, dir, "plan", "dev")
	if code != 0 || strings.Contains(errs, "error") {
		t.Fatalf("plan dev: exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(errs, "warning") {
		t.Logf("plan dev warns:\n%s", errs)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if out := mustRun(t, dir, "plan", "dev", "--json"); !strings.Contains(out, `"hasChanges": false`) && !strings.Contains(out, `"hasChanges":false`) {
		t.Errorf("plan dev after apply has changes:\n%s", out)
	}
}
