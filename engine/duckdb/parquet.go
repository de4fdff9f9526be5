package duckdb

import (
	"context"

	"github.com/efmesh/efmesh/engine"
)

// WriteParquet writes the rows of query to one parquet file at path
// (replacing it). The caller writes to a temporary name and renames, so a
// reader never sees a partial file.
func (d *DB) WriteParquet(ctx context.Context, query, path string) error {
	return d.Exec(ctx, "COPY (\n"+query+"\n) TO "+engine.QuoteString(path)+" (FORMAT PARQUET)")
}
