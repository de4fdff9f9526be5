package duckdb

import (
	"context"
	"fmt"

	"github.com/efmesh/efmesh/engine"
)

const describePrefix = "DESCRIBE "

// Describe binds query without running it and returns its output columns.
// Error positions are relative to query.
func (d *DB) Describe(ctx context.Context, query string) ([]engine.Column, error) {
	rows, err := d.db.QueryContext(ctx, describePrefix+query)
	if err != nil {
		return nil, convertError(err, len(describePrefix))
	}
	defer rows.Close()
	var cols []engine.Column
	names, err := rows.Columns()
	if err != nil {
		return nil, convertError(err, 0)
	}
	for rows.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, convertError(err, 0)
		}
		cols = append(cols, engine.Column{Name: fmt.Sprint(vals[0]), Type: fmt.Sprint(vals[1])})
	}
	if err := rows.Err(); err != nil {
		return nil, convertError(err, len(describePrefix))
	}
	return cols, nil
}
