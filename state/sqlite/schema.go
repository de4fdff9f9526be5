package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/efmesh/efmesh/state"
)

// schema is the layout of state.SchemaVersion, one statement per entry.
// Every statement is idempotent (IF NOT EXISTS) so that a migration step may
// run it over a partial layout. Times are text in timeFormat; JSON columns
// are text.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS meta (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS snapshots (
		fingerprint         TEXT PRIMARY KEY,
		fingerprint_version INTEGER NOT NULL,
		name                TEXT NOT NULL,
		kind                TEXT NOT NULL,
		physical_table      TEXT NOT NULL,
		own_hash            TEXT NOT NULL,
		parents             TEXT NOT NULL, -- JSON object: parent name -> fingerprint
		canonical           BLOB,
		definition          BLOB,
		created_at          TEXT NOT NULL,
		built_at            TEXT,          -- NULL until the physical relation is complete
		orphaned_at         TEXT           -- NULL while an environment points at it
	)`,
	`CREATE INDEX IF NOT EXISTS snapshots_name ON snapshots (name)`,
	`CREATE INDEX IF NOT EXISTS snapshots_orphaned ON snapshots (orphaned_at)`,
	// A pointer must name a stored snapshot: a snapshot an environment
	// points at cannot be deleted.
	`CREATE TABLE IF NOT EXISTS environments (
		env         TEXT NOT NULL,
		model       TEXT NOT NULL,
		fingerprint TEXT NOT NULL REFERENCES snapshots (fingerprint),
		updated_at  TEXT NOT NULL,
		PRIMARY KEY (env, model)
	)`,
	`CREATE INDEX IF NOT EXISTS environments_fingerprint ON environments (fingerprint)`,
	`CREATE TABLE IF NOT EXISTS promotions (
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		env        TEXT NOT NULL,
		plan_id    TEXT NOT NULL,
		applied_by TEXT NOT NULL,
		at         TEXT NOT NULL,
		pointers   TEXT NOT NULL -- JSON object: model -> fingerprint, the full set
	)`,
	`CREATE INDEX IF NOT EXISTS promotions_env ON promotions (env, id)`,
	`CREATE TABLE IF NOT EXISTS plans (
		id         TEXT PRIMARY KEY,
		env        TEXT NOT NULL,
		applied_by TEXT NOT NULL,
		created_at TEXT NOT NULL,
		status     TEXT NOT NULL,
		summary    BLOB,
		error      TEXT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS plans_env ON plans (env, created_at)`,
	`CREATE TABLE IF NOT EXISTS intervals (
		fingerprint TEXT NOT NULL REFERENCES snapshots (fingerprint) ON DELETE CASCADE,
		"start"     TEXT NOT NULL,
		"end"       TEXT NOT NULL,
		status      TEXT NOT NULL,
		updated_at  TEXT NOT NULL,
		PRIMARY KEY (fingerprint, "start")
	)`,
	`CREATE TABLE IF NOT EXISTS runs (
		id          TEXT PRIMARY KEY,
		env         TEXT NOT NULL,
		started_at  TEXT NOT NULL,
		finished_at TEXT,
		outcome     TEXT NOT NULL,
		detail      TEXT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS runs_env ON runs (env, started_at)`,
	`CREATE TABLE IF NOT EXISTS locks (
		name        TEXT PRIMARY KEY,
		holder      TEXT NOT NULL,
		host        TEXT NOT NULL,
		pid         INTEGER NOT NULL,
		acquired_at TEXT NOT NULL,
		expires_at  TEXT NOT NULL
	)`,
}

const versionKey = "schema_version"

// prepare makes db ready for this binary: it writes the schema into an
// empty file, or checks that the file is an efmesh store of
// state.SchemaVersion, and then puts the file in WAL mode. The check or
// creation is one write transaction, so two processes opening a new file at
// once create the schema once; a file that fails the check is left as is.
func prepare(ctx context.Context, db *sql.DB, path string) error {
	if err := createOrCheck(ctx, db, path); err != nil {
		return err
	}
	if err := setWAL(ctx, db); err != nil {
		return fmt.Errorf("open %s: WAL mode: %w", path, err)
	}
	return nil
}

func createOrCheck(ctx context.Context, db *sql.DB, path string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer tx.Rollback() // no-op after Commit

	v, err := readVersion(ctx, tx, path)
	if errors.Is(err, errEmpty) {
		if err := createSchema(ctx, tx); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if v != state.SchemaVersion {
		return &state.SchemaVersionError{Store: path, Have: v, Want: state.SchemaVersion}
	}
	return nil
}

// setWAL puts the file in WAL mode, which persists in the file: later
// connections find it there. Leaving rollback mode takes an exclusive lock
// for which SQLite does not call the busy handler when another connection
// is converting the same file (two processes opening a new store at once),
// so SQLITE_BUSY is retried here for as long as busy_timeout would wait.
// On a file already in WAL mode this is a query and takes no lock.
func setWAL(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout * time.Millisecond)
	for {
		var mode string
		err := db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
		switch {
		case err == nil && mode == "wal":
			return nil
		case err == nil:
			return fmt.Errorf("journal mode stayed %q", mode)
		case !isBusy(err) || time.Now().After(deadline):
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// createSchema writes the current layout and stamps its version.
// Precondition: tx is a write transaction on an empty database.
func createSchema(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return writeVersion(ctx, tx, state.SchemaVersion)
}

// errEmpty is readVersion's answer for a database without any table.
var errEmpty = errors.New("empty database")

// readVersion returns the schema version recorded in the store; errEmpty
// for a database that holds no table at all (a new file).
func readVersion(ctx context.Context, tx *sql.Tx, path string) (int, error) {
	var tables, hasMeta int
	err := tx.QueryRowContext(ctx,
		`SELECT count(*), count(*) FILTER (WHERE name = 'meta') FROM sqlite_schema WHERE type = 'table'`,
	).Scan(&tables, &hasMeta)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", path, err)
	}
	switch {
	case tables == 0:
		return 0, errEmpty
	case hasMeta == 0:
		return 0, fmt.Errorf("%s is not an efmesh state store (no meta table)", path)
	}
	var text string
	err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, versionKey).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s is not an efmesh state store (no %s in meta)", path, versionKey)
	}
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", path, err)
	}
	v, err := strconv.Atoi(text)
	if err != nil {
		return 0, fmt.Errorf("%s: bad %s %q in meta", path, versionKey, text)
	}
	return v, nil
}

func writeVersion(ctx context.Context, tx *sql.Tx, v int) error {
	_, err := tx.ExecContext(ctx,
		`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		versionKey, strconv.Itoa(v))
	return err
}
