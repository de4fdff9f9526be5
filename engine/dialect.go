package engine

import "strings"

// Relation is a schema-qualified relation name.
type Relation struct {
	Schema string
	Name   string
}

func (r Relation) String() string { return r.Schema + "." + r.Name }

// Dialect generates the statements efmesh issues: the core composes only
// standard SQL from quoted parts (a SELECT over a relation, a condition);
// every statement an engine may spell its own way is a method here. Every
// identifier goes through Quote; no user string reaches SQL any other way.
// Standard implements the methods standard SQL spells the same way on
// every engine; dialects embed it.
type Dialect interface {
	Name() string
	// Kind is the engine the dialect phrases statements for; what the
	// layers above need to know of it they ask its Capabilities.
	Kind() Kind
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
	// DropView and DropTable return idempotent drops of r (a stale view,
	// an orphaned snapshot's relation, a failed build's leftovers).
	DropView(r Relation) string
	DropTable(r Relation) string
	// CreateTable returns an idempotent CREATE TABLE of r with cols, empty:
	// the table an incremental model's batches, merges and histories fill.
	CreateTable(r Relation, cols []Column) string
	// CreateTableAs returns an idempotent CREATE TABLE of r holding what
	// query yields: a history copied from an older version's table.
	CreateTableAs(r Relation, query string) string
	// AddColumn returns the statement adding column c to table r, NULL in
	// the rows it holds: a forward-only change that appends a column.
	AddColumn(r Relation, c Column) string
	// AlterColumnType returns the statement changing the type of column
	// c.Name of table r to c.Type, converting the rows r holds: a
	// forward-only change that widens a column (Widener decides which).
	AlterColumnType(r Relation, c Column) string
	// ReplaceRange returns the statements, run in one transaction, that
	// replace r's rows whose timeColumn is in [start, end) (SQL
	// expressions) with query's rows in that range, written into cols: one
	// batch of a backfill, safe to repeat.
	ReplaceRange(r Relation, cols []string, timeColumn, start, end, query string) []string
	// ReplaceRows returns the statements, run in one transaction, that
	// replace every row of table r with query's, written into cols, keeping
	// the table itself (views read it): a FULL model's refresh.
	ReplaceRows(r Relation, cols []string, query string) []string
	// Upsert returns the statements, run in one transaction, that merge
	// query's rows into r by key (keys among cols): rows of a key query
	// yields are replaced, other keys stay (INCREMENTAL_BY_UNIQUE_KEY).
	Upsert(r Relation, cols, keys []string, query string) []string
	// MergeHistory returns the statements, run in one transaction, that
	// merge query's rows into the type 2 history r at time at (an SQL
	// expression): a changed or vanished key's current version (validTo
	// NULL) is closed at at, a new or changed row opens a version valid
	// from at (SCD_TYPE_2).
	MergeHistory(r Relation, cols, keys []string, validFrom, validTo, at, query string) []string
	// MaxIdentifierLength is the longest identifier the engine keeps, in
	// bytes (a longer one is truncated or refused); 0 when there is no
	// practical limit. Generated names are shortened to fit it.
	MaxIdentifierLength() int
}

// Widener is an optional Dialect capability: which column type changes
// the engine converts in place without losing a value, so a table that
// keeps its history (forward-only) can take the new type. An engine
// without it widens nothing: every type change rebuilds.
type Widener interface {
	// Widens reports whether every value of type from is exactly a value
	// of type to (INTEGER to BIGINT, DECIMAL(10,2) to DECIMAL(12,2)), and
	// the engine converts a column from one to the other in place.
	Widens(from, to string) bool
}

// PseudoTyper is an optional Dialect capability: the types a value may
// have in a query that no table or view column can (PostgreSQL's
// pseudo-types: record, void, …), so that a model yielding one fails at
// apply.
type PseudoTyper interface {
	// PseudoType reports whether a column of type typ (as the engine
	// spells it) cannot be created.
	PseudoType(typ string) bool
}

// SystemColumner is an optional Dialect capability: the names of the
// columns every table of the engine has of its own (PostgreSQL's xmin,
// ctid, …), which a table built from a query cannot take.
type SystemColumner interface {
	SystemColumn(name string) bool
}

// TypeCaveat is an optional Dialect capability: what the engine does not
// keep of a declared type it accepts (DuckDB's VARCHAR(3) is a plain
// VARCHAR). "" when it keeps all of it.
type TypeCaveat interface {
	TypeCaveat(declared string) string
}

// Scratch is an optional Dialect capability of an engine that checks
// models in an embedded database of its own: a throwaway in-memory
// catalog of empty stand-in tables, one per model, that model bodies are
// bound against (DuckDB's ATTACH ':memory:').
type Scratch interface {
	// AttachScratch returns the statement attaching a new, empty
	// in-memory catalog named catalog (which must not be attached).
	AttachScratch(catalog string) string
	// DropScratch returns an idempotent statement discarding catalog and
	// all it holds.
	DropScratch(catalog string) string
	// ScratchRelation quotes r inside catalog.
	ScratchRelation(catalog string, r Relation) string
	// CreateScratchSchema returns an idempotent CREATE SCHEMA inside
	// catalog.
	CreateScratchSchema(catalog, schema string) string
	// ReplaceScratchTable returns the statement (re)creating the empty
	// table r of catalog with cols.
	ReplaceScratchTable(catalog string, r Relation, cols []Column) string
	// DropScratchTable returns an idempotent drop of table r of catalog.
	DropScratchTable(catalog string, r Relation) string
	// ReportedType names a declared type as the engine's Describe reports
	// it (INT is INTEGER), for the common aliases; other spellings come
	// back in one normal form (upper case, single spaces), so two
	// spellings of one type compare equal. The planner skips describing a
	// table again when the types bound against are the table's.
	ReportedType(declared string) string
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
