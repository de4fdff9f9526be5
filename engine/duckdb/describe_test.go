package duckdb

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// describeSchema has a column of every type Describe names itself, the
// nested and user types it leaves to DESCRIBE, and hostile column names.
const describeSchema = `
CREATE TYPE mood AS ENUM ('happy', 'sad');
CREATE TYPE myint AS INTEGER;
CREATE TYPE doc AS JSON;
CREATE SCHEMA s;
CREATE TABLE s.every (
	b BOOLEAN, ti TINYINT, si SMALLINT, i INTEGER, bi BIGINT,
	uti UTINYINT, usi USMALLINT, ui UINTEGER, ubi UBIGINT, hi HUGEINT, uhi UHUGEINT,
	f FLOAT, d DOUBLE, v VARCHAR, bl BLOB, dt DATE, tm TIME, ttz TIMETZ,
	ts TIMESTAMP, tstz TIMESTAMPTZ, ts_s TIMESTAMP_S, ts_ms TIMESTAMP_MS, ts_ns TIMESTAMP_NS,
	iv INTERVAL, u UUID, dec DECIMAL(18,3), dec38 DECIMAL(38,10), dec4 DECIMAL(4,0), bits BIT,
	j JSON, mi myint, dc doc, vc VARCHAR COLLATE nocase,
	m mood, bn BIGNUM, tns TIME_NS,
	l INTEGER[], st STRUCT(a INTEGER, "b c" VARCHAR), mp MAP(VARCHAR, INTEGER), arr DOUBLE[3],
	un UNION(n INTEGER, s VARCHAR), jl JSON[]
);
CREATE TABLE "odd names" ("a b" INTEGER, "it's" VARCHAR, "say ""hi""" DATE, "😀" DOUBLE, "größe" DECIMAL(9,2), "SELECT" BOOLEAN);
CREATE TABLE u (x INTEGER);
INSERT INTO u VALUES (1);
`

// deferredCols are the columns of s.every Describe leaves to DESCRIBE.
const deferredCols = "m, bn, tns, l, st, mp, arr, un, jl"

