package duckdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// Files whose headers name the declared columns in other orders are read
// by name, each file by its own header, with the sniffer off.
func TestReadFilesCSVBindsByHeaderName(t *testing.T) {
	db := open(t)
	dir := t.TempDir()
	files := map[string]string{
		"a.csv": "id,k,v\n1,a,10\n",
		"b.csv": "v,k,id,extra\n20,b,2,x\n",
		"c.csv": "k,v,id\nc,30,3\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cols := []engine.Column{{Name: "id", Type: "INTEGER"}, {Name: "k", Type: "VARCHAR"}, {Name: "v", Type: "INTEGER"}}
	q, err := db.ReadFiles(engine.FileSpec{Paths: []string{filepath.Join(dir, "*.csv")}, Format: "csv", Columns: cols,
		Options: []engine.FileOption{{Name: "header", Value: "true"}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(context.Background(), q+" ORDER BY id")
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	got := fmt.Sprint(res.Values)
	if want := "[[1 a 10] [2 b 20] [3 c 30]]"; got != want {
		t.Fatalf("rows %s, want %s\n%s", got, want, q)
	}
}

// A header without a declared column fails to bind naming the column,
// rather than reading another column in its place.
func TestReadFilesCSVMissingHeaderColumn(t *testing.T) {
	db := open(t)
	path := filepath.Join(t.TempDir(), "ev.csv")
	if err := os.WriteFile(path, []byte("id,key,v\n1,a,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cols := []engine.Column{{Name: "id", Type: "INTEGER"}, {Name: "k", Type: "VARCHAR"}, {Name: "v", Type: "INTEGER"}}
	q, err := db.ReadFiles(engine.FileSpec{Paths: []string{path}, Format: "csv", Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Query(context.Background(), q); err == nil {
		t.Fatalf("read a file without column k:\n%s", q)
	}
}
