package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/postgres"
)

// sourcesProject is a project whose consumer reads a table EXTERNAL and a
// file EXTERNAL.
func sourcesProject(t *testing.T, files string) string {
	return writeProject(t, map[string]string{
		"efmesh.yaml":    "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"models/src.sql": "MODEL (name raw.src, kind EXTERNAL (table src.nothere), columns (id INT));\n",
		"models/ev.sql":  "MODEL (name raw.ev, kind EXTERNAL (files '" + files + "', format csv), columns (id INT));\n",
		"models/all.sql": "MODEL (name mart.all_ids, kind FULL);\nSELECT id FROM @ref(raw.ev) UNION ALL SELECT id FROM @ref(raw.src)\n",
	})
}

// TestExternalTableMissingAtPlan: an EXTERNAL table the warehouse does not
// have is a plan error at the table name (before the warehouse exists,
// and after), and apply refuses before anything runs; once the table
// exists the plan is clean.
func TestExternalTableMissingAtPlan(t *testing.T) {
	dir := sourcesProject(t, "data/*.csv")
	writeFile(t, dir, "data/a.csv", "id\n1\n")
	want := "models/src.sql:1:43: error: EXTERNAL raw.src reads table src.nothere, which the warehouse does not have"
	for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
		code, out, errs := run(t, dir, args...)
		if code != 1 || !strings.Contains(errs, want) || !strings.Contains(errs, "1 error(s)") {
			t.Fatalf("%v on a first plan: exit %d\n%s%s", args, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "efmesh.duckdb")); err == nil {
		t.Fatal("a refused apply created the warehouse")
	}
	// The warehouse exists, with another schema's table of that name.
	execWarehouse(t, dir, "CREATE SCHEMA other; CREATE TABLE other.nothere (id INT)")
	for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
		code, out, errs := run(t, dir, args...)
		if code != 1 || !strings.Contains(errs, want) {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	if got := query(t, dir, "SELECT count(*) FROM information_schema.tables WHERE table_schema LIKE 'dev__%' OR table_schema = '_efmesh'"); got != "[[0]]" {
		t.Fatalf("a refused apply built: %s", got)
	}
	execWarehouse(t, dir, "CREATE SCHEMA src; CREATE TABLE src.nothere (id INT); INSERT INTO src.nothere VALUES (2)")
	mustRun(t, dir, "plan", "dev")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT list(id ORDER BY id) FROM dev__mart.all_ids"); got != "[[[1 2]]]" {
		t.Fatalf("dev__mart.all_ids: %s", got)
	}
	// A source dropped behind efmesh's back is reported again.
	execWarehouse(t, dir, "DROP TABLE src.nothere")
	if code, out, errs := run(t, dir, "plan", "dev"); code != 1 || !strings.Contains(errs, want) {
		t.Fatalf("plan after the source was dropped: exit %d\n%s%s", code, out, errs)
	}
}

// TestExternalFilesMissingAtPlan: a file EXTERNAL whose local glob matches
// no file is a plan error at the glob; a file that appears (at any depth
// of a ** glob) makes the plan clean, with no model edited.
func TestExternalFilesMissingAtPlan(t *testing.T) {
	for _, c := range []struct{ glob, file string }{
		{"data/*.csv", "data/a.csv"},
		{"data/**/*.csv", "data/2026/01/a.csv"},
	} {
		dir := sourcesProject(t, c.glob)
		execWarehouse(t, dir, "CREATE SCHEMA src; CREATE TABLE src.nothere (id INT); INSERT INTO src.nothere VALUES (2)")
		writeFile(t, dir, "data/readme.txt", "not a csv\n")
		want := "models/ev.sql:1:43: error: EXTERNAL raw.ev reads files " + c.glob + ", but no file matches " + c.glob
		for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
			code, out, errs := run(t, dir, args...)
			if code != 1 || !strings.Contains(errs, want) || !strings.Contains(errs, "1 error(s)") {
				t.Fatalf("%s: %v: exit %d\n%s%s", c.glob, args, code, out, errs)
			}
		}
		writeFile(t, dir, c.file, "id\n1\n")
		mustRun(t, dir, "plan", "dev")
		mustRun(t, dir, "apply", "dev", "--yes")
		if got := query(t, dir, "SELECT list(id ORDER BY id) FROM dev__mart.all_ids"); got != "[[[1 2]]]" {
			t.Fatalf("%s: dev__mart.all_ids: %s", c.glob, got)
		}
	}
}

