package postgres

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/internal/testkit"
)

// TestRelationsExactNames: the catalog listing spells every name as the
// catalog does (case, quotes, dots, non-ASCII kept), the columns of a
// relation asked for are found however its name is cased (compared as
// Go lowers names, whatever the database's locale), in order, and a
// relation of the same schema not asked for lists none.
func TestRelationsExactNames(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	hostile := `Wëird "S.ch'ema ` + testkit.RandomName("x")
	plain := schema(t, db)
	d := Dialect{}
	rel := func(name string) string { return d.QuoteRelation(engine.Relation{Schema: hostile, Name: name}) }
	mustExec(t, db, `CREATE SCHEMA `+engine.QuoteIdent(hostile))
	t.Cleanup(func() {
		if err := db.Exec(context.Background(), "DROP SCHEMA "+engine.QuoteIdent(hostile)+" CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	mustExec(t, db, `CREATE TABLE `+rel(`Mixed.Case`)+` ("Ä" INT, "b""c" TEXT, dropped INT, "Last" NUMERIC(10,2));
		ALTER TABLE `+rel(`Mixed.Case`)+` DROP COLUMN dropped;
		CREATE TABLE `+rel(`quo"te`)+` (x INT);
		CREATE TABLE `+rel(`ap'os`)+` (y DOUBLE PRECISION);
		CREATE VIEW `+rel(`Ünï.v`)+` AS SELECT 1 AS "Zé";
		CREATE TABLE `+engine.QuoteIdent(plain)+`."Mixed.Case" (z INT);
		CREATE TABLE `+engine.QuoteIdent(plain)+`."Up.Per" (Id INT, "Ix" TEXT)`)
	rels, err := db.Relations(ctx, []string{hostile, plain}, []engine.Relation{
		{Schema: strings.ToLower(hostile), Name: "mixed.case"},
		{Schema: strings.ToUpper(hostile), Name: "ÜNÏ.V"},
		{Schema: hostile, Name: `AP'OS`},
		{Schema: strings.ToUpper(plain), Name: "UP.PER"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		got = append(got, fmt.Sprintf("%q.%q:%v%v", r.Schema, r.Name, r.View, r.Columns))
	}
	sort.Strings(got)
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	want := []string{
		q(hostile) + `."Mixed.Case":false[{Ä integer} {b"c text} {Last numeric(10,2)}]`,
		q(hostile) + `."ap'os":false[{y double precision}]`,
		q(hostile) + `."quo\"te":false[]`,
		q(hostile) + `."Ünï.v":true[{Zé integer}]`,
		q(plain) + `."Mixed.Case":false[]`,
		q(plain) + `."Up.Per":false[{id integer} {Ix text}]`,
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Relations =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
