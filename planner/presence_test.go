package planner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/state/sqlite"
)

// countingCatalog is the real DuckDB warehouse, counting its catalog
// listings.
type countingCatalog struct {
	*duckdb.DB
	calls       int
	schemas     []string
	withColumns []engine.Relation
}

func (c *countingCatalog) Relations(ctx context.Context, schemas []string, withColumns []engine.Relation) ([]engine.Listed, error) {
	c.calls++
	c.schemas = schemas
	c.withColumns = withColumns
	return c.DB.Relations(ctx, schemas, withColumns)
}

// TestPresenceOneCatalogQuery: however many models, plan and status ask
// the warehouse's catalog once.
func TestPresenceOneCatalogQuery(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"seeds/s.csv":  "id\n1\n2\n",
		"models/s.sql": `MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER));`,
	}
	for i := range 12 {
		files[fmt.Sprintf("models/m%d.sql", i)] = fmt.Sprintf("MODEL (name m%d.t%d, kind FULL);\nSELECT id + %d AS id FROM @ref(raw.s)\n", i%3, i, i)
	}
	a := analyzeFiles(t, files)
	mustClean(t, a)
	db, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wh := &countingCatalog{DB: db}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	p, err := MakePlan(ctx, a, st, "dev", WithWarehouse(wh))
	if err != nil {
		t.Fatal(err)
	}
	if wh.calls != 0 { // nothing built yet: nothing to look for
		t.Fatalf("catalog queries of a first plan: %d", wh.calls)
	}
	if _, err := Apply(ctx, p, wh, st, ApplyOptions{Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, `DROP TABLE `+db.Dialect().QuoteRelation(analysis.PhysicalRelation(db.Dialect(), a.Models["m1.t4"].Model, a.Models["m1.t4"].Fingerprint))); err != nil {
		t.Fatal(err)
	}
	p, err = MakePlan(ctx, a, st, "dev", WithWarehouse(wh))
	if err != nil {
		t.Fatal(err)
	}
	if wh.calls != 1 || strings.Join(wh.schemas, " ") != "_efmesh dev__m0 dev__m1 dev__m2 dev__raw" {
		t.Fatalf("plan: %d catalog queries over %v", wh.calls, wh.schemas)
	}
	var missing []string
	for _, m := range p.Models {
		if m.Missing {
			missing = append(missing, m.Name)
		}
	}
	if fmt.Sprint(missing) != "[m1.t4]" {
		t.Fatalf("missing %v", missing)
	}
	s, err := GetStatus(ctx, st, a.Project.Config, "dev", now, 5, StatusWarehouse(wh, a.Project.Root))
	if err != nil {
		t.Fatal(err)
	}
	if wh.calls != 2 || len(s.Missing) != 1 || s.Missing[0].Model != "m1.t4" || s.Healthy() {
		t.Fatalf("status: %d catalog queries, missing %+v", wh.calls, s.Missing)
	}
}

// TestCatalogKey: a stored name is looked up as the engine's catalog lists
// it: Postgres cuts identifiers over 63 bytes (on a character boundary),
// DuckDB does not; case does not matter.
func TestCatalogKey(t *testing.T) {
	long := "raw__" + strings.Repeat("a", 60) + "__1a2b3c4d" // 75 bytes, stored before efmesh shortened names
	accented := strings.Repeat("é", 40)                      // 80 bytes
	for _, c := range []struct {
		d    engine.Dialect
		in   engine.Relation
		want engine.Relation
	}{
		{postgres.Dialect{}, engine.Relation{Schema: "_efmesh", Name: long}, engine.Relation{Schema: "_efmesh", Name: long[:63]}},
		{postgres.Dialect{}, engine.Relation{Schema: "_efmesh", Name: accented}, engine.Relation{Schema: "_efmesh", Name: accented[:62]}},
		{postgres.Dialect{}, engine.Relation{Schema: "Dev__Raw", Name: "Orders"}, engine.Relation{Schema: "dev__raw", Name: "orders"}},
		{duckdb.Dialect{}, engine.Relation{Schema: "_efmesh", Name: long}, engine.Relation{Schema: "_efmesh", Name: long}},
		{nil, engine.Relation{Schema: "_efmesh", Name: long}, engine.Relation{Schema: "_efmesh", Name: long}},
	} {
		if got := catalogKey(c.d, c.in); got != c.want {
			t.Errorf("catalogKey(%T, %s) = %s, want %s", c.d, c.in, got, c.want)
		}
	}
}

