package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/project"
)

// tpchNotOnPostgres are the queries of testdata/tpch written in DuckDB-only
// syntax that PostgreSQL itself rejects when run plainly, with its error.
// Every other query is built. PostgreSQL 15 runs all 22 as written.
var tpchNotOnPostgres = map[string]string{}

var refPattern = regexp.MustCompile(`@ref\(([^)]*)\)`)

// TestTPCHOnPostgresMatchesPlainPostgres builds the 22 TPC-H queries as an
// efmesh project on a Postgres warehouse and holds efmesh to what plain
// PostgreSQL does with them over the same tables: the plan reports no
// error, the apply succeeds, the columns the check infers (without the
// server, as the editor does, and bound by the server, as plan does) are
// those apply builds, and every model's rows and column types in the dev
// environment are those of the original query. Numbers compare within
// 0.01; order only where the query has a top-level ORDER BY.
//
// The data is testdata/tpch/generate.sql, run in plain DuckDB and loaded
// into tables tpch.<table> of a fresh database, each an EXTERNAL model
// tpch.<table> (table tpch.<table>) with its columns. The queries become
// FULL models tpch_q.<file> with realdb.RefTables' rewriting.
func TestTPCHOnPostgresMatchesPlainPostgres(t *testing.T) {
	const suite = "tpch"
	dbURL := freshDatabase(t)
	src := filepath.Join("..", "..", "..", "testdata", suite)
	ctx := context.Background()

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
	pg, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if err := pg.Exec(ctx, "CREATE SCHEMA "+suite); err != nil {
		t.Fatal(err)
	}
	rows, err := plain.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]bool{}
	files := map[string]string{
		"efmesh.yaml": fmt.Sprintf("name: %s\nmodels: [\"models/**/*.sql\"]\nstart: 2024-01-01\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", suite, dbURL, dbURL),
	}
	for _, r := range rows.Values {
		name := fmt.Sprint(r[0])
		tables[name] = true
		rel := suite + "." + engine.QuoteIdent(name)
		cols, err := plain.Describe(ctx, "SELECT * FROM "+engine.QuoteIdent(name))
		if err != nil {
			t.Fatal(err)
		}
		decl := make([]string, len(cols))
		for i, c := range cols {
			decl[i] = engine.QuoteIdent(c.Name) + " " + c.Type
		}
		if err := pg.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (%s)", rel, strings.Join(decl, ", "))); err != nil {
			t.Fatal(err)
		}
		loadIntoPostgres(t, plain, pg, name, rel)
		files["models/"+suite+"/"+name+".sql"] = fmt.Sprintf("MODEL (\n  name %s.%s,\n  kind EXTERNAL (table %s.%s),\n  columns (%s)\n);\n",
			suite, name, suite, name, strings.Join(decl, ", "))
	}
	if len(tables) != 8 {
		t.Fatalf("generate.sql makes %d tables, want 8", len(tables))
	}
	if err := pg.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}

	queries, err := filepath.Glob(filepath.Join(src, "queries", "*.sql"))
	if err != nil || len(queries) != 22 {
		t.Fatalf("%d queries, want 22 (%v)", len(queries), err)
	}
	built := 0
	for _, path := range queries {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".sql")
		body := realdb.RefTables(t, plain, string(b), tables, suite)
		// Whether plain PostgreSQL runs the query decides whether it is in.
		_, perr := pg.Query(ctx, strings.TrimRight(strings.TrimSpace(refPattern.ReplaceAllString(body, "$1")), ";"))
		if why, out := tpchNotOnPostgres[name]; out {
			if perr == nil {
				t.Errorf("%s: plain PostgreSQL runs it now: build it (it was left out for %q)", name, why)
			} else if !strings.Contains(perr.Error(), why) {
				t.Errorf("%s: plain PostgreSQL rejects it with %v, want %q", name, perr, why)
			}
			continue
		}
		if perr != nil {
			t.Errorf("%s: plain PostgreSQL rejects it (DuckDB-only syntax goes in tpchNotOnPostgres): %v", name, perr)
			continue
		}
		files["models/"+suite+"_q/"+name+".sql"] = fmt.Sprintf("MODEL (name %s_q.%s, kind FULL);\n\n%s", suite, name, body)
		built++
	}
	dir := writeProject(t, files)

	planApplyReplan(t, dir)

	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The editor's check (no server) and plan's gate (bound by the server).
	checks := pgChecks(t, p)
	for how, a := range checks {
		if a.Errors() {
			t.Errorf("the check %s reports errors: %v", how, a.Diagnostics)
		}
	}

	compared, withRows := 0, 0
	for _, m := range p.Models {
		if m.Kind.Name == project.KindExternal {
			continue
		}
		q := plainQuery(m)
		want, err := pg.Query(ctx, q)
		if err != nil {
			t.Errorf("%s: plain PostgreSQL: %v", m.File, err)
			continue
		}
		got, err := pg.Query(ctx, "SELECT * FROM "+engine.QuoteIdent("dev__"+m.Schema)+"."+engine.QuoteIdent(m.Table))
		if err != nil {
			t.Errorf("%s: dev: %v", m.File, err)
			continue
		}
		if msg := sameColumns(got.Columns, want.Columns); msg != "" {
			t.Errorf("%s: efmesh and plain PostgreSQL name or type the columns differently: %s", m.File, msg)
		}
		hows := make([]string, 0, len(checks))
		for how := range checks {
			hows = append(hows, how)
		}
		sort.Strings(hows)
		for _, how := range hows {
			if info := checks[how].Models[m.Name]; info == nil {
				t.Errorf("%s: the check %s has no model", m.File, how)
			} else if msg := sameColumns(info.Inferred, got.Columns); msg != "" {
				t.Errorf("%s: the check %s predicts other columns than apply built: %s", m.File, how, msg)
			}
		}
		if msg := sameRows(got.Values, want.Values, topLevelOrderBy(t, plain, q)); msg != "" {
			t.Errorf("%s: efmesh and plain PostgreSQL differ: %s", m.File, msg)
		}
		if !onlyNulls(want.Values) {
			withRows++
		} else {
			t.Logf("%s: no rows (or only NULLs) over generate.sql's data", m.Name)
		}
		compared++
	}
	if compared != built {
		t.Errorf("%d queries compared, want %d", compared, built)
	}
	if withRows != built {
		t.Errorf("%d of %d queries return rows over generate.sql's data", withRows, built)
	}
	t.Logf("%s: %d queries compared with plain PostgreSQL, %d of them with rows; left out: %v", suite, compared, withRows, tpchNotOnPostgres)
}