// TestSeedHeaderNamesDeclaredColumns: a seed's columns are read by
// position, so with declared columns its header must name them, in order
// (case aside): a misspelt or reordered header is one error at the seed
// file's line 1, from plan and from apply before anything runs.
func TestSeedHeaderNamesDeclaredColumns(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		{"id,nam", `seeds/people.csv:1:1: error: the header names column 2 nam, where the declared column is name (columns are read by position: the header must be id, name)`},
		{"name,id", `seeds/people.csv:1:1: error: the header names column 1 name, where the declared column is id (columns are read by position: the header must be id, name)`},
		{"id,name,age", `seeds/people.csv:1:1: error: the header names 3 columns (id, name, age), where 2 are declared (columns are read by position: the header must be id, name)`},
		{"ID,\"Name\"", ""},
		{"\ufeffid, name", ""},
	} {
		dir := writeProject(t, map[string]string{
			"efmesh.yaml":       "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
			"seeds/people.csv":  c.header + "\n1,ann\n2,bob\n",
			"models/people.sql": "MODEL (name ref.people, kind SEED (path 'seeds/people.csv'), columns (id INT, name TEXT));\n",
		})
		if c.want == "" {
			mustRun(t, dir, "apply", "dev", "--yes")
			if got := query(t, dir, "SELECT list(name ORDER BY id) FROM dev__ref.people"); got != "[[[ann bob]]]" {
				t.Fatalf("%s: %s", c.header, got)
			}
			continue
		}
		for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
			code, out, errs := run(t, dir, args...)
			if code != 1 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "\n1 error(s)") {
				t.Fatalf("%s: %v: exit %d\n%s%s", c.header, args, code, out, errs)
			}
		}
	}
}

// TestSeedEmptyFile: an empty seed file with declared columns is an error
// at its line 1, from plan and from apply before anything runs; it once
// loaded as no rows, exit 0, and emptied every model downstream.
func TestSeedEmptyFile(t *testing.T) {
	want := `seeds/people.csv:1:1: error: the seed file is empty: its first line must be a header naming the declared columns, id, name`
	for _, content := range []string{"", "\n\n"} {
		dir := writeProject(t, map[string]string{
			"efmesh.yaml":       "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
			"seeds/people.csv":  content,
			"models/people.sql": "MODEL (name ref.people, kind SEED (path 'seeds/people.csv'), columns (id INT, name TEXT));\n",
			"models/names.sql":  "MODEL (name core.names, kind FULL);\nSELECT name FROM @ref(ref.people)\n",
		})
		for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
			code, out, errs := run(t, dir, args...)
			if code != ExitError || !strings.Contains(errs, want) || !strings.Contains(errs, "\n1 error(s)") {
				t.Fatalf("%q: %v: exit %d\n%s%s", content, args, code, out, errs)
			}
		}
		if got := warehouseObjects(t, dir); got != "<none>" {
			t.Fatalf("%q: apply touched the warehouse: %s", content, got)
		}
	}
}

