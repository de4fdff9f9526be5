package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/project"
)

// TestDialectMatchesPlainDuckDB builds testdata/dialect — DuckDB SQL
// beyond TPC: structs, lists, lambdas, maps, UNNEST, PIVOT/UNPIVOT,
// GROUPING SETS, QUALIFY, named windows, star modifiers, COLUMNS(…),
// ASOF/POSITIONAL/NATURAL/LATERAL joins, recursive CTEs, FROM-first,
// hostile identifiers, typed literals, every kind — and holds what efmesh
// predicts to what apply and plain DuckDB do: the plan has no error, the
// plan right after apply is a no-op, the check's inferred columns (names
// and types, in order) are the information_schema columns of the relation
// apply built and the columns plain DuckDB returns for the same query, and
// the rows are plain DuckDB's.
func TestDialectMatchesPlainDuckDB(t *testing.T) {
	// The incremental models cover a week of days.
	t.Setenv("EFMESH_NOW", dialectNow)
	dir := copyTree(t, filepath.Join("..", "..", "..", "testdata", "dialect"))
	planApplyReplan(t, dir)

	p := loadSweep(t, dir, 50)
	ctx := context.Background()
	wb, err := duckdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	checked, err := analysis.Analyze(ctx, p, wb)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range checked.Diagnostics {
		if d.Severity == project.SeverityError {
			t.Errorf("the check reports %s", d)
		}
	}

	physical := map[string]string{}
	for _, m := range missingPlanOf(t, dir, "dev").Models {
		physical[m.Name] = m.PhysicalTable
	}
	built, err := duckdb.OpenReadOnly(filepath.Join(dir, "efmesh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()

	plain, plainSQL := plainDialect(t, dir, p)
	defer plain.Close()
	compared := 0
	for _, m := range p.Models { // parents first
		q, rel := plainSQL(m), engine.QuoteIdent(m.Schema)+"."+engine.QuoteIdent(m.Table)
		if m.Kind.Name != project.KindSeed && q == plainQuery(m) {
			checkAliases(t, plain, m) // (its parse knows no @start)
		}
		want, got, ok := plainAndDev(t, plain, built, m, q)
		if !ok {
			continue
		}
		if len(want.Values) == 0 {
			t.Errorf("%s: the plain query returns no rows: a model should prove something", m.File)
		}
		if m.Kind.Name == project.KindSCDType2 {
			// Plain DuckDB's are the query's, without the history's
			// validity columns.
			got = dropColumns(got, "valid_from", "valid_to")
		}
		if msg := sameColumns(got.Columns, want.Columns); m.Columns == nil && msg != "" {
			t.Errorf("%s: efmesh and plain DuckDB name or type the columns differently: %s", m.File, msg)
		}
		// The check's columns, spelled as the catalog spells types (a
		// result's column types are the driver's coarser names: ENUM,
		// TIMESTAMPTZ).
		predicted := checked.Models[m.Name].Inferred
		plainCols := catalogColumns(t, plain, rel)
		if m.Kind.Name == project.KindSCDType2 {
			plainCols = plainCols[:len(plainCols)-2] // the query's
		}
		if msg := sameColumns(predicted, plainCols); m.Kind.Name != project.KindSeed && msg != "" {
			t.Errorf("%s: the check predicts other columns than plain DuckDB builds: %s", m.File, msg)
		}
		// What children bind against is what apply builds: the declared
		// columns (a seed's, a contract's), their types spelled by DuckDB
		// (TEXT is VARCHAR), else the inferred ones; an SCD_TYPE_2's
		// validity columns after them.
		predicted = checked.Models[m.Name].Columns
		if m.Columns != nil {
			decl := make([]string, len(m.Columns))
			for i, c := range m.Columns {
				decl[i] = "CAST(NULL AS " + c.Type + ") AS " + engine.QuoteIdent(c.Name)
			}
			if predicted, err = plain.Describe(ctx, "SELECT "+strings.Join(decl, ", ")); err != nil {
				t.Fatal(err)
			}
		}
		if msg := sameColumns(predicted, catalogColumns(t, built, physical[m.Name])); msg != "" {
			t.Errorf("%s: the check predicts other columns than the catalog has for %s: %s", m.File, physical[m.Name], msg)
		}
		ordered := m.Kind.Name != project.KindSeed && topLevelOrderBy(t, plain, q)
		if msg := sameRows(got.Values, want.Values, ordered); msg != "" {
			t.Errorf("%s: efmesh and plain DuckDB differ: %s", m.File, msg)
		}
		compared++
	}
	for col, want := range map[string]string{
		"core.struct_fields.lat":        "raw.people.address",
		"core.asof_join.spread":         "raw.quotes.bid",
		"core.using_join.city":          "raw.cities.city",
		`core.hostile_idents."x.y"`:     `raw.hostile."a.b"`,
		"core.unpivot_select.amount":    "raw.sales.q4",
		"core.unpivot_sales.amount":     "raw.sales.q2",
		"core.pivot_static.pear_q4":     "raw.sales.q4",
		"core.pivot_select.\"2023\"":    "raw.sales.q2",
		"core.incremental_struct.kinds": "raw.events.kind",
		"core.non_ascii.人口":             "raw.cities.population",
		"core.recursive_cte.node":       "raw.edges.dst",
		"core.list_lambdas.upper_tags":  "raw.people.tags",
		"core.star_modifiers.birthday":  "raw.people.born",
		"core.window_frames.qty3":       "raw.trades.qty",
	} {
		if out := mustRun(t, dir, "lineage", col); !strings.Contains(out, want) {
			t.Errorf("lineage of %s misses %s:\n%s", col, want, out)
		}
	}
	t.Logf("%d models compared with plain DuckDB", compared)
}

// catalogColumns lists a relation's columns (schema.table, quoted or not)
// as information_schema has them, in order.
func catalogColumns(t *testing.T, db *duckdb.DB, rel string) []engine.Column {
	t.Helper()
	schema, table, ok := strings.Cut(rel, ".")
	if !ok {
		t.Fatalf("relation %q has no schema", rel)
	}
	unq := func(s string) string {
		if strings.HasPrefix(s, `"`) {
			return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
		}
		return s
	}
	rows, err := db.Query(context.Background(), fmt.Sprintf("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position",
		engine.QuoteString(unq(schema)), engine.QuoteString(unq(table))))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Values) == 0 {
		t.Fatalf("no columns for %s in information_schema", rel)
	}
	cols := make([]engine.Column, len(rows.Values))
	for i, r := range rows.Values {
		cols[i] = engine.Column{Name: fmt.Sprint(r[0]), Type: fmt.Sprint(r[1])}
	}
	return cols
}

// dialectNow is the clock of the dialect tests: the incremental models of
// testdata/dialect cover the week from its start.
const dialectNow = "2024-03-08T00:00:00Z"

// plainDialect builds p's models (testdata/dialect) in a plain in-memory
// DuckDB without efmesh, parents first, each a table (a view for a VIEW,
// the seed's CSV read with its declared columns) named as the model, and
// returns it with the plain SQL of a model: each @ref(x) is x, @start and
// @end the week dialectNow ends.
func plainDialect(t *testing.T, dir string, p *project.Project) (*duckdb.DB, func(*project.Model) string) {
	t.Helper()
	const start, end = "TIMESTAMP '2024-03-01 00:00:00'", "TIMESTAMP '2024-03-08 00:00:00'"
	plainSQL := func(m *project.Model) string {
		if m.Kind.Name == project.KindSeed {
			cols := make([]string, len(m.Columns))
			for i, c := range m.Columns {
				cols[i] = engine.QuoteString(c.Name) + ": " + engine.QuoteString(c.Type)
			}
			return fmt.Sprintf("SELECT * FROM read_csv(%s, header = true, columns = {%s})",
				engine.QuoteString(filepath.Join(dir, m.Kind.Path)), strings.Join(cols, ", "))
		}
		q := plainQuery(m)
		for _, r := range []struct{ macro, lit string }{{"@start", start}, {"@end", end}} {
			q = strings.ReplaceAll(strings.ReplaceAll(q, r.macro, r.lit), strings.ToUpper(r.macro), r.lit)
		}
		return q
	}
	ctx := context.Background()
	plain, err := duckdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]bool{}
	for _, m := range p.Models {
		if !schemas[m.Schema] {
			schemas[m.Schema] = true
			if err := plain.Exec(ctx, "CREATE SCHEMA "+engine.QuoteIdent(m.Schema)); err != nil {
				t.Fatal(err)
			}
		}
		stmt := "CREATE TABLE "
		if m.Kind.Name == project.KindView {
			stmt = "CREATE VIEW "
		}
		body := plainSQL(m)
		if m.Kind.Name == project.KindSCDType2 {
			// A history's validity columns, for its readers: every row
			// current, valid from some time.
			body = "SELECT *, TIMESTAMP '2000-01-01' AS valid_from, NULL::TIMESTAMP AS valid_to FROM (" + body + ")"
		}
		stmt += engine.QuoteIdent(m.Schema) + "." + engine.QuoteIdent(m.Table) + " AS " + body
		if err := plain.Exec(ctx, stmt); err != nil {
			t.Errorf("%s in plain DuckDB: %v", m.File, err)
		}
	}
	return plain, plainSQL
}

