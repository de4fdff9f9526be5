// Package postgres is the team state store: the tables of state/sqlite, with
// the same semantics, in one schema (efmesh_state by default) of a shared
// PostgreSQL database, reached through a pgx pool. Several people and the
// nightly run then plan against one truth, and TryLock arbitrates between
// processes on different machines.
//
// It implements state.Store and owns the schema's layout, its version and
// its migrations. It knows nothing of plans, engines or models beyond the
// records the planner hands it, and it never shares a transaction with the
// data, even when the warehouse is the same database.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/efmesh/efmesh/state"
)

// DefaultSchema is the schema that holds the store unless WithSchema says
// otherwise.
const DefaultSchema = "efmesh_state"

// Store is a state.Store in one schema of a PostgreSQL database. Its methods
// are safe for concurrent use: every call takes a pooled connection for its
// own duration, and every multi-statement change is one transaction.
type Store struct {
	pool *pgxpool.Pool
	// sql rewrites the {s} placeholder of a query into the quoted schema
	// name: every query names its tables explicitly, so the store does not
	// depend on the search_path of the URL.
	sql    *strings.Replacer
	schema string
	name   string // the store as shown to the user, without a password
}

var (
	_ state.Store     = (*Store)(nil)
	_ state.Versioned = (*Store)(nil)
)

// Option configures Open and Migrate.
type Option func(*options)

type options struct {
	schema string
}

// WithSchema puts the store in schema name instead of DefaultSchema (tests
// use a schema of their own; teams may keep several stores in one database).
func WithSchema(name string) Option {
	return func(o *options) { o.schema = name }
}

// Open connects to the database at url, a libpq URL or keyword/value string
// ("postgres://user@host:5432/db?sslmode=disable"; pool settings such as
// pool_max_conns ride on it). A schema that does not exist or holds no table
// receives the layout and its version in one transaction, under an advisory
// lock, so processes opening a fresh database at once create it once. A
// store of another schema version is not touched: the error is a
// *state.SchemaVersionError (errors.Is state.ErrSchemaVersion).
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	s, err := connect(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	if err := s.createOrCheck(ctx); err != nil {
		s.pool.Close()
		return nil, err
	}
	return s, nil
}

// OpenExisting opens the store in the database at url only if one is there:
// it creates nothing, and a missing or empty schema is an error wrapping
// state.ErrNotFound. Readers that must not create a team's store (the
// editor) open it so.
func OpenExisting(ctx context.Context, url string, opts ...Option) (*Store, error) {
	s, err := connect(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		v, err := s.readVersion(ctx, tx)
		switch {
		case errors.Is(err, errEmpty):
			return fmt.Errorf("%s: no store yet: %w", s.name, state.ErrNotFound)
		case err != nil:
			return err
		case v != state.SchemaVersion:
			return &state.SchemaVersionError{Store: s.name, Have: v, Want: state.SchemaVersion}
		}
		return nil
	})
	if err != nil {
		s.pool.Close()
		return nil, err
	}
	return s, nil
}

// connect returns a Store on a new pool; it reads and writes nothing yet.
func connect(ctx context.Context, url string, opts []Option) (*Store, error) {
	o := options{schema: DefaultSchema}
	for _, opt := range opts {
		opt(&o)
	}
	if o.schema == "" {
		return nil, fmt.Errorf("state store: open: empty schema name")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgconn masks the password in its parse errors.
		return nil, fmt.Errorf("state store: open: %w", err)
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "efmesh"
	}
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		// Times come back in UTC, as from every store, whatever the
		// session's TimeZone; the instant is the same.
		c.TypeMap().RegisterType(&pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID,
			Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC}})
		return nil
	}
	name := describe(&cfg.ConnConfig.Config, o.schema)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return &Store{
		pool:   pool,
		sql:    strings.NewReplacer("{s}", pgx.Identifier{o.schema}.Sanitize()),
		schema: o.schema,
		name:   name,
	}, nil
}

// describe names the store for messages: the server, database and schema,
// never the password.
func describe(c *pgconn.Config, schema string) string {
	host := c.Host
	if !strings.HasPrefix(host, "/") { // a Unix socket directory has no port of its own
		host = net.JoinHostPort(host, fmt.Sprint(c.Port))
	}
	return fmt.Sprintf("postgres://%s@%s/%s (schema %s)", c.User, host, c.Database, schema)
}

// Close closes the store's connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// q returns query with its {s} placeholders replaced by the schema.
func (s *Store) q(query string) string { return s.sql.Replace(query) }

// nowIfZero returns t, or the current time when t is zero.
func nowIfZero(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// nullTime is NULL for the zero time.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// orZero is the time of a nullable column, zero for NULL.
func orZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// inTx runs fn in a transaction and commits it when fn returns nil.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// dataVersionKey is the row of meta that counts the write transactions
// (Version). A store without it has version 0.
const dataVersionKey = "data_version"

// write is inTx for a transaction that changes what a Reader reads: it
// bumps the data version as its last statement, so a transaction waiting
// for the counter's row lock holds no lock its holder waits for.
func (s *Store) write(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, s.q(`
			INSERT INTO {s}.meta AS m (key, value) VALUES ($1, '1')
			ON CONFLICT (key) DO UPDATE SET value = (m.value::bigint + 1)::text`), dataVersionKey)
		return err
	})
}

// exec runs one writing statement with write.
func (s *Store) exec(ctx context.Context, query string, args ...any) (pgconn.CommandTag, error) {
	var tag pgconn.CommandTag
	err := s.write(ctx, func(tx pgx.Tx) error {
		var err error
		tag, err = tx.Exec(ctx, query, args...)
		return err
	})
	return tag, err
}

// Version is the number of write transactions committed to the store
// (but to its locks), by any process: it changes with every write and
// only then.
func (s *Store) Version(ctx context.Context) (int64, error) {
	var v int64
	err := s.pool.QueryRow(ctx, s.q(`SELECT coalesce((SELECT value::bigint FROM {s}.meta WHERE key = $1), 0)`), dataVersionKey).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("version of %s: %w", s.name, err)
	}
	return v, nil
}
