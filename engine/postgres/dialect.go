package postgres

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/efmesh/efmesh/engine"
)

// Dialect generates PostgreSQL's statements: standard SQL's
// (engine.Standard) but for replacing tables and views, which PostgreSQL
// cannot do in place.
type Dialect struct{ engine.Standard }

var _ engine.Dialect = Dialect{}

func (Dialect) Name() string            { return engine.Postgres.String() }
func (Dialect) Kind() engine.Kind       { return engine.Postgres }
func (Dialect) Quote(s string) string   { return engine.QuoteIdent(s) }
func (Dialect) Literal(s string) string { return engine.QuoteString(s) }
func (Dialect) QuoteRelation(r engine.Relation) string {
	return engine.QuoteIdent(r.Schema) + "." + engine.QuoteIdent(r.Name)
}

// TimestampLiteral renders t as a TIMESTAMP (without time zone) literal in
// UTC.
func (Dialect) TimestampLiteral(rfc3339 string) string {
	if t, err := time.Parse(time.RFC3339Nano, rfc3339); err == nil {
		rfc3339 = t.UTC().Format("2006-01-02 15:04:05.999999")
	}
	return "TIMESTAMP " + engine.QuoteString(rfc3339)
}

// Placeholder renders a macro parameter for Parser.Canonicalize: PostgreSQL
// has only positional parameters, so @start is $1, @end $2 and @this $3.
// Any other name gets "" (the caller has no such parameter).
func (Dialect) Placeholder(name string) string {
	switch name {
	case "start":
		return "$1"
	case "end":
		return "$2"
	case "this":
		return "$3"
	}
	return ""
}

// CreateSchema is idempotent, but two sessions creating the same schema at
// the same moment can still collide on the catalog's unique index (a
// "Constraint" error): create schemas before running builds concurrently.
// MaxIdentifierLength is NAMEDATALEN - 1: PostgreSQL silently truncates
// longer identifiers, so two long names could become one.
func (Dialect) MaxIdentifierLength() int { return 63 }

func (Dialect) CreateSchema(schema string) string {
	return "CREATE SCHEMA IF NOT EXISTS " + engine.QuoteIdent(schema)
}

// ReplaceTableAs drops and recreates r: PostgreSQL has no CREATE OR REPLACE
// TABLE. Run in one transaction, readers see the old table until commit.
// The DROP has no CASCADE: when a view depends on r it fails with a
// "Dependency" error instead of silently dropping that view.
func (d Dialect) ReplaceTableAs(r engine.Relation, query string) []string {
	return []string{
		d.DropTable(r),
		"CREATE TABLE " + d.QuoteRelation(r) + " AS " + query,
	}
}

// ReplaceView returns ONE string holding two statements, "DROP VIEW IF
// EXISTS r; CREATE VIEW r AS query". PostgreSQL's CREATE OR REPLACE VIEW
// refuses a new query whose columns differ from the old one's (other than
// added at the end), which is exactly what a breaking change or a
// promotion to a new version does. The string runs atomically both ways the
// planner runs it: as one element of Tx (inside the transaction), and alone
// through Exec (the simple query protocol runs a multi-statement string as
// one implicit transaction). Like ReplaceTableAs, the DROP has no CASCADE:
// a view that depends on r makes it fail with a "Dependency" error.
func (d Dialect) ReplaceView(r engine.Relation, query string) string {
	return d.DropView(r) + "; CREATE VIEW " + d.QuoteRelation(r) + " AS " + query
}

func (d Dialect) DropView(r engine.Relation) string {
	return "DROP VIEW IF EXISTS " + d.QuoteRelation(r)
}

func (d Dialect) DropTable(r engine.Relation) string {
	return "DROP TABLE IF EXISTS " + d.QuoteRelation(r)
}

// NormalizeIdent is name as the server keeps it: cut to NAMEDATALEN-1
// (63) bytes at a character boundary (UTF-8, the encoding efmesh's text
// is in), as the server does wherever an identifier is created or read.
func (d Dialect) NormalizeIdent(name string) string {
	limit := d.MaxIdentifierLength()
	if len(name) <= limit {
		return name
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut]
}

var _ engine.IdentNormalizer = Dialect{}

var _ engine.PseudoTyper = Dialect{}

// pseudoTypes are PostgreSQL's pseudo-types (pg_type.typtype 'p') a query
// can yield: CREATE TABLE and CREATE VIEW refuse a column of one
// ("column "r" has pseudo-type record").
var pseudoTypes = map[string]bool{
	"record": true, "record[]": true, "void": true, "cstring": true, "internal": true, "trigger": true,
	"event_trigger": true, "language_handler": true, "fdw_handler": true, "index_am_handler": true,
	"table_am_handler": true, "tsm_handler": true, "pg_ddl_command": true, "any": true, "anyelement": true,
	"anyarray": true, "anynonarray": true, "anyenum": true, "anyrange": true, "anymultirange": true,
	"anycompatible": true, "anycompatiblearray": true, "anycompatiblenonarray": true,
	"anycompatiblerange": true, "anycompatiblemultirange": true,
}

// PseudoType reports whether typ is one of PostgreSQL's pseudo-types.
func (Dialect) PseudoType(typ string) bool {
	return pseudoTypes[strings.ToLower(strings.TrimSpace(typ))]
}

var _ engine.SystemColumner = Dialect{}

// SystemColumn reports whether name is one of the system columns every
// PostgreSQL table has: CREATE TABLE refuses a column of that name
// ("column name "xmin" conflicts with a system column name"); a view
// takes it.
func (Dialect) SystemColumn(name string) bool {
	switch name {
	case "ctid", "xmin", "xmax", "cmin", "cmax", "tableoid":
		return true
	}
	return false
}