// TestDialectRejectedBeforeApply: each model of testdata/dialect/rejected
// is one plain DuckDB refuses over the project's data (an unknown column
// through a ref, a field a struct lacks, 'a' + 1, a lambda over a scalar,
// an ambiguous column of a USING join, a window in WHERE, a column missing
// from GROUP BY, a date literal that does not cast, …), and the plan
// reports it, before anything is built, as an error at the place its
// first line names ("-- error at: x": the first x of the body).
//
// known: UNION BY NAME of a STRUCT column and a list passes the check and
// fails the build: the binder casts one to the other (a cast that does not
// exist), which only a row's evaluation finds.
func TestDialectRejectedBeforeApply(t *testing.T) {
	t.Setenv("EFMESH_NOW", dialectNow)
	src := filepath.Join("..", "..", "..", "testdata", "dialect")
	dir := copyTree(t, src)
	bad, err := filepath.Glob(filepath.Join(src, "rejected", "*.sql"))
	if err != nil || len(bad) < 12 {
		t.Fatalf("%d rejected models, want at least 12 (%v)", len(bad), err)
	}
	for _, f := range bad {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, "models/bad/"+filepath.Base(f), string(b))
	}
	good, err := project.Load(copyTree(t, src))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := plainDialect(t, dir, good)
	defer plain.Close()

	code, out, errs := run(t, dir, "plan", "dev")
	if code == 0 {
		t.Fatalf("the plan accepts the rejected models:\n%s", out)
	}
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range p.Models {
		if m.Schema != "bad" {
			continue
		}
		if _, err := plain.Query(context.Background(), plainQuery(m)); err == nil {
			t.Errorf("%s: plain DuckDB runs it: not a case", m.File)
		}
		first, _, _ := strings.Cut(string(m.Source), "\n")
		needle, ok := strings.CutPrefix(first, "-- error at: ")
		at := strings.Index(string(m.Source[m.BodyStart:]), needle)
		if !ok || at < 0 {
			t.Fatalf("%s: no \"-- error at: x\" line naming a place in the body", m.File)
		}
		at += m.BodyStart
		line := 1 + strings.Count(string(m.Source[:at]), "\n")
		col := at - strings.LastIndex(string(m.Source[:at]), "\n")
		if want := fmt.Sprintf("%s:%d:%d: error: ", m.File, line, col); !strings.Contains(errs, want) {
			t.Errorf("%s: the plan has no error at %q (line %d, column %d):\n%s", m.File, needle, line, col, grepLines(errs, m.File))
		}
	}
	if objs := warehouseObjects(t, dir); objs != "<none>" {
		t.Errorf("the refused plan built: %s", objs)
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// dropColumns returns r without the named columns.
func dropColumns(r *engine.Rows, names ...string) *engine.Rows {
	out := &engine.Rows{}
	var keep []int
	for i, c := range r.Columns {
		if !slices.Contains(names, c.Name) {
			keep = append(keep, i)
			out.Columns = append(out.Columns, c)
		}
	}
	for _, row := range r.Values {
		var v []any
		for _, i := range keep {
			v = append(v, row[i])
		}
		out.Values = append(out.Values, v)
	}
	return out
}
