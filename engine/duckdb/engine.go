// Package duckdb is the DuckDB adapter: the embedded default warehouse and
// the parser behind canonical forms and the editor's checks. It turns the
// driver's values and JSON errors into engine types; nothing above engine
// imports the driver.
package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/efmesh/efmesh/engine"
)

// DB is a DuckDB database, on disk or in memory.
type DB struct {
	db   *sql.DB
	conn *duckdb.Connector
	path string
	// binders is DescribeMany's pool: connections of the same database
	// with the optimizer off, opened on first use.
	bindersOnce sync.Once
	binders     *sql.DB
	// memoryLimit is the limit SetMemoryLimit set last, nil for DuckDB's
	// default.
	memoryLimit atomic.Pointer[string]
}

var (
	_ engine.Engine         = (*DB)(nil)
	_ engine.Parser         = (*DB)(nil)
	_ engine.Catalog        = (*DB)(nil)
	_ engine.FileReader     = (*DB)(nil)
	_ engine.QueueDescriber = (*DB)(nil)
	_ engine.Verifier       = (*DB)(nil)
)

// Open opens (creating when missing) the database at path; "" or ":memory:"
// is a private in-memory database.
//
// A file another process has open for writing is an *engine.BusyError
// naming the holder; the caller may wait and open again.
//
// Every connection works in UTC, reports errors as JSON with positions, and extension
// auto-install is off: an extension that is not built in (httpfs, ducklake,
// postgres_scanner) fails at once with an error naming it instead of
// reaching for the network.
func Open(path string) (*DB, error) { return openDB(path, false) }

// OpenReadOnly opens the existing database at path for reading only: it
// neither creates the file nor writes to it (no checkpoint on Close), and
// other read-only openers may share it.
func OpenReadOnly(path string) (*DB, error) { return openDB(path, true) }

func openDB(path string, readOnly bool) (*DB, error) {
	dsn := path
	if path == ":memory:" {
		dsn = ""
	}
	if readOnly && dsn != "" {
		dsn += "?access_mode=READ_ONLY"
	} else if dsn != "" {
		if dir := filepath.Dir(dsn); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("duckdb: %w", err)
			}
		}
	}
	c, err := duckdb.NewConnector(dsn, func(ex driver.ExecerContext) error {
		for _, s := range []string{
			"SET errors_as_json = true",
			"SET autoinstall_known_extensions = false",
			// Intervals, @start/@end and casts between TIMESTAMP and
			// TIMESTAMPTZ are UTC, whatever the machine's zone.
			"SET TimeZone = 'UTC'",
		} {
			if _, err := ex.ExecContext(context.Background(), s, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if be := busyError(err, path); be != nil {
			return nil, be
		}
		return nil, openError(path, err)
	}
	db := sql.OpenDB(c)
	// One connection: DuckDB serializes writers anyway, and a single
	// connection keeps other statements out of a running transaction.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	if err := db.Ping(); err != nil {
		db.Close()
		if be := busyError(err, path); be != nil {
			return nil, be
		}
		return nil, openError(path, err)
	}
	return &DB{db: db, conn: c, path: path}, nil
}

// openError is err, DuckDB refusing to open path: a damaged file is an
// *engine.CorruptError naming it.
func openError(path string, err error) error {
	e := convertError(err, 0)
	var ce *engine.CorruptError
	if errors.As(e, &ce) {
		ce.Database = path
		return ce
	}
	return fmt.Errorf("duckdb: open %s: %w", path, e)
}

// Dialect returns DuckDB's DDL generator.
func (d *DB) Dialect() engine.Dialect { return Dialect{} }

// Exec runs one or more statements.
func (d *DB) Exec(ctx context.Context, q string) error {
	if _, err := d.db.ExecContext(ctx, q); err != nil {
		return convertErrorIn(err, q, 0)
	}
	return nil
}

// Query runs q and reads every row.
func (d *DB) Query(ctx context.Context, q string) (*engine.Rows, error) {
	return query(ctx, d.db, q)
}

// query runs q on db (the pool, or a transaction) and reads every row.
func query(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, q string) (*engine.Rows, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, convertErrorIn(err, q, 0)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, convertError(err, 0)
	}
	out := &engine.Rows{}
	for _, t := range types {
		out.Columns = append(out.Columns, engine.Column{Name: t.Name(), Type: t.DatabaseTypeName()})
	}
	for rows.Next() {
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, convertError(err, 0)
		}
		out.Values = append(out.Values, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, convertError(err, 0)
	}
	return out, nil
}

