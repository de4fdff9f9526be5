package postgres

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestBindTypesAsTheServer: for every expression the binder types, the
// type is the one the server gives the same expression over a table of
// the same columns ("" — unknown — is allowed; a wrong type is not), and
// a column declared in any spelling reads as a table built with it.
func TestBindTypesAsTheServer(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := schema(t, db)
	decl := []string{"i int4", "s int2", "b int8", "n numeric(10,2)", "r real", "d float8", "t text", "v varchar(20)",
		"c char(3)", "dt date", "ts timestamp", "tz timestamptz", "iv interval", "tm time", "j jsonb", "ja text[]", "bo bool"}
	rel := s + ".t"
	mustExec(t, db, "CREATE TABLE "+rel+" ("+strings.Join(decl, ", ")+")")
	rels := map[string][]engine.Column{rel: cols(decl...)}
	exprs := []string{
		// Declared spellings, as a cast.
		"i::numeric(8)", "i::decimal(8)", "i::decimal", "i::numeric(8,2)", "i::float(10)", "i::float(30)", "i::float",
		"t::char", "t::character", "t::varchar", "t::char(4)", "t::bit(3)", "ts::timestamp(3)", "ts::timestamptz(0)",
		"tm::time(2)", "iv::interval", "i::int", "i::smallint", "i::double precision", "t::\"char\"", "t::name",
		// Common types in CASE, COALESCE, VALUES.
		"CASE WHEN bo THEN r ELSE i END", "CASE WHEN bo THEN r ELSE n END", "CASE WHEN bo THEN r ELSE d END",
		"CASE WHEN bo THEN s ELSE b END", "CASE WHEN bo THEN i ELSE n END", "coalesce(r, 1)", "coalesce(2.5, r)",
		"coalesce(s, r)", "coalesce(v, t)", "coalesce(c, v)", "coalesce(dt, ts)", "coalesce(ts, tz)",
		"CASE WHEN bo THEN c ELSE 'x' END", "CASE WHEN bo THEN v ELSE 'x' END", "greatest(i, n)", "least(s, r)",
		// Operators.
		"r + i", "r * n", "s + s", "s + i", "i / b", "n / i", "d - r", "i % s", "2 ^ i", "n ^ i",
		"dt + i", "dt - dt", "dt + iv", "dt + tm", "tm + dt", "ts + iv", "tz - iv", "ts - ts", "tz - tz", "iv * i",
		"iv / 2", "tm + iv", "greatest(coalesce('a', 'x'), v)", "CASE WHEN bo THEN v ELSE c END", "CASE WHEN bo THEN c ELSE v END", "CASE WHEN bo THEN c WHEN i > 1 THEN v END", "coalesce(CASE WHEN bo THEN NULL END, v)", "iv::interval day + ts", "(iv::interval hour) * 2", "coalesce(iv::interval day, iv)", "tm - tm", "j -> 'k'", "j ->> 'k'", "j #> '{a}'", "j #>> '{a}'", "j -> 0", "j || j",
		"j @> j", "j ? 'k'", "j - 'k'", "ja || t", "t || ja", "ja || ja", "r || ARRAY[1, 2]", "ARRAY[1, 2] || n", "ja || 'x'::text", "'{a}' || ja", "ARRAY[s] || ARRAY[b]", "ja[1]", "t || i", "v || v", "c || c",
		"-i", "-s", "-n", "@ i", "i & 3", "ts::date", "tz::date",
		// Functions.
		"sum(s)", "sum(i)", "sum(b)", "sum(n)", "sum(r)", "sum(d)", "sum(iv)", "avg(s)", "avg(r)", "avg(iv)",
		"max(v)", "max(c)", "min(t)", "max(dt)", "max(n)", "count(*)", "abs(s)", "abs(n)", "round(n)", "round(d)",
		"round(n, 1)", "trunc(d)", "ceil(n)", "floor(r)", "mod(i, s)", "mod(b, i)", "power(i, 2)", "sqrt(n)",
		"length(c)", "upper(v)", "lower(c)", "substring(v, 1, 2)", "left(c, 1)", "concat(i, t)", "string_agg(v, ',')",
		"array_agg(v)", "array_agg(c)", "array_agg(n)", "array_agg(ja)", "date_trunc('day', ts)", "date_trunc('day', tz)",
		"date_trunc('day', dt)", "extract(year FROM dt)", "date_part('year', ts)", "age(ts)", "age(ts, ts)",
		"age(tz, tz)", "ts AT TIME ZONE 'UTC'", "tz AT TIME ZONE 'UTC'", "make_date(2024, 1, 1)", "to_char(ts, 'YYYY')",
		"now()", "current_date", "jsonb_typeof(j)", "jsonb_array_length(j)", "jsonb_build_object('a', i)",
		"to_jsonb(i)", "jsonb_agg(i)", "row_number() OVER ()", "lag(v) OVER ()", "lag(i, 1, 0) OVER ()",
		"lag(s, 1, 0) OVER ()", "first_value(c) OVER ()", "ntile(2) OVER ()", "nullif(s, 1)", "nullif(v, 'x')",
		"unnest(ja)", "generate_series(1, 3)", "generate_series(1, b)", "generate_series(ts, ts, iv)",
		"generate_series(dt, dt, iv)", "regexp_match(t, 'x')", "split_part(v, ',', 1)", "bool_and(bo)",
		"percentile_cont(0.5) WITHIN GROUP (ORDER BY n)", "percentile_disc(0.5) WITHIN GROUP (ORDER BY n)",
		"mode() WITHIN GROUP (ORDER BY v)", "array_length(ja, 1)", "cardinality(ja)", "array_position(ja, t)",
		"array[i, s]", "array[i, n]", "array[v, t]", "array[c]", "ARRAY(SELECT 1)", "(SELECT max(n) FROM " + rel + ")",
		"EXISTS (SELECT 1)", "i IN (1, 2)", "i = ANY (ARRAY[1])", "t LIKE 'x'", "i BETWEEN 1 AND 2", "i IS NULL",
		"CASE WHEN bo THEN v END", "CASE WHEN bo THEN v ELSE v END", "CASE WHEN bo THEN c ELSE c END", "coalesce(v, v)",
		"coalesce(n, n)", "coalesce(n, 1)", "coalesce(n, i)", "array[v, v]", "array[v, 'x']", "array[n]", "nullif(n, 1)",
		"nullif(c, 'x')", "nullif(i, s)", "nullif(t, 'x')", "lag(n) OVER ()", "lag(v, 1, t) OVER ()", "max(ts)",
		"array_agg(v)", "unnest(array[v])", "generate_series(1.5, n)", "min(ja)", "coalesce(ts::timestamp(2), ts::timestamp(2))",
		"ja[1:2]", "ja[:1]", "ja[i]", "array_remove(ja, 'x')", "array_append(ja, t)", "array_prepend(t, ja)",
		"array_cat(ja, ja)", "array_cat(ja, ARRAY['z'])", "date_bin(iv, ts, ts)", "date_bin(iv, tz, tz)",
		"percentile_cont(0.5) WITHIN GROUP (ORDER BY i)", "percentile_cont(0.5) WITHIN GROUP (ORDER BY iv)",
		"percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY d)", "percentile_disc(0.5) WITHIN GROUP (ORDER BY v)",
		"percentile_disc(ARRAY[0.5]) WITHIN GROUP (ORDER BY n)", "mode() WITHIN GROUP (ORDER BY c)",
		"rank(1) WITHIN GROUP (ORDER BY i)", "cume_dist(1) WITHIN GROUP (ORDER BY i)",
		"jsonb_path_query_first(j, '$.a')", "jsonb_path_query_array(j, '$.a')", "jsonb_extract_path(j, 'a')",
		"jsonb_extract_path_text(j, 'a')", "json_extract_path(j::json, 'a')", "jsonb_path_exists(j, '$.a')",
		"row(i, t)", "'x'", "NULL", "1.5", "1e3", "3000000000", "TRUE", "interval '1 day'", "date '2024-01-01'",
		"timestamp '2024-01-01'", "timestamptz '2024-01-01'", "time '12:00'", "B'101'", "'{}'::jsonb",
		"position('a' IN t)", "octet_length(v)", "char_length(c)", "md5(t)", "format('%s', i)", "regexp_replace(v, 'a', 'b')",
		"replace(c, 'a', 'b')", "lpad(c, 5)", "trim(c)", "btrim(c)", "rtrim(v)", "repeat(c, 2)", "reverse(v)",
		"stddev(i)", "stddev(d)", "variance(n)", "corr(d, d)", "bit_and(i)", "bit_or(s)", "every(bo)",
		"count(DISTINCT v)", "sum(i) FILTER (WHERE bo)", "i::text::int", "CAST(t AS jsonb)", "to_timestamp(1)",
		"to_date('2024', 'YYYY')", "to_number('1', '9')", "justify_days(iv)", "isfinite(ts)", "date_bin(iv, ts, ts)",
		"num_nonnulls(i, t)", "gen_random_uuid()", "encode(t::bytea, 'hex')", "sign(i)", "sign(n)", "exp(i)", "ln(n)",
		"log(i)", "log(n)", "pi()", "random()", "width_bucket(n, 0, 10, 2)", "scale(n)", "div(n, n)",
	}
	var queries []string
	for _, e := range exprs {
		queries = append(queries, "SELECT "+e+" AS x FROM "+rel)
	}
	// Set operations and VALUES resolve their columns' types alike.
	for _, q := range []string{
		"SELECT v AS x FROM %s UNION SELECT 'x'", "SELECT v AS x FROM %s UNION ALL SELECT v FROM %s",
		"SELECT c AS x FROM %s UNION SELECT v FROM %s", "SELECT s AS x FROM %s UNION SELECT r FROM %s",
		"SELECT n AS x FROM %s INTERSECT SELECT i FROM %s", "SELECT dt AS x FROM %s EXCEPT SELECT ts FROM %s",
		"SELECT x FROM (VALUES (1), (2.5)) AS v(x)", "SELECT x FROM (VALUES ('a'), (NULL)) AS v(x)",
		"SELECT x FROM (VALUES (1::real), (2)) AS v(x)",
		// A function of a base type in FROM: its name alone is its value.
		"SELECT e -> 'n' AS x FROM %s, jsonb_array_elements(j) AS e",
		"SELECT value AS x FROM %s, jsonb_each(j)", "SELECT e.key AS x FROM %s, jsonb_each_text(j) e",
		"SELECT e.value AS x FROM %s, json_each_text(j::json) e", "SELECT z.b AS x FROM %s, ROWS FROM (unnest(ja), generate_series(1, 3)) z(a, b)",
		"SELECT generate_series AS x FROM %s, ROWS FROM (unnest(ja), generate_series(1, 3))", "SELECT e AS x FROM %s, jsonb_array_elements(j) AS e",
		"SELECT u || '!' AS x FROM %s, unnest(ja) AS u(v)", "SELECT g + 1 AS x FROM generate_series(1, 3) AS g",
	} {
		queries = append(queries, strings.ReplaceAll(q, "%s", rel))
	}
	// Declared spellings: a table built with each reads as the binder
	// spells the declared type.
	spellings := []string{"int", "INT4", "integer", "smallint", "int8", "bigint", "serial", "numeric", "NUMERIC(8)", "decimal(10, 2)",
		"real", "float", "float(10)", "float(30)", "double precision", "float8", "text", "varchar", "VARCHAR(20)", "character varying(3)",
		"char", "character(4)", "bpchar", `"char"`, "bit", "bit(3)", `"bit"`, "varbit", "bit varying(5)", "bool", "date",
		"timestamp", "timestamp(3)", "timestamptz", "timestamp(0) with time zone", "time", "time(2)", "timetz", "interval",
		"interval day", "interval(3)", "interval year to month", "interval day to second(2)", "interval minute", "bigserial", "smallserial", "json", "jsonb", "uuid", "bytea", "text[]", "int[]", "varchar(5)[]", "numeric(4,1)[]", "name", "money", "inet"}
	var declCols []string
	for i, sp := range spellings {
		declCols = append(declCols, "c"+strconv.Itoa(i)+" "+sp)
	}
	mustExec(t, db, "CREATE TABLE "+s+".decl ("+strings.Join(declCols, ", ")+")")
	built, err := db.Describe(ctx, "SELECT * FROM "+s+".decl")
	if err != nil {
		t.Fatal(err)
	}
	spelled, err := Parser{}.Bind("SELECT * FROM "+s+".decl", map[string][]engine.Column{s + ".decl": cols(declCols...)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range spellings {
		if spelled[i].Type != built[i].Type {
			t.Errorf("a column declared %s: the binder spells it %s, a table built with it %s", spellings[i], spelled[i].Type, built[i].Type)
		}
	}

	var bad, unknown []string
	for _, q := range queries {
		want, err := db.Describe(ctx, q)
		if err != nil {
			t.Errorf("%s: the server: %v", q, err)
			continue
		}
		got, err := Parser{}.Bind(q, rels)
		if err != nil {
			t.Errorf("%s: the binder: %v", q, err)
			continue
		}
		if len(got) != 1 || len(want) != 1 {
			t.Errorf("%s: %v, the server %v", q, got, want)
			continue
		}
		if got[0].Type == "" {
			unknown = append(unknown, q)
		} else if got[0].Type != want[0].Type {
			bad = append(bad, q+": "+got[0].Type+", the server: "+want[0].Type)
		}
	}
	for _, q := range []string{"dt + tm", "tm + dt", "e -> 'n'", "g + 1"} {
		for _, u := range unknown {
			if strings.Contains(u, q) {
				t.Errorf("%s: the binder does not type it", u)
			}
		}
	}
	t.Logf("%d of %d queries typed; not: %v", len(queries)-len(unknown), len(queries), unknown)
	if len(bad) > 0 {
		t.Errorf("the binder types %d expressions otherwise than the server:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}
