package duckdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/enginetest"
)

func open(t *testing.T) *DB {
	t.Helper()
	db, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestCanonicalIgnoresFormatting(t *testing.T) {
	db := open(t)
	groups := [][]string{
		{
			"select a, b from t where x > 1",
			"SELECT a,\n       b -- the b\nFROM   t\nWHERE  x > 1",
			"/* c */ Select a, b From t Where x > 1",
		},
		{
			"select * exclude (a) from t group by all qualify row_number() over (partition by b order by c) = 1",
			"SELECT * EXCLUDE (a)\nFROM t\nGROUP BY ALL\nQUALIFY row_number() OVER (PARTITION BY b ORDER BY c) = 1",
		},
		{
			"with c as (select [x + 1 for x in l] as m, {'k': 'ü'} as s from t) select list_transform(m, y -> y * 2) from c",
			"WITH c AS (SELECT [x+1 FOR x IN l] AS m, {'k':'ü'} AS s FROM t)\nSELECT list_transform(m, y->y*2) FROM c",
		},
	}
	var prev []byte
	for _, g := range groups {
		first, err := db.Canonicalize(g[0])
		if err != nil {
			t.Fatalf("%q: %v", g[0], err)
		}
		if strings.Contains(string(first), "query_location") {
			t.Fatalf("positions not stripped: %s", first)
		}
		for _, q := range g[1:] {
			got, err := db.Canonicalize(q)
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			if string(got) != string(first) {
				t.Errorf("canonical forms differ:\n%s\n%s", g[0], q)
			}
		}
		if string(prev) == string(first) {
			t.Errorf("different queries have one canonical form")
		}
		prev = first
	}
	a, _ := db.Canonicalize("select a from t where x > 1")
	b, _ := db.Canonicalize("select a from t where x > 2")
	if string(a) == string(b) {
		t.Error("a literal change kept the canonical form")
	}
}

func TestCanonicalSyntaxError(t *testing.T) {
	db := open(t)
	_, err := db.Canonicalize("select * frm t")
	var se *engine.SQLError
	if !errors.As(err, &se) || se.Position != 13 {
		t.Fatalf("err = %#v", err)
	}
	if _, err := db.Canonicalize("select 1; select 2"); err == nil {
		t.Fatal("two statements accepted")
	}
	// DuckDB's parser counts characters; positions are bytes, after text
	// of every width, through every path that parses.
	for _, q := range []string{"SELECT '😀😀😀😀' AS a FRM x", "SELECT 'é日本' AS \"ñ\" FRM x", "SELECT 'a' AS a FRM x"} {
		_, err1 := db.Canonicalize(q)
		got := [][]error{{err1}}
		_, errs := db.CanonicalizeAll([]string{"SELECT 1", q})
		_, err3 := db.Describe(context.Background(), q)
		err4 := db.Exec(context.Background(), q)
		got = append(got, []error{errs[1], err3, err4})
		for _, g := range got {
			for _, err := range g {
				if !errors.As(err, &se) || se.Position < 0 || !strings.HasPrefix(q[se.Position:], "FRM") {
					t.Errorf("%q: error %v at %d, want at FRM (byte %d)", q, err, se.Position, strings.Index(q, "FRM"))
				}
			}
		}
	}
}

func TestDescribeAndBinderErrors(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.Exec(ctx, `CREATE SCHEMA s; CREATE TABLE s."t" (id INTEGER, name VARCHAR)`); err != nil {
		t.Fatal(err)
	}
	cols, err := db.Describe(ctx, "select id, name, id * 1.5 as f from s.t qualify row_number() over (order by id) = 1")
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 3 || cols[0].Type != "INTEGER" || cols[2].Name != "f" {
		t.Fatalf("cols = %v", cols)
	}
	_, err = db.Describe(ctx, "select idd from s.t")
	var se *engine.SQLError
	if !errors.As(err, &se) || se.Position != 7 || se.Type != "Binder" || len(se.Candidates) == 0 {
		t.Fatalf("err = %#v", err)
	}
	_, err = db.Describe(ctx, "select * from s.nope")
	if !errors.As(err, &se) || se.Position != 14 {
		t.Fatalf("err = %#v", err)
	}
}

func TestTxRollsBack(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.Exec(ctx, "CREATE TABLE t (a INT)")
	if err := db.Tx(ctx, []string{"INSERT INTO t VALUES (1)", "INSERT INTO nope VALUES (1)"}); err == nil {
		t.Fatal("want error")
	}
	rows, err := db.Query(ctx, "SELECT count(*) FROM t")
	if err != nil || rows.Values[0][0].(int64) != 0 {
		t.Fatalf("rows = %v, %v", rows, err)
	}
}

// TestTxBatch: a batch commits every statement (a trailing line comment
// does not swallow the next one) or, when one fails, none.
func TestTxBatch(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	db.Exec(ctx, "CREATE TABLE t (a INT)")
	if err := db.TxBatch(ctx, []string{"CREATE SCHEMA s", "CREATE VIEW s.v AS SELECT a FROM t -- a comment", "CREATE VIEW s.w AS SELECT a FROM t"}); err != nil {
		t.Fatal(err)
	}
	err := db.TxBatch(ctx, []string{"CREATE VIEW s.x AS SELECT a FROM t", "CREATE VIEW s.y AS SELECT a FROM nope", "CREATE VIEW s.z AS SELECT a FROM t"})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("a batch with a view of a missing table = %v, want an error naming it", err)
	}
	rows, err := db.Query(ctx, "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 's'")
	if err != nil || rows.Values[0][0] != "v,w" {
		t.Fatalf("views after a batch and a failed one = %v, %v; want v,w", rows.Values, err)
	}
}

