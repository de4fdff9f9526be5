package duckdb

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

func TestBusyError(t *testing.T) {
	msg := `database/sql/driver: could not connect to database: IO Error: Could not set lock on file "/srv/shop.duckdb": ` +
		`Conflicting lock is held in /usr/local/bin/efmesh (PID 4242). See also https://duckdb.org/docs/stable/connect/concurrency`
	e := busyError(errors.New(msg), "shop.duckdb")
	if e == nil || e.PID != 4242 || e.Program != "efmesh" || e.Database != "shop.duckdb" {
		t.Fatalf("busyError = %+v", e)
	}
	if got, want := e.Error(), "another efmesh process (pid 4242) is writing shop.duckdb"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
	// A holder DuckDB does not name still makes a BusyError.
	e = busyError(errors.New(`IO Error: Could not set lock on file "/srv/shop.duckdb": Resource temporarily unavailable`), "shop.duckdb")
	if e == nil || e.PID != 0 || e.Error() != "another process (pid unknown) is writing shop.duckdb" {
		t.Fatalf("busyError without a holder = %+v", e)
	}
	if busyError(errors.New("IO Error: No such file or directory"), "x") != nil {
		t.Fatal("another IO error read as a busy database")
	}
}

// The planner reads fields, never DuckDB's texts: an unknown column,
// qualified or not, is COLUMN_NOT_FOUND with its name and candidates; a
// statement that is not a query is NOT_A_QUERY.
func TestStructuredErrors(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.Exec(ctx, "CREATE TABLE t (a INT, bcd INT)"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query, name string
		cands       []string
		pos         int
	}{
		{"SELECT bce FROM t", "bce", []string{"bcd"}, 7},
		{"SELECT x.bce FROM t AS x", "bce", []string{"bcd", "a"}, 7},
		{`SELECT "x"."bce" FROM t AS x`, "bce", []string{"bcd", "a"}, 7},
	} {
		_, err := db.Describe(ctx, c.query)
		var se *engine.SQLError
		if !errors.As(err, &se) || se.Subtype != engine.SubtypeColumnNotFound || se.Name != c.name ||
			strings.Join(se.Candidates, ",") != strings.Join(c.cands, ",") || se.Position != c.pos {
			t.Errorf("%s: %#v", c.query, err)
		}
	}
	_, err := db.Canonicalize("PIVOT t ON a USING sum(bcd)")
	var se *engine.SQLError
	if !errors.As(err, &se) || se.Subtype != engine.SubtypeNotAQuery || !strings.Contains(se.Message, "PIVOT without IN") || se.Position != 0 {
		t.Errorf("PIVOT: %#v", err)
	}
	// The values listed, the columns are known: a query like any other.
	if _, err := db.Canonicalize("PIVOT t ON a IN ('x', 'y') USING sum(bcd)"); err != nil {
		t.Errorf("PIVOT … IN: %v", err)
	}
	_, err = db.Canonicalize("INSERT INTO t VALUES (1)")
	if !errors.As(err, &se) || se.Subtype != engine.SubtypeNotAQuery || se.Message != "a model body must be one SELECT query" {
		t.Errorf("INSERT: %#v", err)
	}
	_, errs := db.CanonicalizeAll([]string{"SELECT 1", "PIVOT t ON a USING sum(bcd)"})
	if !errors.As(errs[1], &se) || se.Subtype != engine.SubtypeNotAQuery || errs[0] != nil {
		t.Errorf("PIVOT in a batch: %#v", errs)
	}
}

// The binder errors DuckDB reports only in its message text get a subtype,
// a name and candidates: an ambiguous column, a VALUES list's missing
// column, a struct key typo, a column neither grouped nor aggregated.
func TestClassifiedBinderErrors(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.Exec(ctx, `CREATE TABLE t (a INT, bcd INT, np STRUCT(first VARCHAR, last VARCHAR)); CREATE TABLE u (a INT, z INT)`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query, subtype, name string
		cands                []string
		pos                  int
	}{
		{"SELECT a FROM t JOIN u ON t.bcd = u.z", engine.SubtypeAmbiguousColumn, "a", []string{"t.a", "u.a"}, 7},
		{"SELECT v.c FROM (VALUES (1, 2)) v(a, b)", engine.SubtypeColumnNotFound, "c", nil, 7},
		{"SELECT np.frist FROM t", engine.SubtypeFieldNotFound, "frist", []string{"first", "last"}, -1},
		{"SELECT bcd, a + sum(bcd) FROM t", engine.SubtypeNotGrouped, "bcd", nil, 7},
		// In HAVING, DuckDB words it otherwise and gives no position.
		{"SELECT a, count(*) FROM t GROUP BY a HAVING bcd > 1", engine.SubtypeNotGrouped, "bcd", nil, -1},
	} {
		_, err := db.Describe(ctx, c.query)
		var se *engine.SQLError
		if !errors.As(err, &se) || se.Subtype != c.subtype || se.Name != c.name ||
			strings.Join(se.Candidates, ",") != strings.Join(c.cands, ",") || se.Position != c.pos {
			t.Errorf("%s: %#v", c.query, err)
		}
	}
}
