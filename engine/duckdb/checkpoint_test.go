package duckdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
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

// procKB reads one of the kB lines of /proc/self/status.
func procKB(t *testing.T, key string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", key)
	return 0
}

// A checkpoint of many small tables does not cache the blocks it writes
// (256 KB each, whatever the table's size) on its way: the process's
// peak resident memory during the checkpoint stays near what it held
// before, where DuckDB's own cache grew by ~110 MB for 400 tables.
func TestCheckpointDoesNotCacheWhatItWrites(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the peak resident memory from /proc (Linux)")
	}
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "wh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SetMemoryLimit(ctx, "1GB"); err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		q := fmt.Sprintf("CREATE TABLE t%d AS SELECT range AS id, range %% 7 AS grp, 'x' || range AS label FROM range(1000)", i)
		if err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	debug.FreeOSMemory()
	// Writing 5 to clear_refs resets the peak (VmHWM) to the current RSS.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak resident memory: %v", err)
	}
	before := procKB(t, "VmRSS")
	if err := db.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if grew := (procKB(t, "VmHWM") - before) >> 10; grew > 80 {
		t.Errorf("the checkpoint of 400 small tables raised the resident memory by %d MB at its peak, want at most 80 (it cached ~112 MB before the cap)", grew)
	}
	r, err := db.Query(ctx, "SELECT current_setting('memory_limit'), (SELECT count(*) FROM t399)")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Values[0]; got[0] != "953.6 MiB" || got[1] != int64(1000) {
		t.Errorf("memory_limit and count after Checkpoint = %v, want 953.6 MiB and 1000", got)
	}
}
