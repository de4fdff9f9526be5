package postgres

import (
	"context"
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestBindNeverContradictsTheServer binds thousands of generated
// expressions (columns of every common type, literals, operators, CASE,
// COALESCE, casts, aggregates, window and set-returning functions, in the
// select list, WHERE, GROUP BY and HAVING) with the binder and with the
// server: the binder refuses nothing the server takes, and types no
// column otherwise than the server (it may say less: "" or no error).
func TestBindNeverContradictsTheServer(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := schema(t, db)
	decl := []string{"i int4", "s int2", "b int8", "n numeric(10,2)", "r real", "d float8", "t text", "v varchar(20)",
		"c char(3)", "dt date", "ts timestamp", "tz timestamptz", "iv interval", "tm time", "j jsonb", "ja text[]", "ia int[]", "bo bool"}
	rel := s + ".t"
	mustExec(t, db, "CREATE TABLE "+rel+" ("+strings.Join(decl, ", ")+")")
	rels := map[string][]engine.Column{rel: cols(decl...)}
	atoms := []string{"i", "s", "b", "n", "r", "d", "t", "v", "c", "dt", "ts", "tz", "iv", "tm", "j", "ja", "ia", "bo",
		"1", "2.5", "'x'", "'1'", "NULL", "TRUE", "'2024-01-01'", "interval '1 day'", "date '2024-01-01'", "ARRAY[1,2]", "'{a}'"}
	ops := []string{"+", "-", "*", "/", "%", "=", "<>", "<", ">=", "||", "->", "->>", "@>", "AND", "OR", "IS DISTINCT FROM", "LIKE"}
	rng := rand.New(rand.NewSource(1))
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth <= 0 {
			return atoms[rng.Intn(len(atoms))]
		}
		switch rng.Intn(15) {
		case 0, 1, 2, 3:
			return "(" + gen(depth-1) + " " + ops[rng.Intn(len(ops))] + " " + gen(depth-1) + ")"
		case 4:
			return "coalesce(" + gen(depth-1) + ", " + gen(depth-1) + ")"
		case 5:
			return "CASE WHEN " + gen(depth-1) + " THEN " + gen(depth-1) + " ELSE " + gen(depth-1) + " END"
		case 6:
			return "nullif(" + gen(depth-1) + ", " + gen(depth-1) + ")"
		case 7:
			return "greatest(" + gen(depth-1) + ", " + gen(depth-1) + ")"
		case 8:
			return []string{"sum", "max", "min", "avg", "count", "array_agg"}[rng.Intn(6)] + "(" + gen(depth-1) + ")"
		case 9:
			return gen(depth-1) + "::" + []string{"int", "text", "numeric", "date", "bigint", "varchar(5)", "bool", "jsonb"}[rng.Intn(8)]
		case 10:
			return gen(depth-1) + " IN (" + gen(depth-1) + ", " + gen(depth-1) + ")"
		case 11:
			return []string{"sum", "max", "lag", "first_value", "count"}[rng.Intn(5)] + "(" + gen(depth-1) + ") OVER (ORDER BY " + gen(depth-1) + ")"
		case 12:
			return []string{"generate_series(1, ", "unnest(ARRAY[", "upper(", "abs(", "length("}[rng.Intn(5)] + gen(depth-1) + ")"
		case 13:
			return "(SELECT max(" + gen(depth-1) + ") FROM " + rel + " u)"
		default:
			return "ARRAY[" + gen(depth-1) + ", " + gen(depth-1) + "]"
		}
	}
	fp, fn, tm := 0, 0, 0
	for k := 0; k < 4000; k++ {
		e := gen(1 + rng.Intn(3))
		q := "SELECT " + e + " AS x FROM " + rel
		switch rng.Intn(6) {
		case 0, 1:
			q = "SELECT i FROM " + rel + " WHERE " + e
		case 2:
			q = "SELECT count(*) AS x FROM " + rel + " GROUP BY " + e
		case 3:
			q = "SELECT i, count(*) AS x FROM " + rel + " GROUP BY i HAVING " + e
		}
		want, serr := db.Describe(ctx, q)
		got, berr := Parser{}.Bind(q, rels)
		var se *engine.SQLError
		errors.As(serr, &se)
		switch {
		case serr == nil && berr != nil:
			fp++
			if fp < 40 {
				t.Errorf("%s: the server takes it, the binder refuses it: %v", q, berr)
			}
		case serr != nil && berr == nil:
			fn++
		case serr == nil && len(got) == len(want) && got[len(got)-1].Type != "" && got[len(got)-1].Type != want[len(want)-1].Type:
			tm++
			if tm < 40 {
				t.Errorf("%s: the binder types it %s, the server %s", q, got[len(got)-1].Type, want[len(want)-1].Type)
			}
		}
	}
	t.Logf("%d refused by the server that the binder let be (it may); %d contradictions", fn, fp+tm)
}
