package postgres

import (
	"context"
	"fmt"

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
