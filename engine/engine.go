// Package engine defines what efmesh needs from a SQL engine — execution,
// description of a query's output, and a parser that yields a canonical
// form — plus the engine-neutral pieces every adapter shares: rendering a
// body with a source map, identifier quoting and type families.
//
// Adapters live in engine/duckdb and engine/postgres and turn their driver's
// and parser's types into the types of this package; nothing above engine
// imports a driver or a parser. This package knows nothing of projects,
// plans or state.
package engine

import (
	"context"
	"fmt"
	"strings"
)

// Column is a column name with the engine's type text.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Rows is a fully read query result.
type Rows struct {
	Columns []Column
	Values  [][]any
}

// Engine executes SQL against a warehouse.
type Engine interface {
	Dialect() Dialect
	Exec(ctx context.Context, sql string) error
	Query(ctx context.Context, sql string) (*Rows, error)
	// Tx runs stmts in one transaction and rolls back on the first error.
	Tx(ctx context.Context, stmts []string) error
	// Describe returns the output columns of a query without running it.
	Describe(ctx context.Context, query string) ([]Column, error)
	Close() error
}

// Querier reads rows: an engine, or an open transaction of one.
type Querier interface {
	Query(ctx context.Context, sql string) (*Rows, error)
}

// CheckedTx is an engine whose transactions can read what they wrote
// before they commit: TxCheck runs stmts in one transaction, then check
// with a Querier that reads inside it, and commits only when check returns
// nil (its error is returned after the rollback). A write and the
// blocking audits that guard it are one unit this way: readers never see
// rows an audit rejected.
type CheckedTx interface {
	TxCheck(ctx context.Context, stmts []string, check func(Querier) error) error
}

// BatchTx is an engine that runs many small statements efmesh generated
// (a promotion's schemas and views) in one transaction as one request,
// instead of one round trip each. An error is the batch's: it carries no
// position in a statement.
type BatchTx interface {
	TxBatch(ctx context.Context, stmts []string) error
}

// Parser canonicalizes SQL without a warehouse connection.
type Parser interface {
	// Canonicalize returns the engine's parse tree of sql with every source
	// position removed, so that whitespace, keyword case and comments do not
	// change it. A syntax error is a *SQLError with a Position.
	Canonicalize(sql string) ([]byte, error)
	// Outliner reads a canonical form as an engine-neutral Outline, so
	// nothing above the engine walks its tree.
	Outliner
}

// ConstantChecker is an engine whose binder leaves the casts of constants
// to execution: a typed literal or cast of a literal (DATE '2024-13-45',
// 'x'::INTEGER) or a string literal cast to what it meets (n < 'x' of an
// INTEGER n) binds, and the build fails on its first row. CheckConstants
// evaluates them as the build would; each error is a *SQLError positioned
// in query. canonical is query's canonical form (Canonicalize, refs and
// bounds aside): a query without a cast or a string literal is answered
// from it, without the engine.
type ConstantChecker interface {
	CheckConstants(ctx context.Context, canonical []byte, query string) []error
}

// SQLError is a structured error from the engine's parser, binder or
// catalog. Position is a 0-based byte offset into the SQL text the engine
// saw, or -1 when the engine gave none.
type SQLError struct {
	Type       string // "Parser", "Binder", "Catalog", …
	Subtype    string // e.g. "SYNTAX_ERROR", "COLUMN_NOT_FOUND"
	Message    string
	Position   int
	Name       string   // the offending name, when the engine reports one
	Candidates []string // "did you mean" candidates
	// Label is how the engine itself heads such a message ("ERROR" for
	// PostgreSQL); "" means Type + " Error", DuckDB's way.
	Label string
	// Names is, for an error the engine gives no position, the place in
	// the query its message names, for the caller to find in the text;
	// nil when it names none.
	Names *Named
}

