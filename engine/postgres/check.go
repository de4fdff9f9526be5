package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/efmesh/efmesh/engine"
)

// Checker binds model bodies with the server itself: the parents are empty
// temporary views of its one session (temporary relations are
// session-local, so no other session ever sees them, and they vanish with
// the session; a body the server refuses is bound again against temporary
// tables, so its errors are apply's),
// and a body is prepared against them as the unnamed statement (parse,
// analyze and plan; nothing runs). What the server refuses at apply it
// refuses here, at the same position: a column neither grouped nor
// aggregated, an operator or function that does not exist for the types,
// an aggregate or window function where none is allowed.
//
// A Checker is used by one goroutine at a time. Canonical forms still come
// from the linked-in parser (Parser), which needs no server.
type Checker struct {
	Parser
	db *DB
	mu sync.Mutex
	// pid is the backend the stand-ins were made in; made holds the
	// stand-ins made there. A new backend (the connection was replaced)
	// starts over.
	pid  uint32
	made map[string]bool
}

// OpenChecker opens a session of its own on the database at url for
// checking bodies (see Checker). It fails unless the server answers.
func OpenChecker(ctx context.Context, url string) (*Checker, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// One connection: the stand-ins are temporary tables of one session.
	cfg.MaxConns, cfg.MinConns = 1, 0
	db, err := openPool(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Checker{db: db, made: map[string]bool{}}, nil
}

// Dialect returns PostgreSQL's DDL generator.
func (c *Checker) Dialect() engine.Dialect { return Dialect{} }

// UntypedNull: PostgreSQL's NULL is of type unknown until context gives it
// one (to_jsonb(NULL) does not resolve where to_jsonb(a column) does).
func (c *Checker) UntypedNull() bool { return true }

// Close ends the session, and its temporary tables with it.
func (c *Checker) Close() error { return c.db.Close() }

// StandIn is the relation a body handed to BindContext names for a
// relation of columns cols: a temporary view named by its columns, so
// relations of one shape share one (making it is most of a check's cost).
func (c *Checker) StandIn(cols []engine.Column) string {
	h := sha256.Sum256([]byte(signature(cols)))
	return "pg_temp." + engine.QuoteIdent("efmesh_standin_"+hex.EncodeToString(h[:12]))
}

// BindContext returns the output columns of sql as the server binds it,
// relations ("schema.table" → columns) standing in for what StandIn names.
// Errors about sql are *engine.SQLError positioned in sql; a body that is
// not one SELECT is refused as Parser.Bind refuses it, before the server
// sees it. When a stand-in cannot be made (a declared type the server does
// not know) or the connection fails, the body is bound by Parser.Bind
// instead, so the check still says what it can.
func (c *Checker) BindContext(ctx context.Context, sql string, relations map[string][]engine.Column) ([]engine.Column, error) {
	if err := oneSelect(sql); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cols, err := c.bindLocked(ctx, sql, relations)
	var se *engine.SQLError
	if err != nil && !errors.As(err, &se) && ctx.Err() == nil {
		return c.Parser.Bind(sql, relations)
	}
	return cols, err
}

// Bind is BindContext without a deadline.
func (c *Checker) Bind(sql string, relations map[string][]engine.Column) ([]engine.Column, error) {
	return c.BindContext(context.Background(), sql, relations)
}

// errStandIn is a stand-in the server would not create.
var errStandIn = errors.New("postgres: stand-in refused")

// bindLocked makes the missing stand-ins in one round trip and prepares
// sql. Precondition: c.mu is held.
func (c *Checker) bindLocked(ctx context.Context, sql string, relations map[string][]engine.Column) ([]engine.Column, error) {
	conn, err := c.db.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	defer conn.Release()
	if pid := conn.Conn().PgConn().PID(); pid != c.pid {
		c.pid, c.made = pid, map[string]bool{}
	}
	keys := make([]string, 0, len(relations))
	for k := range relations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ddl strings.Builder
	var want []string
	for _, k := range keys {
		rel := c.StandIn(relations[k])
		if c.made[rel] || slices.Contains(want, rel) {
			continue
		}
		want = append(want, rel)
		ddl.WriteString(standIn(rel, relations[k], false))
	}
	if ddl.Len() > 0 {
		// One implicit transaction: all made or none.
		if _, err := conn.Exec(ctx, ddl.String()); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("postgres: %w", ctx.Err())
			}
			return nil, fmt.Errorf("%w: %v", errStandIn, err)
		}
		for _, rel := range want {
			c.made[rel] = true
		}
	}
	desc, err := conn.Conn().PgConn().Prepare(ctx, "", sql, nil)
	if err != nil && ctx.Err() == nil && needsTable(err) {
		// Refused for what only a table has (TABLESAMPLE, a system
		// column): bind again against tables, the kind of relation apply
		// reads, so the answer is apply's. The tables live in a
		// transaction rolled back after the prepare: the views stay.
		desc, err = c.prepareOnTables(ctx, conn.Conn(), sql, relations, keys)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("postgres: %w", ctx.Err())
		}
		return nil, c.db.convertError(err, sql)
	}
	return c.db.columns(ctx, conn.Conn(), desc.Fields)
}

