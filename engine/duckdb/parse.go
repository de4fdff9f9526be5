package duckdb

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/efmesh/efmesh/engine"
)

// serialized is json_serialize_sql's envelope.
type serialized struct {
	Error      bool              `json:"error"`
	ErrorType  string            `json:"error_type"`
	Message    string            `json:"error_message"`
	Subtype    string            `json:"error_subtype"`
	Position   string            `json:"position"`
	Statements []json.RawMessage `json:"statements"`
}

// Canonicalize returns DuckDB's serialized parse tree of one SELECT
// statement with every query_location removed. Keys are emitted in sorted
// order, so equal trees give equal bytes.
func (d *DB) Canonicalize(sql string) ([]byte, error) {
	var raw string
	if err := d.db.QueryRowContext(context.Background(), "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", sql).Scan(&raw); err != nil {
		return nil, convertError(err, 0)
	}
	var env serialized
	if err := json.Unmarshal([]byte(raw), &env); err != nil {
		return nil, &engine.SQLError{Type: "Parser", Message: "unreadable parse tree: " + err.Error(), Position: -1}
	}
	if env.Error {
		e := &engine.SQLError{Type: "Parser", Subtype: env.Subtype, Message: env.Message, Position: -1}
		if p, err := strconv.Atoi(env.Position); err == nil {
			e.Position = p
		}
		if env.ErrorType != "parser" && env.ErrorType != "" {
			e.Type = env.ErrorType
		}
		return nil, e
	}
	if len(env.Statements) != 1 {
		return nil, &engine.SQLError{Type: "Parser", Message: "a model body must be exactly one SELECT statement, found " + strconv.Itoa(len(env.Statements)), Position: -1}
	}
	var tree any
	if err := json.Unmarshal(env.Statements[0], &tree); err != nil {
		return nil, &engine.SQLError{Type: "Parser", Message: "unreadable parse tree: " + err.Error(), Position: -1}
	}
	stripLocations(tree)
	return json.Marshal(tree)
}

// stripLocations removes every position from a decoded tree in place.
func stripLocations(v any) {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "query_location")
		for _, c := range t {
			stripLocations(c)
		}
	case []any:
		for _, c := range t {
			stripLocations(c)
		}
	}
}
