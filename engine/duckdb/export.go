package duckdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/efmesh/efmesh/engine"
)

// exportAlias is the name a target database is attached under while an
// export writes into it.
const exportAlias = "_efmesh_export"

// scannerOf names the DuckDB extension that attaches a database type.
var scannerOf = map[string]string{"sqlite": "sqlite_scanner", "postgres": "postgres_scanner", "mysql": "mysql_scanner"}

// ExportTo replaces schema.table of the database at target (a file or a
// connection string) with the rows of query, attaching the database for
// the duration of the copy. typ is duckdb, sqlite, postgres or mysql; all
// but duckdb need their scanner extension, and since extensions are never
// downloaded a missing one fails at once, naming it. SQLite has no
// schemas: the table lands in its main schema.
func (d *DB) ExportTo(ctx context.Context, typ, target, schema, table, query string) error {
	if typ == "duckdb" || typ == "sqlite" {
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("duckdb: export to %s: %w", target, err)
		}
	}
	attach := "ATTACH " + engine.QuoteString(target) + " AS " + engine.QuoteIdent(exportAlias)
	if typ != "duckdb" {
		attach += " (TYPE " + typ + ")"
	}
	if err := d.Exec(ctx, attach); err != nil {
		if ext, ok := scannerOf[typ]; ok {
			return fmt.Errorf("duckdb: cannot attach the %s database %s: DuckDB's %s extension is not available here (extensions are never downloaded): %w",
				typ, target, ext, err)
		}
		return fmt.Errorf("duckdb: attach %s: %w", target, err)
	}
	defer d.Exec(context.WithoutCancel(ctx), "DETACH "+engine.QuoteIdent(exportAlias))
	rel := engine.QuoteIdent(exportAlias) + "." + engine.QuoteIdent(schema) + "." + engine.QuoteIdent(table)
	stmts := []string{
		"CREATE SCHEMA IF NOT EXISTS " + engine.QuoteIdent(exportAlias) + "." + engine.QuoteIdent(schema),
		"CREATE OR REPLACE TABLE " + rel + " AS " + query,
	}
	if typ == "sqlite" {
		stmts = []string{"CREATE OR REPLACE TABLE " + engine.QuoteIdent(exportAlias) + "." + engine.QuoteIdent(table) + " AS " + query}
	}
	return d.Tx(ctx, stmts)
}
