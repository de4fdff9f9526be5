package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
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
	q, _ := pgPlainQueryAt(m)
	return q
}

// pgPlainQueryAt is pgPlainQuery with the map from a byte offset of the
// query back to the offset of the model's file it comes from.
func pgPlainQueryAt(m *project.Model) (string, func(int) int) {
	var b strings.Builder
	type seg struct{ out, src int } // the query from out on is the file from src on
	var segs []seg
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
		segs = append(segs, seg{b.Len(), pos})
		b.Write(m.Source[pos:mc.Start])
		segs = append(segs, seg{b.Len(), mc.Start})
		b.WriteString(with)
		pos = mc.End
	}
	segs = append(segs, seg{b.Len(), pos})
	b.Write(m.Source[pos:])
	full := b.String()
	lead := len(full) - len(strings.TrimLeft(full, " \t\r\n"))
	q := strings.TrimRight(strings.TrimSpace(full), ";")
	return q, func(off int) int {
		off += lead
		at := segs[0]
		for _, sg := range segs {
			if sg.out <= off {
				at = sg
			}
		}
		return at.src + off - at.out
	}
}

// pgPlainDatabase is a fresh database holding setup.sql's tables and every
// model of p but those in leaveOut's schema, made by plain PostgreSQL
// (parents first): EXTERNAL models as views of their tables, as efmesh
// reads them through a projection (a primary key's functional dependency
// does not reach through), VIEW models as views, the rest as tables.
func pgPlainDatabase(t *testing.T, p *project.Project, leaveOut string) *postgres.DB {
	t.Helper()
	ctx := context.Background()
	plainURL := freshDatabase(t)
	runSetup(t, plainURL, filepath.Join(p.Root, "setup.sql"))
	plain, err := postgres.Open(ctx, plainURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })
	schemas := map[string]bool{}
	for _, m := range p.Models {
		if m.Schema == leaveOut {
			continue
		}
		if !schemas[m.Schema] {
			schemas[m.Schema] = true
			if err := plain.Exec(ctx, "CREATE SCHEMA "+engine.QuoteIdent(m.Schema)); err != nil {
				t.Fatal(err)
			}
		}
		rel := engine.QuoteIdent(m.Schema) + "." + engine.QuoteIdent(m.Table)
		var stmt string
		switch m.Kind.Name {
		case project.KindExternal:
			stmt = "CREATE VIEW " + rel + " AS SELECT * FROM " + m.Kind.Table
		case project.KindView:
			stmt = "CREATE VIEW " + rel + " AS " + pgDeclaredQuery(m)
		default:
			stmt = "CREATE TABLE " + rel + " AS " + pgDeclaredQuery(m)
		}
		if err := plain.Exec(ctx, stmt); err != nil {
			t.Errorf("%s in plain PostgreSQL: %v", m.File, err)
		}
	}
	return plain
}

// pgDeclaredQuery is pgPlainQuery with the model's declared columns (its
// contract) cast to their declared types, as apply builds it.
func pgDeclaredQuery(m *project.Model) string {
	q := pgPlainQuery(m)
	if m.Columns == nil {
		return q
	}
	cols := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		cols[i] = "CAST(" + engine.QuoteIdent(c.Name) + " AS " + c.Type + ") AS " + engine.QuoteIdent(c.Name)
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM (\n" + q + "\n) AS declared"
}

