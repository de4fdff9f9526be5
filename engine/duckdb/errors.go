package duckdb

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/engine"
)

// jsonError is DuckDB's error shape under `SET errors_as_json = true`.
type jsonError struct {
	Type       string `json:"exception_type"`
	Message    string `json:"exception_message"`
	Subtype    string `json:"error_subtype"`
	Position   string `json:"position"`
	Name       string `json:"name"`
	Candidates string `json:"candidates"`
}

// convertError turns a driver error into an *engine.SQLError when DuckDB
// reported it as JSON; shift is subtracted from positions (the length of a
// prefix such as "DESCRIBE " that the caller added to the user's SQL).
// convertErrorIn is convertError for an error about text, the SQL as sent:
// DuckDB's parser counts positions in characters (its binder and catalog
// in bytes), so a Parser error's position is turned into text's bytes
// before shift.
func convertErrorIn(err error, text string, shift int) error {
	e := convertError(err, 0)
	var se *engine.SQLError
	if errors.As(e, &se) && se.Position >= 0 {
		if se.Type == "Parser" {
			se.Position = byteOffset(text, se.Position)
		}
		se.Position = max(se.Position-shift, 0)
	}
	return e
}

// byteOffset returns the byte offset in s of its character (code point)
// number n, len(s) past the end.
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func convertError(err error, shift int) error {
	if err == nil {
		return nil
	}
	// A cancelled statement was not refused by DuckDB: no SQLError, whose
	// message a caller would read as the statement's fault.
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := err.Error()
	i := strings.IndexByte(msg, '{')
	if i < 0 {
		if ce := corruptError(msg); ce != nil {
			return ce
		}
		return &engine.SQLError{Message: msg, Position: -1}
	}
	var je jsonError
	if json.Unmarshal([]byte(msg[i:]), &je) != nil || je.Message == "" {
		return &engine.SQLError{Message: msg, Position: -1}
	}
	if je.Type == "IO" {
		if ce := corruptError(je.Message); ce != nil {
			return ce
		}
	}
	e := &engine.SQLError{Type: je.Type, Subtype: je.Subtype, Message: je.Message, Name: je.Name, Position: -1}
	if p, perr := strconv.Atoi(je.Position); perr == nil {
		e.Position = p - shift
		if e.Position < 0 {
			e.Position = 0
		}
	}
	if je.Candidates != "" {
		for _, c := range strings.Split(je.Candidates, ",") {
			if c = strings.TrimSpace(c); c != "" {
				e.Candidates = append(e.Candidates, c)
			}
		}
	}
	classifyMessage(e)
	e.Names = namedPlace(e)
	return e
}

