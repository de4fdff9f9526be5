package duckdb

import (
	"context"
	"errors"
	"strings"

	"github.com/efmesh/efmesh/engine"
)

// verifyBatch is how many relations one verifying query reads: one round
// trip for many small tables, and a query DuckDB plans quickly.
const verifyBatch = 64

// Verify reads every column of every row of each relation in rels, so that
// DuckDB checks the checksum of every block they are stored in: a catalog
// query, a count(*) (answered from the row groups' metadata) or a LIMIT 1
// never reads the blocks in the middle of a table, which is where damage
// to a file hides. The relations are read by batches of verifyBatch in one
// query each (a hash of each row, folded with bit_xor, so the optimizer
// can drop no column); when a batch fails, its relations are read one by
// one to name the damaged one.
func (d *DB) Verify(ctx context.Context, rels []engine.Relation) error {
	for len(rels) > 0 {
		n := min(len(rels), verifyBatch)
		batch := rels[:n]
		rels = rels[n:]
		_, err := d.Query(ctx, verifyQuery(batch))
		if err == nil {
			continue
		}
		var ce *engine.CorruptError
		if !errors.As(err, &ce) {
			return err
		}
		for _, r := range batch {
			if _, err := d.Query(ctx, verifyQuery([]engine.Relation{r})); err != nil {
				if errors.As(err, &ce) {
					ce.Database, ce.Relation = d.path, r
				}
				return err
			}
		}
		ce.Database = d.path // damage the batch met and no single read did
		return ce
	}
	return nil
}

// verifyQuery reads rels whole: SELECT bit_xor(h) FROM (SELECT
// bit_xor(hash(*COLUMNS(*))) AS h FROM r1 UNION ALL …).
func verifyQuery(rels []engine.Relation) string {
	var b strings.Builder
	b.WriteString("SELECT bit_xor(h) FROM (")
	for i, r := range rels {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		b.WriteString("SELECT bit_xor(hash(*COLUMNS(*))) AS h FROM ")
		b.WriteString(Dialect{}.QuoteRelation(r))
	}
	b.WriteString(")")
	return b.String()
}
