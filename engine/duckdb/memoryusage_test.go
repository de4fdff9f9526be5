package duckdb

import (
	"context"
	"path/filepath"
	"testing"
)

// MemoryUsage reads the memory limit back as set, and counts the blocks of
// a table just written.
func TestMemoryUsageReadsTheLimitAndTheBlocks(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "wh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SetMemoryLimit(ctx, "40MB"); err != nil {
		t.Fatal(err)
	}
	before, limit, err := db.MemoryUsage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// DuckDB prints 40 MB as "38.1 MiB": read back within its rounding.
	if limit < 39_900_000 || limit > 40_100_000 {
		t.Errorf("limit = %d, want about 40,000,000", limit)
	}
	if err := db.Exec(ctx, "CREATE TABLE t AS SELECT range AS id, md5(range::VARCHAR) AS s FROM range(200000)"); err != nil {
		t.Fatal(err)
	}
	after, _, err := db.MemoryUsage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after-before < 1<<20 {
		t.Errorf("memory usage %d before a table of 200,000 rows, %d after: want at least 1 MB more", before, after)
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{
		"953.6 MiB":  999_922_073,
		"40.0 MB":    40_000_000,
		"512 bytes":  512,
		"1.5 GiB":    1_610_612_736,
		"":           0,
		"-1":         0,
		"12 parsecs": 0,
	} {
		if got := parseSize(s); got != want {
			t.Errorf("parseSize(%q) = %d, want %d", s, got, want)
		}
	}
}