// classifyMessage fills the Subtype, Name and Candidates of the errors
// DuckDB reports only in its message text.
func classifyMessage(e *engine.SQLError) {
	switch {
	case strings.HasPrefix(e.Message, "Only SELECT statements can be serialized"):
		// json_serialize_sql of a statement that is not a query.
		e.Subtype = engine.SubtypeNotAQuery
		e.Message = "a model body must be one SELECT query"
	case e.Type == "Binder" && strings.HasPrefix(e.Message, `Table "`) && strings.Contains(e.Message, "does not have a column named"):
		// A qualified reference (d.nme): `Table "d" does not have a column
		// named "nme"` with "Candidate bindings: : "a", "b"", and no
		// subtype, name or candidates of its own; the position is the
		// qualifier's.
		e.Subtype = engine.SubtypeColumnNotFound
		e.Name = engine.Between(e.Message, `column named "`, `"`)
		e.Candidates = quotedAfter(e.Message, "Candidate bindings:")
	case e.Type == "Binder" && strings.HasPrefix(e.Message, `Values list "`) && strings.Contains(e.Message, "does not have a column named"):
		// v.c of a VALUES list v(a, b): like a table's, without candidates.
		e.Subtype = engine.SubtypeColumnNotFound
		e.Name = engine.Between(e.Message, `column named "`, `"`)
	case e.Type == "Binder" && strings.HasPrefix(e.Message, `Column "`) && strings.Contains(e.Message, " does not exist on ") && strings.HasSuffix(e.Message, " side of join!"):
		// A name of USING (…) one side lacks: `Column "x" does not exist
		// on left side of join!`, without a position or candidates.
		e.Subtype = engine.SubtypeColumnNotFound
		e.Name = engine.Between(e.Message, `Column "`, `"`)
	case e.Type == "Binder" && strings.HasPrefix(e.Message, `Referenced table "`) && strings.Contains(e.Message, "not found"):
		// `Referenced table "orders" not found!` with `Candidate tables:
		// "q__orders", "raw__orders"`; the position is the qualifier's.
		e.Subtype = engine.SubtypeTableNotInScope
		e.Name = engine.Between(e.Message, `table "`, `"`)
		e.Candidates = quotedAfter(e.Message, "Candidate tables:")
	case e.Type == "Catalog" && missingFunction.MatchString(e.Message):
		// `Scalar Function with name lenght does not exist!` with `Did
		// you mean "length"?`; the position is the name's.
		e.Subtype = engine.SubtypeFunctionNotFound
		e.Name = missingFunction.FindStringSubmatch(e.Message)[1]
		if len(e.Candidates) == 0 {
			e.Candidates = quotedAfter(e.Message, "Did you mean")
		}
	case strings.HasPrefix(e.Message, "Referenced column "):
		// `Referenced column p.yy not found in FROM clause and can't find
		// in alias map` (QUALIFY, a window's ORDER BY): the position is
		// the qualifier's, the name the last part of the reference.
		e.Subtype = engine.SubtypeColumnNotFound
		if e.Name == "" {
			if ref := engine.Between(e.Message, "Referenced column ", " not found"); strings.Contains(ref, ".") && !strings.Contains(ref, `"`) {
				e.Name = ref[strings.LastIndexByte(ref, '.')+1:]
			}
		}
	case e.Type == "Binder" && strings.HasPrefix(e.Message, "Ambiguous reference to column name"):
		// `Ambiguous reference to column name "a" (use: "t.a" or "u.a")`.
		e.Subtype = engine.SubtypeAmbiguousColumn
		e.Name = engine.Between(e.Message, `column name "`, `"`)
		e.Candidates = quotedAfter(e.Message, "(use:")
	case e.Type == "Binder" && strings.HasPrefix(e.Message, "Could not find key"):
		// `Could not find key "frist" in struct` with `Candidate
		// Entries: "first", "last"`; DuckDB gives no position.
		e.Subtype = engine.SubtypeFieldNotFound
		e.Name = engine.Between(e.Message, `key "`, `"`)
		e.Candidates = quotedAfter(e.Message, "Candidate Entries:")
	case e.Type == "Binder" && strings.Contains(e.Message, "must appear in the GROUP BY clause or must be part of an aggregate function"):
		// The position is the column's.
		e.Subtype = engine.SubtypeNotGrouped
		e.Name = engine.Between(e.Message, `column "`, `"`)
	case e.Type == "Binder" && strings.HasPrefix(e.Message, "column ") && strings.HasSuffix(e.Message, " must appear in the GROUP BY clause or be used in an aggregate function"):
		// A name in HAVING: `column x must appear in the GROUP BY clause
		// or be used in an aggregate function`, without a position, for a
		// column that is not grouped and for a name no relation has alike.
		e.Subtype = engine.SubtypeNotGrouped
		e.Name = strings.TrimSuffix(strings.TrimPrefix(e.Message, "column "), " must appear in the GROUP BY clause or be used in an aggregate function")
	}
}

// Binder errors DuckDB gives no position, and the place each names: the
// field of a struct access on a scalar, the column an UNPIVOT or a star's
// EXCLUDE (REPLACE, RENAME) list names, the ASOF of a join without its
// inequality, a call a lambda is passed to.
var (
	extractFieldErr = regexp.MustCompile(`^Cannot extract field '((?:[^']|'')*)' from expression "((?:[^"]|"")*)"`)
	unpivotColErr   = regexp.MustCompile(`^Column "((?:[^"]|"")*)" referenced in UNPIVOT`)
	starListErr     = regexp.MustCompile(`^Column "((?:[^"]|"")*)" in (EXCLUDE|REPLACE|RENAME) list not found`)
	asofErr         = regexp.MustCompile(`ASOF JOIN`)
	lambdaErr       = regexp.MustCompile(`lambda function binding`)
)