// systemColumns are the columns every table has and a view has not.
var systemColumns = []string{"ctid", "xmin", "xmax", "cmin", "cmax", "tableoid"}

// needsTable reports whether the server refused a body for reading a view
// where it needs a table: the wrong kind of relation (TABLESAMPLE), or an
// unknown column that is a system column.
func needsTable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "0A000", "42809": // feature_not_supported, wrong_object_type
		return strings.Contains(pe.Message, "view") || strings.Contains(pe.Message, "table")
	case "42703": // undefined_column
		for _, sc := range systemColumns {
			if strings.Contains(pe.Message, sc) {
				return true
			}
		}
	}
	return false
}

// prepareOnTables prepares sql with each stand-in of relations replaced by
// a temporary table of its columns, in a transaction it rolls back.
func (c *Checker) prepareOnTables(ctx context.Context, conn *pgx.Conn, sql string, relations map[string][]engine.Column, keys []string) (*pgconn.StatementDescription, error) {
	var ddl strings.Builder
	ddl.WriteString("BEGIN;\n")
	var done []string
	for _, k := range keys {
		rel := c.StandIn(relations[k])
		if !slices.Contains(done, rel) {
			done = append(done, rel)
			ddl.WriteString("DROP VIEW " + rel + ";\n" + standIn(rel, relations[k], true))
		}
	}
	if _, err := conn.Exec(ctx, ddl.String()); err != nil {
		_, _ = conn.Exec(ctx, "ROLLBACK")
		return nil, err
	}
	desc, err := conn.PgConn().Prepare(ctx, "", sql, nil)
	if _, rerr := conn.Exec(ctx, "ROLLBACK"); rerr != nil && err == nil {
		err = rerr
	}
	return desc, err
}

// standIn is the statement making rel, a relation of columns cols: an
// empty temporary view (no storage: several times cheaper to make than a
// table, and binding reads only its columns), or a temporary table.
func standIn(rel string, cols []engine.Column, table bool) string {
	defs := make([]string, len(cols))
	for i, col := range cols {
		if table {
			defs[i] = engine.QuoteIdent(col.Name) + " " + col.Type
		} else {
			defs[i] = "NULL::" + col.Type + " AS " + engine.QuoteIdent(col.Name)
		}
	}
	if table {
		return fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s);\n", rel, strings.Join(defs, ", "))
	}
	return fmt.Sprintf("CREATE OR REPLACE TEMPORARY VIEW %s AS SELECT %s WHERE false;\n", rel, strings.Join(defs, ", "))
}

// signature is a column list's identity: names and types.
func signature(cols []engine.Column) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(c.Name)
		b.WriteByte(0)
		b.WriteString(c.Type)
		b.WriteByte(0)
	}
	return b.String()
}
