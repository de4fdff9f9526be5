package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/macro"
	"github.com/efmesh/efmesh/project"
)

// The macro corpus, testdata/macros: every model of schema m calls macros
// (each built-in, project macros calling macros, defaults, named
// arguments, lambdas, @IF as a clause on a variable, @{x} names, @STAR,
// @UNION, @PIVOT, @DEDUPLICATE, @DATE_SPINE of each part, the run's
// variables, jaffle_shop's payment-method loop, sqlmesh's documented
// examples), and the model of the same table name in schema hand is the
// same query written out by hand. Its incremental models cover the week
// macroNow ends.
const macroNow = "2024-03-08T00:00:00Z"

// macroCorpus is the corpus copied into a fresh folder.
func macroCorpus(t *testing.T) string {
	t.Helper()
	return copyTree(t, filepath.Join("..", "..", "..", "testdata", "macros"))
}

// TestMacroCorpusMatchesHandWritten applies testdata/macros on DuckDB (the
// plan has no error, the plan right after the apply is a no-op) and holds
// each macro model to its hand-written twin: the check infers the same
// columns for both, and dev serves the same columns (names and types, in
// order) and the same rows.
func TestMacroCorpusMatchesHandWritten(t *testing.T) {
	t.Setenv("EFMESH_NOW", macroNow)
	dir := macroCorpus(t)
	planApplyReplan(t, dir)
	p := loadSweep(t, dir, 40)
	checkMacroCoverage(t, p)

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
	built, err := duckdb.OpenReadOnly(filepath.Join(dir, "efmesh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	compareTwins(t, p, map[string]*analysis.Analysis{"": checked}, func(sql string) (*engine.Rows, error) {
		return built.Query(ctx, sql)
	})
}

// TestMacroCorpusMatchesHandWrittenOnPostgres is the same on PostgreSQL:
// the seeds' CSVs become tables of a schema src (seeds are DuckDB's), read
// by EXTERNAL models of the seeds' names and columns, as the pgdialect
// corpus reads its inputs; the check is held to the twins without the
// server and bound by it.
func TestMacroCorpusMatchesHandWrittenOnPostgres(t *testing.T) {
	dbURL := freshDatabase(t)
	t.Setenv("EFMESH_NOW", macroNow)
	dir := macroCorpus(t)
	macroCorpusOnPostgres(t, dir, dbURL)
	planApplyReplan(t, dir)
	p := loadSweep(t, dir, 40)

	ctx := context.Background()
	built, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	compareTwins(t, p, pgChecks(t, p), func(sql string) (*engine.Rows, error) {
		return built.Query(ctx, sql)
	})
}

// macroCorpusOnPostgres points the corpus in dir at the database dbURL and
// turns each SEED model into an EXTERNAL one of the same columns over a
// table src.<name> holding its CSV's rows.
func macroCorpusOnPostgres(t *testing.T, dir, dbURL string) {
	t.Helper()
	ctx := context.Background()
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{"CREATE SCHEMA src"}
	seeds := 0
	for _, m := range p.Models {
		if m.Kind.Name != project.KindSeed {
			continue
		}
		seeds++
		decl := make([]string, len(m.Columns))
		for i, c := range m.Columns {
			decl[i] = engine.QuoteIdent(c.Name) + " " + c.Type
		}
		table := "src." + engine.QuoteIdent(m.Table)
		stmts = append(stmts, "CREATE TABLE "+table+" ("+strings.Join(decl, ", ")+")")
		f, err := os.Open(filepath.Join(dir, m.Kind.Path))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", m.Kind.Path, err)
		}
		for _, rec := range recs[1:] {
			vals := make([]string, len(rec))
			for i, v := range rec {
				vals[i] = "NULL"
				if v != "" {
					vals[i] = engine.QuoteString(v)
				}
			}
			stmts = append(stmts, "INSERT INTO "+table+" VALUES ("+strings.Join(vals, ", ")+")")
		}
		model := fmt.Sprintf("MODEL (\n  name %s,\n  kind EXTERNAL (table src.%s),\n  columns (%s)\n);\n",
			m.Name, m.Table, strings.Join(decl, ", "))
		writeFile(t, dir, filepath.ToSlash(m.File), model)
	}
	if seeds == 0 {
		t.Fatal("the corpus has no seeds")
	}
	if err := db.Exec(ctx, strings.Join(stmts, ";\n")); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "efmesh.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pg := fmt.Sprintf("engine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL)
	out := regexp.MustCompile(`(?m)^(engine|state):.*\n`).ReplaceAllString(string(cfg), "")
	writeFile(t, dir, "efmesh.yaml", out+pg)
}

