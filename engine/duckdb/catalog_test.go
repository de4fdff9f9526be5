package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
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

// TestRelationsExactNames: the catalog listing spells every name as the
// catalog does (case, quotes, dots, non-ASCII kept), and the columns of a
// relation asked for are found however its name is cased, while a
// relation of the same schema not asked for lists none.
func TestRelationsExactNames(t *testing.T) {
	ctx := context.Background()
	db, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := Dialect{}
	schema := `Wëird "S.ch'ema`
	rel := func(name string) string { return d.QuoteRelation(engine.Relation{Schema: schema, Name: name}) }
	if err := db.Exec(ctx, `CREATE SCHEMA `+engine.QuoteIdent(schema)+`;
		CREATE TABLE `+rel(`Mixed.Case`)+` ("Ä" INT, "b""c" TEXT);
		CREATE TABLE `+rel(`quo"te`)+` (x INT);
		CREATE TABLE `+rel(`ap'os`)+` (y DOUBLE);
		CREATE VIEW `+rel(`Ünï.v`)+` AS SELECT 1 AS "Zé";
		CREATE SCHEMA other; CREATE TABLE other."Mixed.Case" (z INT)`); err != nil {
		t.Fatal(err)
	}
	rels, err := db.Relations(ctx, []string{schema, "other"}, []engine.Relation{
		{Schema: `wëird "s.ch'ema`, Name: "mixed.case"},
		{Schema: `WËIRD "S.CH'EMA`, Name: "ÜNÏ.V"},
		{Schema: schema, Name: `AP'OS`},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		got = append(got, fmt.Sprintf("%q.%q:%v%v", r.Schema, r.Name, r.View, r.Columns))
	}
	sort.Strings(got)
	want := []string{
		`"Wëird \"S.ch'ema"."Mixed.Case":false[{Ä INTEGER} {b"c VARCHAR}]`,
		`"Wëird \"S.ch'ema"."ap'os":false[{y DOUBLE}]`,
		`"Wëird \"S.ch'ema"."quo\"te":false[]`,
		`"Wëird \"S.ch'ema"."Ünï.v":true[{Zé INTEGER}]`,
		`"other"."Mixed.Case":false[]`,
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Relations =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
