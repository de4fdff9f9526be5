package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/enginetest"
	"github.com/efmesh/efmesh/internal/testkit"
)

// open connects to the server named by EFMESH_TEST_POSTGRES_URL (scripts/test
// starts one). Without it the test is skipped, except in CI, where a
// missing server is a failure.
func open(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), testkit.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// schema creates a schema of the test's own and drops it afterwards.
func schema(t *testing.T, db *DB) string {
	t.Helper()
	s := testkit.RandomName("efmesh_test_")
	ctx := context.Background()
	if err := db.Exec(ctx, "CREATE SCHEMA "+engine.QuoteIdent(s)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Exec(context.Background(), "DROP SCHEMA "+engine.QuoteIdent(s)+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", s, err)
		}
	})
	return s
}

func mustExec(t *testing.T, db *DB, q string) {
	t.Helper()
	if err := db.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func sqlError(t *testing.T, err error) *engine.SQLError {
	t.Helper()
	var se *engine.SQLError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v (%T), want *engine.SQLError", err, err)
	}
	return se
}

// at says what the error position points at, for failure messages.
func at(q string, pos int) string {
	if pos < 0 || pos > len(q) {
		return fmt.Sprintf("position %d (out of range)", pos)
	}
	return fmt.Sprintf("position %d: %q", pos, q[pos:])
}

func TestCanonicalIgnoresFormatting(t *testing.T) {
	var p Parser
	groups := [][]string{
		{
			"select a, b from t where x > 1",
			"SELECT a,\n       b -- the b\nFROM   t\nWHERE  x > 1",
			"/* c */ Select A, B From T Where X > 1",
		},
		{
			"select a, row_number() over (partition by b order by c desc) as rn, sum(x) over w from t window w as (order by c rows between 1 preceding and current row)",
			"SELECT a,\n  ROW_NUMBER() OVER (PARTITION BY b ORDER BY c DESC) AS rn,\n  SUM(x) OVER w\nFROM t\nWINDOW w AS (ORDER BY c ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
		},
		{
			"with c as (select id, 'ü' as s from s.t) , d as (select * from c) select * from d join c using (id)",
			"WITH c AS (SELECT id, 'ü' AS s FROM s.t),\n     d AS (SELECT * FROM c)\n-- the join\nSELECT * FROM d JOIN c USING (id)",
		},
		{
			"select * from e where ts >= $1 and ts < $2",
			"SELECT *\nFROM e\nWHERE ts >= $1\n  AND ts <  $2",
		},
	}
	var prev []byte
	for _, g := range groups {
		first, err := p.Canonicalize(g[0])
		if err != nil {
			t.Fatalf("%q: %v", g[0], err)
		}
		if strings.Contains(string(first), "location") || strings.Contains(string(first), "stmt_len") {
			t.Fatalf("positions not stripped: %s", first)
		}
		for _, q := range g[1:] {
			got, err := p.Canonicalize(q)
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			if string(got) != string(first) {
				t.Errorf("canonical forms differ:\n%s\n%s\n%s\n%s", g[0], first, q, got)
			}
		}
		if string(prev) == string(first) {
			t.Errorf("different queries have one canonical form")
		}
		prev = first
	}
	for _, pair := range [][2]string{
		{"select a from t where x > 1", "select a from t where x > 2"},
		{"select 'a' from t", "select 'b' from t"},
		{"select a from t where ts >= $1", "select a from t where ts >= $2"},
		{`select "A" from t`, `select a from t`},
		{"select a from t where x > 123456789012345678", "select a from t where x > 123456789012345679"},
	} {
		a, errA := p.Canonicalize(pair[0])
		b, errB := p.Canonicalize(pair[1])
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if string(a) == string(b) {
			t.Errorf("%q and %q have one canonical form", pair[0], pair[1])
		}
	}
}

