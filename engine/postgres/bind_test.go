package postgres

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// cols builds columns from "name type" specs (the name is up to the first
// space).
func cols(specs ...string) []engine.Column {
	out := make([]engine.Column, len(specs))
	for i, s := range specs {
		name, typ, _ := strings.Cut(s, " ")
		out[i] = engine.Column{Name: name, Type: typ}
	}
	return out
}

// bindRelations stand for the declared columns of a project's models, keyed
// as the planner renders @ref(x): "schema.table".
var bindRelations = map[string][]engine.Column{
	"med.patients": cols("id integer", "name text", "born date", "ward_id integer"),
	"med.wards":    cols("id integer", "name text", "beds smallint"),
	"med.moves":    cols("patient_id integer", "ward_id integer", "moved_at timestamp with time zone", "cost numeric(10,2)"),
	// An unqualified relation, for a CTE to shadow.
	"patients": cols("legacy_id bigint"),
	// Hostile quoted names: spaces, quotes, upper case, non-ASCII.
	`raw.Weird "Name"`: {{Name: `Sp ace "q"`, Type: "text"}, {Name: "Ünï", Type: "int"}},
}

func TestBindColumns(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want []engine.Column
	}{
		{"plain", `SELECT id, name FROM med.patients`, cols("id integer", "name text")},
		{"quoted ref as rendered", `SELECT p.id FROM "med"."patients" AS p`, cols("id integer")},
		{"star in FROM order", `SELECT * FROM med.wards w, med.patients p`,
			cols("id integer", "name text", "beds smallint", "id integer", "name text", "born date", "ward_id integer")},
		{"alias star and column", `SELECT w.*, p.id FROM med.patients p JOIN med.wards w ON w.id = p.ward_id`,
			cols("id integer", "name text", "beds smallint", "id integer")},
		{"schema.table.column and schema.table.*", `SELECT med.patients.name, med.patients.* FROM med.patients`,
			cols("name text", "id integer", "name text", "born date", "ward_id integer")},
		{"column aliases in FROM", `SELECT a, b, beds FROM med.wards AS w(a, b)`, cols("a integer", "b text", "beds smallint")},
		{"output aliases", `SELECT id AS patient, name "Full Name" FROM med.patients`,
			[]engine.Column{{Name: "patient", Type: "integer"}, {Name: "Full Name", Type: "text"}}},
		{"join using merges the column", `SELECT * FROM med.patients p JOIN med.moves m USING (ward_id)`,
			cols("ward_id integer", "id integer", "name text", "born date", "patient_id integer", "moved_at timestamp with time zone", "cost numeric(10,2)")},
		{"using column is unambiguous", `SELECT ward_id, p.ward_id, m.ward_id FROM med.patients p JOIN med.moves m USING (ward_id)`,
			cols("ward_id integer", "ward_id integer", "ward_id integer")},
		{"natural join", `SELECT * FROM med.patients NATURAL JOIN med.wards`,
			cols("id integer", "name text", "born date", "ward_id integer", "beds smallint")},
		{"join using alias", `SELECT j.ward_id FROM med.patients p LEFT JOIN med.moves m USING (ward_id) AS j`, cols("ward_id integer")},
		{"aliased join with column aliases", `SELECT j.* FROM (med.patients JOIN med.moves USING (ward_id)) AS j(w)`,
			cols("w integer", "id integer", "name text", "born date", "patient_id integer", "moved_at timestamp with time zone", "cost numeric(10,2)")},
		{"nested joins", `SELECT ward_id, beds FROM med.patients p JOIN med.moves m USING (ward_id) JOIN med.wards w ON w.id = ward_id`,
			cols("ward_id integer", "beds smallint")},
		{"subquery in FROM", `SELECT s.n, s.c FROM (SELECT name AS n, count(*) AS c FROM med.patients GROUP BY name) s`,
			cols("n text", "c bigint")},
		{"subquery without alias", `SELECT n FROM (SELECT name AS n FROM med.patients)`, cols("n text")},
		{"CTE", `WITH w AS (SELECT id AS ward, beds FROM med.wards) SELECT ward, beds FROM w`, cols("ward integer", "beds smallint")},
		{"CTE column aliases", `WITH w(a, b) AS (SELECT id, beds FROM med.wards) SELECT * FROM w`, cols("a integer", "b smallint")},
		{"CTE sees earlier CTE", `WITH a AS (SELECT id FROM med.wards), b AS (SELECT id + 1 AS n FROM a) SELECT n FROM b`, cols("n integer")},
		{"CTE shadows a relation", `WITH patients AS (SELECT 1 AS x) SELECT x FROM patients`, cols("x integer")},
		{"CTE does not shadow a qualified name", `WITH patients AS (SELECT 1 AS x) SELECT name FROM med.patients`, cols("name text")},
		{"recursive CTE", `WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT n FROM t`, cols("n integer")},
		{"LATERAL subquery", `SELECT p.name, l.last FROM med.patients p, LATERAL (SELECT max(moved_at) AS last FROM med.moves m WHERE m.patient_id = p.id) l`,
			cols("name text", "last timestamp with time zone")},
		{"LATERAL join", `SELECT p.id, l.n FROM med.patients p LEFT JOIN LATERAL (SELECT count(*) AS n FROM med.moves WHERE patient_id = p.id) l ON true`,
			cols("id integer", "n bigint")},
		{"function in FROM sees left items", `SELECT p.id, g FROM med.patients p, generate_series(1, p.id) g`, cols("id integer", "g integer")},
		{"function in FROM named after itself", `SELECT generate_series FROM generate_series(1, 3)`, cols("generate_series integer")},
		{"WITH ORDINALITY", `SELECT x, ordinality FROM unnest(ARRAY[1, 2]) WITH ORDINALITY AS u(x)`, cols("x integer", "ordinality bigint")},
		{"column definition list", `SELECT x.a, x.b FROM json_to_record('{}') AS x(a int, b text)`, cols("a integer", "b text")},
		{"opaque function columns are not checked", `SELECT j.key, j.anything, anything FROM ext.each('{}') j`, cols("key ", "anything ", "anything ")},
		{"UNION names from the left arm", `SELECT id AS k, name FROM med.patients UNION SELECT id, name FROM med.wards ORDER BY name, 1`,
			cols("k integer", "name text")},
		{"UNION common type", `SELECT id FROM med.patients UNION ALL SELECT cost FROM med.moves`, cols("id numeric")},
		{"UNION resolves NULL", `SELECT NULL AS x UNION SELECT 1`, cols("x integer")},
		{"INTERSECT and EXCEPT", `SELECT id FROM med.patients INTERSECT SELECT id FROM med.wards EXCEPT SELECT ward_id FROM med.moves`, cols("id integer")},
		{"VALUES", `VALUES (1, 2.5), (2, NULL)`, cols("column1 integer", "column2 numeric")},
		{"VALUES in FROM", `SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, label)`, cols("id integer", "label text")},
		{"correlated subquery", `SELECT p.name, (SELECT count(*) FROM med.moves m WHERE m.patient_id = p.id) AS n FROM med.patients p WHERE EXISTS (SELECT 1 FROM med.moves WHERE patient_id = p.id)`,
			cols("name text", "n bigint")},
		{"inner level wins over outer", `SELECT (SELECT name FROM med.wards w WHERE w.id = p.ward_id) FROM med.patients p`, cols("name text")},
		{"GROUP BY output alias and ORDER BY alias", `SELECT ward_id AS w, count(*) FROM med.moves GROUP BY w ORDER BY w`, cols("w integer", "count bigint")},
		{"GROUP BY input column wins over alias", `SELECT name AS id FROM med.patients GROUP BY id, name`, cols("id text")},
		{"GROUP BY and ORDER BY ordinals", `SELECT ward_id, count(*) FROM med.moves GROUP BY 1 ORDER BY 2 DESC`, cols("ward_id integer", "count bigint")},
		{"GROUPING SETS", `SELECT ward_id, patient_id, grouping(ward_id) FROM med.moves GROUP BY ROLLUP (ward_id, patient_id)`,
			cols("ward_id integer", "patient_id integer", "grouping integer")},
		{"DISTINCT ON", `SELECT DISTINCT ON (patient_id) patient_id, moved_at FROM med.moves ORDER BY patient_id, moved_at DESC`,
			cols("patient_id integer", "moved_at timestamp with time zone")},
		{"window functions", `SELECT patient_id, row_number() OVER (PARTITION BY ward_id ORDER BY moved_at) AS rn, sum(cost) OVER w, lag(cost) OVER w, rank() OVER w FROM med.moves WINDOW w AS (PARTITION BY ward_id ORDER BY moved_at)`,
			cols("patient_id integer", "rn bigint", "sum numeric", "lag numeric", "rank bigint")},
		{"aggregate FILTER", `SELECT count(*) FILTER (WHERE cost > 0) AS paid FROM med.moves`, cols("paid bigint")},
		{"whole-row reference", `SELECT p, count(p.*) FROM med.patients p GROUP BY p`, cols("p ", "count bigint")},
		{"parameters", `SELECT id FROM med.patients WHERE born >= $1 AND born < $2`, cols("id integer")},
		{"names and types of expressions",
			`SELECT count(*), sum(beds), avg(beds), 1, 'x', now(), CAST(beds AS numeric(10,2)), beds::text, 1::int,
			        CASE WHEN beds > 1 THEN name END, CASE WHEN beds > 1 THEN 'many' ELSE 'few' END, coalesce(name, 'x'),
			        (SELECT max(id) FROM med.patients), EXISTS (SELECT 1), ARRAY[1], upper(name), current_date,
			        NULLIF(beds, 0), beds + 1, -beds, TRUE, 1.5, 10000000000, NULL, beds > 1 AND id < 3, name IS NULL
			 FROM med.wards`,
			cols("count bigint", "sum bigint", "avg numeric", "?column? integer", "?column? text", "now timestamp with time zone",
				"beds numeric(10,2)", "beds text", "int4 integer", "case text", "case text", "coalesce text",
				"max integer", "exists boolean", "array integer[]", "upper text", "current_date date",
				"nullif smallint", "?column? integer", "?column? smallint", "?column? boolean", "?column? numeric", "?column? bigint", "?column? text",
				"?column? boolean", "?column? boolean")},
		{"casts", `SELECT id::int8 AS a, name::varchar(3)[] AS b, born::timestamptz AS c, born::timestamp(3) AS d, name::char AS e,
			CAST(id AS double precision) AS f, id::"MyType" AS g, id::ext.thing AS h, INTERVAL '1 day' AS i, DATE '2000-01-01' AS j FROM med.patients`,
			cols("a bigint", "b character varying(3)[]", "c timestamp with time zone", "d timestamp(3) without time zone",
				"e character(1)", "f double precision", `g "MyType"`, "h ext.thing", "i interval", "j date")},
		{"time arithmetic", `SELECT moved_at AT TIME ZONE 'UTC' AS utc, date_trunc('day', moved_at) AS d, moved_at - interval '1 day' AS prev,
			extract(year FROM moved_at) AS y, cost * 2 AS c2, born - born AS days, born + 1 AS next FROM med.moves, med.patients`,
			cols("utc timestamp without time zone", "d timestamp with time zone", "prev timestamp with time zone",
				"y numeric", "c2 numeric", "days integer", "next date")},
		{"hostile quoted names", `SELECT "Sp ace ""q""", w."Ünï" FROM raw."Weird ""Name""" AS w`,
			[]engine.Column{{Name: `Sp ace "q"`, Type: "text"}, {Name: "Ünï", Type: "integer"}}},
		{"hostile unaliased qualifier", `SELECT "Weird ""Name"""."Ünï" FROM raw."Weird ""Name"""`,
			[]engine.Column{{Name: "Ünï", Type: "integer"}}},
		{"hostile USING", `SELECT "Ünï" FROM raw."Weird ""Name""" a JOIN raw."Weird ""Name""" b USING ("Ünï")`,
			[]engine.Column{{Name: "Ünï", Type: "integer"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parser{}.Bind(tt.sql, bindRelations)
			if err != nil {
				t.Fatalf("Bind: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("columns\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestBindOpaque: a * over something only a server could describe gives
// no columns and no error.
// TestBindGroupedIsFine: what PostgreSQL accepts in a grouped query the
// not-grouped rule lets be.
func TestBindGroupedIsFine(t *testing.T) {
	for _, sql := range []string{
		`SELECT ward_id, count(*) AS n FROM med.patients GROUP BY ward_id`,
		`SELECT p.ward_id, count(*) AS n FROM med.patients p GROUP BY ward_id`,
		`SELECT ward_id, name FROM med.patients GROUP BY GROUPING SETS ((ward_id), (name))`,
		`SELECT ward_id FROM med.patients p JOIN med.moves m USING (ward_id) GROUP BY p.ward_id`,
		`SELECT upper(name) AS u FROM med.patients GROUP BY upper(name)`,
		`SELECT name AS n FROM med.patients GROUP BY n`,
		`SELECT name FROM med.patients GROUP BY 1`,
		`SELECT w.id, (SELECT max(p.id) FROM med.patients p WHERE p.ward_id = w.id) AS m FROM med.wards w GROUP BY w.id`,
	} {
		if _, err := (Parser{}).Bind(sql, bindRelations); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

func TestBindOpaque(t *testing.T) {
	for _, sql := range []string{
		`SELECT * FROM ext.each('{}')`,
		`SELECT p.*, j.* FROM med.patients p, ext.each('{}') j`,
		`SELECT * FROM (SELECT * FROM ext.each('{}')) s`,
		`WITH d AS (DELETE FROM med.moves RETURNING *) SELECT * FROM d`,
	} {
		got, err := Parser{}.Bind(sql, bindRelations)
		if err != nil || got != nil {
			t.Errorf("Bind(%s) = %v, %v; want nil, nil", sql, got, err)
		}
	}
}

func TestBindErrors(t *testing.T) {
	tests := []struct {
		name  string
		sql   string
		typ   string
		sub   string
		at    string // the error is at the first occurrence of at
		ident string // SQLError.Name
		cands []string
		msg   string
	}{
		{"unknown column", `SELECT pateint_id FROM med.moves`,
			"Binder", "COLUMN_NOT_FOUND", "pateint_id", "pateint_id", []string{"patient_id"}, `column "pateint_id" does not exist`},
		{"unknown qualified column", `SELECT 1 FROM med.patients p JOIN med.wards w ON w.id = p.wardid`,
			"Binder", "COLUMN_NOT_FOUND", "p.wardid", "wardid", []string{"ward_id"}, `column p.wardid does not exist`},
		{"unknown schema.table.column", `SELECT med.patients.nme FROM med.patients`,
			"Binder", "COLUMN_NOT_FOUND", "med.patients.nme", "nme", []string{"name"}, `column patients.nme does not exist`},
		{"ambiguous column", `SELECT id FROM med.patients p JOIN med.wards w ON w.id = p.ward_id`,
			"Binder", "AMBIGUOUS_COLUMN", "id", "id", []string{"p.id", "w.id"}, `column reference "id" is ambiguous`},
		{"ambiguous across FROM list", `SELECT name FROM med.patients, med.wards`,
			"Binder", "AMBIGUOUS_COLUMN", "name", "name", []string{"patients.name", "wards.name"}, `column reference "name" is ambiguous`},
		{"unknown relation", `SELECT x FROM med.patient`,
			"Catalog", "UNDEFINED_TABLE", "med.patient", "med.patient", []string{"med.patients"}, `relation "med.patient" does not exist`},
		{"unknown quoted relation", `SELECT 1 FROM "med"."Patients"`,
			"Catalog", "UNDEFINED_TABLE", `"med"`, "med.Patients", []string{"med.patients"}, `relation "med.Patients" does not exist`},
		{"columns of an unknown relation raise nothing more", `SELECT x.a, b FROM med.nope x WHERE c`,
			"Catalog", "UNDEFINED_TABLE", "med.nope", "med.nope", []string{"med.moves"}, `relation "med.nope" does not exist`},
		{"missing FROM entry", `SELECT q.id FROM med.patients p`,
			"Binder", "UNDEFINED_TABLE", "q.id", "q", nil, `missing FROM-clause entry for table "q"`},
		{"alias hides the table name", `SELECT patients.id FROM med.patients p`,
			"Binder", "UNDEFINED_TABLE", "patients.id", "patients", nil, `missing FROM-clause entry for table "patients"`},
		{"aliased join hides its tables", `SELECT p.id FROM (med.patients p JOIN med.moves USING (ward_id)) AS j`,
			"Binder", "UNDEFINED_TABLE", "p.id", "p", nil, `missing FROM-clause entry for table "p"`},
		{"subquery needs LATERAL", `SELECT 1 FROM med.patients p, (SELECT 1 FROM med.moves m WHERE m.patient_id = p.id) s`,
			"Binder", "UNDEFINED_TABLE", "p.id", "p", nil, "invalid reference to FROM-clause entry for table \"p\"\nHINT: To reference that table, you must mark this subquery with LATERAL."},
		{"sibling column in non-LATERAL subquery", `SELECT 1 FROM med.patients p, (SELECT 1 FROM med.moves WHERE patient_id = born) s`,
			"Binder", "COLUMN_NOT_FOUND", "born", "born", nil, "column \"born\" does not exist\nHINT: There is a column named \"born\" in table \"p\", but it cannot be referenced from this part of the query."},
		{"JOIN condition sees only its join", `SELECT 1 FROM med.patients p, med.wards w JOIN med.moves m ON m.ward_id = w.id AND m.patient_id = p.id`,
			"Binder", "UNDEFINED_TABLE", "p.id", "p", nil, "invalid reference to FROM-clause entry for table \"p\"\nHINT: There is an entry for table \"p\", but it cannot be referenced from this part of the query."},
		{"WHERE", `SELECT 1 FROM med.patients WHERE upper(nam) = 'X'`,
			"Binder", "COLUMN_NOT_FOUND", "nam)", "nam", []string{"name"}, `column "nam" does not exist`},
		{"WHERE cannot see output aliases", `SELECT name AS n FROM med.patients WHERE n = 'x'`,
			"Binder", "COLUMN_NOT_FOUND", "n =", "n", nil, `column "n" does not exist`},
		{"GROUP BY", `SELECT count(*) FROM med.moves GROUP BY ward_idd`,
			"Binder", "COLUMN_NOT_FOUND", "ward_idd", "ward_idd", []string{"ward_id"}, `column "ward_idd" does not exist`},
		{"GROUP BY ordinal out of range", `SELECT ward_id, count(*) FROM med.moves GROUP BY 3`,
			"Binder", "INVALID_COLUMN_REFERENCE", "3", "", nil, `GROUP BY position 3 is not in select list`},
		{"GROUPING SETS content", `SELECT 1 FROM med.moves GROUP BY GROUPING SETS ((ward_id), (patientid))`,
			"Binder", "COLUMN_NOT_FOUND", "patientid", "patientid", []string{"patient_id"}, `column "patientid" does not exist`},
		{"HAVING", `SELECT ward_id FROM med.moves GROUP BY ward_id HAVING sum(cots) > 1`,
			"Binder", "COLUMN_NOT_FOUND", "cots", "cots", []string{"cost"}, `column "cots" does not exist`},
		{"ORDER BY", `SELECT id FROM med.patients ORDER BY nmae`,
			"Binder", "COLUMN_NOT_FOUND", "nmae", "nmae", []string{"name"}, `column "nmae" does not exist`},
		{"ORDER BY alias inside an expression", `SELECT name AS n FROM med.patients ORDER BY n || 'x'`,
			"Binder", "COLUMN_NOT_FOUND", "n ||", "n", nil, `column "n" does not exist`},
		{"ORDER BY ordinal out of range", `SELECT id FROM med.patients ORDER BY 2`,
			"Binder", "INVALID_COLUMN_REFERENCE", "2", "", nil, `ORDER BY position 2 is not in select list`},
		{"ORDER BY non-integer constant", `SELECT id FROM med.patients ORDER BY 'x'`,
			"Parser", "SYNTAX_ERROR", "'x'", "", nil, `non-integer constant in ORDER BY`},
		{"ORDER BY ambiguous output name", `SELECT p.id, w.id FROM med.patients p JOIN med.wards w ON w.id = p.ward_id ORDER BY id`,
			"Binder", "AMBIGUOUS_COLUMN", "id\x00", "id", []string{"p.id", "w.id"}, `ORDER BY "id" is ambiguous`},
		{"DISTINCT ON", `SELECT DISTINCT ON (patiend_id) patient_id FROM med.moves`,
			"Binder", "COLUMN_NOT_FOUND", "patiend_id", "patiend_id", []string{"patient_id"}, `column "patiend_id" does not exist`},
		{"window in select list", `SELECT row_number() OVER (PARTITION BY wardid) FROM med.moves`,
			"Binder", "COLUMN_NOT_FOUND", "wardid", "wardid", []string{"ward_id"}, `column "wardid" does not exist`},
		{"WINDOW clause", `SELECT rank() OVER w FROM med.moves WINDOW w AS (ORDER BY moved)`,
			"Binder", "COLUMN_NOT_FOUND", "moved)", "moved", []string{"moved_at"}, `column "moved" does not exist`},
		{"aggregate FILTER", `SELECT count(*) FILTER (WHERE cots > 0) FROM med.moves`,
			"Binder", "COLUMN_NOT_FOUND", "cots", "cots", []string{"cost"}, `column "cots" does not exist`},
		{"CASE", `SELECT CASE WHEN beds > 1 THEN nme ELSE 'x' END FROM med.wards`,
			"Binder", "COLUMN_NOT_FOUND", "nme", "nme", []string{"name"}, `column "nme" does not exist`},
		{"IN list", `SELECT 1 FROM med.patients WHERE id IN (1, idd)`,
			"Binder", "COLUMN_NOT_FOUND", "idd", "idd", []string{"id"}, `column "idd" does not exist`},
		{"correlated subquery", `SELECT 1 FROM med.patients p WHERE EXISTS (SELECT 1 FROM med.moves m WHERE m.patient_id = p.idd)`,
			"Binder", "COLUMN_NOT_FOUND", "p.idd", "idd", []string{"id"}, `column p.idd does not exist`},
		{"scalar subquery", `SELECT (SELECT max(bed) FROM med.wards) FROM med.patients`,
			"Binder", "COLUMN_NOT_FOUND", "bed)", "bed", []string{"beds"}, `column "bed" does not exist`},
		{"LATERAL", `SELECT 1 FROM med.patients p, LATERAL (SELECT 1 FROM med.moves m WHERE m.patient_id = p.pid) l`,
			"Binder", "COLUMN_NOT_FOUND", "p.pid", "pid", []string{"id"}, `column p.pid does not exist`},
		{"function argument in FROM", `SELECT 1 FROM med.patients p, generate_series(1, p.nid) g`,
			"Binder", "COLUMN_NOT_FOUND", "p.nid", "nid", []string{"id"}, `column p.nid does not exist`},
		{"JOIN USING", `SELECT 1 FROM med.patients p JOIN med.moves m USING (ward_idd)`,
			"Binder", "COLUMN_NOT_FOUND", "ward_idd", "ward_idd", []string{"ward_id"}, `column "ward_idd" specified in USING clause does not exist in left table`},
		{"JOIN USING right side", `SELECT 1 FROM med.patients p JOIN med.moves m USING (ward_id, id)`,
			"Binder", "COLUMN_NOT_FOUND", "id)", "id", nil, `column "id" specified in USING clause does not exist in right table`},
		{"nested USING lists with the same names", `SELECT 1 FROM med.patients a JOIN (med.wards b JOIN med.patients c USING (id)) USING (id, nope)`,
			"Binder", "COLUMN_NOT_FOUND", "nope", "nope", []string{"name"}, `column "nope" specified in USING clause does not exist in left table`},
		{"CTE", `WITH w AS (SELECT id, bedz FROM med.wards) SELECT * FROM w`,
			"Binder", "COLUMN_NOT_FOUND", "bedz", "bedz", []string{"beds"}, `column "bedz" does not exist`},
		{"CTE shadowing hides the relation's columns", `WITH patients AS (SELECT 1 AS x) SELECT legacy_id FROM patients`,
			"Binder", "COLUMN_NOT_FOUND", "legacy_id", "legacy_id", nil, `column "legacy_id" does not exist`},
		{"CTE output goes by its own names", `WITH w AS (SELECT id AS ward FROM med.wards) SELECT id FROM w`,
			"Binder", "COLUMN_NOT_FOUND", "id FROM w", "id", nil, `column "id" does not exist`},
		{"CTE too many column aliases", `WITH w(a, b, c, d) AS (SELECT * FROM med.wards) SELECT a FROM w`,
			"Binder", "INVALID_COLUMN_REFERENCE", "w(a", "w", nil, `WITH query "w" has 3 columns available but 4 columns specified`},
		{"non-recursive CTE does not see later ones", `WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a`,
			"Catalog", "UNDEFINED_TABLE", "b)", "b", nil, `relation "b" does not exist`},
		{"recursive term", `WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT m + 1 FROM t WHERE n < 10) SELECT n FROM t`,
			"Binder", "COLUMN_NOT_FOUND", "m + 1", "m", nil, `column "m" does not exist`},
		{"UNION arm", `SELECT id FROM med.patients UNION SELECT idd FROM med.wards`,
			"Binder", "COLUMN_NOT_FOUND", "idd", "idd", []string{"id"}, `column "idd" does not exist`},
		{"UNION ORDER BY sees result columns only", `SELECT id FROM med.patients UNION SELECT id FROM med.wards ORDER BY name`,
			"Binder", "COLUMN_NOT_FOUND", "name", "name", nil, `column "name" does not exist`},
		{"UNION column count", `SELECT id, name FROM med.patients UNION SELECT id FROM med.wards`,
			"Parser", "SYNTAX_ERROR", "id FROM med.wards", "", nil, `each UNION query must have the same number of columns`},
		{"VALUES", `SELECT * FROM (VALUES (1, nope)) v`,
			"Binder", "COLUMN_NOT_FOUND", "nope", "nope", nil, `column "nope" does not exist`},
		{"too many column aliases", `SELECT a FROM med.wards AS w(a, b, c, d)`,
			"Binder", "INVALID_COLUMN_REFERENCE", "med.wards", "w", nil, `table "w" has 3 columns available but 4 columns specified`},
		{"table twice", `SELECT 1 FROM med.patients, med.patients`,
			"Binder", "DUPLICATE_ALIAS", "med.patients\x00", "patients", nil, `table name "patients" specified more than once`},
		{"alias twice", `SELECT 1 FROM med.patients p JOIN med.wards p ON true`,
			"Binder", "DUPLICATE_ALIAS", "med.wards", "p", nil, `table name "p" specified more than once`},
		{"star without FROM", `SELECT *`,
			"Parser", "SYNTAX_ERROR", "*", "", nil, `SELECT * with no tables specified is not valid`},
		{"alias.* of nothing", `SELECT q.* FROM med.patients p`,
			"Binder", "UNDEFINED_TABLE", "q.*", "q", nil, `missing FROM-clause entry for table "q"`},
		{"hostile quoted column", `SELECT "Sp ace ""Q""" FROM raw."Weird ""Name"""`,
			"Binder", "COLUMN_NOT_FOUND", `"Sp ace`, `Sp ace "Q"`, []string{`Sp ace "q"`}, `column "Sp ace \"Q\"" does not exist`},
		{"hostile USING after non-ASCII", `SELECT 'é' FROM raw."Weird ""Name""" a JOIN raw."Weird ""Name""" b USING ("Ünï", "nope ""x""")`,
			"Binder", "COLUMN_NOT_FOUND", `"nope`, `nope "x"`, nil, `column "nope \"x\"" specified in USING clause does not exist in left table`},
		{"a column neither grouped nor aggregated", `SELECT p.name, count(*) AS n FROM med.patients p GROUP BY p.ward_id`,
			"Binder", "NOT_GROUPED", "p.name", "name", nil, `column "p.name" must appear in the GROUP BY clause or be used in an aggregate function`},
		{"grouped by a column that is no key", `SELECT born, name FROM med.patients GROUP BY id`,
			"Binder", "NOT_GROUPED", "born", "born", nil, `column "patients.born" must appear in the GROUP BY clause or be used in an aggregate function`},
		{"QUALIFY is not PostgreSQL", `SELECT id FROM med.patients QUALIFY row_number() OVER () = 1`,
			"Parser", "SYNTAX_ERROR", "row_number", "", nil, `syntax error at or near "row_number"`},
		{"syntax error after non-ASCII", `SELECT 'ü', "Ñ" FROM FROM med.patients`,
			"Parser", "SYNTAX_ERROR", "FROM med", "", nil, `syntax error at or near "FROM"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cols, err := Parser{}.Bind(tt.sql, bindRelations)
			if err == nil {
				t.Fatalf("Bind = %v, nil; want an error", cols)
			}
			if cols != nil {
				t.Errorf("columns = %v, want nil with an error", cols)
			}
			var se *engine.SQLError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not an *engine.SQLError", err, err)
			}
			want := strings.Index(tt.sql, strings.TrimSuffix(tt.at, "\x00"))
			if strings.HasSuffix(tt.at, "\x00") { // the last occurrence
				want = strings.LastIndex(tt.sql, strings.TrimSuffix(tt.at, "\x00"))
			}
			if want < 0 {
				t.Fatalf("bad test: %q is not in the SQL", tt.at)
			}
			if se.Type != tt.typ || se.Subtype != tt.sub || se.Message != tt.msg || se.Position != want ||
				se.Name != tt.ident || !reflect.DeepEqual(se.Candidates, tt.cands) {
				t.Errorf("got  %s/%s %q at %d name %q candidates %q\nwant %s/%s %q at %d name %q candidates %q",
					se.Type, se.Subtype, se.Message, se.Position, se.Name, se.Candidates,
					tt.typ, tt.sub, tt.msg, want, tt.ident, tt.cands)
			}
		})
	}
}

// TestBindPositionsAreBytes pins that positions count bytes, not
// characters, with multi-byte text in literals, quoted names and comments
// before the error: pg_query's node locations and scanner tokens are byte
// offsets (its syntax-error cursor is the one counting characters).
func TestBindPositionsAreBytes(t *testing.T) {
	tests := []struct {
		sql   string
		pos   int // a byte offset
		chars int // the same place counted in characters
		at    string
	}{
		// 'héllo wörld' is 13 characters but 15 bytes, "ñame" 6 and 7.
		{`SELECT 'héllo wörld' AS "ñame", nmae FROM med.patients`, 35, 32, "nmae"},
		{"SELECT id -- ünïcödé\n, bedz FROM med.wards", 27, 23, "bedz"},
		{`SELECT w."Ünï", w.nope FROM raw."Weird ""Name""" w`, 18, 16, "w.nope"},
		// A scanner position: the USING name after a multi-byte literal.
		{`SELECT 'ß' FROM med.patients JOIN med.wards USING (idx)`, 52, 51, "idx"},
		// The syntax-error cursor, converted from characters.
		{`SELECT 'ü', "Ñ" FROM FROM med.patients`, 23, 21, "FROM med"},
	}
	for _, tt := range tests {
		_, err := Parser{}.Bind(tt.sql, bindRelations)
		var se *engine.SQLError
		if !errors.As(err, &se) {
			t.Fatalf("Bind(%s): %v, want an *engine.SQLError", tt.sql, err)
		}
		if se.Position != tt.pos || !strings.HasPrefix(tt.sql[tt.pos:], tt.at) || len([]rune(tt.sql[:tt.pos])) != tt.chars {
			t.Errorf("Bind(%s): error at %d, want byte %d (%q, character %d)", tt.sql, se.Position, tt.pos, tt.at, tt.chars)
		}
	}
}

// TestBindAllErrors: every problem is reported, in source order; errors.As
// finds the first.
func TestBindAllErrors(t *testing.T) {
	sql := `SELECT nme, (SELECT max(bed) FROM med.wards) FROM med.patients p WHERE p.idd > 0 AND EXISTS (SELECT n.x FROM med.nope n) ORDER BY 9`
	_, err := Parser{}.Bind(sql, bindRelations)
	var first *engine.SQLError
	if !errors.As(err, &first) || first.Name != "nme" {
		t.Fatalf("errors.As: %v, want the error about nme first", err)
	}
	u, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %T does not unwrap to a list", err)
	}
	var got, want []string
	for _, e := range u.Unwrap() {
		se := e.(*engine.SQLError)
		got = append(got, fmt.Sprintf("%d %s", se.Position, se.Subtype))
	}
	for _, w := range []struct{ at, sub string }{
		{"nme", "COLUMN_NOT_FOUND"}, {"bed", "COLUMN_NOT_FOUND"}, {"p.idd", "COLUMN_NOT_FOUND"},
		{"med.nope", "UNDEFINED_TABLE"}, {"9", "INVALID_COLUMN_REFERENCE"},
	} {
		want = append(want, fmt.Sprintf("%d %s", strings.Index(sql, w.at), w.sub))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors\n got %q\nwant %q", got, want)
	}
}

func TestBindNotOneSelect(t *testing.T) {
	for sql, msg := range map[string]string{
		"SELECT 1; SELECT 2":       "a model body must be exactly one SELECT statement, found 2",
		"":                         "a model body must be exactly one SELECT statement, found 0",
		"INSERT INTO t VALUES (1)": "a model body must be a SELECT statement, found InsertStmt",
	} {
		_, err := Parser{}.Bind(sql, bindRelations)
		var se *engine.SQLError
		if !errors.As(err, &se) || se.Type != "Parser" || se.Message != msg || se.Position != -1 {
			t.Errorf("Bind(%q) = %v, want Parser error %q", sql, err, msg)
		}
	}
}

// FuzzBind: no input panics the binder, and an error is always positioned
// inside the text or at -1.
func FuzzBind(f *testing.F) {
	for _, s := range []string{
		`SELECT p.name, l.last FROM med.patients p, LATERAL (SELECT max(moved_at) AS last FROM med.moves m WHERE m.patient_id = p.id) l`,
		`WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT n FROM t ORDER BY 1`,
		`SELECT * FROM med.patients p JOIN med.moves m USING (ward_id) AS j NATURAL JOIN med.wards`,
		`SELECT DISTINCT ON (1) ward_id, count(*) FILTER (WHERE cost > 0) OVER w FROM med.moves GROUP BY ROLLUP (1) WINDOW w AS ()`,
		`SELECT * FROM (VALUES (1, 'a')) v(a, b), json_to_record('{}') AS x(a int), generate_series(1, 2) WITH ORDINALITY`,
		`SELECT "Sp ace ""q""" FROM raw."Weird ""Name""" a JOIN raw."Weird ""Name""" b USING ("Ünï")`,
		`SELECT x FROM t QUALIFY 1`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		_, err := Parser{}.Bind(sql, bindRelations)
		var u interface{ Unwrap() []error }
		errs := []error{err}
		if errors.As(err, &u) {
			errs = u.Unwrap()
		}
		for _, e := range errs {
			var se *engine.SQLError
			if errors.As(e, &se) && (se.Position < -1 || se.Position > len(sql)) {
				t.Errorf("Bind(%q): position %d outside the text", sql, se.Position)
			}
		}
	})
}

// TestBindDeclaredTypesAsBuilt: a column declared in any spelling of its
// type comes out as a table built with that type reports it
// (format_type's spelling, modifiers kept).
func TestBindDeclaredTypesAsBuilt(t *testing.T) {
	rels := map[string][]engine.Column{
		"raw.t": cols("a VARCHAR", "b DECIMAL(15, 2)", "c INTEGER", "d DATE", "e int8", "f TIMESTAMP",
			"g timestamptz", "h varchar(20)", "i character varying", "j bool", "k TEXT[]", "l double", `m "bit"`, "n bit(3)", `o "char"`, "p bpchar"),
	}
	got, err := Parser{}.Bind("SELECT * FROM raw.t", rels)
	if err != nil {
		t.Fatal(err)
	}
	want := cols("a character varying", "b numeric(15,2)", "c integer", "d date", "e bigint", "f timestamp without time zone",
		"g timestamp with time zone", "h character varying(20)", "i character varying", "j boolean", "k text[]", "l double",
		`m "bit"`, "n bit(3)", `o "char"`, "p bpchar")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
}
