// Package sqlite is the default state store: one SQLite file (modernc.org/sqlite,
// pure Go) in WAL mode, next to the project. It implements state.Store and
// owns the file's layout, its schema version and its migrations.
//
// It knows nothing of plans, engines or models beyond the records the
// planner hands it, and it never shares a transaction with the data.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"modernc.org/sqlite" // the "sqlite" driver, and its Error for isBusy
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/efmesh/efmesh/state"
)

// Store is a state.Store backed by one SQLite file. Its methods are safe for
// concurrent use: database/sql pools connections, WAL lets readers run
// beside the one writer, and every write transaction takes the write lock
// when it begins (so two writers queue on busy_timeout instead of
// deadlocking on a lock upgrade).
type Store struct {
	db   *sql.DB
	path string

	// watch is the connection of Version, which never writes: SQLite's
	// data_version of a connection moves with every commit of any other
	// connection, this store's pool and other processes alike.
	watchMu sync.Mutex
	watch   *sql.Conn
}

var (
	_ state.Store     = (*Store)(nil)
	_ state.Versioned = (*Store)(nil)
)

// busyTimeout is how long a statement waits for another connection's (or
// process's) write lock before failing with SQLITE_BUSY, in milliseconds.
const busyTimeout = 5000

// Open opens the store at path, creating the file and its parent directories
// when missing. A fresh file receives the schema and its version in one
// transaction. A store of another schema version is not touched: the error
// is a *state.SchemaVersionError (errors.Is state.ErrSchemaVersion).
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db, err := openDB(path)
	if err != nil {
		return nil, err
	}
	if err := prepare(ctx, db, path); err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db, path: path}, nil
}

// OpenReadOnly opens the existing store at path for reading only: nothing
// is created, no lock is taken (a writer in another process does not make
// it wait, as Open's schema check, a write transaction, would) and the
// journal mode is left as the file has it. The schema version is still
// checked. A missing file is an error; every write fails.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db, err := openDBMode(path, true)
	if err != nil {
		return nil, err
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err == nil {
		var v int
		v, err = readVersion(ctx, tx, path)
		tx.Rollback()
		if err == nil && v != state.SchemaVersion {
			err = &state.SchemaVersionError{Store: path, Have: v, Want: state.SchemaVersion}
		}
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db, path: path}, nil
}

// Version is the store's data version: it changes whenever a write is
// committed to the file, by this Store or another process, and only then.
// Versions of one Store compare; another Store of the same file counts
// its own.
func (s *Store) Version(ctx context.Context) (int64, error) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.watch == nil {
		c, err := s.db.Conn(ctx)
		if err != nil {
			return 0, fmt.Errorf("version of %s: %w", s.path, err)
		}
		s.watch = c
	}
	var v int64
	if err := s.watch.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		s.watch.Close()
		s.watch = nil
		return 0, fmt.Errorf("version of %s: %w", s.path, err)
	}
	return v, nil
}

// Close closes the store's connections.
func (s *Store) Close() error {
	s.watchMu.Lock()
	if s.watch != nil {
		s.watch.Close()
		s.watch = nil
	}
	s.watchMu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close %s: %w", s.path, err)
	}
	return nil
}

// openDB returns a pool on path with the settings of every connection. It
// reads and writes nothing yet; the journal mode, a property of the file,
// is prepare's business.
func openDB(path string) (*sql.DB, error) { return openDBMode(path, false) }

// openDBMode is openDB; readOnly opens the file read-only (mode=ro), with
// transactions that begin deferred (an immediate one would ask for the
// write lock).
func openDBMode(path string, readOnly bool) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout))
	// NORMAL is durable across a crash of the process (kill -9) in WAL mode;
	// only a power loss may forget the last commits, never corrupt the file.
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	if readOnly {
		q.Set("mode", "ro")
	} else {
		q.Set("_txlock", "immediate")
	}
	// A file: URI so that a path holding '?', '#' or '%' reaches SQLite
	// intact (percent-encoded); the driver reads the underscore keys and
	// SQLite ignores them.
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}

// timeFormat is RFC 3339 in UTC with a fixed nine-digit fraction, so that
// the text sorts as the time does (time.RFC3339Nano drops trailing zeros,
// and "…05Z" would sort after "…05.5Z").
const timeFormat = "2006-01-02T15:04:05.000000000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// nowIfZero returns t, or the current time when t is zero.
func nowIfZero(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// isBusy reports whether err is SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}
