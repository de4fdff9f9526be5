package engine

import "strings"

// Relation is a schema-qualified relation name.
type Relation struct {
	Schema string
	Name   string
}

func (r Relation) String() string { return r.Schema + "." + r.Name }

// Dialect generates the DDL efmesh issues. Every identifier goes through
// Quote; no user string reaches SQL any other way.
type Dialect interface {
	Name() string
	Quote(ident string) string
	// QuoteRelation quotes schema and name.
	QuoteRelation(r Relation) string
	// Literal quotes a string literal.
	Literal(s string) string
	// TimestampLiteral renders a typed timestamp literal of an RFC 3339 time.
	TimestampLiteral(rfc3339 string) string
	// Placeholder renders the macro @name (start, end, this) as a query
	// parameter for the canonical form, so fingerprints never see dates.
	Placeholder(name string) string
	// CreateSchema returns an idempotent CREATE SCHEMA.
	CreateSchema(schema string) string
	// ReplaceTableAs returns statements that (re)create table r from query,
	// to run in one transaction.
	ReplaceTableAs(r Relation, query string) []string
	// ReplaceView returns the statement that points view r at query.
	ReplaceView(r Relation, query string) string
	DropView(r Relation) string
	DropTable(r Relation) string
	// MaxIdentifierLength is the longest identifier the engine keeps, in
	// bytes (a longer one is truncated or refused); 0 when there is no
	// practical limit. Generated names are shortened to fit it.
	MaxIdentifierLength() int
}

// QuoteIdent quotes an identifier with double quotes, doubling embedded
// quotes. Shared by DuckDB and Postgres.
func QuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteString quotes a SQL string literal, doubling embedded quotes.
func QuoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
