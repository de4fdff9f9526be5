package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestRelationsReadOnly: one catalog query lists the tables and views of
// the schemas asked for (a missing schema lists nothing), with the
// columns, in order, of those asked for (without case); a read-only open
// of the file sees them and cannot write.
func TestRelationsReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.duckdb")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, `CREATE SCHEMA a; CREATE SCHEMA b; CREATE TABLE a.t (x INT, b TEXT); CREATE VIEW a.v AS SELECT 1 AS x; CREATE TABLE b.u (x INT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rels, err := ro.Relations(ctx, []string{"a", "nope"}, []engine.Relation{{Schema: "A", Name: "T"}, {Schema: "nope", Name: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		got = append(got, fmt.Sprintf("%s:%v%v", r, r.View, r.Columns))
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[a.t:false[{x INTEGER} {b VARCHAR}] a.v:true[]]" {
		t.Fatalf("Relations = %v", got)
	}
	if err := ro.Exec(ctx, `CREATE TABLE a.w (x INT)`); err == nil {
		t.Fatal("a read-only database took a write")
	}
	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "none.duckdb")); err == nil {
		t.Fatal("OpenReadOnly created a database")
	}
}