// Named is a place in a query an engine's message names, read by the
// engine from its own wording.
type Named struct {
	Kind NamedKind
	// Name is the field (NamedField), the column (NamedListColumn) or the
	// keyword (NamedKeyword); "" for NamedLambdaCall.
	Name string
	// Of is the expression a field is read from (x of x.f or x['f']), or
	// the keyword that opens the list a column is named in (UNPIVOT,
	// EXCLUDE, REPLACE, RENAME).
	Of string
}

// NamedKind is what a Named place is.
type NamedKind uint8

const (
	NamedField      NamedKind = iota + 1 // the field Name read from Of
	NamedListColumn                      // the column Name in the list Of opens
	NamedKeyword                         // the keyword Name
	NamedLambdaCall                      // the call a lambda (->) is passed to
)

// Subtypes of SQLError the planner reads; each engine fills them.
const (
	// SubtypeColumnNotFound: a query references a column no relation in
	// scope has. Name is the column (its last part, unquoted); Position
	// points at the reference (at its qualifier when it has one);
	// Candidates are the engine's suggestions, if any.
	SubtypeColumnNotFound = "COLUMN_NOT_FOUND"
	// SubtypeAmbiguousColumn: a column reference several relations in
	// scope match. Name is the column; Candidates, when the engine says,
	// are the qualified references (t.a, u.a) that would resolve it.
	SubtypeAmbiguousColumn = "AMBIGUOUS_COLUMN"
	// SubtypeFieldNotFound: a struct field (s.key) the struct does not
	// have. Name is the key; Candidates are the struct's keys; Position
	// may be -1 (the caller finds the reference in the text).
	SubtypeFieldNotFound = "FIELD_NOT_FOUND"
	// SubtypeNotGrouped: a column neither grouped nor aggregated in a
	// query that aggregates. Name is the column; Position points at it.
	SubtypeNotGrouped = "NOT_GROUPED"
	// SubtypeTableNotInScope: a qualifier (t in t.x) that names no
	// relation in scope. Name is the qualifier; Position points at it;
	// Candidates are the names the relations in scope are bound under.
	SubtypeTableNotInScope = "TABLE_NOT_IN_SCOPE"
	// SubtypeFunctionNotFound: a call of a function the engine does not
	// have. Name is the function; Position points at it; Candidates are
	// the engine's suggestions, if any.
	SubtypeFunctionNotFound = "FUNCTION_NOT_FOUND"
	// SubtypeNotAQuery: the text is a statement but not a query (SELECT):
	// nothing a model body may be. Message says what to write instead.
	SubtypeNotAQuery = "NOT_A_QUERY"
	// SubtypeStatementCount: the text holds no statement or more than
	// one. Name is the number of statements found; Message speaks of a
	// model body (a caller reading another kind of text rewords it).
	SubtypeStatementCount = "STATEMENT_COUNT"
)

func (e *SQLError) Error() string {
	switch {
	case e.Label != "":
		return e.Label + ": " + e.Message
	case e.Type == "":
		return e.Message
	}
	return fmt.Sprintf("%s Error: %s", e.Type, e.Message)
}

// Between returns the text of message between the first open and the
// next close after it (the rest of message when close does not follow;
// "" when open is absent): how a name is read out of an engine's error
// message, or out of a diagnostic's message made from one.
func Between(message, open, close string) string {
	i := strings.Index(message, open)
	if i < 0 {
		return ""
	}
	rest := message[i+len(open):]
	if j := strings.Index(rest, close); j >= 0 {
		return rest[:j]
	}
	return rest
}

// BusyError is a database another process holds for writing (DuckDB
// admits one writing process per file). The caller may wait and retry.
type BusyError struct {
	Database string // the database as the user named it (a file)
	PID      int    // the holder's process id; 0 when unknown
	Program  string // the base name of the holder's program, when the engine says
	Detail   string // the engine's own message
}

func (e *BusyError) Error() string {
	return e.Holder() + " is writing " + e.Database
}