// describeAnswered are queries the prepared statement answers, successfully
// or with an error.
var describeAnswered = []string{
	"select b, ti, si, i, bi from s.every",
	"select uti, usi, ui, ubi, hi, uhi from s.every",
	"select f, d, v, bl from s.every",
	"select dt, tm, ttz, ts, tstz from s.every",
	"select ts_s, ts_ms, ts_ns, iv, u, bits from s.every",
	"select dec, dec38, dec4, dec * 2 as twice, dec + dec38 as total, dec4 / 3 as third from s.every",
	"select j, j->'$.a' as ja, j->>'$.a' as js, mi, dc, vc from s.every",
	"select * exclude (" + deferredCols + ") from s.every",
	"select * replace (i + 1 as i) exclude (" + deferredCols + ") from s.every",
	"from s.every select i, v",
	"select * from \"odd names\"",
	`select "a b" as "x y", "it's" as "it''s", "say ""hi""", "😀" as "😀 smile", "größe", "SELECT" from "odd names" where "a b" > 0`,
	`select 1 as """quoted""", 2 as "tab	here", 3 as "semi;colon", 4 as "line
break", 5 as "Ünïcødé", 6 as CamelCase, 7 as "from"`,
	"select 1 as a, 2 as a, i, i from s.every",
	"select NULL as n, NULL::VARCHAR as nv, NULL::DECIMAL(5,2) as nd, NULL",
	"select case when i > 0 then 'pos' when i < 0 then 'neg' end as sign, case i when 1 then 1.5 else 2 end as c2 from s.every",
	"select i, row_number() over (partition by v order by ts) as rn, sum(d) over w as running, lag(dt) over w as prev from s.every window w as (order by ts)",
	"select v, i from s.every qualify row_number() over (partition by v order by i) = 1",
	"select v, count(*), sum(dec), avg(i), sum(hi), min(ts), max(tstz), count(distinct v) from s.every group by all",
	"select grouping(v), v, sum(i) from s.every group by rollup (v)",
	"with a as (select i, v from s.every), b as (select i, count(*) as c from a group by i) select * from a join b using (i)",
	"with recursive r(n) as (select 1 union all select n + 1 from r where n < 3) select n from r",
	"with x as (select 1 as y) from x",
	"with x as (select 1) values (1)",
	"select i, v from s.every union select 1, 'x'",
	"select i from s.every union all select 1.5",
	"select 1 as x union all by name select 2.5 as y",
	"(select 1 as x) union (select 2)",
	"values (1, 'a'), (2, 'b')",
	"from u pivot (count(*) for x in (1))",
	"  \n\t-- a comment\n  select 1 as c",
	"/* outer /* nested */ still outer */ SELECT 2 AS d",
	"select 1 as trailing;",
	"select 1::TINYINT + 1::TINYINT, 1::UTINYINT * 2, 2::HUGEINT, 1::FLOAT / 2, 10 // 3, 10 % 3",
	"select 1.5, 1.23456789012345678901, 1e10, 100000000000000000000, 0.1::DOUBLE, 1::DECIMAL(38,0)",
	"select now(), current_date, current_time, today(), epoch_ms(0), to_timestamp(0), make_time(1, 2, 3.0)",
	"select date_trunc('month', ts), date_part('year', dt), age(ts, ts), ts - interval 1 day, dt + 1, epoch_ns(ts_ns) from s.every",
	"select cast(v as int), try_cast(v as double), v::blob, 'abc'::INT, '101'::BIT, bit_count('101'::BIT) from s.every",
	"select length(v), upper(v), v || 'x', v like 'a%', regexp_matches(v, 'a'), md5(v), v collate nocase from s.every",
	"select gen_random_uuid(), uuid(), $$dollar$$ as dq",
	"select count(*) from s.every where i in (select i from s.every)",
	"select exists(select 1), (select max(i) from s.every) as m",
	"select distinct on (v) v, i from s.every order by v, i",
	"select v, string_agg(v, ',') over () from s.every order by 1 limit 10 offset 2",
	"select * from range(3)",
	"select * from generate_series(1, 3) t(n)",
	"select unnest([1, 2, 3]) as x, [1, 2][1] as first, len([1]) as n, struct_extract({'a': 1}, 'a') as a",
	"select to_json({'a': 1}) as j, json_object('a', 1) as jo, '{\"a\":1}'::JSON as j2, json_extract_string('{}', '$.a') as s, 'x'::doc as d, 1::myint as i",
	"select coalesce(i, 0), nullif(v, ''), greatest(i, 2), ifnull(dt, current_date), i > 1 and v is not null, not b, i between 1 and 2 from s.every",
	"select a.i, b.i as bi from s.every a left join s.every b on a.i = b.i",
	"select t.* from (select 1 as a, 'x' as b) t",
	"select * from (describe s.every)",
	"(describe s.every)",
	"select column_name, column_type from (describe s.every)",
	// Errors: a parser, binder or catalog error is DESCRIBE's.
	"select idd from s.every",
	"select * from s.nope",
	"from s.nope",
	"select * frm s.every",
	"select from where",
	"select i from s.every group by",
	"select v, sum(i) from s.every",
	"select nope(1)",
	"(select idd from s.every)",
	"select 'it''s' || idd from s.every",
	"select * exclude (nope) from s.every",
	"select \"unterminated",
	"select",
	"from",
	"(",
	"(t)",
	"select.x",
	"from.x",
}

// describeDeferred are queries Describe leaves to DESCRIBE.
var describeDeferred = []string{
	// Types whose DESCRIBE name is not certain.
	"select * from s.every",
	"from s.every",
	"select m, bn, tns from s.every",
	"select l, st, mp, arr, un, jl from s.every",
	"select i, l from s.every",
	"select 'happy'::mood, 'a'::ENUM('a', 'b')",
	"select [1, 2], {'a': 1}, map {'k': 1}, [1.5, 2]::DOUBLE[2], [1]::JSON[]",
	"select 1::BIGNUM, 1::TIME_NS",
	"select 'POINT (1 2)'::GEOMETRY",
	"select 1::VARIANT",
	"select 'INTEGER'::TYPE",
	// Parameters: DESCRIBE fails for want of arguments.
	"select $1",
	"select ? + 1",
	"select $1::INTEGER as x",
	"select i from s.every where i = ?",
	// Not a SELECT, or read differently after DESCRIBE.
	"describe s.every",
	"DESC s.every",
	"show tables",
	"summarize select 1",
	"pivot u on x using count(*)",
	"pivot u on x in (1) using count(*)",
	"s.every",
	"",
	"-- only a comment",
	"/* unterminated comment select 1",
	"explain select 1",
	"call pragma_version()",
	"insert into u values (2)",
	"with c as (select 2 as x) insert into u select * from c",
	"with c as (select 2 as x) update u set x = c.x from c",
	// Errors of a WITH or VALUES statement, or of other types than parsing
	// and binding, which optimizing (skipped by DESCRIBE) may raise.
	"with c as (select 2 as x) insert into nope select * from c",
	"with c as (select idd from s.every) select * from c",
	"with x as (select 1) describe s.every",
	"selectx 1",
	"values",
	"values.x",
	"values (1), (idd)",
	"values (1), ('a', 2)",
	"select * from read_csv('/nonexistent/file.csv')",
	"select 1 limit 'a'",
}

