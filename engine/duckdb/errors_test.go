package duckdb

import (
	"errors"
	"testing"
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