// Tx runs stmts in one transaction.
func (d *DB) Tx(ctx context.Context, stmts []string) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return convertError(err, 0)
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			tx.Rollback()
			return convertErrorIn(err, s, 0)
		}
	}
	if err := tx.Commit(); err != nil {
		return convertError(err, 0)
	}
	return nil
}

var _ engine.BatchTx = (*DB)(nil)

// TxBatch runs stmts in one transaction as one multi-statement request:
// DuckDB still prepares and runs them one by one, but the driver's
// per-statement round trip (a prepared statement, a pending result and an
// interrupt watcher each) goes. Statements are joined on their own
// lines, so a trailing line comment cannot swallow the separator.
func (d *DB) TxBatch(ctx context.Context, stmts []string) error {
	if len(stmts) == 0 {
		return nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return convertError(err, 0)
	}
	if _, err := tx.ExecContext(ctx, strings.Join(stmts, "\n;\n")); err != nil {
		tx.Rollback()
		return convertError(err, 0)
	}
	if err := tx.Commit(); err != nil {
		return convertError(err, 0)
	}
	return nil
}

var _ engine.CheckedTx = (*DB)(nil)

// TxCheck runs stmts in one transaction, then check on what they wrote,
// read inside the transaction (the one connection is the transaction's);
// it commits only when check returns nil, and rolls back otherwise.
func (d *DB) TxCheck(ctx context.Context, stmts []string, check func(engine.Querier) error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return convertError(err, 0)
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			tx.Rollback()
			return convertErrorIn(err, s, 0)
		}
	}
	if err := check(txQuerier{tx}); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return convertError(err, 0)
	}
	return nil
}

// txQuerier reads inside a transaction.
type txQuerier struct{ tx *sql.Tx }

func (t txQuerier) Query(ctx context.Context, q string) (*engine.Rows, error) {
	return query(ctx, t.tx, q)
}

// SetMemoryLimit caps the buffer pool at limit (a DuckDB size such as
// "512MB"); Checkpoint comes back to it after emptying the pool.
func (d *DB) SetMemoryLimit(ctx context.Context, limit string) error {
	if err := d.Exec(ctx, "SET memory_limit = "+engine.QuoteString(limit)); err != nil {
		return err
	}
	d.memoryLimit.Store(&limit)
	return nil
}

// trimLimit is the cap Checkpoint lowers the buffer pool to for a moment:
// DuckDB evicts every block it can to get under it.
const trimLimit = "8MB"

