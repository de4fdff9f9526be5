package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"runtime"
	"sync"

	"github.com/efmesh/efmesh/engine"
)

// maxBinders caps DescribeMany's connections.
const maxBinders = 8

// DescribeMany describes each of queries as Describe does, over up to one
// connection per core at once. Its connections bind with the optimizer
// off: a prepared statement is otherwise optimized, which DESCRIBE never
// does and which is most of a small query's preparing, so the columns
// are DESCRIBE's either way. Results are in the order of queries; an
// error is that query's alone.
func (d *DB) DescribeMany(ctx context.Context, queries []string) ([][]engine.Column, []error) {
	cols := make([][]engine.Column, len(queries))
	errs := make([]error, len(queries))
	if len(queries) == 0 {
		return cols, errs
	}
	pool := d.binderPool()
	// A few dozen queries per connection pay for opening it.
	workers := min(runtime.GOMAXPROCS(0), maxBinders, (len(queries)+31)/32)
	workers = max(workers, 1)
	var next sync.Mutex
	i := 0
	take := func() int {
		next.Lock()
		defer next.Unlock()
		if i >= len(queries) || ctx.Err() != nil {
			return -1
		}
		i++
		return i - 1
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			conn, err := pool.Conn(ctx)
			if err != nil {
				for j := take(); j >= 0; j = take() {
					errs[j] = convertError(err, 0)
				}
				return
			}
			defer conn.Close()
			tx := readTx{conn: conn}
			defer tx.end(ctx)
			for j := take(); j >= 0; j = take() {
				tx.begin(ctx)
				c, done, err := prepared(conn, queries[j])
				if !done {
					c, err = describe(ctx, conn, queries[j])
				}
				if !done || err != nil {
					// A refused statement may abort the transaction; the
					// next query binds in a fresh one.
					tx.end(ctx)
				}
				cols[j], errs[j] = c, err
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		for j := range queries {
			if cols[j] == nil && errs[j] == nil {
				errs[j] = err
			}
		}
	}
	return cols, errs
}

// readTx holds one transaction open across a connection's binds. Outside
// one, every prepared statement begins and commits its own, which costs
// as much as binding a small query; a transaction that writes nothing is
// rolled back. The stand-ins a batch binds against exist before it
// starts, so its snapshot sees them.
type readTx struct {
	conn *sql.Conn
	open bool
}

// begin opens the transaction unless it is open. When BEGIN fails, binds
// run in their own transactions, as without readTx.
func (t *readTx) begin(ctx context.Context) {
	if t.open {
		return
	}
	_, err := t.conn.ExecContext(ctx, "BEGIN TRANSACTION")
	t.open = err == nil
}

// end rolls the transaction back. A connection whose rollback failed may
// still hold the old snapshot: it is discarded rather than pooled.
func (t *readTx) end(ctx context.Context) {
	if !t.open {
		return
	}
	t.open = false
	if _, err := t.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
		_ = t.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// binderPool opens DescribeMany's connections: the database's, through a
// connector that cannot close it, each with the optimizer off.
func (d *DB) binderPool() *sql.DB {
	d.bindersOnce.Do(func() {
		db := sql.OpenDB(binderConnector{d.conn})
		db.SetMaxOpenConns(maxBinders)
		db.SetMaxIdleConns(maxBinders)
		d.binders = db
	})
	return d.binders
}

// binderConnector opens connections of a database whose life another pool
// owns (it has no Close), with the optimizer off.
type binderConnector struct{ c driver.Connector }

func (b binderConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := b.c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.(driver.ExecerContext).ExecContext(ctx, "PRAGMA disable_optimizer", nil); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func (b binderConnector) Driver() driver.Driver { return b.c.Driver() }
