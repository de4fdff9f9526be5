package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/state/statetest"
)

func TestConformance(t *testing.T) {
	statetest.Run(t, func(t *testing.T) state.Store {
		return open(t, filepath.Join(t.TempDir(), "state.db"))
	})
}

func TestShared(t *testing.T) {
	statetest.RunShared(t, func(t *testing.T) func() state.Store {
		path := filepath.Join(t.TempDir(), "state.db")
		return func() state.Store { return open(t, path) }
	})
}

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// raw opens the file with the plain driver, bypassing the version check.
func raw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func setVersion(t *testing.T, path string, v int) {
	t.Helper()
	db := raw(t, path)
	if _, err := db.Exec(`UPDATE meta SET value = ? WHERE key = 'schema_version'`, v); err != nil {
		t.Fatal(err)
	}
	db.Close()
}

func version(t *testing.T, path string) string {
	t.Helper()
	var v string
	if err := raw(t, path).QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		t.Fatalf("reading the version of %s: %v", path, err)
	}
	return v
}

func TestOpenCreatesSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b c?#%", "state.db") // parents created, odd characters kept
	s := open(t, path)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the store is not at %s: %v", path, err)
	}
	var v string
	if err := s.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != "1" {
		t.Errorf("schema_version = %q, %v; want 1", v, err)
	}
	var mode string
	if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk, busy int
	if err := s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
	if err := s.db.QueryRow(`PRAGMA busy_timeout`).Scan(&busy); err != nil || busy != busyTimeout {
		t.Errorf("busy_timeout = %d, %v; want %d", busy, err, busyTimeout)
	}
	for _, table := range []string{"meta", "snapshots", "environments", "promotions", "plans", "intervals", "runs", "locks"} {
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: %d, %v", table, n, err)
		}
	}
}

func TestSchemaVersionMismatch(t *testing.T) {
	for _, tc := range []struct {
		version int
		hint    string
	}{
		{0, `has schema version 0, this efmesh uses 1; run "efmesh migrate"`},
		{99, "has schema version 99, this efmesh uses 1; it was written by a newer efmesh; upgrade efmesh"},
	} {
		path := filepath.Join(t.TempDir(), "state.db")
		open(t, path).Close()
		setVersion(t, path, tc.version)

		s, err := Open(t.Context(), path)
		if err == nil {
			s.Close()
			t.Fatalf("Open of a version-%d store succeeded", tc.version)
		}
		if !errors.Is(err, state.ErrSchemaVersion) {
			t.Errorf("version %d: error %v does not wrap ErrSchemaVersion", tc.version, err)
		}
		if want := path + " " + tc.hint; err.Error() != want {
			t.Errorf("version %d:\n got %s\nwant %s", tc.version, err, want)
		}
		// Refusing to open writes nothing.
		if got := version(t, path); got != strconv.Itoa(tc.version) {
			t.Errorf("version after a refused Open = %s", got)
		}
	}
}

func TestOpenRefusesForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db := raw(t, path)
	if _, err := db.Exec(`CREATE TABLE customers (id INTEGER)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(t.Context(), path)
	if err == nil {
		s.Close()
		t.Fatal("Open of a non-efmesh SQLite file succeeded")
	}
	if !strings.Contains(err.Error(), "not an efmesh state store") {
		t.Errorf("error = %v", err)
	}
}

func TestPromoteJournals(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.db"))
	statetest.Fill(t, s)
	if err := s.Promote(t.Context(), state.Promotion{Env: "prod", Pointers: map[string]string{}, PlanID: "p2", AppliedBy: "bob"}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.Query(`SELECT plan_id, applied_by, pointers FROM promotions WHERE env = 'prod' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var plan, by, pointers string
		if err := rows.Scan(&plan, &by, &pointers); err != nil {
			t.Fatal(err)
		}
		got = append(got, plan+" "+by+" "+pointers)
	}
	want := []string{`p1 ci {"med.stays":"fp1"}`, `p2 bob {}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("promotions journal:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMigrate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	s := open(t, path)
	statetest.Fill(t, s)
	s.Close()
	setVersion(t, path, 0)

	from, to, backup, err := Migrate(t.Context(), path)
	if err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	if from != 0 || to != state.SchemaVersion {
		t.Errorf("Migrate = %d -> %d, want 0 -> %d", from, to, state.SchemaVersion)
	}
	if dir, name := filepath.Split(backup); dir != filepath.Dir(path)+string(filepath.Separator) || !strings.HasPrefix(name, "state.db.bak-v0-") {
		t.Errorf("backup = %q, want %s.bak-v0-<timestamp>", backup, path)
	}
	// The backup is the store as it was: version 0, with its data.
	if got := version(t, backup); got != "0" {
		t.Errorf("backup version = %s, want 0", got)
	}
	setVersion(t, backup, state.SchemaVersion)
	statetest.Check(t, open(t, backup))

	if got := version(t, path); got != "1" {
		t.Errorf("version after Migrate = %s, want 1", got)
	}
	statetest.Check(t, open(t, path))

	// Up to date: nothing to do, no second backup.
	before, _ := filepath.Glob(path + ".bak-*")
	from, to, backup, err = Migrate(t.Context(), path)
	if err != nil || from != state.SchemaVersion || to != state.SchemaVersion || backup != "" {
		t.Errorf("Migrate of a current store = %d, %d, %q, %v; want a no-op", from, to, backup, err)
	}
	if after, _ := filepath.Glob(path + ".bak-*"); !slices.Equal(after, before) {
		t.Errorf("Migrate of a current store wrote %v", after)
	}
}

// TestMigrateCreatesMissingTables: a version-0 store that lacks tables of
// version 1 gets them.
func TestMigrateCreatesMissingTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	open(t, path).Close()
	db := raw(t, path)
	for _, stmt := range []string{`DROP TABLE locks`, `DROP TABLE runs`, `UPDATE meta SET value = '0' WHERE key = 'schema_version'`} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if _, _, _, err := Migrate(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	s := open(t, path)
	if _, err := s.db.Exec(`INSERT INTO locks (name, holder, host, pid, acquired_at, expires_at) VALUES ('g', 'h', 'x', 1, 'a', 'b')`); err != nil {
		t.Errorf("locks after Migrate: %v", err)
	}
}

func TestMigrateRefuses(t *testing.T) {
	t.Run("newer", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		open(t, path).Close()
		setVersion(t, path, 99)
		_, _, backup, err := Migrate(t.Context(), path)
		if !errors.Is(err, state.ErrSchemaVersion) || !strings.Contains(err.Error(), "upgrade efmesh") {
			t.Errorf("Migrate of a newer store: %v", err)
		}
		if backup != "" || version(t, path) != "99" {
			t.Errorf("Migrate of a newer store touched it (backup %q)", backup)
		}
	})
	t.Run("missing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		if _, _, _, err := Migrate(t.Context(), path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Migrate of a missing file: %v", err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Migrate created %s", path)
		}
	})
}

func TestMigrationsCoverEveryVersion(t *testing.T) {
	if len(migrations) != state.SchemaVersion {
		t.Errorf("%d migration steps for schema version %d: a new version needs its step", len(migrations), state.SchemaVersion)
	}
}

// TestConcurrentOpen: processes opening a new file at once create the
// schema once and all succeed.
// The race is narrow, so it is run on several new files.
func TestConcurrentOpen(t *testing.T) {
	ctx := context.Background()
	for range 50 {
		path := filepath.Join(t.TempDir(), "state.db")
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				s, err := Open(ctx, path)
				if err == nil {
					err = s.Close()
				}
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
}
