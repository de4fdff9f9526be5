package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/sqlscan"
)

const describePrefix = "DESCRIBE "

// Describe binds query without running it and returns its output columns,
// named and typed as DESCRIBE names them. Error positions are relative to
// query.
//
// Reading the columns of the prepared statement skips executing DESCRIBE
// and reading its rows, about half the time for a plain query; DESCRIBE
// answers whatever the prepared statement cannot name with certainty.
func (d *DB) Describe(ctx context.Context, query string) ([]engine.Column, error) {
	// The database may have a single connection: the DESCRIBE fallback
	// must run on the one held here.
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return nil, convertError(err, 0)
	}
	defer conn.Close()
	if cols, _, ok := preparedShrunk(conn, query); ok {
		return cols, nil
	}
	if cols, done, err := prepared(conn, query); done {
		return cols, err
	}
	return describe(ctx, conn, query)
}

// preparedShrunk reads query's columns from the prepared statement of
// query with its long literals as placeholders (shrinkLiterals), which
// binds to the same columns. ok is false when query has no long literal,
// or when the placeholders might change the answer (an error, a column
// named after a literal): query as written answers then. tried reports
// whether a statement was prepared.
func preparedShrunk(conn *sql.Conn, query string) (cols []engine.Column, tried, ok bool) {
	s, ok := shrinkLiterals(query)
	if !ok {
		return nil, false, false
	}
	cols, done, err := prepared(conn, s.sql)
	if !done || err != nil {
		return nil, true, false
	}
	for _, c := range cols {
		if namesPlaceholder(c.Name) {
			return nil, true, false
		}
	}
	return cols, true, true
}

// selectLeads are the first keywords of the statements DESCRIBE takes as a
// query, each with whether DESCRIBE fails as preparing does when such a
// statement does not parse or bind: WITH also heads INSERT, UPDATE and
// DELETE, and VALUES on its own is a table name to DESCRIBE. Other leads,
// DESCRIBE, SHOW and SUMMARIZE among them, prepare as a SELECT but DESCRIBE
// rejects or reads them differently.
var selectLeads = map[string]bool{"SELECT": true, "FROM": true, "(": true, "WITH": false, "VALUES": false}

// errorsBeforePlanning are the error types of parsing and binding, which
// DESCRIBE does as preparing does. Other errors may come from optimizing,
// which DESCRIBE skips.
var errorsBeforePlanning = map[string]bool{"Parser": true, "Binder": true, "Catalog": true}

// prepared reads query's columns from its prepared statement. done is false
// when only DESCRIBE can answer: query is not one SELECT, takes parameters
// or has a column type whose DESCRIBE name is uncertain, or it failed to
// prepare in a way DESCRIBE might not.
func prepared(conn *sql.Conn, query string) (cols []engine.Column, done bool, err error) {
	ownErrors, ok := selectLeads[leadingKeyword(query)]
	if !ok {
		return nil, false, nil
	}
	err = conn.Raw(func(dc any) error {
		// Prepare, unlike PrepareContext, refuses several statements
		// instead of running all but the last.
		st, err := dc.(*duckdb.Conn).Prepare(query)
		if err != nil {
			return err
		}
		s := st.(*duckdb.Stmt)
		defer s.Close()
		cols, done = columns(s)
		return nil
	})
	if err == nil {
		return cols, done, nil
	}
	var se *engine.SQLError
	if err = convertErrorIn(err, query, 0); ownErrors && errors.As(err, &se) && errorsBeforePlanning[se.Type] {
		return nil, true, err
	}
	return nil, false, nil
}

// columns reads the result columns of s, or reports false when DESCRIBE
// must answer instead.
func columns(s *duckdb.Stmt) ([]engine.Column, bool) {
	if t, err := s.StatementType(); err != nil || t != duckdb.STATEMENT_TYPE_SELECT || s.NumInput() > 0 {
		return nil, false
	}
	n, err := s.ColumnCount()
	if err != nil {
		return nil, false
	}
	cols := make([]engine.Column, n)
	for i := range cols {
		name, err := s.ColumnName(i)
		if err != nil {
			return nil, false
		}
		typ, ok := typeName(s, i)
		if !ok {
			return nil, false
		}
		cols[i] = engine.Column{Name: name, Type: typ}
	}
	return cols, true
}

