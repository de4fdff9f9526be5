package postgres

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/efmesh/efmesh/engine"
)

// convertError turns a server error (pgconn.PgError) about sql, the text
// that was sent, into an *engine.SQLError; any other error (connection,
// cancellation) is wrapped with %w.
//
// Type follows DuckDB's names where the planner looks at them: syntax
// errors are "Parser", missing relations and other catalog entries
// "Catalog", errors resolving names and types in a query "Binder". Subtype
// is "SYNTAX_ERROR" or "COLUMN_NOT_FOUND" where DuckDB uses those, else the
// condition name for the codes mapped below, else the SQLSTATE itself.
// Message is the server's message with its DETAIL and HINT on further lines.
func (d *DB) convertError(err error, sql string) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return fmt.Errorf("postgres: %w", err)
	}
	typ, sub := classify(pe.Code)
	// Labelled as the server labels it (psql's "ERROR:"), never with the
	// classification, which is DuckDB's vocabulary.
	e := &engine.SQLError{Type: typ, Subtype: sub, Message: pe.Message, Position: -1, Label: "ERROR"}
	if pe.Detail != "" {
		e.Message += "\nDETAIL: " + pe.Detail
	}
	if pe.Hint != "" {
		e.Message += "\nHINT: " + pe.Hint
	}
	if pe.Position > 0 {
		if d.charPositions {
			e.Position = charToByte(sql, int(pe.Position)-1)
		} else {
			e.Position = min(int(pe.Position)-1, len(sql))
		}
	}
	// `column "t.c" must appear in the GROUP BY clause or be used in an
	// aggregate function`, positioned at the column.
	const notGrouped = " must appear in the GROUP BY clause or be used in an aggregate function"
	if pe.Code == "42803" && strings.HasPrefix(pe.Message, `column "`) && strings.HasSuffix(pe.Message, notGrouped) {
		e.Subtype = engine.SubtypeNotGrouped
		name := strings.TrimSuffix(strings.TrimPrefix(pe.Message, `column "`), `"`+notGrouped)
		if k := strings.LastIndexByte(name, '.'); k >= 0 {
			name = name[k+1:]
		}
		e.Name = name
	}
	// `column "c" specified in USING clause does not exist in left
	// table`, said without a position: the name lets the check find it.
	const using = " specified in USING clause does not exist in "
	if pe.Code == "42703" && e.Position < 0 && strings.HasPrefix(pe.Message, `column "`) && strings.Contains(pe.Message, `"`+using) {
		e.Name = pe.Message[len(`column "`):strings.Index(pe.Message, `"`+using)]
	}
	if pe.Code == "42703" && e.Position >= 0 {
		parts := nameAt(sql, e.Position)
		if len(parts) > 0 {
			e.Name = parts[len(parts)-1]
		}
		e.Candidates = hintCandidates(pe.Hint, len(parts) <= 1)
	}
	return e
}

// classify maps a SQLSTATE to an engine error type and subtype.
func classify(code string) (typ, subtype string) {
	switch code {
	case "42601":
		return "Parser", "SYNTAX_ERROR"
	case "42P01":
		return "Catalog", "UNDEFINED_TABLE"
	case "3F000":
		return "Catalog", "INVALID_SCHEMA_NAME"
	case "42704":
		return "Catalog", "UNDEFINED_OBJECT"
	case "42P06":
		return "Catalog", "DUPLICATE_SCHEMA"
	case "42P07":
		return "Catalog", "DUPLICATE_TABLE"
	case "42710":
		return "Catalog", "DUPLICATE_OBJECT"
	case "42703":
		return "Binder", "COLUMN_NOT_FOUND"
	case "42702":
		return "Binder", "AMBIGUOUS_COLUMN"
	case "42883":
		return "Binder", "UNDEFINED_FUNCTION"
	case "42804":
		return "Binder", "DATATYPE_MISMATCH"
	case "42803":
		return "Binder", "GROUPING_ERROR"
	case "42P18":
		return "Binder", "INDETERMINATE_DATATYPE"
	case "42501":
		return "Permission", "INSUFFICIENT_PRIVILEGE"
	case "42809":
		return "Catalog", "WRONG_OBJECT_TYPE"
	case "2BP01":
		return "Dependency", "DEPENDENT_OBJECTS_STILL_EXIST"
	case "22012":
		return "Divide by Zero", "DIVISION_BY_ZERO"
	case "22003":
		return "Out of Range", "NUMERIC_VALUE_OUT_OF_RANGE"
	case "57014":
		return "Interrupt", "QUERY_CANCELED"
	}
	switch {
	case strings.HasPrefix(code, "42"):
		return "Binder", code
	case strings.HasPrefix(code, "22"):
		return "Conversion", code
	case strings.HasPrefix(code, "23"):
		return "Constraint", code
	case strings.HasPrefix(code, "25"), strings.HasPrefix(code, "40"):
		return "Transaction", code
	case strings.HasPrefix(code, "0A"):
		return "Not implemented", code
	case strings.HasPrefix(code, "08"):
		return "Connection", code
	case strings.HasPrefix(code, "XX"):
		return "Internal", code
	}
	return "Executor", code
}

// charToByte converts a 0-based character index into s to a byte offset.
// PostgreSQL counts error positions in characters; an index past the end
// (an error at end of input) clamps to len(s).
func charToByte(s string, chars int) int {
	if chars <= 0 {
		return 0
	}
	n := 0
	for i := range s {
		if n == chars {
			return i
		}
		n++
	}
	return len(s)
}

// nameAt reads the dotted name (plain or double-quoted parts) that starts at
// byte offset off of sql — where the server points for an unknown column —
// and returns its parts, unquoted.
func nameAt(sql string, off int) []string {
	var parts []string
	i := off
	for i < len(sql) {
		if sql[i] == '"' {
			var b strings.Builder
			j := i + 1
			for j < len(sql) {
				if sql[j] == '"' {
					if j+1 < len(sql) && sql[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(sql[j])
				j++
			}
			if j >= len(sql) {
				break
			}
			parts = append(parts, b.String())
			i = j + 1
		} else {
			j := i
			for j < len(sql) {
				r, size := utf8.DecodeRuneInString(sql[j:])
				if !(r == '_' || r == '$' && j > i || r >= '0' && r <= '9' && j > i ||
					r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80) {
					break
				}
				j += size
			}
			if j == i {
				break
			}
			parts = append(parts, sql[i:j])
			i = j
		}
		if i < len(sql) && sql[i] == '.' {
			i++
			continue
		}
		break
	}
	return parts
}

// hintCandidates reads the columns a "Perhaps you meant to reference the
// column "t.a" [or the column "u.a"]." hint names. The server qualifies each
// with its table alias; unqualified drops the alias, matching a reference
// written without one. Hints in other languages (lc_messages) give none.
func hintCandidates(hint string, unqualified bool) []string {
	const prefix = "Perhaps you meant to reference the column "
	if !strings.HasPrefix(hint, prefix) {
		return nil
	}
	var out []string
	rest := hint[len(prefix):]
	for {
		a := strings.IndexByte(rest, '"')
		if a < 0 {
			break
		}
		b := strings.IndexByte(rest[a+1:], '"')
		if b < 0 {
			break
		}
		c := rest[a+1 : a+1+b]
		if unqualified {
			if k := strings.IndexByte(c, '.'); k >= 0 {
				c = c[k+1:]
			}
		}
		out = append(out, c)
		rest = rest[a+1+b+1:]
	}
	return out
}
