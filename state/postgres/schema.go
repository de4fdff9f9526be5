package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/state"
)

// schema is the layout of state.SchemaVersion, one statement per entry, {s}
// standing for the quoted schema name. It is the layout of state/sqlite
// with Postgres types: times are timestamptz (microseconds), blobs bytea,
// the JSON the store writes itself jsonb, and the journals' insertion order
// (SQLite's rowid) an identity column. Every statement is idempotent (IF NOT
// EXISTS) so that a migration step may run it over a partial layout.
var schema = []string{
	`CREATE SCHEMA IF NOT EXISTS {s}`,
	`CREATE TABLE IF NOT EXISTS {s}.meta (
		key   text PRIMARY KEY,
		value text NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS {s}.snapshots (
		fingerprint         text PRIMARY KEY,
		fingerprint_version integer NOT NULL,
		name                text NOT NULL,
		kind                text NOT NULL,
		physical_table      text NOT NULL,
		own_hash            text NOT NULL,
		parents             jsonb NOT NULL, -- parent name -> fingerprint
		canonical           bytea,
		definition          bytea,
		created_at          timestamptz NOT NULL,
		built_at            timestamptz,    -- NULL until the physical relation is complete
		orphaned_at         timestamptz     -- NULL while an environment points at it
	)`,
	`CREATE INDEX IF NOT EXISTS snapshots_name ON {s}.snapshots (name)`,
	`CREATE INDEX IF NOT EXISTS snapshots_orphaned ON {s}.snapshots (orphaned_at)`,
	// A pointer must name a stored snapshot: a snapshot an environment
	// points at cannot be deleted.
	`CREATE TABLE IF NOT EXISTS {s}.environments (
		env         text NOT NULL,
		model       text NOT NULL,
		fingerprint text NOT NULL REFERENCES {s}.snapshots (fingerprint),
		updated_at  timestamptz NOT NULL,
		PRIMARY KEY (env, model)
	)`,
	`CREATE INDEX IF NOT EXISTS environments_fingerprint ON {s}.environments (fingerprint)`,
	`CREATE TABLE IF NOT EXISTS {s}.promotions (
		id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		env        text NOT NULL,
		plan_id    text NOT NULL,
		applied_by text NOT NULL,
		at         timestamptz NOT NULL,
		pointers   jsonb NOT NULL -- model -> fingerprint, the full set
	)`,
	`CREATE INDEX IF NOT EXISTS promotions_env ON {s}.promotions (env, id)`,
	`CREATE TABLE IF NOT EXISTS {s}.plans (
		id         text PRIMARY KEY,
		seq        bigint GENERATED ALWAYS AS IDENTITY, -- recording order, for plans of one instant
		env        text NOT NULL,
		applied_by text NOT NULL,
		created_at timestamptz NOT NULL,
		status     text NOT NULL,
		summary    bytea,
		error      text NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS plans_env ON {s}.plans (env, created_at, seq)`,
	`CREATE TABLE IF NOT EXISTS {s}.intervals (
		fingerprint text NOT NULL REFERENCES {s}.snapshots (fingerprint) ON DELETE CASCADE,
		"start"     timestamptz NOT NULL,
		"end"       timestamptz NOT NULL,
		status      text NOT NULL,
		updated_at  timestamptz NOT NULL,
		PRIMARY KEY (fingerprint, "start")
	)`,
	`CREATE TABLE IF NOT EXISTS {s}.runs (
		id          text PRIMARY KEY,
		seq         bigint GENERATED ALWAYS AS IDENTITY, -- recording order, for ticks of one instant
		env         text NOT NULL,
		started_at  timestamptz NOT NULL,
		finished_at timestamptz,
		outcome     text NOT NULL,
		detail      text NOT NULL -- JSON, kept as written
	)`,
	`CREATE INDEX IF NOT EXISTS runs_env ON {s}.runs (env, started_at, seq)`,
	`CREATE TABLE IF NOT EXISTS {s}.locks (
		name        text PRIMARY KEY,
		holder      text NOT NULL,
		host        text NOT NULL,
		pid         integer NOT NULL,
		acquired_at timestamptz NOT NULL,
		expires_at  timestamptz NOT NULL
	)`,
}

const versionKey = "schema_version"

// createOrCheck writes the layout into a missing or empty schema, or checks
// that the schema is an efmesh store of state.SchemaVersion, in one
// transaction that first takes the schema's advisory lock: processes opening
// a fresh database at once queue there, and the first creates the layout
// the others then find. A schema that fails the check is left as is.
func (s *Store) createOrCheck(ctx context.Context) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if err := s.lockSchema(ctx, tx); err != nil {
			return fmt.Errorf("open %s: %w", s.name, err)
		}
		v, err := s.readVersion(ctx, tx)
		if errors.Is(err, errEmpty) {
			if err := s.createSchema(ctx, tx); err != nil {
				return fmt.Errorf("create %s: %w", s.name, err)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if v != state.SchemaVersion {
			return &state.SchemaVersionError{Store: s.name, Have: v, Want: state.SchemaVersion}
		}
		return nil
	})
}

// lockSchema takes the advisory lock of the store's schema until tx ends.
// It serializes creation, checks and migration steps of one schema across
// processes and machines; it is keyed by the schema name, so stores in
// other schemas of the database do not wait on it.
func (s *Store) lockSchema(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "efmesh state store "+s.schema)
	return err
}

// createSchema writes the current layout and stamps its version.
// Precondition: tx holds the schema's advisory lock, and the schema is
// missing or holds no table.
func (s *Store) createSchema(ctx context.Context, tx pgx.Tx) error {
	for _, stmt := range schema {
		if _, err := tx.Exec(ctx, s.q(stmt)); err != nil {
			return err
		}
	}
	return s.writeVersion(ctx, tx, state.SchemaVersion)
}

// errEmpty is readVersion's answer for a schema that is missing or holds no
// table (a fresh database).
var errEmpty = errors.New("empty schema")

// readVersion returns the schema version recorded in the store; errEmpty
// for a schema without any table.
func (s *Store) readVersion(ctx context.Context, tx pgx.Tx) (int, error) {
	var tables, hasMeta int
	err := tx.QueryRow(ctx, `
		SELECT count(*), count(*) FILTER (WHERE c.relname = 'meta')
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`, s.schema).Scan(&tables, &hasMeta)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", s.name, err)
	}
	switch {
	case tables == 0:
		return 0, errEmpty
	case hasMeta == 0:
		return 0, fmt.Errorf("%s is not an efmesh state store (no meta table)", s.name)
	}
	var text string
	err = tx.QueryRow(ctx, s.q(`SELECT value FROM {s}.meta WHERE key = $1`), versionKey).Scan(&text)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("%s is not an efmesh state store (no %s in meta)", s.name, versionKey)
	}
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", s.name, err)
	}
	v, err := strconv.Atoi(text)
	if err != nil {
		return 0, fmt.Errorf("%s: bad %s %q in meta", s.name, versionKey, text)
	}
	return v, nil
}

func (s *Store) writeVersion(ctx context.Context, tx pgx.Tx, v int) error {
	_, err := tx.Exec(ctx, s.q(`
		INSERT INTO {s}.meta (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
		versionKey, strconv.Itoa(v))
	return err
}
