package duckdb

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// long is a literal's value of about n bytes: every kind of character
// DuckDB's JSON writer escapes or keeps, a doubled quote among them.
func long(n int) string {
	unit := "x'y\"z\\/\n\t\r\b\f\x01\x1f\x7f ü 🚀 \u2028 "
	return strings.Repeat(unit, n/len(unit)+1)
}

// TestLongLiterals: a query whose long string literals DuckDB parses and
// binds as placeholders gets the canonical form, columns and constant
// errors of the query as written, positions included; what the
// placeholders could change (a column named after its literal, a
// literal DuckDB joins to the next) is answered on the query as written.
func TestLongLiterals(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	lit := "'" + strings.ReplaceAll(long(longLiteral), "'", "''") + "'"
	queries := []string{
		"SELECT " + lit + " AS s",
		"SELECT length(" + lit + ") AS n, " + lit + " AS s, 'short' AS t",
		"SELECT " + lit + " AS s WHERE " + lit + " <> 'a'",
		"SELECT " + lit,                     // the column is named after the literal
		"SELECT " + lit + "\n'tail' AS s",   // DuckDB joins adjacent literals
		"SELECT E" + lit[:len(lit)-1] + "'", // an escape string is left as it is
	}
	var wants [][]byte
	for _, q := range queries {
		want, err := db.canonicalize(q)
		if err != nil {
			t.Fatalf("%.60s…: %v", q, err)
		}
		wants = append(wants, want)
		got, err := db.Canonicalize(q)
		if err != nil || string(got) != string(want) {
			t.Errorf("Canonicalize(%.60s…) differs from the query's as written (%v)", q, err)
		}
	}
	all, errs := db.CanonicalizeAll(queries)
	for i := range queries {
		if errs[i] != nil || string(all[i]) != string(wants[i]) {
			t.Errorf("CanonicalizeAll[%d] differs from the query's as written (%v)", i, errs[i])
		}
	}

	for _, q := range queries[:4] {
		conn, err := db.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := prepared(conn, q)
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Describe(ctx, q)
		if err != nil || len(got) != len(want) || len(got) > 0 && got[len(got)-1] != want[len(want)-1] {
			t.Errorf("Describe(%.60s…) = %.80v, %v; want %.80v", q, got, err, want)
		}
		many, merrs := db.DescribeMany(ctx, []string{q, q})
		if merrs[1] != nil || len(many[1]) != len(want) {
			t.Errorf("DescribeMany(%.60s…) = %.80v, %v", q, many[1], merrs[1])
		}
	}

	// Constant errors after a long literal, and in one, are where they
	// are in the query as written.
	for _, tc := range []struct{ query, at string }{
		{"SELECT " + lit + " AS s, DATE '2024-13-45' AS d", "'2024-13-45'"},
		{"SELECT " + lit + "::INTEGER AS n", lit},
	} {
		canon, err := db.Canonicalize(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		errs := db.CheckConstants(ctx, canon, tc.query)
		var se *engine.SQLError
		if len(errs) != 1 || !errors.As(errs[0], &se) {
			t.Fatalf("CheckConstants(%.60s…) = %v; want one error", tc.query, errs)
		}
		if want := strings.Index(tc.query, tc.at); se.Position != want {
			t.Errorf("CheckConstants(%.60s…) at %d; want %d", tc.query, se.Position, want)
		}
	}
}

// BenchmarkLongLiteral is the check of a model whose query holds one long
// string literal: its canonical form, its columns and its constants.
//
//	go test ./engine/duckdb -run '^$' -bench LongLiteral -benchtime 3x
func BenchmarkLongLiteral(b *testing.B) {
	ctx := context.Background()
	for _, mb := range []int{5, 50} {
		b.Run(strconv.Itoa(mb)+"MB", func(b *testing.B) {
			db, err := Open("")
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			q := "SELECT '" + strings.Repeat("x", mb<<20) + "' AS s"
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				canon, errs := db.CanonicalizeAll([]string{q})
				if errs[0] != nil {
					b.Fatal(errs[0])
				}
				if _, err := db.Describe(ctx, q); err != nil {
					b.Fatal(err)
				}
				if errs := db.CheckConstants(ctx, canon[0], q); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}
