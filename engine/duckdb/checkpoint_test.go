package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// bufferedMB is what DuckDB's buffer pool holds of table blocks, in MB.
func bufferedMB(t *testing.T, db *DB) int64 {
	t.Helper()
	r, err := db.Query(context.Background(), "SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT >> 20 FROM duckdb_memory() WHERE tag = 'BASE_TABLE'")
	if err != nil {
		t.Fatal(err)
	}
	return r.Values[0][0].(int64)
}

// A checkpoint empties the buffer pool's cache of the blocks written
// before it (DuckDB keeps them up to the memory limit otherwise) and
// leaves the memory limit exactly as it was set.
func TestCheckpointEmptiesTheBufferPool(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "wh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SetMemoryLimit(ctx, "1000MB"); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		q := fmt.Sprintf("CREATE TABLE t%d AS SELECT range AS id, md5(range::VARCHAR) AS s FROM range(100000)", i)
		if err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	before := bufferedMB(t, db)
	if before < 32 {
		t.Fatalf("the pool holds %d MB of what was written: too little to see a trim", before)
	}
	if err := db.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if after := bufferedMB(t, db); after > 8 {
		t.Errorf("after Checkpoint the pool holds %d MB (%d before), want at most 8", after, before)
	}
	r, err := db.Query(ctx, "SELECT current_setting('memory_limit')")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Values[0][0]; got != "953.6 MiB" {
		t.Errorf("memory_limit after Checkpoint = %v, want 953.6 MiB (1000MB)", got)
	}
	// The tables are still there, read back from the file.
	r, err = db.Query(ctx, "SELECT count(*) FROM t39")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Values[0][0]; got != int64(100000) {
		t.Errorf("count = %v", got)
	}
}
