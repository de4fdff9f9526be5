package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"runtime"
	"sync"
	"sync/atomic"

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
	// A few dozen queries per connection pay for opening it.
	q := d.describeQueue(ctx, (len(queries)+31)/32)
	pending := make([]*pendingColumns, len(queries))
	for i, query := range queries {
		pending[i] = q.submit(query)
	}
	q.Close()
	for i, p := range pending {
		cols[i], errs[i] = p.Wait()
	}
	return cols, errs
}

// bindQueue describes queries as they are submitted, over up to one
// connection per core, while its caller goes on: a checker submits a
// model's body as soon as its parents are checked (the DAG's frontier)
// and checks other models meanwhile. Binding is DescribeMany's (the
// optimizer off, one read transaction held across a connection's binds).
//
// Submit, Fence and Close are called from one goroutine; Wait from any,
// before Close or after.
type bindQueue struct {
	ctx  context.Context
	pool *sql.DB
	jobs chan *pendingColumns
	wg   sync.WaitGroup
	// gen counts Fence calls: a connection whose transaction began before
	// the fence a query was submitted after binds it in a fresh one.
	gen atomic.Int64
}

// pendingColumns is a submitted query's answer, ready once Wait returns.
type pendingColumns struct {
	query string
	gen   int64
	done  chan struct{}
	cols  []engine.Column
	err   error
}

// Wait returns the query's columns or its error, as Describe would.
func (p *pendingColumns) Wait() ([]engine.Column, error) {
	<-p.done
	return p.cols, p.err
}

// DescribeQueue starts a queue of describes. Close it once every query is
// submitted; a cancelled ctx answers the queries not bound yet with its
// error.
func (d *DB) DescribeQueue(ctx context.Context) engine.DescribeQueue {
	return d.describeQueue(ctx, maxBinders)
}

// describeQueue starts a queue of at most limit connections (and no more
// than one per core).
func (d *DB) describeQueue(ctx context.Context, limit int) *bindQueue {
	q := &bindQueue{ctx: ctx, pool: d.binderPool(), jobs: make(chan *pendingColumns, 256)}
	workers := max(1, min(runtime.GOMAXPROCS(0), maxBinders, limit))
	for range workers {
		q.wg.Go(q.work)
	}
	return q
}

// Submit queues query; its answer comes through the returned value.
func (q *bindQueue) Submit(query string) engine.PendingColumns { return q.submit(query) }

func (q *bindQueue) submit(query string) *pendingColumns {
	p := &pendingColumns{query: query, gen: q.gen.Load(), done: make(chan struct{})}
	q.jobs <- p
	return p
}

// Fence makes the queries submitted after it see every change the
// database committed before it (a stand-in table created meanwhile).
func (q *bindQueue) Fence() { q.gen.Add(1) }

// Close says no more queries come and returns once the queued ones are
// answered (at once when the queue's context is cancelled): no connection
// is in use after it.
func (q *bindQueue) Close() {
	close(q.jobs)
	q.wg.Wait()
}

// work binds queued queries on one connection until the queue is closed.
func (q *bindQueue) work() {
	ctx := q.ctx
	var conn *sql.Conn
	var connErr error
	tx := readTx{}
	defer func() {
		if conn != nil {
			tx.end(ctx)
			conn.Close()
		}
	}()
	for p := range q.jobs {
		switch {
		case ctx.Err() != nil:
			p.err = ctx.Err()
		case conn == nil && connErr == nil:
			if conn, connErr = q.pool.Conn(ctx); connErr != nil {
				conn = nil
			}
			tx.conn = conn
		}
		if p.err == nil && connErr != nil {
			p.err = convertError(connErr, 0)
		}
		if p.err == nil {
			if tx.open && tx.gen < p.gen {
				tx.end(ctx)
			}
			if !tx.open {
				tx.gen = q.gen.Load()
			}
			tx.begin(ctx)
			c, tried, ok := preparedShrunk(conn, p.query)
			var done bool
			var err error
			switch {
			case ok:
				done = true
			case tried && tx.open:
				// The placeholders' refusal may have aborted the
				// transaction: the query as written binds in a fresh one.
				tx.end(ctx)
				tx.gen = q.gen.Load()
				tx.begin(ctx)
				fallthrough
			default:
				c, done, err = prepared(conn, p.query)
			}
			if !done {
				c, err = describe(ctx, conn, p.query)
			}
			if !done || err != nil {
				// A refused statement may abort the transaction; the
				// next query binds in a fresh one.
				tx.end(ctx)
			}
			p.cols, p.err = c, err
			if ctx.Err() != nil && p.cols == nil && p.err == nil {
				p.err = ctx.Err()
			}
		}
		close(p.done)
	}
}

// readTx holds one transaction open across a connection's binds. Outside
// one, every prepared statement begins and commits its own, which costs
// as much as binding a small query; a transaction that writes nothing is
// rolled back. A query binds in a transaction that began after the
// stand-ins it reads were created (gen, DescribeQueue.Fence).
type readTx struct {
	conn *sql.Conn
	open bool
	// gen is the queue's fence count when the transaction began.
	gen int64
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
