package postgres

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/efmesh/efmesh/engine"
)

// Parser canonicalizes PostgreSQL SQL with pg_query, PostgreSQL's own
// parser linked into the binary: it needs no server and is safe for
// concurrent use. Its zero value is ready.
type Parser struct{}

var _ engine.Parser = Parser{}

// Canonicalize parses sql with the server's connection-free parser; see
// Parser.Canonicalize.
func (d *DB) Canonicalize(sql string) ([]byte, error) { return Parser{}.Canonicalize(sql) }

// Canonicalize returns pg_query's JSON parse tree of sql, which must be
// exactly one SELECT statement (VALUES and set operations included), with
// every source position ("location", "stmt_location", "stmt_len") removed
// and keys in sorted order: equal trees give equal bytes, and whitespace,
// keyword case and comments change nothing. The parser version envelope is
// left out.
//
// Parameters are PostgreSQL's positional $1, $2, …; a name such as $start
// is a syntax error here, so callers render interval bounds as $1 and $2
// (see Dialect.Placeholder).
//
// A syntax error is an *engine.SQLError of Type "Parser" whose Position is
// a 0-based byte offset into sql.
func (Parser) Canonicalize(sql string) ([]byte, error) {
	raw, err := pg_query.ParseToJSON(sql)
	if err != nil {
		return nil, parseError(err, sql)
	}
	var res struct {
		Stmts []struct {
			Stmt map[string]json.RawMessage `json:"stmt"`
		} `json:"stmts"`
	}
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		return nil, &engine.SQLError{Type: "Parser", Message: "unreadable parse tree: " + err.Error(), Position: -1}
	}
	if len(res.Stmts) != 1 {
		return nil, &engine.SQLError{Type: "Parser", Subtype: engine.SubtypeStatementCount, Name: strconv.Itoa(len(res.Stmts)), Message: "a model body must be exactly one SELECT statement, found " + strconv.Itoa(len(res.Stmts)), Position: -1}
	}
	stmt := res.Stmts[0].Stmt
	if _, ok := stmt["SelectStmt"]; !ok || len(stmt) != 1 {
		kind := "an empty statement"
		for k := range stmt {
			kind = k
		}
		return nil, &engine.SQLError{Type: "Parser", Message: "a model body must be a SELECT statement, found " + kind, Position: -1}
	}
	// Numbers stay json.Number, so no literal is rounded through float64.
	dec := json.NewDecoder(bytes.NewReader(res.Stmts[0].Stmt["SelectStmt"]))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, &engine.SQLError{Type: "Parser", Message: "unreadable parse tree: " + err.Error(), Position: -1}
	}
	stripLocations(tree)
	// encoding/json writes map keys sorted.
	return json.Marshal(map[string]any{"SelectStmt": tree})
}

// stripLocations removes every source position from a decoded tree in
// place.
func stripLocations(v any) {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "location")
		delete(t, "stmt_location")
		delete(t, "stmt_len")
		for _, c := range t {
			stripLocations(c)
		}
	case []any:
		for _, c := range t {
			stripLocations(c)
		}
	}
}

// parseError converts a pg_query error. Its Cursorpos is 1-based and
// counts characters (the scanner's errposition), 0 when it gave none.
func parseError(err error, sql string) error {
	var pe *pgparser.Error
	if !errors.As(err, &pe) {
		return &engine.SQLError{Type: "Parser", Message: err.Error(), Position: -1}
	}
	e := &engine.SQLError{Type: "Parser", Subtype: "SYNTAX_ERROR", Message: pe.Message, Position: -1}
	if pe.Cursorpos > 0 {
		e.Position = charToByte(sql, pe.Cursorpos-1)
	}
	return e
}