// typeNames are DESCRIBE's names of the types without parameters.
var typeNames = map[duckdb.Type]string{
	duckdb.TYPE_BOOLEAN:      "BOOLEAN",
	duckdb.TYPE_TINYINT:      "TINYINT",
	duckdb.TYPE_SMALLINT:     "SMALLINT",
	duckdb.TYPE_INTEGER:      "INTEGER",
	duckdb.TYPE_BIGINT:       "BIGINT",
	duckdb.TYPE_UTINYINT:     "UTINYINT",
	duckdb.TYPE_USMALLINT:    "USMALLINT",
	duckdb.TYPE_UINTEGER:     "UINTEGER",
	duckdb.TYPE_UBIGINT:      "UBIGINT",
	duckdb.TYPE_HUGEINT:      "HUGEINT",
	duckdb.TYPE_UHUGEINT:     "UHUGEINT",
	duckdb.TYPE_FLOAT:        "FLOAT",
	duckdb.TYPE_DOUBLE:       "DOUBLE",
	duckdb.TYPE_VARCHAR:      "VARCHAR",
	duckdb.TYPE_BLOB:         "BLOB",
	duckdb.TYPE_DATE:         "DATE",
	duckdb.TYPE_TIME:         "TIME",
	duckdb.TYPE_TIME_TZ:      "TIME WITH TIME ZONE",
	duckdb.TYPE_TIMESTAMP:    "TIMESTAMP",
	duckdb.TYPE_TIMESTAMP_TZ: "TIMESTAMP WITH TIME ZONE",
	duckdb.TYPE_TIMESTAMP_S:  "TIMESTAMP_S",
	duckdb.TYPE_TIMESTAMP_MS: "TIMESTAMP_MS",
	duckdb.TYPE_TIMESTAMP_NS: "TIMESTAMP_NS",
	duckdb.TYPE_INTERVAL:     "INTERVAL",
	duckdb.TYPE_UUID:         "UUID",
	duckdb.TYPE_BIT:          "BIT",
}

// typeName returns DESCRIBE's name of the type of column i of s. It reports
// false for nested types, enums, extension types and unresolved types.
func typeName(s *duckdb.Stmt, i int) (string, bool) {
	t, err := s.ColumnType(i)
	if err != nil {
		return "", false
	}
	name, ok := typeNames[t]
	if !ok && t != duckdb.TYPE_DECIMAL {
		// Decided before ColumnTypeInfo, which would build a nested type
		// or an enum's dictionary only to discard it.
		return "", false
	}
	info, err := s.ColumnTypeInfo(i)
	if err != nil {
		return "", false
	}
	switch alias := info.Alias(); {
	case alias == "JSON" && t == duckdb.TYPE_VARCHAR:
		return alias, true
	case alias != "":
		return "", false
	case t == duckdb.TYPE_DECIMAL:
		d := info.Details().(*duckdb.DecimalDetails)
		return fmt.Sprintf("DECIMAL(%d,%d)", d.Width, d.Scale), true
	}
	return name, true
}

// leadingKeyword returns the first word of q upper-cased, or "(", after
// blanks and comments; block comments nest, as in DuckDB. It returns "" when
// q has neither.
func leadingKeyword(q string) string {
	src := []byte(q)
	sc := sqlscan.NewScanner(src, 0)
	t := sc.Next()
	for t.Kind == sqlscan.Comment {
		t = sc.Next()
	}
	switch {
	case t.Kind == sqlscan.Ident:
		return strings.ToUpper(t.Text(src))
	case t.Kind == sqlscan.Punct && src[t.Start] == '(':
		return "("
	}
	return ""
}

// queryer is a *sql.DB or a *sql.Conn.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// describe answers Describe by running DESCRIBE query.
func describe(ctx context.Context, db queryer, query string) ([]engine.Column, error) {
	rows, err := db.QueryContext(ctx, describePrefix+query)
	if err != nil {
		return nil, convertErrorIn(err, describePrefix+query, len(describePrefix))
	}
	defer rows.Close()
	var cols []engine.Column
	names, err := rows.Columns()
	if err != nil {
		return nil, convertError(err, 0)
	}
	for rows.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, convertError(err, 0)
		}
		cols = append(cols, engine.Column{Name: fmt.Sprint(vals[0]), Type: fmt.Sprint(vals[1])})
	}
	if err := rows.Err(); err != nil {
		return nil, convertErrorIn(err, describePrefix+query, len(describePrefix))
	}
	return cols, nil
}

// Relations lists the tables and views of the database's schemas among
// schemas (each view with its definition), with the columns of those among withColumns, in one catalog
// query (attached databases are not looked at). The query names schemas,
// never relations: it lists the columns of every relation of the schemas
// that hold one of withColumns, and engine.RelationsOf keeps those asked
// for, so its cost is linear in the catalog however many are asked for.
func (d *DB) Relations(ctx context.Context, schemas []string, withColumns []engine.Relation) ([]engine.Listed, error) {
	if len(schemas) == 0 {
		return nil, nil
	}
	// A view's definition comes once, on its first row.
	q := `SELECT r.schema_name, r.name, r.is_view, c.column_name, c.data_type,
			CASE WHEN c.column_index IS NULL OR c.column_index = 1 THEN r.sql END
		FROM (SELECT database_name, schema_name, table_name AS name, false AS is_view, NULL AS sql FROM duckdb_tables()
			UNION ALL SELECT database_name, schema_name, view_name, true, sql FROM duckdb_views()) r
		LEFT JOIN duckdb_columns() c ON c.database_name = r.database_name AND c.schema_name = r.schema_name
			AND c.table_name = r.name AND ` + engine.InList("c.schema_name", engine.ColumnSchemas(schemas, withColumns)) + `
		WHERE r.database_name = current_database() AND r.schema_name IN (` + engine.StringList(schemas) + `)
		ORDER BY r.schema_name, r.name, c.column_index`
	rows, err := d.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("duckdb: list relations: %w", err)
	}
	return engine.RelationsOf(rows, withColumns), nil
}
