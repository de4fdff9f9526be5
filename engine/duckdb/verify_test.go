package duckdb

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// damage writes 64 KiB of random bytes into the file at path, inside the
// block of the last column of table's last row group (a DuckDB file is three 4 KiB headers, then
// blocks), as a failing disk would.
func damage(t *testing.T, path, table string) {
	t.Helper()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.Query(context.Background(), "SELECT block_id, (SELECT block_size FROM pragma_database_size()) FROM pragma_storage_info('"+table+"') WHERE block_id >= 0 ORDER BY row_group_id DESC, column_id DESC LIMIT 1")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	block, ok1 := r.Values[0][0].(int64)
	size, ok2 := r.Values[0][1].(int64)
	if !ok1 || !ok2 {
		t.Fatalf("no storage block for %s: %v", table, r.Values)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := make([]byte, 64<<10)
	g := rand.New(rand.NewPCG(8, 7))
	for i := range junk {
		junk[i] = byte(g.Uint32())
	}
	if _, err := f.WriteAt(junk, 3*4096+block*size+4096); err != nil {
		t.Fatal(err)
	}
}

// Damage in the middle of a table escapes the catalog, count(*) and a
// SELECT 1 … LIMIT 1; Verify finds it (the file's checksums fail, then
// DuckDB reads the tables whole) and names the table among healthy tables
// read in the same batch; a healthy file verifies by its checksums alone.
func TestVerifyFindsADamagedTable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wh.duckdb")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var rels []engine.Relation
	for _, n := range []string{"a", "b", "c"} {
		if err := db.Exec(ctx, "CREATE TABLE "+n+" AS SELECT range AS id, md5(range::VARCHAR) AS s, range % 7 = 0 AS f FROM range(200000)"); err != nil {
			t.Fatal(err)
		}
		rels = append(rels, engine.Relation{Schema: "main", Name: n})
	}
	if err := db.Verify(ctx, rels); err != nil {
		t.Fatalf("healthy file: %v", err)
	}
	if err := db.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.checkBlocks(ctx); !ok || err != nil {
		t.Fatalf("checkBlocks of a healthy file = %v, %v: the checksum is not DuckDB's", ok, err)
	}
	db.Close()
	damage(t, path, "b")

	db, err = OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"SELECT count(*) FROM b", "SELECT 1 FROM b LIMIT 1", "SELECT table_name FROM information_schema.tables"} {
		if _, err := db.Query(ctx, q); err != nil {
			t.Fatalf("%s: %v (the damage must escape the cheap reads for this test to mean anything)", q, err)
		}
	}
	if ok, err := db.checkBlocks(ctx); ok || err != nil {
		t.Fatalf("checkBlocks of a damaged file = %v, %v, want false", ok, err)
	}
	err = db.Verify(ctx, rels)
	var ce *engine.CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("Verify = %v, want a *engine.CorruptError", err)
	}
	if ce.Relation != (engine.Relation{Schema: "main", Name: "b"}) || ce.Database != path {
		t.Errorf("CorruptError names %q in %q, want main.b in %q", ce.Relation, ce.Database, path)
	}
	if err := db.Verify(ctx, []engine.Relation{rels[0], rels[2]}); err != nil {
		t.Errorf("the healthy tables of a damaged file: %v", err)
	}
	// Any query that meets the damage reports it typed, not as a plain
	// IO error.
	if _, err := db.Query(ctx, "SELECT max(s) FROM b"); !errors.As(err, &ce) {
		t.Errorf("a query of the damaged table = %v, want a *engine.CorruptError", err)
	}
}