// TestSeedFileInScope: the seed file a model reads is in the scope of a
// request about the model or its children: its errors stop the request.
func TestSeedFileInScope(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":       "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"seeds/people.csv":  "id,nam\n1,ann\n",
		"models/people.sql": "MODEL (name ref.people, kind SEED (path 'seeds/people.csv'), columns (id INT, name TEXT));\n",
		"models/names.sql":  "MODEL (name core.names, kind FULL);\nSELECT name FROM @ref(ref.people)\n",
		"models/other.sql":  "MODEL (name core.other, kind FULL);\nSELECT 1 AS x\n",
	})
	want := "seeds/people.csv:1:1: error: the header names column 2 nam"
	for _, args := range [][]string{{"render", "core.names"}, {"lineage", "core.names.name"}} {
		if code, out, errs := run(t, dir, args...); code != 1 || !strings.Contains(errs, want) {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	code, out, errs := run(t, dir, "render", "core.other")
	if code != 0 || !strings.Contains(errs, "warning: 1 error(s) in files this command does not read, left aside: seeds/people.csv") {
		t.Fatalf("render core.other: exit %d\n%s%s", code, out, errs)
	}
}

// TestPostgresExternalTableMissingAtPlan: on Postgres the EXTERNAL table
// is looked for in the same catalog query: missing, it is a plan error at
// its name; created, the plan is clean.
func TestPostgresExternalTableMissingAtPlan(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := pgProject(t, dbURL)
	editFile(t, dir, "models/raw/moves.sql", func(s string) string { return strings.Replace(s, "src.moves", "src.gone", 1) })
	want := "models/raw/moves.sql:1:45: error: EXTERNAL raw.moves reads table src.gone, which the warehouse does not have"
	for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
		if code, out, errs := run(t, dir, args...); code != 1 || !strings.Contains(errs, want) {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	if got := pgQuery(t, dbURL, "SELECT count(*) FROM pg_namespace WHERE nspname = '_efmesh' OR nspname LIKE 'dev\\_\\_%'"); got != "[[0]]" {
		t.Fatalf("a refused apply built: %s", got)
	}
	editFile(t, dir, "models/raw/moves.sql", func(s string) string { return strings.Replace(s, "src.gone", "src.moves", 1) })
	mustRun(t, dir, "plan", "dev")
	mustRun(t, dir, "apply", "dev", "--yes")
}

// TestExternalTableLacksDeclaredColumnAtPlan: the EXTERNAL table exists
// but lacks a column the model declares: plan and apply report it at the
// declared column (at the table name when several are lacking) from the
// catalog query that found the table, and apply builds nothing; once the
// table has the column the plan is clean and apply builds.
func TestExternalTableLacksDeclaredColumnAtPlan(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":    "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"models/ext.sql": "MODEL (name ext.tbl, kind EXTERNAL (table src.things), columns (a INTEGER, b TEXT));\n",
		"models/use.sql": "MODEL (name mart.uses, kind FULL);\nSELECT tbl.a, tbl.b FROM @ref(ext.tbl)\n",
	})
	execWarehouse(t, dir, "CREATE SCHEMA src; CREATE TABLE src.things (a INTEGER, c TEXT); INSERT INTO src.things VALUES (1, 'x')")
	refused := func(want string) {
		t.Helper()
		for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
			code, out, errs := run(t, dir, args...)
			if code != 1 || !strings.Contains(errs, want) || !strings.Contains(errs, "1 error(s)") {
				t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
			}
		}
		if got := query(t, dir, "SELECT count(*) FROM information_schema.tables WHERE table_schema LIKE 'dev__%' OR table_schema = '_efmesh'"); got != "[[0]]" {
			t.Fatalf("a refused apply built: %s", got)
		}
	}
	refused("models/ext.sql:1:76: error: EXTERNAL ext.tbl declares column b, which table src.things does not have (it has a, c)")
	restore := editFile(t, dir, "models/ext.sql", func(s string) string { return strings.Replace(s, "b TEXT", "b TEXT, d INT", 1) })
	refused("models/ext.sql:1:43: error: EXTERNAL ext.tbl declares columns b, d, which table src.things does not have (it has a, c)")
	restore()
	execWarehouse(t, dir, "ALTER TABLE src.things ADD COLUMN b TEXT; UPDATE src.things SET b = 'y'")
	mustRun(t, dir, "plan", "dev")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT a, b FROM dev__mart.uses"); got != "[[1 y]]" {
		t.Fatalf("dev__mart.uses: %s", got)
	}
}

// TestPostgresExternalTableLacksDeclaredColumnAtPlan: on Postgres the
// EXTERNAL table's columns come from the same catalog query: a declared
// column it lacks is a plan error at the column and apply builds nothing;
// once the table has it the plan is clean and apply builds.
func TestPostgresExternalTableLacksDeclaredColumnAtPlan(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := pgProject(t, dbURL)
	editFile(t, dir, "models/raw/moves.sql", func(s string) string { return strings.Replace(s, "dept TEXT,", "dept TEXT, ward TEXT,", 1) })
	pgExec := func(sql string) {
		t.Helper()
		db, err := postgres.Open(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
	want := "models/raw/moves.sql:2:51: error: EXTERNAL raw.moves declares column ward, which table src.moves does not have (it has move_id, case_id, dept, moved_at)"
	for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
		if code, out, errs := run(t, dir, args...); code != 1 || !strings.Contains(errs, want) {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	if got := pgQuery(t, dbURL, "SELECT count(*) FROM pg_namespace WHERE nspname = '_efmesh' OR nspname LIKE 'dev\\_\\_%'"); got != "[[0]]" {
		t.Fatalf("a refused apply built: %s", got)
	}
	pgExec("ALTER TABLE src.moves ADD COLUMN ward text")
	mustRun(t, dir, "plan", "dev")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := pgQuery(t, dbURL, "SELECT count(*) FROM dev__med.stays"); got != "[[36]]" {
		t.Fatalf("dev__med.stays: %s", got)
	}
}