// loadIntoPostgres copies DuckDB's table name into Postgres' table rel:
// every value as its text, which Postgres casts to the column's type.
func loadIntoPostgres(t *testing.T, from *duckdb.DB, to *postgres.DB, name, rel string) {
	t.Helper()
	ctx := context.Background()
	rows, err := from.Query(ctx, "SELECT COLUMNS(*)::VARCHAR FROM "+engine.QuoteIdent(name))
	if err != nil {
		t.Fatal(err)
	}
	const batch = 2000
	for start := 0; start < len(rows.Values); start += batch {
		var b strings.Builder
		b.WriteString("INSERT INTO " + rel + " VALUES ")
		for i, r := range rows.Values[start:min(len(rows.Values), start+batch)] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(")
			for j, v := range r {
				if j > 0 {
					b.WriteString(", ")
				}
				if v == nil {
					b.WriteString("NULL")
				} else {
					b.WriteString(engine.QuoteString(fmt.Sprint(v)))
				}
			}
			b.WriteString(")")
		}
		if err := to.Exec(ctx, b.String()); err != nil {
			t.Fatalf("loading %s: %v", rel, err)
		}
	}
	got, err := to.Query(ctx, "SELECT count(*) FROM "+rel)
	if err != nil || fmt.Sprint(got.Values[0][0]) != fmt.Sprint(len(rows.Values)) {
		t.Fatalf("%s holds %v rows, want %d (%v)", rel, got, len(rows.Values), err)
	}
}