// Holder names the process that holds the database: "another efmesh
// process (pid 123)", "another process (pid 123, python3)".
func (e *BusyError) Holder() string {
	pid := "pid unknown"
	if e.PID > 0 {
		pid = fmt.Sprintf("pid %d", e.PID)
	}
	switch e.Program {
	case "":
		return "another process (" + pid + ")"
	case "efmesh", "efmesh.exe":
		return "another efmesh process (" + pid + ")"
	}
	return "another process (" + pid + ", " + e.Program + ")"
}

// CorruptError is a database whose storage is damaged: the engine found a
// block it cannot trust (DuckDB: a checksum that does not match) while
// opening the database or reading a relation. Nothing read from it can be
// believed, and nothing should be built on it: the file is restored from
// a backup, or deleted and rebuilt.
type CorruptError struct {
	Database string   // the database as the user named it (a file); "" when unknown
	Relation Relation // the relation being read when the damage was found; zero when none
	Detail   string   // the engine's own message
}

func (e *CorruptError) Error() string {
	db := e.Database
	if db == "" {
		db = "the warehouse"
	}
	if e.Relation.Name != "" {
		return fmt.Sprintf("%s is corrupt: reading %s: %s", db, e.Relation, e.Detail)
	}
	return fmt.Sprintf("%s is corrupt: %s", db, e.Detail)
}

// Verifier is an optional capability: an engine that can read relations
// through to their storage, to find damage a catalog query never sees (a
// corrupt block in the middle of a database file, which the catalog and
// a LIMIT 1 read past). Verify reads every column of every row of each
// relation with a cheap aggregate; the first damaged one is a
// *CorruptError naming it. Other errors (a relation dropped meanwhile)
// are returned as they are.
type Verifier interface {
	Verify(ctx context.Context, rels []Relation) error
}

// FeatureError reports an engine lacking a feature a model needs.
type FeatureError struct {
	Engine  string
	Feature string
}

func (e *FeatureError) Error() string {
	return fmt.Sprintf("engine %s does not support %s", e.Engine, e.Feature)
}

// Catalog is an optional capability: an engine that lists the relations
// (tables and views) present in some schemas of its database with one
// catalog query. The planner compares it with what the state store says is
// built, and with the columns EXTERNAL models declare for the tables they
// read. A schema that does not exist contributes nothing. The same query
// lists, in order, the columns of the relations among withColumns (schema
// and name compared without case); other relations are listed without
// their columns.
type Catalog interface {
	Relations(ctx context.Context, schemas []string, withColumns []Relation) ([]Listed, error)
}

// Listed is a relation a Catalog lists; View is true for a view. Columns
// are its columns, typed as the engine names them, when they were asked
// for.
type Listed struct {
	Relation
	View    bool
	Columns []Column
	// Definition is what the catalog says a view reads: its SQL as the
	// catalog prints it (DuckDB), or the relations its query names
	// (PostgreSQL); "" for a table, or when the engine does not say.
	Definition string
}

// FileSpec describes files read as a relation (seeds, file externals).
type FileSpec struct {
	Paths   []string // absolute paths or globs
	Format  string   // parquet | csv | json
	Columns []Column // declared columns; empty = as the files say
	Options []FileOption
}

// FileOption is a reader option; IsString values are quoted as literals.
type FileOption struct {
	Name     string
	Value    string
	IsString bool
}

// FileReader is an optional capability: engines that can query files.
type FileReader interface {
	ReadFiles(spec FileSpec) (string, error)
}

// FileDescriber is an optional capability of a FileReader: the names of
// the columns the files of spec have, as the reader binds them by name
// (spec.Columns is not looked at), read from what names them — a CSV
// header line, a parquet footer — without reading the data.
type FileDescriber interface {
	FileColumnNames(ctx context.Context, spec FileSpec) ([]string, error)
}

// FileProblem is one record of a data file that does not load: a row with
// the wrong number of fields, a value that does not cast to its column's
// type. Line is 1-based (the line the record starts on); 0 when the reader
// cannot say.
type FileProblem struct {
	Path    string // as in the FileSpec
	Line    int
	Column  string // the column at fault, if one is
	Message string
}