// compareTwins holds each model of schema m to the model of schema hand of
// the same table name: the columns each check infers, and the columns and
// rows dev serves (read with query).
func compareTwins(t *testing.T, p *project.Project, checks map[string]*analysis.Analysis, query func(string) (*engine.Rows, error)) {
	t.Helper()
	compared := 0
	for _, m := range p.Models {
		if m.Schema != "m" {
			continue
		}
		twin := p.Model("hand." + m.Table)
		if twin == nil {
			t.Errorf("%s: no hand-written twin hand.%s", m.File, m.Table)
			continue
		}
		for how, a := range checks {
			got, want := a.Models[m.Name], a.Models[twin.Name]
			if got == nil || want == nil {
				t.Errorf("%s: the check %s has no model", m.File, how)
				continue
			}
			if msg := sameColumns(got.Inferred, want.Inferred); msg != "" {
				t.Errorf("%s: the check %s infers other columns than for %s: %s", m.File, how, twin.File, msg)
			}
		}
		read := func(mm *project.Model) *engine.Rows {
			r, err := query("SELECT * FROM " + engine.QuoteIdent("dev__"+mm.Schema) + "." + engine.QuoteIdent(mm.Table))
			if err != nil {
				t.Errorf("%s: dev: %v", mm.File, err)
			}
			return r
		}
		got, want := read(m), read(twin)
		if got == nil || want == nil {
			continue
		}
		if msg := sameColumns(got.Columns, want.Columns); msg != "" {
			t.Errorf("%s: the columns differ from %s's: %s", m.File, twin.File, msg)
		}
		if msg := sameRows(got.Values, want.Values, false); msg != "" {
			t.Errorf("%s: the rows differ from %s's: %s", m.File, twin.File, msg)
		}
		if len(want.Values) == 0 {
			t.Errorf("%s: no rows: a corpus model should prove something", twin.File)
		}
		if m.Table == "jaffle_orders" {
			var names []string
			for _, c := range got.Columns {
				names = append(names, c.Name)
			}
			for _, pm := range []string{"credit_card", "coupon", "bank_transfer", "gift_card"} {
				if !slices.Contains(names, pm+"_amount") {
					t.Errorf("%s: no column %s_amount in %v", m.File, pm, names)
				}
			}
		}
		compared++
	}
	if compared < 30 {
		t.Errorf("%d macro models compared, want at least 30", compared)
	}
	t.Logf("%d macro models compared with their hand-written twins", compared)
}

// checkMacroCoverage fails when a macro of the language is called by no
// model of schema m (as written, before expansion).
func checkMacroCoverage(t *testing.T, p *project.Project) {
	t.Helper()
	want := []string{"start_ds", "end_ds", "start_ts", "end_ts", "execution_ds", "this_model", "env", "var"}
	for _, b := range macro.Builtins {
		want = append(want, strings.ToLower(b.Name))
	}
	for name := range p.Macros {
		want = append(want, name)
	}
	seen := map[string]bool{}
	re := regexp.MustCompile(`@([A-Za-z_][A-Za-z_0-9]*)`)
	for _, m := range p.Models {
		if m.Schema != "m" {
			continue
		}
		for _, s := range re.FindAllStringSubmatch(string(m.Written()[m.BodyStart:]), -1) {
			seen[strings.ToLower(s[1])] = true
		}
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no model of testdata/macros calls @%s", w)
		}
	}
}
