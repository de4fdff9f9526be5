// Package realdb opens the real databases tests look into: a DuckDB
// warehouse (in memory or a project's efmesh.duckdb) and a SQLite state
// store, each closed when the test ends. Only _test.go files import it.
package realdb

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/state/sqlite"
)

// DuckDB opens the DuckDB database at path ("" for one in memory) and
// closes it when the test ends.
func DuckDB(t testing.TB, path string) *duckdb.DB {
	t.Helper()
	db, err := duckdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Warehouse is the DuckDB warehouse of the project in dir (efmesh.duckdb),
// closed when the test ends.
func Warehouse(t testing.TB, dir string) *duckdb.DB {
	t.Helper()
	return DuckDB(t, filepath.Join(dir, "efmesh.duckdb"))
}

// Query runs sql on the warehouse of the project in dir and returns its
// rows printed with fmt. The warehouse is closed again before it returns,
// so the CLI can open it next.
func Query(t testing.TB, dir, sql string) string {
	t.Helper()
	db, err := duckdb.Open(filepath.Join(dir, "efmesh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return fmt.Sprint(rows.Values)
}

// State opens the SQLite state store at path and closes it when the test
// ends.
func State(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// ProjectState is the state store of the project in dir
// (.efmesh/state.db), closed when the test ends.
func ProjectState(t testing.TB, dir string) *sqlite.Store {
	t.Helper()
	return State(t, filepath.Join(dir, ".efmesh", "state.db"))
}