// FileValidator is an optional capability: engines that can read files
// whole and report every record that does not load, instead of failing at
// the first one when a build reads them.
type FileValidator interface {
	ValidateFiles(ctx context.Context, spec FileSpec) ([]FileProblem, error)
}

// QueueDescriber is an optional capability: queries described (bound,
// never run, answered as a Describe would) as they are submitted, over
// several connections, while the caller goes on. A checker submits a
// model's body as soon as its parents are checked: the DAG's frontier.
type QueueDescriber interface {
	DescribeQueue(ctx context.Context) DescribeQueue
}

// DescribeQueue is a QueueDescriber's queue. Submit, Fence and Close are
// called from one goroutine.
type DescribeQueue interface {
	// Submit queues query; its answer comes through the result.
	Submit(query string) PendingColumns
	// Fence makes the queries submitted after it see every change the
	// database committed before it (a table created meanwhile).
	Fence()
	// Close says no more queries come and returns once the queued ones
	// are answered (at once when the queue's context is cancelled).
	Close()
}

// PendingColumns is a submitted query's answer.
type PendingColumns interface {
	// Wait returns the query's columns or its error, once bound.
	Wait() ([]Column, error)
}

// StringList renders strs as a comma-separated list of string literals,
// for an IN (…) of catalog names.
func StringList(strs []string) string {
	list := make([]string, len(strs))
	for i, s := range strs {
		list[i] = QuoteString(s)
	}
	return strings.Join(list, ", ")
}

// InList is the condition, over the SQL expression expr, that it is one of
// strs; FALSE when strs is empty.
func InList(expr string, strs []string) string {
	if len(strs) == 0 {
		return "FALSE"
	}
	return expr + " IN (" + StringList(strs) + ")"
}

// RelationsOf reads catalog rows of (schema, name, is view, column name,
// column type[, view definition]) as listed relations: the rows of one relation are adjacent,
// in column order, and a NULL column name is a relation listed without
// columns. Only the relations among withColumns keep their columns,
// matched without case in Go (one map lookup per relation): the query
// may list more (the columns of whole schemas, ColumnSchemas), never one
// condition per relation asked for, which made the engine's work grow
// with (relations asked for × relations listed).
func RelationsOf(rows *Rows, withColumns []Relation) []Listed {
	wanted := make(map[Relation]bool, len(withColumns))
	for _, r := range withColumns {
		wanted[lowerRelation(r)] = true
	}
	out := make([]Listed, 0, len(rows.Values))
	keep := false
	for _, v := range rows.Values {
		r := Relation{Schema: fmt.Sprint(v[0]), Name: fmt.Sprint(v[1])}
		if n := len(out); n == 0 || out[n-1].Relation != r {
			out = append(out, Listed{Relation: r, View: fmt.Sprint(v[2]) == "true"})
			keep = wanted[lowerRelation(r)]
		}
		if len(v) >= 6 && v[5] != nil {
			out[len(out)-1].Definition = fmt.Sprint(v[5])
		}
		if keep && len(v) >= 5 && v[3] != nil {
			l := &out[len(out)-1]
			l.Columns = append(l.Columns, Column{Name: fmt.Sprint(v[3]), Type: fmt.Sprint(v[4])})
		}
	}
	return out
}

func lowerRelation(r Relation) Relation {
	return Relation{Schema: strings.ToLower(r.Schema), Name: strings.ToLower(r.Name)}
}

// ColumnSchemas returns the schemas among schemas that hold one of rels
// (compared without case), in their order: those whose columns a catalog
// query lists for RelationsOf to pick from.
func ColumnSchemas(schemas []string, rels []Relation) []string {
	in := make(map[string]bool, len(rels))
	for _, r := range rels {
		in[strings.ToLower(r.Schema)] = true
	}
	var out []string
	for _, s := range schemas {
		if in[strings.ToLower(s)] {
			out = append(out, s)
		}
	}
	return out
}