// TestPresenceChecksExternalTablesInTheSameQuery: the tables EXTERNAL
// models read are looked for, with their columns, in the warehouse
// check's one catalog query; a missing one is an error at its name, a
// declared column it lacks an error at the column; a table of another
// catalog (a three-part name, an attached database) is not looked for.
func TestPresenceChecksExternalTablesInTheSameQuery(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, map[string]string{
		"efmesh.yaml":      "name: t\nstart: 2026-01-01\nattach: {apps: {type: sqlite, path: a.db}}\n",
		"models/src.sql":   "MODEL (name raw.src, kind EXTERNAL (table src.events), columns (id INT));\n",
		"models/lake.sql":  "MODEL (name raw.lake, kind EXTERNAL (table other.main.events), columns (id INT));\n",
		"models/app.sql":   "MODEL (name raw.app, kind EXTERNAL (table apps.events), columns (id INT));\n",
		"models/sys.sql":   "MODEL (name raw.sys, kind EXTERNAL (table information_schema.tables), columns (table_name TEXT));\n",
		"models/count.sql": "MODEL (name m.n, kind VIEW);\nSELECT count(*) AS n FROM @ref(raw.src)\n",
	})
	mustClean(t, a)
	db, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wh := &countingCatalog{DB: db}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = MakePlan(ctx, a, st, "dev", WithWarehouse(wh))
	var pe *ProblemsError
	if !errors.As(err, &pe) || len(pe.Diagnostics) != 1 ||
		pe.Diagnostics[0].String() != "models/src.sql:1:43: error: EXTERNAL raw.src reads table src.events, which the warehouse does not have" {
		t.Fatalf("plan over a missing source: %v %+v", err, pe)
	}
	if wh.calls != 1 || strings.Join(wh.schemas, " ") != "src" {
		t.Fatalf("plan: %d catalog queries over %v", wh.calls, wh.schemas)
	}
	// A warehouse that does not exist has no table either.
	if _, err := MakePlan(ctx, a, st, "dev", WithWarehouse(nil)); !errors.As(err, &pe) || len(pe.Diagnostics) != 1 {
		t.Fatalf("plan without a warehouse: %v", err)
	}
	if err := db.Exec(ctx, "CREATE SCHEMA src; CREATE TABLE src.events (id INT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := MakePlan(ctx, a, st, "dev", WithWarehouse(wh)); err != nil {
		t.Fatal(err)
	}
	if wh.calls != 2 || fmt.Sprint(wh.withColumns) != "[src.events]" {
		t.Fatalf("catalog queries: %d, columns of %v", wh.calls, wh.withColumns)
	}
	// The same query lists the source's columns: one the model declares
	// that the table lacks is an error at its declaration; its type does
	// not matter (consumers cast it to the declared type).
	for i, c := range []struct{ table, want string }{
		{"CREATE TABLE src.events (ID BIGINT, extra TEXT)", ""},
		{"CREATE TABLE src.events (other INT)", "models/src.sql:1:65: error: EXTERNAL raw.src declares column id, which table src.events does not have (it has other)"},
		{"CREATE TABLE src.events (id TEXT)", ""},
	} {
		if err := db.Exec(ctx, "DROP TABLE src.events; "+c.table); err != nil {
			t.Fatal(err)
		}
		_, err := MakePlan(ctx, a, st, "dev", WithWarehouse(wh))
		if c.want == "" && err != nil {
			t.Fatalf("%s: %v", c.table, err)
		}
		if c.want != "" && (!errors.As(err, &pe) || len(pe.Diagnostics) != 1 || pe.Diagnostics[0].String() != c.want) {
			t.Fatalf("%s: %v %v", c.table, err, pe.Diagnostics)
		}
		if wh.calls != 3+i {
			t.Fatalf("%s: catalog queries: %d", c.table, wh.calls)
		}
	}
}

