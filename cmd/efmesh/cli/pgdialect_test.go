package cli

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/project"
)

// pgDialectProject copies testdata/pgdialect into a fresh project on a
// fresh database (its setup.sql run there) and returns the project's
// folder and the database's URL.
func pgDialectProject(t *testing.T) (dir, dbURL string) {
	t.Helper()
	dbURL = freshDatabase(t)
	src := filepath.Join("..", "..", "..", "testdata", "pgdialect")
	runSetup(t, dbURL, filepath.Join(src, "setup.sql"))
	dir = copyTree(t, src)
	tmpl, err := os.ReadFile(filepath.Join(dir, "efmesh.yaml.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "efmesh.yaml"), []byte(strings.ReplaceAll(string(tmpl), "{{URL}}", dbURL)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, dbURL
}

func runSetup(t *testing.T, dbURL, path string) {
	t.Helper()
	sql, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(context.Background(), string(sql)); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// pgPlainQuery is m's body as plain PostgreSQL: every @ref(x) replaced by
// x, and @start/@end by bounds around all of setup.sql's data.
func pgPlainQuery(m *project.Model) string {
	var b strings.Builder
	pos := m.BodyStart
	for _, mc := range m.Macros {
		if mc.Start < m.BodyStart {
			continue
		}
		var with string
		switch mc.Kind {
		case project.MacroRef:
			with = mc.Arg
		case project.MacroStart:
			with = "TIMESTAMP '2024-01-01'"
		case project.MacroEnd:
			with = "TIMESTAMP '2100-01-01'"
		default:
			continue
		}
		b.Write(m.Source[pos:mc.Start])
		b.WriteString(with)
		pos = mc.End
	}
	b.Write(m.Source[pos:])
	return strings.TrimRight(strings.TrimSpace(b.String()), ";")
}

// TestPostgresDialectSweepMatchesPlainPostgres builds testdata/pgdialect
// (PostgreSQL's own SQL: DISTINCT ON, LATERAL set-returning functions,
// jsonb operators, arrays, FILTER, grouping sets, window frames, recursive
// and MATERIALIZED CTEs, casts with typmods, quoted identifiers, non-ASCII
// text, the kinds FULL, VIEW and INCREMENTAL_BY_TIME_RANGE) and holds
// efmesh's predictions to what apply and plain PostgreSQL do: the plan
// reports no error, the apply succeeds, a plan right after is a no-op; the
// columns the check infers, without the server (as the editor does) and
// bound by the server (as plan does), are the ones apply built, names and
// types in order; and every model's columns and rows in the dev
// environment are those of the same query run by plain PostgreSQL over
// the same tables.
func TestPostgresDialectSweepMatchesPlainPostgres(t *testing.T) {
	dir, dbURL := pgDialectProject(t)
	ctx := context.Background()
	planApplyReplan(t, dir)

	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if project.HasErrors(p.Diagnostics) {
		t.Fatalf("the sweep does not load: %v", p.Diagnostics)
	}
	if n := len(p.Models); n < 44 {
		t.Fatalf("the sweep has %d models, want at least 44", n)
	}
	checks := map[string]*analysis.Analysis{}
	for _, how := range []string{"without the server", "bound by the server"} {
		var wb analysis.Workbench
		if how == "without the server" {
			wb, err = connect.Workbench(p)
		} else {
			wb, err = connect.ServerWorkbench(ctx, p)
		}
		if err != nil {
			t.Fatal(err)
		}
		a, err := analysis.Analyze(ctx, p, wb)
		wb.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range a.Diagnostics {
			if d.Severity == project.SeverityError {
				t.Errorf("the check %s: %s", how, d)
			}
		}
		checks[how] = a
	}
	hows := make([]string, 0, len(checks))
	for how := range checks {
		hows = append(hows, how)
	}
	sort.Strings(hows)

	// Plain PostgreSQL: the same tables, the same queries, parents first.
	plainURL := freshDatabase(t)
	runSetup(t, plainURL, filepath.Join(dir, "setup.sql"))
	plain, err := postgres.Open(ctx, plainURL)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	built, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	parser, err := duckdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer parser.Close()
	schemas := map[string]bool{}
	compared := 0
	for _, m := range p.Models {
		if !schemas[m.Schema] {
			schemas[m.Schema] = true
			if err := plain.Exec(ctx, "CREATE SCHEMA "+engine.QuoteIdent(m.Schema)); err != nil {
				t.Fatal(err)
			}
		}
		rel := engine.QuoteIdent(m.Schema) + "." + engine.QuoteIdent(m.Table)
		if m.Kind.Name == project.KindExternal {
			// A view, as efmesh reads an EXTERNAL through a projection: a
			// primary key's functional dependency does not reach through.
			if err := plain.Exec(ctx, "CREATE VIEW "+rel+" AS SELECT * FROM "+m.Kind.Table); err != nil {
				t.Fatal(err)
			}
			continue
		}
		q := pgPlainQuery(m)
		stmt := "CREATE TABLE " + rel + " AS " + q
		if m.Kind.Name == project.KindView {
			stmt = "CREATE VIEW " + rel + " AS " + q
		}
		if err := plain.Exec(ctx, stmt); err != nil {
			t.Errorf("%s in plain PostgreSQL: %v", m.File, err)
			continue
		}
		want, err := plain.Query(ctx, "SELECT * FROM "+rel)
		if err != nil {
			t.Errorf("%s: plain PostgreSQL: %v", m.File, err)
			continue
		}
		got, err := built.Query(ctx, "SELECT * FROM "+engine.QuoteIdent("dev__"+m.Schema)+"."+engine.QuoteIdent(m.Table))
		if err != nil {
			t.Errorf("%s: dev: %v", m.File, err)
			continue
		}
		if msg := sameColumns(got.Columns, want.Columns); msg != "" {
			t.Errorf("%s: efmesh and plain PostgreSQL name or type the columns differently: %s", m.File, msg)
		}
		for _, how := range hows {
			if info := checks[how].Models[m.Name]; info == nil {
				t.Errorf("%s: the check %s has no model", m.File, how)
			} else if msg := sameColumns(info.Inferred, got.Columns); msg != "" {
				t.Errorf("%s: the check %s predicts other columns than apply built: %s", m.File, how, msg)
			}
		}
		ordered := strings.Contains(strings.ToUpper(q), "FETCH FIRST")
		if msg := sameRows(got.Values, want.Values, ordered); msg != "" {
			t.Errorf("%s: efmesh and plain PostgreSQL differ: %s", m.File, msg)
		}
		if len(want.Values) == 0 {
			t.Errorf("%s: no rows: a sweep model should prove something", m.File)
		}
		compared++
	}
	t.Logf("%d models compared with plain PostgreSQL", compared)
}