// pgChecks analyzes p without the server (as the editor does) and bound
// by the server (as plan does).
func pgChecks(t *testing.T, p *project.Project) map[string]*analysis.Analysis {
	t.Helper()
	ctx := context.Background()
	checks := map[string]*analysis.Analysis{}
	for _, how := range []string{"without the server", "bound by the server"} {
		var wb analysis.Workbench
		var err error
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
		checks[how] = a
	}
	return checks
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

	p := loadSweep(t, dir, 44)
	checks := pgChecks(t, p)
	for how, a := range checks {
		for _, d := range a.Diagnostics {
			if d.Severity == project.SeverityError {
				t.Errorf("the check %s: %s", how, d)
			}
		}
	}
	hows := make([]string, 0, len(checks))
	for how := range checks {
		hows = append(hows, how)
	}
	sort.Strings(hows)

	// Plain PostgreSQL: the same tables, the same queries.
	plain := pgPlainDatabase(t, p, "")
	built, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	compared := 0
	for _, m := range p.Models {
		if m.Kind.Name == project.KindExternal {
			continue
		}
		q := pgPlainQuery(m)
		rel := engine.QuoteIdent(m.Schema) + "." + engine.QuoteIdent(m.Table)
		want, err := plain.Query(ctx, "SELECT * FROM "+rel)
		if err != nil {
			t.Errorf("%s: plain PostgreSQL: %v", m.File, err)
			continue
		}
		yields, err := plain.Query(ctx, q) // the body's own columns, before a contract's casts
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
			info := checks[how].Models[m.Name]
			if info == nil {
				t.Errorf("%s: the check %s has no model", m.File, how)
				continue
			}
			if msg := sameColumns(info.Inferred, yields.Columns); msg != "" {
				t.Errorf("%s: the check %s infers other columns than the body yields: %s", m.File, how, msg)
			}
			// What children bind against: the contract, spelled as the
			// engine spells a column declared with it, is what apply built.
			spelled, err := postgres.Parser{}.Bind("SELECT * FROM x", map[string][]engine.Column{"x": info.Columns})
			if err != nil {
				t.Fatal(err)
			}
			if msg := sameColumns(spelled, got.Columns); msg != "" {
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

	// Column lineage through Postgres' own constructs: a function's alias
	// read as a whole row, a whole-row reference, quoted names, a comma
	// join qualified by table names, a recursive CTE, ROWS FROM.
	for col, want := range map[string]string{
		"core.order_items.sku":      "raw.orders.payload.items",
		"core.whole_rows.paid_text": "core.status_counts.paid",
		"core.quoted_child.doppelt": "raw.customers.credit",
		"core.comma.kind":           "raw.events.kind",
		"core.category_tree.path":   "raw.categories.label",
		"core.rows_from.tag":        "raw.orders.tags",
		"core.record_sets.sku":      "raw.orders.payload.items",
		"mart.kind_mix.revenue":     "raw.orders.amount",
	} {
		if out := mustRun(t, dir, "lineage", col); !strings.Contains(out, want) {
			t.Errorf("lineage of %s misses %s:\n%s", col, want, out)
		}
	}
}

// pgMissedWithoutServer are the rejected queries the check without a
// server does not see (plan, which binds with the server, does), with why.
var pgMissedWithoutServer = map[string]string{
	// known: which argument types a function takes is the server's
	// catalog (pg_proc); without it the binder resolves no overloads.
	"bad.func_args": "function signatures",
}

// TestPostgresDialectRejectedBeforeApply: every query of
// testdata/pgdialect/rejected is one PostgreSQL refuses (an unknown column
// through @ref, text + integer, an ungrouped column, a set-returning or
// window function where none is allowed, an ambiguous column, types a
// UNION or CASE cannot match, …). Added to the sweep as models, each is
// reported as an error before apply — by plan, and by the check with and
// without the server — at the place PostgreSQL itself points to in the
// same query run plainly; and the good models stay free of errors.
func TestPostgresDialectRejectedBeforeApply(t *testing.T) {
	dir, _ := pgDialectProject(t)
	ctx := context.Background()
	rejected, err := filepath.Glob(filepath.Join(dir, "rejected", "*.sql"))
	if err != nil || len(rejected) < 12 {
		t.Fatalf("%d rejected queries, want at least 12 (%v)", len(rejected), err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "models", "bad"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range rejected {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "models", "bad", filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	plain := pgPlainDatabase(t, p, "bad")
	checks := pgChecks(t, p)
	hows := []string{"bound by the server", "without the server"}

	code, _, errs := run(t, dir, "plan", "dev")
	if code != 1 {
		t.Errorf("plan: exit %d, want 1", code)
	}
	for _, m := range p.Models {
		file := filepath.ToSlash(m.File)
		if m.Schema != "bad" {
			if strings.Contains(errs, file+":") {
				t.Errorf("plan reports an error in a good model:\n%s", errs)
			}
			for _, how := range hows {
				for _, d := range checks[how].Diagnostics {
					if d.File == m.File && d.Severity == project.SeverityError {
						t.Errorf("the check %s: %s", how, d)
					}
				}
			}
			continue
		}
		q, back := pgPlainQueryAt(m)
		// What apply does with it: a table (or a view) of what it yields.
		probe := fmt.Sprintf("CREATE TEMPORARY TABLE probe_%d AS ", len(m.Name))
		if m.Kind.Name == project.KindView {
			probe = fmt.Sprintf("CREATE TEMPORARY VIEW probe_%d AS ", len(m.Name))
		}
		perr := plain.Exec(ctx, probe+q+"\nWITH NO DATA")
		if m.Kind.Name == project.KindView {
			perr = plain.Exec(ctx, probe+q)
		}
		var se *engine.SQLError
		if !errors.As(perr, &se) {
			t.Errorf("%s: plain PostgreSQL builds it: %v", m.File, perr)
			continue
		}
		want := -1 // where PostgreSQL points in the file; -1 when it does not
		if se.Position >= len(probe) {
			want = back(se.Position - len(probe))
		}
		// PostgreSQL points at a qualified reference (o.shipped_at) from
		// its qualifier; efmesh at the part that is wrong: either is
		// the place.
		places := map[int]bool{want: true}
		if want >= 0 {
			places[lastPartFrom(m.Source, want)] = true
		}
		var wantAt []string
		for off := range places {
			if off < 0 {
				wantAt = append(wantAt, "anywhere")
				continue
			}
			pos := project.PosAt(m.Source, off)
			wantAt = append(wantAt, fmt.Sprintf("%d:%d", pos.Line, pos.Column))
		}
		sort.Strings(wantAt)
		inPlan := false
		for _, at := range wantAt {
			inPlan = inPlan || strings.Contains(errs, filepath.FromSlash(file)+":"+at+": error") ||
				at == "anywhere" && strings.Contains(errs, filepath.FromSlash(file)+":")
		}
		if !inPlan {
			t.Errorf("%s: plan does not report PostgreSQL's error %q at %v:\n%s", m.File, se.Message, wantAt, errs)
		}
		for _, how := range hows {
			var at []string
			found := false
			for _, d := range checks[how].Diagnostics {
				if d.File != m.File || d.Severity != project.SeverityError {
					continue
				}
				at = append(at, d.String())
				found = found || want < 0 || places[d.Range.Start.Offset]
			}
			if _, missed := pgMissedWithoutServer[m.Name]; missed && how == "without the server" {
				if found {
					t.Errorf("%s: the check without the server reports it now: take it out of pgMissedWithoutServer", m.File)
				}
				continue
			}
			if !found {
				t.Errorf("%s: the check %s does not report PostgreSQL's error %q at %v; it reports %v", m.File, how, se.Message, wantAt, at)
			}
		}
	}
}

// lastPartFrom is the offset of the last part of the dotted name at off
// of src (o.shipped_at → shipped_at); off itself when there is no dot.
func lastPartFrom(src []byte, off int) int {
	last := off
	quoted := false
	for i := off; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '.':
			last = i + 1
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		default:
			return last
		}
	}
	return last
}
