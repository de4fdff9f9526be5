package duckdb

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/efmesh/efmesh/engine"
)

// verifyBatch is how many relations one verifying query reads: one round
// trip for many small tables, and a query DuckDB plans quickly.
const verifyBatch = 64

// Verify makes sure the relations rels can be read, so that damage to the
// file (random bytes in the middle of it: a failing disk, a stray writer)
// is found before anything is built on it. A catalog query, a count(*)
// (answered from the row groups' metadata) or a LIMIT 1 never read the
// blocks in the middle of a table, which is where such damage hides.
//
// First the file's blocks are checked against their checksums as DuckDB
// wrote them (checkBlocks): a sequential read of the file, about a tenth
// of a second for half a gigabyte, much cheaper than reading 2,000 tables
// through the engine (each a block of its own to load). When every block
// holds, so do rels. Otherwise — or when the file cannot be checked that
// way (in memory, a layout this code does not know) — DuckDB reads every
// column of every row of each relation, by batches of verifyBatch in one
// query each (a hash of each row folded with bit_xor, so the optimizer can
// drop no column), checking each block it loads; when a batch fails, its
// relations are read one by one to name the damaged one. A damaged block
// that none of rels uses (another environment's table, a freed block) is
// not their problem: Verify returns nil.
func (d *DB) Verify(ctx context.Context, rels []engine.Relation) error {
	if len(rels) == 0 {
		return nil
	}
	if ok, err := d.checkBlocks(ctx); err != nil || ok {
		return err
	}
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

// fileHeaders is the size of the headers before a DuckDB file's first
// block: the main header and the two database headers, 4 KiB each.
const fileHeaders = 3 * 4096

// checkBlocks reads the database file block by block and checks each
// block's checksum (its first 8 bytes, little-endian) against the rest of
// it, as DuckDB computes it (blockChecksum). ok is true when every block
// holds; false when one does not, or when the file cannot be checked so
// (in memory, a block size DuckDB does not report; a layout this code does
// not know fails the first checksum): the caller then lets DuckDB read the
// relations, so a wrong guess here costs time, never a false alarm. What
// is still in the WAL is DuckDB's to check when it replays it.
func (d *DB) checkBlocks(ctx context.Context) (ok bool, err error) {
	if d.path == "" || d.path == ":memory:" {
		return false, nil
	}
	r, err := d.Query(ctx, "SELECT block_size FROM pragma_database_size() WHERE database_name = current_database()")
	if err != nil {
		return false, err
	}
	if len(r.Values) != 1 {
		return false, nil
	}
	size, _ := r.Values[0][0].(int64)
	if size <= 8 || size%8 != 0 {
		return false, nil
	}
	f, err := os.Open(d.path)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	buf := make([]byte, size)
	for off := int64(fileHeaders); ; off += size {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if _, err := f.ReadAt(buf, off); err == io.EOF {
			return true, nil
		} else if err != nil {
			return false, nil
		}
		if binary.LittleEndian.Uint64(buf) != blockChecksum(buf[8:]) {
			return false, nil
		}
	}
}

// blockChecksum is DuckDB's checksum of a block's contents (after its
// 8-byte checksum): each little-endian 64-bit word multiplied by a
// constant, folded with xor over a seed. Block contents are a multiple of
// 8 bytes long.
func blockChecksum(b []byte) uint64 {
	sum := uint64(5381)
	for i := 0; i+8 <= len(b); i += 8 {
		sum ^= binary.LittleEndian.Uint64(b[i:]) * 0xbf58476d1ce4e5b9
	}
	return sum
}