// namedPlace is the place a Binder error's first line names (Names): a
// caller reads it where the error has no position of its own.
func namedPlace(e *engine.SQLError) *engine.Named {
	if e.Type != "Binder" {
		return nil
	}
	msg, _, _ := strings.Cut(e.Message, "\n")
	unq := func(s, q string) string { return strings.ReplaceAll(s, q+q, q) }
	switch {
	case extractFieldErr.MatchString(msg):
		m := extractFieldErr.FindStringSubmatch(msg)
		return &engine.Named{Kind: engine.NamedField, Name: unq(m[1], "'"), Of: unq(m[2], `"`)}
	case unpivotColErr.MatchString(msg):
		return &engine.Named{Kind: engine.NamedListColumn, Name: unq(unpivotColErr.FindStringSubmatch(msg)[1], `"`), Of: "UNPIVOT"}
	case starListErr.MatchString(msg):
		m := starListErr.FindStringSubmatch(msg)
		return &engine.Named{Kind: engine.NamedListColumn, Name: unq(m[1], `"`), Of: m[2]}
	case asofErr.MatchString(msg):
		return &engine.Named{Kind: engine.NamedKeyword, Name: "ASOF"}
	case lambdaErr.MatchString(msg):
		return &engine.Named{Kind: engine.NamedLambdaCall}
	}
	return nil
}

// missingFunction is DuckDB's message about a call of a function it does
// not have (scalar, aggregate, table or macro).
var missingFunction = regexp.MustCompile(`^(?:Scalar |Aggregate |Table |Macro |Pragma )?Function with name (\S+) does not exist`)

// quotedAfter lists the double-quoted strings of s after marker.
func quotedAfter(s, marker string) []string {
	i := strings.Index(s, marker)
	if i < 0 {
		return nil
	}
	var out []string
	rest := s[i+len(marker):]
	for {
		a := strings.IndexByte(rest, '"')
		if a < 0 {
			return out
		}
		b := strings.IndexByte(rest[a+1:], '"')
		if b < 0 {
			return out
		}
		out = append(out, rest[a+1:a+1+b])
		rest = rest[a+b+2:]
	}
}

// corruptMarker is how DuckDB words a block whose checksum does not match
// what was written: `Corrupt database file: computed checksum … does not
// match stored checksum … in block at location …`. The message is the
// only place it says so (an IO error like a full disk otherwise).
const corruptMarker = "Corrupt database file"

// corruptError returns an *engine.CorruptError when msg is DuckDB finding
// a damaged block, else nil. Its Database is for the caller to fill.
func corruptError(msg string) *engine.CorruptError {
	i := strings.Index(msg, corruptMarker)
	if i < 0 {
		return nil
	}
	return &engine.CorruptError{Detail: msg[i:]}
}

// conflictingLock finds the holder in DuckDB's message about a file another
// process has open for writing: `Could not set lock on file "…":
// Conflicting lock is held in /usr/bin/efmesh (PID 123)`. The message is
// the only place DuckDB names the holder (the error comes from opening the
// database, before errors_as_json can be set).
var conflictingLock = regexp.MustCompile(`Conflicting lock is held in (.*?) \(PID (\d+)\)`)

// busyError returns an *engine.BusyError when err is DuckDB refusing to
// open path because another process holds its lock, else nil.
func busyError(err error, path string) *engine.BusyError {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if !strings.Contains(msg, "Could not set lock on file") {
		return nil
	}
	e := &engine.BusyError{Database: path, Detail: msg}
	if m := conflictingLock.FindStringSubmatch(msg); m != nil {
		e.PID, _ = strconv.Atoi(m[2])
		e.Program = filepath.Base(m[1])
	}
	return e
}