func TestExtensionsDoNotDownload(t *testing.T) {
	db := open(t)
	err := db.Exec(context.Background(), "SELECT * FROM read_parquet('s3://bucket/x.parquet')")
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "httpfs") {
		t.Fatalf("err = %v", err)
	}
}

func TestCanonicalizeAll(t *testing.T) {
	db := open(t)
	qs := []string{
		"select a from t where x > 1",
		`select '"query_location":5' as tricky, 'it''s' from t`,
		"select * frm t",
		"select 1; select 2",
		"SELECT [x + 1 FOR x IN l], {'k': 'ü'} FROM t QUALIFY row_number() OVER () = 1",
	}
	got, errs := db.CanonicalizeAll(qs)
	for i, q := range qs {
		want, werr := db.Canonicalize(q)
		if (werr == nil) != (errs[i] == nil) || string(want) != string(got[i]) {
			t.Errorf("%q: batched %s / %v, single %s / %v", q, got[i], errs[i], want, werr)
		}
	}
	if errs[2] == nil || errs[3] == nil || errs[0] != nil {
		t.Fatalf("errors = %v", errs)
	}
	if !strings.Contains(string(got[1]), `\"query_location\":5`) {
		t.Fatalf("a string literal lost its text: %s", got[1])
	}
	if strings.Contains(string(got[4]), `"query_location"`) {
		t.Fatalf("positions left: %s", got[4])
	}
}

func TestStatements(t *testing.T) {
	db := open(t)
	if err := db.Exec(context.Background(), "CREATE SCHEMA stmts"); err != nil {
		t.Fatal(err)
	}
	enginetest.Statements(t, db, "stmts")
}

// ReportedType names a declared type as DESCRIBE reports it.
func TestReportedType(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	decl := []string{"int", "text", "Double  Precision", "decimal( 10,2 )", "timestamptz", "bool", "int8", "varchar", "text[]", "int[3]", "string[][]"}
	defs := make([]string, len(decl))
	for i, d := range decl {
		defs[i] = fmt.Sprintf("c%d %s", i, d)
	}
	if err := db.Exec(ctx, "CREATE TABLE typed ("+strings.Join(defs, ", ")+")"); err != nil {
		t.Fatal(err)
	}
	cols, err := db.Describe(ctx, "SELECT * FROM typed")
	if err != nil {
		t.Fatal(err)
	}
	d := Dialect{}
	for i, c := range cols {
		if got, want := d.ReportedType(decl[i]), c.Type; got != want {
			t.Errorf("%s: %s, DESCRIBE says %s", decl[i], got, want)
		}
	}
}
