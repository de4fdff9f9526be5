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
			for j := take(); j >= 0; j = take() {
				c, done, err := prepared(conn, queries[j])
				if !done {
					c, err = describe(ctx, conn, queries[j])
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