// TestDescribeMatchesDESCRIBE checks that Describe returns exactly what
// DESCRIBE does, columns or error, and that each query takes the expected
// path.
func TestDescribeMatchesDESCRIBE(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.Exec(ctx, describeSchema); err != nil {
		t.Fatal(err)
	}
	check := func(q string, answered bool) {
		t.Helper()
		want, werr := describe(ctx, db.db, q)
		got, gerr := db.Describe(ctx, q)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gerr, werr) {
			t.Errorf("%q:\n got %v, %#v\nwant %v, %#v", q, got, gerr, want, werr)
		}
		conn, err := db.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, done, _ := prepared(conn, q); done != answered {
			t.Errorf("%q: answered from the prepared statement = %v, want %v", q, done, answered)
		}
	}
	for _, q := range describeAnswered {
		check(q, true)
	}
	for _, q := range describeDeferred {
		check(q, false)
	}
	rows, err := db.Query(ctx, "SELECT count(*) FROM u")
	if err != nil || rows.Values[0][0].(int64) != 1 {
		t.Fatalf("preparing ran a statement: %v, %v", rows, err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, werr := describe(canceled, db.db, "select 1")
	if _, gerr := db.Describe(canceled, "select 1"); gerr == nil || !reflect.DeepEqual(gerr, werr) {
		t.Errorf("canceled: got %#v, want %#v", gerr, werr)
	}
}

// TestPreparedRunsNothing checks that the prepared path leaves several
// statements to DESCRIBE without running any of them.
func TestPreparedRunsNothing(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.Exec(ctx, describeSchema); err != nil {
		t.Fatal(err)
	}
	conn, err := db.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, done, err := prepared(conn, "select 1; insert into u values (2); select 3 as a, 4 as b"); done || err != nil {
		t.Fatalf("done = %v, err = %v", done, err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM u").Scan(&n); err != nil || n != 1 {
		t.Fatalf("count = %d, %v", n, err)
	}
}

func TestDescribeErrorPositions(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.Exec(ctx, describeSchema); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q        string
		typ      string
		position int
	}{
		{"select idd from s.every", "Binder", 7},
		{"select * from s.nope", "Catalog", 14},
		{"select * frm s.every", "Parser", 13},
		{"-- c\nselect\n  idd\nfrom s.every", "Binder", 14},
		{"with c as (select idd from s.every) select * from c", "Binder", 18},
		{"select 1 limit 'a'", "Conversion", 15},
	} {
		_, err := db.Describe(ctx, c.q)
		var se *engine.SQLError
		if !errors.As(err, &se) || se.Type != c.typ || se.Position != c.position {
			t.Errorf("%q: err = %#v, want %s at %d", c.q, err, c.typ, c.position)
		}
	}
}

func TestLeadingKeyword(t *testing.T) {
	for q, want := range map[string]string{
		"select 1":                   "SELECT",
		"  \n\tWith x as (select 1)": "WITH",
		"-- c\r\nfrom t":             "FROM",
		"/* a /* b */ c */values":    "VALUES",
		"/* a /* b */ select 1":      "",
		"((select 1))":               "(",
		"select*from t":              "SELECT",
		"selectü":                    "SELECTÜ",
		"describe t":                 "DESCRIBE",
		"-- only":                    "",
		"":                           "",
		"\"select\"":                 "",
	} {
		if got := leadingKeyword(q); got != want {
			t.Errorf("leadingKeyword(%q) = %q, want %q", q, got, want)
		}
	}
}

// BenchmarkDescribe compares Describe with running DESCRIBE.
func BenchmarkDescribe(b *testing.B) {
	db, err := Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if err := db.Exec(ctx, describeSchema); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, q string
		fails   bool
	}{
		{"relation", `SELECT * FROM "odd names"`, false},
		{"model", "with a as (select i, v, dec, ts from s.every where i > 0) select v, count(*) as n, sum(dec) as total, max(ts) as last from a group by all", false},
		{"wide", "select * exclude (" + deferredCols + ") from s.every", false},
		{"nested", "select i, l, st from s.every", false},
		{"binder-error", "select idd from s.every", true},
		{"parser-error", "select * frm s.every", true},
	} {
		for _, p := range []struct {
			name     string
			describe func(context.Context, string) ([]engine.Column, error)
		}{
			{"describe", func(ctx context.Context, q string) ([]engine.Column, error) { return describe(ctx, db.db, q) }},
			{"prepared", db.Describe},
		} {
			b.Run(c.name+"/"+p.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := p.describe(ctx, c.q); (err != nil) != c.fails {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
