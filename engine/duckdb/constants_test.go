package duckdb

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestCheckConstants: a typed literal or a cast of a literal that does not
// cast, or a string literal the binder casts to the type of what it meets
// (n < 'x', d > 'yesterday', s['first']), prepares (Describe has no error)
// and fails the query on its first row; CheckConstants reports it at the
// literal. Good ones, a TRY_CAST, casts of columns and strings meeting
// strings are no error.
func TestCheckConstants(t *testing.T) {
	ctx := context.Background()
	db, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(ctx, "CREATE TABLE t AS SELECT 'x' AS s, 1 AS n, DATE '2024-01-01' AS d, MAP {'k': 1} AS m, {'a': 1, 'my f': 2} AS st, 'ok'::ENUM('sad', 'ok') AS mood"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ query, at, msg string }{
		{"SELECT n, DATE '2024-13-45' AS d FROM t", "'2024-13-45'", "date field value out of range"},
		{"SELECT n FROM t WHERE s = 'x' AND n < 'x'::INTEGER", "'x'::INTEGER", `Could not convert string 'x' to INT32`},
		{"SELECT CAST('z' AS ENUM('a', 'b')) FROM t", "CAST(", "Could not convert string 'z' to UINT8"},
		{"SELECT [INTERVAL 'soon'] FROM t", "'soon'", "interval"},
		{"SELECT n FROM t WHERE n IN (SELECT 300::TINYINT)", "300::TINYINT", "out of range"},
		{"SELECT n, DATE '2024-02-29', TRY_CAST('x' AS INTEGER), CAST(n AS VARCHAR), '1'::INTEGER, [1, 2]::VARCHAR[] FROM t", "", ""},
		// Casts the binder adds: a string literal meets another type.
		{"SELECT n FROM t WHERE n < 'x'", "'x'", "Could not convert string 'x' to INT32"},
		{"SELECT n FROM t WHERE s = 'a' OR d > 'yesterday'", "'yesterday'", "yesterday"},
		{"SELECT s['first'] AS c FROM t", "'first'", "INT64"},
		{"SELECT n FROM t WHERE d BETWEEN '2024-01-01' AND '2024-02-30'", "'2024-02-30'", "2024-02-30"},
		{"WITH c AS (SELECT * FROM t) SELECT n FROM c WHERE d = 'bad'", "'bad'", "bad"},
		{"SELECT n, count(*) FROM t WHERE d > 'soon' GROUP BY n", "'soon'", "soon"},
		{"SELECT n IN (1, 'two') AS i FROM t", "'two'", "two"},
		// An aggregate beside a bare column does not bind in one probe:
		// each site is then evaluated alone.
		{"SELECT n, max(d) FROM t GROUP BY n HAVING max(d) > 'never' AND n::VARCHAR <> 'y'", "'never'", "never"},
		{"SELECT n FROM t, (SELECT 2 AS k) AS u WHERE u.k > n AND t.d <= 'later'", "'later'", "later"},
		{"SELECT n FROM t WHERE n IN (SELECT n FROM t WHERE d < 'never')", "'never'", "never"},
		{"SELECT s = 'x', d > '2024-01-01', strftime(d, '%Y'), n IN (1, 2), s LIKE 'a%', regexp_matches(s, 'a'), date_part('year', d), m['k'], st['a'], list_contains(['a'], s), s || 'b', concat(s, 'c', n), mood = 'nope', mood IN ('ok', 'gone'), st['my f'] > '1' FROM t WHERE d < '2025-01-01' AND s <> 'é'", "", ""},
	} {
		if _, err := db.Describe(ctx, tc.query); err != nil {
			t.Fatalf("%s: Describe: %v", tc.query, err)
		}
		canon, err := db.Canonicalize(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		errs := db.CheckConstants(ctx, canon, tc.query)
		_, runErr := db.Query(ctx, tc.query)
		if tc.at == "" {
			if len(errs) > 0 || runErr != nil {
				t.Errorf("%s: %v (the query: %v)", tc.query, errs, runErr)
			}
			continue
		}
		if runErr == nil {
			t.Errorf("%s: the query runs: not a case", tc.query)
		}
		var se *engine.SQLError
		if len(errs) != 1 || !errors.As(errs[0], &se) {
			t.Errorf("%s: want one error, got %v", tc.query, errs)
			continue
		}
		if want := strings.Index(tc.query, tc.at); se.Position != want || !strings.Contains(strings.ToLower(se.Message), strings.ToLower(tc.msg)) {
			t.Errorf("%s: %s at %d, want %q at %d", tc.query, se.Message, se.Position, tc.msg, want)
		}
	}
}

// BenchmarkCheckConstants is the check of a model with string literals
// that cast (the common case: every probe runs, nothing to report).
func BenchmarkCheckConstants(b *testing.B) {
	ctx := context.Background()
	db, err := Open(":memory:")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(ctx, "CREATE TABLE t AS SELECT 'x' AS s, 1 AS n, DATE '2024-01-01' AS d"); err != nil {
		b.Fatal(err)
	}
	q := "WITH c AS (SELECT s, n, d FROM t WHERE s = 'x' AND d > '2024-01-01') SELECT coalesce(s, 'none') AS s, n::VARCHAR AS n, strftime(d, '%Y') AS y FROM c WHERE s <> 'y'"
	canon, err := db.Canonicalize(q)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if errs := db.CheckConstants(ctx, canon, q); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
