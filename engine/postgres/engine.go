// Package postgres is the PostgreSQL adapter: a shared warehouse reached
// through a pgx connection pool, and pg_query (PostgreSQL's own parser,
// linked in) behind canonical forms, so canonicalizing needs no server.
//
// It turns pgx values, field descriptions and server errors, and pg_query's
// parse trees and errors, into engine types; nothing above engine imports
// pgx or pg_query. Positions in every *engine.SQLError it returns are 0-based
// byte offsets into the SQL text that was passed in, whatever the server
// counts in.
//
// Postgres reads no files: DB does not implement engine.FileReader, so seed
// files and file externals fail in the planner with an engine.FeatureError.
package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/efmesh/efmesh/engine"
)

// DB is a pool of connections to one PostgreSQL database. It is safe for
// concurrent use: every call takes its own pooled connection for its whole
// duration (Tx keeps one for the whole transaction).
type DB struct {
	pool *pgxpool.Pool
	// charPositions is false when the database encoding is SQL_ASCII, where
	// the server counts error positions in bytes rather than characters.
	charPositions bool
	types         typeNames
}

var (
	_ engine.Engine  = (*DB)(nil)
	_ engine.Parser  = (*DB)(nil)
	_ engine.Catalog = (*DB)(nil)
)

// Open connects to the database at url, a libpq URL or keyword/value string
// ("postgres://user@host:5432/db?sslmode=disable"). Pool settings ride on
// the URL (pool_max_conns=8); the default is pgxpool's, the larger of 4 and
// the number of CPUs. Open fails unless the server answers.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return openPool(ctx, cfg)
}

// openPool connects a pool configured by cfg (see Open).
func openPool(ctx context.Context, cfg *pgxpool.Config) (*DB, error) {
	// Intervals, @start/@end and casts between timestamp and timestamptz
	// are UTC, whatever the server's or the machine's zone.
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "efmesh"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	c, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	enc := c.Conn().PgConn().ParameterStatus("server_encoding")
	c.Release()
	return &DB{pool: pool, charPositions: enc != "SQL_ASCII"}, nil
}

// Dialect returns PostgreSQL's DDL generator.
func (d *DB) Dialect() engine.Dialect { return Dialect{} }

// Exec runs q over the simple query protocol, so q may hold several
// statements separated by semicolons. The server runs such a string as one
// implicit transaction: when a later statement fails, earlier ones are
// rolled back.
func (d *DB) Exec(ctx context.Context, q string) error {
	// pgx uses the simple protocol whenever there are no arguments.
	if _, err := d.pool.Exec(ctx, q); err != nil {
		return d.convertError(err, q)
	}
	return nil
}

// Query runs q (simple protocol, no statement cache, so a relation
// redefined since the last call never trips a stale cached plan) and reads
// every row. Column types are PostgreSQL's format_type names, as Describe
// returns them; values are plain Go values (see plainValue).
func (d *DB) Query(ctx context.Context, q string) (*engine.Rows, error) {
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	defer c.Release()
	return d.query(ctx, c.Conn(), q)
}

// query runs q on conn (a pooled connection, possibly inside a
// transaction) and reads every row.
func (d *DB) query(ctx context.Context, conn *pgx.Conn, q string) (*engine.Rows, error) {
	rows, err := conn.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, d.convertError(err, q)
	}
	fields := append([]pgconn.FieldDescription(nil), rows.FieldDescriptions()...)
	out := &engine.Rows{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return nil, d.convertError(err, q)
		}
		for i, v := range vals {
			vals[i] = plainValue(v)
		}
		out.Values = append(out.Values, vals)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.convertError(err, q)
	}
	// The rows are closed before the type names are looked up, on the same
	// connection: a call never holds two pooled connections, so concurrent
	// calls cannot starve the pool.
	out.Columns, err = d.columns(ctx, conn, fields)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Tx runs stmts in one transaction on one pooled connection and rolls back
// on the first error. Each statement goes over the simple protocol, so one
// element may itself hold several statements (see Dialect.ReplaceView).
// Error positions are relative to the failing element.
func (d *DB) Tx(ctx context.Context, stmts []string) error {
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			// A failed rollback (a cancelled ctx) closes the connection,
			// which aborts the transaction just the same.
			tx.Rollback(ctx)
			return d.convertError(err, s)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return d.convertError(err, "")
	}
	return nil
}

var _ engine.CheckedTx = (*DB)(nil)

// TxCheck runs stmts in one transaction, then check on what they wrote,
// read on the transaction's connection; it commits only when check
// returns nil, and rolls back otherwise.
func (d *DB) TxCheck(ctx context.Context, stmts []string, check func(engine.Querier) error) error {
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			tx.Rollback(ctx)
			return d.convertError(err, s)
		}
	}
	if err := check(txQuerier{d: d, conn: tx.Conn()}); err != nil {
		tx.Rollback(ctx)
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return d.convertError(err, "")
	}
	return nil
}

// txQuerier reads on a transaction's connection.
type txQuerier struct {
	d    *DB
	conn *pgx.Conn
}

func (t txQuerier) Query(ctx context.Context, q string) (*engine.Rows, error) {
	return t.d.query(ctx, t.conn, q)
}

// Close closes every connection of the pool.
func (d *DB) Close() error {
	d.pool.Close()
	return nil
}

// MaxConcurrency is the pool's size: that many models can build at once.
func (d *DB) MaxConcurrency() int { return int(d.pool.Config().MaxConns) }