// TestViewDefinitionNamesItsFiles: the catalog lists a view's definition
// once, and a view over files names their absolute path as the
// expectation does — in a folder whose name holds a quote, too (the SQL
// literal doubles it): a view made there is not taken for one made
// elsewhere.
func TestViewDefinitionNamesItsFiles(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "o'brien")
	csv := filepath.Join(dir, "data", "src.csv")
	if err := os.MkdirAll(filepath.Dir(csv), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(csv, []byte("id,label\n1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lit := "'" + strings.ReplaceAll(csv, "'", "''") + "'"
	if err := db.Exec(ctx, "CREATE SCHEMA s; CREATE VIEW s.v AS SELECT * FROM read_csv("+lit+", columns = {'id': 'INTEGER', 'label': 'VARCHAR'}); "+
		"CREATE TABLE s.t (a INTEGER, b INTEGER)"); err != nil {
		t.Fatal(err)
	}
	listed, err := db.Relations(ctx, []string{"s"}, []engine.Relation{{Schema: "s", Name: "v"}, {Schema: "s", Name: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{}
	for _, l := range listed {
		defs[l.Name] = l.Definition
		if len(l.Columns) != 2 {
			t.Fatalf("%s: columns %v", l.Name, l.Columns)
		}
	}
	if defs["t"] != "" || !strings.Contains(defs["v"], "CREATE VIEW") {
		t.Fatalf("definitions: %q", defs)
	}
	if !readsAll(defs["v"], []string{csv}) {
		t.Fatalf("the definition does not read %s:\n%s", csv, defs["v"])
	}
	if readsAll(defs["v"], []string{filepath.Join(t.TempDir(), "data", "src.csv")}) {
		t.Fatalf("the definition reads another folder:\n%s", defs["v"])
	}
	// A relation whose name holds a double quote is named quoted, the
	// quote doubled, as an environment's view over it reads it.
	if err := db.Exec(ctx, `CREATE TABLE s."q""t" (a INTEGER); CREATE VIEW s.w AS SELECT * FROM s."q""t"`); err != nil {
		t.Fatal(err)
	}
	listed, err = db.Relations(ctx, []string{"s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range listed {
		if l.Name == "w" && !readsAll(l.Definition, []string{`q"t`}) {
			t.Fatalf("the definition does not read q\"t:\n%s", l.Definition)
		}
	}
}

func TestLiteralPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"/p/data/src.csv":        "/p/data/src.csv",
		"/p/data/events/*.csv":   "/p/data/events/",
		"/p/data/**/x_?.parquet": "/p/data/",
		"/p/d[ab]/x.csv":         "/p/",
	} {
		if got := literalPrefix(in); got != want {
			t.Errorf("literalPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestViewFilesProblem: a CSV glob is rendered as the files it matched;
// a file added or removed since is a problem, a glob named whole is not.
func TestViewFilesProblem(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "it's")
	for _, f := range []string{"a.csv", "b.csv"} {
		testWrite(t, filepath.Join(dir, f), "id\n1\n")
	}
	glob := filepath.Join(dir, "*.csv")
	lit := func(p string) string { return "'" + strings.ReplaceAll(p, "'", "''") + "'" }
	def := "CREATE VIEW v AS SELECT * FROM read_csv([" + lit(filepath.Join(dir, "a.csv")) + ", " + lit(filepath.Join(dir, "b.csv")) + "])"
	if got := namedFiles(def, literalPrefix(glob)); len(got) != 2 || got[1] != filepath.Join(dir, "b.csv") {
		t.Fatalf("namedFiles: %q", got)
	}
	if p := viewFilesProblem(def, []string{glob}); p != "" {
		t.Fatalf("the files as built: %s", p)
	}
	if p := viewFilesProblem("CREATE VIEW v AS SELECT * FROM read_parquet("+lit(glob)+")", []string{glob}); p != "" {
		t.Fatalf("a glob named whole: %s", p)
	}
	testWrite(t, filepath.Join(dir, "c.csv"), "id\n3\n")
	if p := viewFilesProblem(def, []string{glob}); !strings.Contains(p, "does not read "+filepath.Join(dir, "c.csv")) {
		t.Fatalf("a file added: %q", p)
	}
	os.Remove(filepath.Join(dir, "c.csv"))
	os.Remove(filepath.Join(dir, "b.csv"))
	if p := viewFilesProblem(def, []string{glob}); !strings.Contains(p, "reads "+filepath.Join(dir, "b.csv")+", which is gone") {
		t.Fatalf("a file removed: %q", p)
	}
}

func testWrite(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
