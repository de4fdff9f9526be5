package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/state"
)

// migrations[v] upgrades a store of schema version v to v+1. Each step runs
// in its own transaction, under the schema's advisory lock, together with
// the new version stamp, so an interrupted migration resumes at the step
// that did not commit.
//
// Version 0 has no layout of its own: it is a store stamped before the
// version-1 tables existed, and its step creates whatever is missing.
var migrations = []func(ctx context.Context, s *Store, tx pgx.Tx) error{
	0: func(ctx context.Context, s *Store, tx pgx.Tx) error {
		for _, stmt := range schema {
			if _, err := tx.Exec(ctx, s.q(stmt)); err != nil {
				return err
			}
		}
		return nil
	},
}

// Migrate upgrades the store at url (in the schema of opts) to
// state.SchemaVersion, one step per version, and prints nothing. Unlike the
// SQLite store it takes no backup: a copy of a shared database is the
// operator's job (pg_dump --schema efmesh_state before migrating). An
// up-to-date store is left alone (from == to). A store written by a newer
// efmesh is refused with a *state.SchemaVersionError. A missing or empty
// schema is an error, never created.
func Migrate(ctx context.Context, url string, opts ...Option) (from, to int, err error) {
	s, err := connect(ctx, url, opts)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()

	from, err = s.currentVersion(ctx)
	if err != nil {
		return 0, 0, err
	}
	switch {
	case from == state.SchemaVersion:
		return from, from, nil
	case from > state.SchemaVersion:
		return from, from, &state.SchemaVersionError{Store: s.name, Have: from, Want: state.SchemaVersion}
	}
	for v := from; v < state.SchemaVersion; v++ {
		if err := s.step(ctx, v); err != nil {
			return from, v, fmt.Errorf("migrate %s from version %d to %d: %w", s.name, v, v+1, err)
		}
	}
	return from, state.SchemaVersion, nil
}

// currentVersion reads the store's schema version in a transaction of its own.
func (s *Store) currentVersion(ctx context.Context) (int, error) {
	var v int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		v, err = s.readVersion(ctx, tx)
		if errors.Is(err, errEmpty) {
			return fmt.Errorf("migrate %s: the schema holds no efmesh state", s.name)
		}
		return err
	})
	return v, err
}

// step applies migrations[v] and stamps version v+1, in one transaction.
func (s *Store) step(ctx context.Context, v int) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if err := s.lockSchema(ctx, tx); err != nil {
			return err
		}
		// Another process may have migrated since Migrate looked.
		if now, err := s.readVersion(ctx, tx); err != nil {
			return err
		} else if now != v {
			return fmt.Errorf("schema version changed to %d by another process", now)
		}
		if err := migrations[v](ctx, s, tx); err != nil {
			return err
		}
		return s.writeVersion(ctx, tx, v+1)
	})
}
