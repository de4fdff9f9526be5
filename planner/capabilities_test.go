package planner

import (
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/project"
)

// Which schemas hold an engine's own relations is the engine's to say: an
// EXTERNAL table there is not looked for in the warehouse's catalog.
func TestSourceExpectationAsksTheEngine(t *testing.T) {
	p := &project.Project{Config: project.Config{Attach: map[string]project.AttachConfig{"app": {Type: project.DefaultAttachType, Path: "app.db"}}}}
	for _, tc := range []struct {
		d     engine.Dialect
		table string
		want  bool
	}{
		{duckdb.Dialect{}, "raw.events", true},
		{duckdb.Dialect{}, "PG_CATALOG.pg_class", false},
		{duckdb.Dialect{}, "information_schema.tables", false},
		{duckdb.Dialect{}, "temp.scratch", false},
		{duckdb.Dialect{}, "system.x", false},
		{duckdb.Dialect{}, "app.users", false}, // an attached catalog
		{duckdb.Dialect{}, "db.raw.events", false},
		{postgres.Dialect{}, "pg_catalog.pg_class", false},
		{postgres.Dialect{}, "information_schema.tables", false},
		{postgres.Dialect{}, "temp.scratch", true}, // a schema like any other on PostgreSQL
		{postgres.Dialect{}, "raw.events", true},
	} {
		m := &project.Model{Name: "src.x", Kind: project.Kind{Name: project.KindExternal, Table: tc.table}}
		e, ok := sourceExpectation(tc.d, p, m)
		if ok != tc.want {
			t.Errorf("%s, %s: expected %v, want %v", tc.d.Name(), tc.table, ok, tc.want)
		}
		if ok && e.rel.String() != tc.table {
			t.Errorf("%s, %s: looks for %s", tc.d.Name(), tc.table, e.rel)
		}
	}
}

// A parquet target's view before its first interval reads no file: the
// engine says what reading parquet looks like in a view's definition.
func TestAwaitsFilesAsksTheEngine(t *testing.T) {
	lake := expectation{ledgerFP: "fp"}
	for _, tc := range []struct {
		d    engine.Dialect
		e    expectation
		def  string
		want bool
	}{
		{duckdb.Dialect{}, lake, "CREATE VIEW v AS SELECT CAST(NULL AS INTEGER) AS id WHERE false", true},
		{duckdb.Dialect{}, lake, "CREATE VIEW v AS SELECT * FROM READ_PARQUET(['/lake/x/1.parquet'])", false},
		{duckdb.Dialect{}, expectation{}, "CREATE VIEW v AS SELECT 1", false},
		{postgres.Dialect{}, lake, "SELECT 1", true},
	} {
		if got := awaitsFiles(tc.d, tc.e, tc.def); got != tc.want {
			t.Errorf("%s: awaitsFiles(%q) = %v, want %v", tc.d.Name(), tc.def, got, tc.want)
		}
	}
}