// Checkpoint merges the WAL into the database file, releasing the memory
// the tables written since the last checkpoint pin (their segments cannot
// be evicted before it), then empties the buffer pool's cache of blocks
// already in the file. DuckDB keeps every block it wrote or read, up to
// the memory limit, and gives none back on its own: an apply of thousands
// of tables, which it seldom reads again, held ~500 MB of them at 2,000
// models under the default 1 GB cap. No statement evicts them, but
// lowering the limit does, so the limit is set to trimLimit and back.
// The limit goes back to what SetMemoryLimit set (exactly: DuckDB prints
// it rounded); without one (a limit set by SQL, or DuckDB's default) the
// pool is not emptied. A trim that fails (a block still pinned) is not an
// error. On an in-memory database it does nothing.
func (d *DB) Checkpoint(ctx context.Context) error {
	if d.path == "" || d.path == ":memory:" {
		return nil
	}
	limit := d.memoryLimit.Load()
	if limit != nil {
		// A pool holding little (a promotion's views: catalog entries,
		// no table data) has nothing to evict: the checkpoint alone.
		used, _, err := d.MemoryUsage(ctx)
		if err == nil && used <= checkpointHeadroom {
			return d.Exec(ctx, "CHECKPOINT")
		}
		// The checkpoint runs under a cap just above what is pinned: it
		// writes every new table into blocks of 256 KB (even a table of
		// one row), which the pool would otherwise keep cached, up to the
		// limit (400 small tables: 110 MB at the checkpoint's end, which
		// the trim below gives back only then). Under the cap, each block
		// is evicted once it is written. A cap it cannot get under (more
		// pinned since) is not set.
		if err == nil {
			capMiB := (used+checkpointHeadroom)>>20 + 1
			_ = d.Exec(ctx, "SET memory_limit = "+engine.QuoteString(strconv.FormatInt(capMiB, 10)+"MiB"))
		}
	}
	if err := d.Exec(ctx, "CHECKPOINT"); err != nil {
		if limit != nil {
			_ = d.Exec(ctx, "SET memory_limit = "+engine.QuoteString(*limit))
		}
		return err
	}
	if limit == nil {
		return nil // no limit to come back to exactly
	}
	_ = d.Exec(ctx, "SET memory_limit = "+engine.QuoteString(trimLimit))
	return d.Exec(ctx, "SET memory_limit = "+engine.QuoteString(*limit))
}

// checkpointHeadroom is what a checkpoint may cache above what is pinned
// when it starts.
const checkpointHeadroom = 16 << 20

// MemoryUsage is the memory DuckDB's buffer manager holds now, in bytes
// (duckdb_memory(): blocks of tables, pinned or cached, and what running
// queries hold), and its memory limit (0 if DuckDB prints one it cannot
// be read back from).
func (d *DB) MemoryUsage(ctx context.Context) (used, limit int64, err error) {
	r, err := d.Query(ctx, "SELECT coalesce((SELECT sum(memory_usage_bytes) FROM duckdb_memory()), 0)::BIGINT, current_setting('memory_limit')")
	if err != nil {
		return 0, 0, err
	}
	used, _ = r.Values[0][0].(int64)
	s, _ := r.Values[0][1].(string)
	return used, parseSize(s), nil
}

// parseSize reads a size as DuckDB prints one ("953.6 MiB", "40.0 MB",
// "512 bytes"); 0 if it is none.
func parseSize(s string) int64 {
	num, unit, _ := strings.Cut(strings.TrimSpace(s), " ")
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0
	}
	mult := map[string]float64{
		"bytes": 1, "B": 1,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50,
	}[strings.TrimSpace(unit)]
	return int64(f * mult)
}

// Close closes the database.
func (d *DB) Close() error {
	if d.binders != nil {
		d.binders.Close()
	}
	err := d.db.Close()
	if cerr := d.conn.Close(); err == nil {
		err = cerr
	}
	return err
}

// MaxConcurrency is 1: the warehouse has one connection, and other
// statements would wedge into a running transaction.
func (d *DB) MaxConcurrency() int { return 1 }

// TableRows returns DuckDB's estimate of the rows of each table of schema
// (duckdb_tables().estimated_size), keyed by table name.
func (d *DB) TableRows(ctx context.Context, schema string) (map[string]int64, error) {
	rows, err := d.Query(ctx, "SELECT table_name, estimated_size FROM duckdb_tables() WHERE schema_name = "+Dialect{}.Literal(schema))
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, r := range rows.Values {
		name, _ := r[0].(string)
		switch n := r[1].(type) {
		case int64:
			out[name] = n
		case int32:
			out[name] = int64(n)
		}
	}
	return out, nil
}
