package duckdb

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/engine"
)

// writeAt writes body to path with modification time at.
func writeAt(t *testing.T, path, body string, at time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func names(t *testing.T, db *DB, spec engine.FileSpec) []string {
	t.Helper()
	got, err := db.FileColumnNames(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A CSV file's names are its header's, the union by name when headers
// differ; a file rewritten with the same size and a new modification time
// (a column renamed) is read again, and the answer is remembered by the
// stamps: only a change of path, size or time reads the header again.
func TestFileColumnNamesCSVStamps(t *testing.T) {
	db := open(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ev.csv")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	writeAt(t, path, "id, k ,v\n1,a,10\n", t0)
	spec := engine.FileSpec{Paths: []string{filepath.Join(dir, "*.csv")}, Format: "csv", Options: []engine.FileOption{{Name: "header", Value: "true"}}}
	if got, want := names(t, db, spec), []string{"id", "k", "v"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("names %q, want %q", got, want)
	}

	// Same size, same time: the stamps say unchanged, the remembered
	// answer stands (the header is not read).
	writeAt(t, path, "id, q ,v\n1,a,10\n", t0)
	if got, want := names(t, db, spec), []string{"id", "k", "v"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("unchanged stamps: names %q, want the remembered %q", got, want)
	}

	// Same size, new time: described again.
	writeAt(t, path, "id, q ,v\n1,a,10\n", t0.Add(time.Second))
	if got, want := names(t, db, spec), []string{"id", "q", "v"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("new mtime: names %q, want %q", got, want)
	}

	// A file added to the glob: its header joins by name.
	writeAt(t, filepath.Join(dir, "ev2.csv"), "V,ID,extra\n1,2,3\n", t0)
	if got, want := names(t, db, spec), []string{"id", "q", "v", "extra"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("added file: names %q, want %q", got, want)
	}
}

// A parquet file is described by DuckDB; rewritten with a renamed column
// (a new modification time) it is described again.
func TestFileColumnNamesParquetRenamed(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ev.parquet")
	write := func(sel string, at time.Time) {
		if err := db.Exec(ctx, "COPY ("+sel+") TO "+engine.QuoteString(path)+" (FORMAT parquet)"); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write("SELECT 1 AS id, 'a' AS k", t0)
	spec := engine.FileSpec{Paths: []string{path}, Format: "parquet"}
	if got := strings.Join(names(t, db, spec), ","); got != "id,k" {
		t.Fatalf("names %s, want id,k", got)
	}
	write("SELECT 1 AS id, 'a' AS q", t0.Add(time.Second))
	if got := strings.Join(names(t, db, spec), ","); got != "id,q" {
		t.Fatalf("rewritten: names %s, want id,q", got)
	}
	// Gone: an error, not a remembered answer.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FileColumnNames(ctx, spec); err == nil {
		t.Fatal("a removed file was described")
	}
}
