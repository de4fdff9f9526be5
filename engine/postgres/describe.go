package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/engine"
)

// Describe returns the output columns of query without running it: the
// server parses, binds and plans query as the unnamed prepared statement
// and sends its row description; the fields' type OIDs and modifiers become
// format_type names (see convert.go), so a column read straight from a
// table keeps its modifier ("numeric(10,2)", "character varying(20)").
//
// A prepared statement rather than a temporary view: it writes nothing to
// the catalog, accepts what a view would refuse (two output columns with
// one name), and reports errors with positions relative to query itself,
// since nothing is wrapped around it. query must be one statement; a $n
// parameter must get its type from its context (`ts >= $1`), else the
// server reports that it could not determine the parameter's type. A
// statement that returns no rows describes as no columns.
func (d *DB) Describe(ctx context.Context, query string) ([]engine.Column, error) {
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	defer c.Release()
	desc, err := c.Conn().PgConn().Prepare(ctx, "", query, nil)
	if err != nil {
		return nil, d.convertError(err, query)
	}
	return d.columns(ctx, c.Conn(), desc.Fields)
}

// Relations lists the tables, views, materialized views, partitioned and
// foreign tables of the schemas among schemas, with the columns of those
// among withColumns, in one catalog query. The relations asked for are
// one array the server hashes (columnsWanted), never one condition each:
// the query's cost is linear in the catalog however many are asked for,
// and only their columns cross the wire. engine.RelationsOf then keeps
// exactly those asked for, without case as Go lowers names.
//
// A view's Definition names the relations its query reads (quoted, each
// once), from the catalog's dependencies: what a view reads is known
// without deparsing it (pg_get_viewdef costs the server ~40 µs a view).
func (d *DB) Relations(ctx context.Context, schemas []string, withColumns []engine.Relation) ([]engine.Listed, error) {
	if len(schemas) == 0 {
		return nil, nil
	}
	in := engine.StringList(schemas)
	q := `SELECT n.nspname, c.relname, c.relkind = 'v', a.attname, format_type(a.atttypid, a.atttypmod), v.reads
		FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
			AND ` + columnsWanted("n.nspname", "c.relname", withColumns) + `
		LEFT JOIN (SELECT r.ev_class, string_agg(DISTINCT quote_ident(dn.nspname) || '.' || quote_ident(dc.relname), ' ') AS reads
			FROM pg_catalog.pg_rewrite r
			JOIN pg_catalog.pg_class vc ON vc.oid = r.ev_class AND vc.relkind = 'v'
			JOIN pg_catalog.pg_namespace vn ON vn.oid = vc.relnamespace AND vn.nspname IN (` + in + `)
			JOIN pg_catalog.pg_depend dp ON dp.classid = 'pg_catalog.pg_rewrite'::regclass AND dp.objid = r.oid
				AND dp.refclassid = 'pg_catalog.pg_class'::regclass AND dp.refobjid <> r.ev_class
			JOIN pg_catalog.pg_class dc ON dc.oid = dp.refobjid
			JOIN pg_catalog.pg_namespace dn ON dn.oid = dc.relnamespace
			GROUP BY r.ev_class) v ON v.ev_class = c.oid
		WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname IN (` + in + `)
		ORDER BY n.nspname, c.relname, a.attnum`
	rows, err := d.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("postgres: list relations: %w", err)
	}
	return engine.RelationsOf(rows, withColumns), nil
}

// columnsWanted is the condition, over the SQL expressions schema and
// name, that the relation may be one of rels (without case), with the
// names of rels in one array the server hashes (an IN over a subquery),
// not one condition each. The server's lower() depends on the database's
// locale (a Turkish one lowers I to dotless ı), so names are folded
// there over ASCII letters alone, which is exact for an ASCII name; a
// name with other characters always passes, and engine.RelationsOf
// decides for it as Go lowers it. FALSE when rels is empty.
func columnsWanted(schema, name string, rels []engine.Relation) string {
	if len(rels) == 0 {
		return "FALSE"
	}
	schemas := make([]string, len(rels))
	names := make([]string, len(rels))
	for i, r := range rels {
		schemas[i], names[i] = strings.ToLower(r.Schema), strings.ToLower(r.Name)
	}
	fold := func(expr string) string {
		return "translate(" + expr + ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
	}
	return "(octet_length(" + schema + ") <> char_length(" + schema + ") OR octet_length(" + name + ") <> char_length(" + name + ")" +
		" OR (" + fold(schema) + ", " + fold(name) + ") IN (SELECT * FROM unnest(ARRAY[" + engine.StringList(schemas) + "]::text[], ARRAY[" +
		engine.StringList(names) + "]::text[])))"
}