func TestCanonicalErrors(t *testing.T) {
	var p Parser
	for _, c := range []struct {
		sql  string
		want string // the text the error points at
	}{
		{"select * frm t", "frm t"},
		{"select 'üñï' frm t", "t"},
		{"select 'ü', x,\n  (1 + from t", "from t"},
		{"select (1", ""}, // end of input
		{"select * from t where ts >= $start", "$start"},
	} {
		_, err := p.Canonicalize(c.sql)
		se := sqlError(t, err)
		if se.Type != "Parser" || se.Position < 0 || se.Position > len(c.sql) || c.sql[se.Position:] != c.want {
			t.Errorf("%q: %#v, %s; want it at %q", c.sql, se, at(c.sql, se.Position), c.want)
		}
	}
	for _, q := range []string{"select 1; select 2", "", "-- nothing", "insert into t values (1)", "create table t (a int)"} {
		_, err := p.Canonicalize(q)
		if se := sqlError(t, err); se.Type != "Parser" {
			t.Errorf("%q: %#v", q, se)
		}
	}
	for _, q := range []string{"values (1), (2)", "select 1 union all select 2", "(select 1) order by 1"} {
		if _, err := p.Canonicalize(q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	// The DB method is the same parser.
	var db DB
	a, _ := db.Canonicalize("select 1")
	b, _ := p.Canonicalize("SELECT 1")
	if string(a) != string(b) {
		t.Error("DB.Canonicalize differs from Parser.Canonicalize")
	}
}

func TestDialect(t *testing.T) {
	d := Dialect{}
	r := engine.Relation{Schema: `dev__s`, Name: `we"ird`}
	if got := d.QuoteRelation(r); got != `"dev__s"."we""ird"` {
		t.Errorf("QuoteRelation = %s", got)
	}
	if got := d.TimestampLiteral("2026-01-02T03:04:05+02:00"); got != "TIMESTAMP '2026-01-02 01:04:05'" {
		t.Errorf("TimestampLiteral = %s", got)
	}
	if got := d.CreateSchema("a"); got != `CREATE SCHEMA IF NOT EXISTS "a"` {
		t.Errorf("CreateSchema = %s", got)
	}
	if d.Placeholder("start") != "$1" || d.Placeholder("end") != "$2" || d.Placeholder("nope") != "" {
		t.Error("Placeholder")
	}
	if _, ok := any(&DB{}).(engine.FileReader); ok {
		t.Error("postgres must not claim to read files")
	}
}

func TestDescribeTypes(t *testing.T) {
	db := open(t)
	s := engine.QuoteIdent(schema(t, db))
	mustExec(t, db, `CREATE TABLE `+s+`.t (
		i int4, b int8, n numeric(10,2), x text, ts timestamptz, j jsonb, a text[],
		v varchar(20), f float8, d date, ok boolean, ia int4[], u uuid, by bytea, iv interval, tm time)`)
	cases := []struct {
		expr, typ string
		fam       engine.Family
	}{
		{"i", "integer", "integer"},
		{"b", "bigint", "integer"},
		{"n", "numeric(10,2)", "fractional"},
		{"x", "text", "text"},
		{"ts", "timestamp with time zone", "timestamp"},
		{"j", "jsonb", "json"},
		{"a", "text[]", "list<text>"},
		{"v", "character varying(20)", "text"},
		{"f", "double precision", "fractional"},
		{"d", "date", "date"},
		{"ok", "boolean", "boolean"},
		{"ia", "integer[]", "list<integer>"},
		{"u", "uuid", "uuid"},
		{"by", "bytea", "blob"},
		{"iv", "interval", "interval"},
		{"tm", "time without time zone", "time"},
		{"n * 2", "numeric", "fractional"},
		{"ts::timestamp(3)", "timestamp(3) without time zone", "timestamp"},
		{"count(*)", "bigint", "integer"},
		{"sum(i) over (order by b)", "bigint", "integer"},
		{"row_number() over (partition by x order by ts)", "bigint", "integer"},
		{"'lit'", "text", "text"},
		{"1.5::real", "real", "fractional"},
		{"j->'k'", "jsonb", "json"},
		{"null", "text", "text"},
	}
	// Each expression alone: count(*) beside plain columns would need a
	// GROUP BY. The CTE checks that types survive one.
	for i, c := range cases {
		q := fmt.Sprintf("WITH w AS (SELECT * FROM %s.t) SELECT %s AS c%d FROM w", s, c.expr, i)
		cols, err := db.Describe(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(cols) != 1 || cols[0].Name != fmt.Sprintf("c%d", i) || cols[0].Type != c.typ {
			t.Errorf("%s: %v, want type %q", c.expr, cols, c.typ)
			continue
		}
		if got := engine.TypeFamily(cols[0].Type); got != c.fam {
			t.Errorf("TypeFamily(%q) = %q, want %q", cols[0].Type, got, c.fam)
		}
	}

	// Two columns of one name: a view would refuse, a query does not.
	cols, err := db.Describe(context.Background(), "SELECT i, i FROM "+s+".t")
	if err != nil || len(cols) != 2 {
		t.Fatalf("cols = %v, %v", cols, err)
	}
	// A parameter typed by its context.
	cols, err = db.Describe(context.Background(), "SELECT i FROM "+s+".t WHERE ts >= $1 AND ts < $2")
	if err != nil || len(cols) != 1 {
		t.Fatalf("cols = %v, %v", cols, err)
	}
	// Query reports the same type names.
	rows, err := db.Query(context.Background(), "SELECT i, n, a, v FROM "+s+".t")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows.Columns); got != "[{i integer} {n numeric(10,2)} {a text[]} {v character varying(20)}]" {
		t.Errorf("Query columns = %s", got)
	}
}

func TestDescribeDoesNotRun(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := engine.QuoteIdent(schema(t, db))
	mustExec(t, db, "CREATE SEQUENCE "+s+".seq; CREATE TABLE "+s+".t (a int)")
	cols, err := db.Describe(ctx, "SELECT nextval('"+strings.Trim(s, `"`)+".seq') AS n")
	if err != nil || len(cols) != 1 || cols[0].Type != "bigint" {
		t.Fatalf("cols = %v, %v", cols, err)
	}
	if _, err := db.Describe(ctx, "INSERT INTO "+s+".t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, "SELECT (SELECT is_called FROM "+s+".seq), (SELECT count(*) FROM "+s+".t)")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows.Values); got != "[[false 0]]" {
		t.Errorf("Describe ran the statement: %s", got)
	}
}

func TestServerErrors(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := engine.QuoteIdent(schema(t, db))
	mustExec(t, db, "CREATE TABLE "+s+".t (id int, name text, \"Größe\" int)")
	cases := []struct {
		sql        string
		typ, sub   string
		want       string // the text the error points at
		name       string
		candidates []string
	}{
		{"select idd from " + s + ".t", "Binder", "COLUMN_NOT_FOUND", "idd from", "idd", []string{"id"}},
		{"select 'Größe 🚀', nme from " + s + ".t", "Binder", "COLUMN_NOT_FOUND", "nme from", "nme", []string{"name"}},
		{"select 'ü', x.nme from " + s + ".t x", "Binder", "COLUMN_NOT_FOUND", "x.nme from", "nme", []string{"x.name"}},
		{"select 'ü', \"Grösse\" from " + s + ".t", "Binder", "COLUMN_NOT_FOUND", "\"Grösse\" from", "Grösse", []string{"Größe"}},
		{"select 'ü', id from " + s + ".t a, " + s + ".t b", "Binder", "AMBIGUOUS_COLUMN", "id from", "", nil},
		{"select 'ü' from " + s + ".nope", "Catalog", "UNDEFINED_TABLE", s + ".nope", "", nil},
		{"select 'ü' frm " + s + ".t", "Parser", "SYNTAX_ERROR", s + ".t", "", nil},
		{"select 'ü', nosuch(1)", "Binder", "UNDEFINED_FUNCTION", "nosuch(1)", "", nil},
	}
	for _, c := range cases {
		for _, via := range []string{"Describe", "Query", "Exec"} {
			var err error
			switch via {
			case "Describe":
				_, err = db.Describe(ctx, c.sql)
			case "Query":
				_, err = db.Query(ctx, c.sql)
			case "Exec":
				err = db.Exec(ctx, c.sql)
			}
			se := sqlError(t, err)
			if se.Type != c.typ || se.Subtype != c.sub || se.Position < 0 || se.Position > len(c.sql) ||
				!strings.HasPrefix(c.sql[se.Position:], c.want) || se.Name != c.name ||
				fmt.Sprint(se.Candidates) != fmt.Sprint(c.candidates) {
				t.Errorf("%s %q: %#v at %s; want %s/%s at %q", via, c.sql, se, at(c.sql, se.Position), c.typ, c.sub, c.want)
			}
		}
	}

	// An unknown USING column is said without a position: named, the
	// check finds it in the USING list.
	for _, name := range []string{"nope", `Gr"öße`} {
		q := "select 1 from " + s + ".t a join " + s + ".t b using (id, " + engine.QuoteIdent(name) + ")"
		se := sqlError(t, db.Exec(ctx, q))
		if se.Subtype != "COLUMN_NOT_FOUND" || se.Position != -1 || se.Name != name {
			t.Errorf("%s: %#v, want COLUMN_NOT_FOUND of %q without a position", q, se, name)
		}
	}

	// In a Tx, positions are relative to the failing statement.
	bad := "select 'ä', nme from " + s + ".t"
	se := sqlError(t, db.Tx(ctx, []string{"select 1", bad}))
	if se.Position != strings.Index(bad, "nme") {
		t.Errorf("Tx: %#v at %s", se, at(bad, se.Position))
	}
}

// In a SQL_ASCII database the server counts error positions in bytes.
func TestServerErrorsSQLASCII(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	name := testkit.RandomName("efmesh_test_ascii_")
	if err := db.Exec(ctx, "CREATE DATABASE "+name+" ENCODING 'SQL_ASCII' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		if se := (*engine.SQLError)(nil); errors.As(err, &se) && se.Type == "Permission" {
			t.Skipf("cannot create a database: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database: %v", err)
		}
	})
	u, err := url.Parse(os.Getenv("EFMESH_TEST_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	adb, err := Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer adb.Close()
	if adb.charPositions {
		t.Fatal("SQL_ASCII database taken for one counting characters")
	}
	q := "select 'Größe 🚀', nme from pg_class"
	_, err = adb.Describe(ctx, q)
	if se := sqlError(t, err); se.Position != strings.Index(q, "nme") {
		t.Errorf("%#v at %s", se, at(q, se.Position))
	}
}

func TestTxRollsBack(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := engine.QuoteIdent(schema(t, db))
	mustExec(t, db, "CREATE TABLE "+s+".t (a int)")
	err := db.Tx(ctx, []string{
		"INSERT INTO " + s + ".t VALUES (1)",
		"CREATE TABLE " + s + ".u (b int); INSERT INTO " + s + ".u VALUES (2)",
		"INSERT INTO " + s + ".nope VALUES (1)",
	})
	if se := sqlError(t, err); se.Type != "Catalog" {
		t.Fatalf("err = %#v", se)
	}
	rows, err := db.Query(ctx, "SELECT count(*), to_regclass('"+strings.Trim(s, `"`)+".u') IS NULL FROM "+s+".t")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows.Values); got != "[[0 true]]" {
		t.Fatalf("after rollback: %s", got)
	}
	if err := db.Tx(ctx, []string{"INSERT INTO " + s + ".t VALUES (1)", "INSERT INTO " + s + ".t VALUES (2)"}); err != nil {
		t.Fatal(err)
	}
	rows, err = db.Query(ctx, "SELECT count(*) FROM "+s+".t")
	if err != nil || fmt.Sprint(rows.Values) != "[[2]]" {
		t.Fatalf("after commit: %v, %v", rows, err)
	}
}

// ReplaceTableAs and ReplaceView change the columns of an existing relation,
// which CREATE OR REPLACE VIEW would refuse, both through Tx (promotion) and
// Exec (building a view model).
func TestReplaceRoundTrip(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	d := db.Dialect()
	sch := schema(t, db)
	tbl := engine.Relation{Schema: sch, Name: "tbl"}
	view := engine.Relation{Schema: sch, Name: "Vüew"}
	check := func(q, want string) {
		t.Helper()
		rows, err := db.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := fmt.Sprint(rows.Columns, rows.Values); got != want {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
	for _, step := range []struct {
		tableQuery, viewQuery, want string
	}{
		{"SELECT 1 AS a, 'x'::text AS b", "SELECT a, b FROM " + d.QuoteRelation(tbl),
			"[{a integer} {b text}] [[1 x]]"},
		{"SELECT 2::bigint AS b, 2.50::numeric(5,2) AS c", "SELECT c, b FROM " + d.QuoteRelation(tbl),
			"[{c numeric(5,2)} {b bigint}] [[2.50 2]]"},
	} {
		// The view depends on the table: drop it first, as the planner does
		// not rebuild a table that a view points at.
		if err := db.Tx(ctx, []string{d.DropView(view)}); err != nil {
			t.Fatal(err)
		}
		if err := db.Tx(ctx, d.ReplaceTableAs(tbl, step.tableQuery)); err != nil {
			t.Fatal(err)
		}
		if err := db.Tx(ctx, []string{d.CreateSchema(sch), d.ReplaceView(view, step.viewQuery)}); err != nil {
			t.Fatal(err)
		}
		check("SELECT * FROM "+d.QuoteRelation(view), step.want)
		// Through Exec as well, back to the same shape.
		if err := db.Exec(ctx, d.ReplaceView(view, "SELECT 0 AS z")); err != nil {
			t.Fatal(err)
		}
		check("SELECT * FROM "+d.QuoteRelation(view), "[{z integer}] [[0]]")
		if err := db.Exec(ctx, d.ReplaceView(view, step.viewQuery)); err != nil {
			t.Fatal(err)
		}
		check("SELECT * FROM "+d.QuoteRelation(view), step.want)
	}
	// A table a view depends on is not dropped behind the view's back.
	err := db.Tx(ctx, d.ReplaceTableAs(tbl, "SELECT 3 AS a"))
	if se := sqlError(t, err); se.Type != "Dependency" {
		t.Errorf("err = %#v", se)
	}
	check("SELECT * FROM "+d.QuoteRelation(view), "[{c numeric(5,2)} {b bigint}] [[2.50 2]]")
	// A failing ReplaceView through Exec leaves the old view in place.
	if err := db.Exec(ctx, d.ReplaceView(view, "SELECT nope FROM "+d.QuoteRelation(tbl))); err == nil {
		t.Fatal("want error")
	}
	check("SELECT * FROM "+d.QuoteRelation(view), "[{c numeric(5,2)} {b bigint}] [[2.50 2]]")
}

func TestQueryValues(t *testing.T) {
	db := open(t)
	rows, err := db.Query(context.Background(), `SELECT 1::int2, 2::int4, 3::int8, 1.50::numeric(5,2), 0.5::float8, true, 'ü'::text,
		TIMESTAMPTZ '2026-01-01 10:00:00+02', TIMESTAMP '2026-01-02 11:00:00', DATE '2026-01-03',
		ARRAY[1,2], '{"k": [1, "v"]}'::jsonb, '6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid,
		INTERVAL '1 day 2 hours', NULL::text, 'infinity'::timestamptz, '\x0102'::bytea`)
	if err != nil {
		t.Fatal(err)
	}
	want := "[[1 2 3 1.50 0.5 true ü 2026-01-01 08:00:00 +0000 UTC 2026-01-02 11:00:00 +0000 UTC 2026-01-03 00:00:00 +0000 UTC " +
		"[1 2] map[k:[1 v]] 6ba7b810-9dad-11d1-80b4-00c04fd430c8 1 day 02:00:00 <nil> infinity [1 2]]]"
	if got := fmt.Sprint(rows.Values); got != want {
		t.Errorf("values:\n got %s\nwant %s", got, want)
	}
	rows, err = db.Query(context.Background(), "SELECT 1 AS a WHERE false")
	if err != nil || len(rows.Values) != 0 || fmt.Sprint(rows.Columns) != "[{a integer}]" {
		t.Errorf("empty result: %v, %v", rows, err)
	}
}

// Many goroutines share the pool: each call has a connection of its own,
// results do not mix, and Query never needs a second connection (which
// would deadlock a full pool).
func TestConcurrentQuery(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := engine.QuoteIdent(schema(t, db))
	mustExec(t, db, "CREATE TABLE "+s+".t AS SELECT g AS id FROM generate_series(1, 100) g")
	const n = 24
	var wg sync.WaitGroup
	var mu sync.Mutex
	pids := map[any]bool{}
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows, err := db.Query(ctx, fmt.Sprintf("SELECT pg_backend_pid(), count(*), %d AS i, pg_sleep(0.05)::text FROM %s.t WHERE id <= %d", i, s, i+1))
			if err != nil {
				errs <- err
				return
			}
			v := rows.Values[0]
			if v[1] != int64(i+1) || v[2] != int32(i) {
				errs <- fmt.Errorf("query %d got %v", i, v)
				return
			}
			if _, err := db.Describe(ctx, "SELECT id FROM "+s+".t"); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			pids[v[0]] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(pids) < 2 {
		t.Errorf("all queries ran on one connection: %v", pids)
	}
}

func TestStatements(t *testing.T) {
	db := open(t)
	enginetest.Statements(t, db, schema(t, db))
}
