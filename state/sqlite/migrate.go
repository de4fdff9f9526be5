package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/efmesh/efmesh/state"
)

// migrations[v] upgrades a store of schema version v to v+1. Each step runs
// in its own transaction together with the new version stamp, so an
// interrupted migration resumes at the step that did not commit.
//
// Version 0 has no layout of its own: it is a store stamped before the
// version-1 tables existed, and its step creates whatever is missing.
var migrations = []func(ctx context.Context, tx *sql.Tx) error{
	0: func(ctx context.Context, tx *sql.Tx) error {
		for _, stmt := range schema {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	},
}

// Migrate upgrades the store at path to state.SchemaVersion. It first copies
// the file to <path>.bak-v<from>-<UTC timestamp> (returned as backup), then
// applies one step per version. An up-to-date store is left alone: from ==
// to, no backup. A store written by a newer efmesh is refused with a
// *state.SchemaVersionError. A missing file is an error, never created.
func Migrate(ctx context.Context, path string) (from, to int, backup string, err error) {
	if _, err := os.Stat(path); err != nil {
		return 0, 0, "", fmt.Errorf("migrate %s: %w", path, err)
	}
	db, err := openDB(path)
	if err != nil {
		return 0, 0, "", err
	}
	defer db.Close()

	from, err = currentVersion(ctx, db, path)
	if err != nil {
		return 0, 0, "", err
	}
	switch {
	case from == state.SchemaVersion:
		return from, from, "", nil
	case from > state.SchemaVersion:
		return from, from, "", &state.SchemaVersionError{Store: path, Have: from, Want: state.SchemaVersion}
	}

	backup = fmt.Sprintf("%s.bak-v%d-%s", path, from, time.Now().UTC().Format("20060102T150405Z"))
	// VACUUM INTO writes a consistent copy, WAL content included, and fails
	// rather than overwrite an existing file.
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, backup); err != nil {
		return from, from, "", fmt.Errorf("migrate %s: back up to %s: %w", path, backup, err)
	}
	for v := from; v < state.SchemaVersion; v++ {
		if err := step(ctx, db, path, v); err != nil {
			return from, v, backup, fmt.Errorf("migrate %s from version %d to %d (backup in %s): %w", path, v, v+1, backup, err)
		}
	}
	return from, state.SchemaVersion, backup, nil
}

// currentVersion reads the store's schema version in a transaction of its own.
func currentVersion(ctx context.Context, db *sql.DB, path string) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("migrate %s: %w", path, err)
	}
	defer tx.Rollback() // read only
	v, err := readVersion(ctx, tx, path)
	if errors.Is(err, errEmpty) {
		return 0, fmt.Errorf("migrate %s: the file holds no efmesh state", path)
	}
	return v, err
}

// step applies migrations[v] and stamps version v+1, in one transaction.
func step(ctx context.Context, db *sql.DB, path string, v int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // no-op after Commit
	// Another process may have migrated since Migrate looked.
	if now, err := readVersion(ctx, tx, path); err != nil {
		return err
	} else if now != v {
		return fmt.Errorf("schema version changed to %d by another process", now)
	}
	if err := migrations[v](ctx, tx); err != nil {
		return err
	}
	if err := writeVersion(ctx, tx, v+1); err != nil {
		return err
	}
	return tx.Commit()
}
