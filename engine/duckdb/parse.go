package duckdb

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/sqlscan"
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
// statement with every query_location removed, in the serializer's own
// (fixed) key order, so equal trees give equal bytes.
//
// Long string literals are parsed as placeholders (shrinkLiterals) and
// their values spliced back: the result is the same bytes.
func (d *DB) Canonicalize(sql string) ([]byte, error) {
	if s, ok := shrinkLiterals(sql); ok {
		if b, err := d.canonicalize(s.sql); err == nil {
			if b, ok := s.restoreCanonical(b); ok {
				return b, nil
			}
		}
	}
	return d.canonicalize(sql)
}

// canonicalize is Canonicalize of sql as written.
func (d *DB) canonicalize(sql string) ([]byte, error) {
	var raw string
	if err := d.db.QueryRowContext(context.Background(), "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", sql).Scan(&raw); err != nil {
		return nil, convertError(err, 0)
	}
	return canonicalOf(raw, sql)
}

// CanonicalizeAll canonicalizes many statements in one query per chunk: the
// fixed cost of a statement dominates a small parse, and a project's first
// check parses every model. Chunks run at once over one connection per
// core (DescribeMany's).
func (d *DB) CanonicalizeAll(sqls []string) ([][]byte, []error) {
	out := make([][]byte, len(sqls))
	errs := make([]error, len(sqls))
	if len(sqls) == 0 {
		return out, errs
	}
	texts := sqls
	shrunks := map[int]shrunk{}
	for i, q := range sqls {
		if s, ok := shrinkLiterals(q); ok {
			if len(shrunks) == 0 {
				texts = slices.Clone(sqls)
			}
			shrunks[i], texts[i] = s, s.sql
		}
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), maxBinders))
	chunk := min(100, max(50, (len(sqls)+workers-1)/workers))
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	for lo := 0; lo < len(sqls); lo += chunk {
		hi := min(lo+chunk, len(sqls))
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if !d.canonicalizeChunk(texts, lo, hi, out, errs) {
				// One bad literal spoils the batch: fall back to one by one.
				for i := lo; i < hi; i++ {
					out[i], errs[i] = d.canonicalize(texts[i])
				}
			}
		})
	}
	wg.Wait()
	for i, s := range shrunks {
		if errs[i] == nil {
			if b, ok := s.restoreCanonical(out[i]); ok {
				out[i] = b
				continue
			}
		}
		out[i], errs[i] = d.canonicalize(sqls[i])
	}
	return out, errs
}

// canonicalizeChunk canonicalizes sqls[lo:hi] in one query, reporting
// false when the query itself failed.
func (d *DB) canonicalizeChunk(sqls []string, lo, hi int, out [][]byte, errs []error) bool {
	var b strings.Builder
	b.WriteString("SELECT i, json_serialize_sql(q)::VARCHAR FROM (VALUES ")
	for i := lo; i < hi; i++ {
		if i > lo {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %s)", i, engine.QuoteString(sqls[i]))
	}
	b.WriteString(") AS t(i, q)")
	rows, err := d.binderPool().QueryContext(context.Background(), b.String())
	if err != nil {
		return false
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var i int64
		var raw string
		if err := rows.Scan(&i, &raw); err != nil || i < int64(lo) || i >= int64(hi) {
			return false
		}
		out[i], errs[i] = canonicalOf(raw, sqls[i])
		seen++
	}
	return rows.Err() == nil && seen == hi-lo
}

// canonicalOf reads json_serialize_sql's envelope of sql: the one
// statement's tree without positions, or the parser's error (its position
// counted in characters, returned in bytes).
func canonicalOf(raw, sql string) ([]byte, error) {
	if strings.HasPrefix(raw, `{"error":true`) {
		var env serialized
		if err := json.Unmarshal([]byte(raw), &env); err != nil {
			return nil, &engine.SQLError{Type: "Parser", Message: "unreadable parse tree: " + err.Error(), Position: -1}
		}
		e := &engine.SQLError{Type: "Parser", Subtype: env.Subtype, Message: env.Message, Position: -1}
		if p, err := strconv.Atoi(env.Position); err == nil {
			e.Position = byteOffset(sql, p)
		}
		if env.ErrorType != "parser" && env.ErrorType != "" {
			e.Type = env.ErrorType
		}
		classifyMessage(e)
		if e.Subtype == engine.SubtypeNotAQuery {
			pivotWithoutValues(e, sql)
		}
		return nil, e
	}
	const prefix = `{"error":false,"statements":[`
	if !strings.HasPrefix(raw, prefix) || !strings.HasSuffix(raw, "]}") {
		return nil, &engine.SQLError{Type: "Parser", Message: "unreadable parse tree", Position: -1}
	}
	body := raw[len(prefix) : len(raw)-2]
	if n := statementCount(body); n != 1 {
		return nil, &engine.SQLError{Type: "Parser", Subtype: engine.SubtypeStatementCount, Name: strconv.Itoa(n), Message: "a model body must be exactly one SELECT statement, found " + strconv.Itoa(n), Position: -1}
	}
	return stripLocations(body), nil
}

// statementCount counts the statements of json_serialize_sql's array
// body. Each statement is an object whose first member is its "node", so
// statements after the first each start right after a `},{"node":`; a
// body without that text is one statement, known without walking every
// byte of it (a model's tree is most of its canonical form).
func statementCount(body string) int {
	const first, next = `{"node":`, `},{"node":`
	if strings.HasPrefix(body, first) && !strings.Contains(body, next) {
		return 1
	}
	return topLevelItems(body)
}

// topLevelItems counts the comma-separated values of a JSON array body.
func topLevelItems(body string) int {
	if strings.TrimSpace(body) == "" {
		return 0
	}
	n, depth, inStr := 1, 0, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			n++
		}
	}
	return n
}

// stripLocations removes every "query_location":N member from serialized
// JSON without decoding it. Inside JSON strings quotes are escaped, so the
// member pattern cannot match string content.
//
// The result is allocated at its exact size: a canonical form lives as
// long as its analysis (one per model), and sizing it by the input, whose
// locations are a good part of it, would keep that part alive unused.
func stripLocations(b string) []byte {
	n := 0
	cutLocations(b, func(part string) { n += len(part) })
	out := make([]byte, 0, n)
	cutLocations(b, func(part string) { out = append(out, part...) })
	return out
}

// cutLocations calls keep with the parts of b that remain once every
// "query_location":N member (and its comma) is cut out, in order.
func cutLocations(b string, keep func(string)) {
	const key = `"query_location":`
	kept := 0 // bytes kept so far
	for {
		i := strings.Index(b, key)
		if i < 0 {
			keep(b)
			return
		}
		j := i + len(key)
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '-') {
			j++
		}
		switch {
		case j < len(b) && b[j] == ',':
			keep(b[:i])
			kept += i
			b = b[j+1:]
		case kept+i > 0 && i > 0 && b[i-1] == ',':
			keep(b[:i-1])
			kept += i - 1
			b = b[j:]
		default:
			keep(b[:i])
			kept += i
			b = b[j:]
		}
	}
}

// pivotWithoutValues explains the one query DuckDB will not serialize: a
// PIVOT without IN (…) is rewritten before binding into statements that
// read the distinct values from the data, so its columns are the data's
// and no plan can know them. The error is put at the first PIVOT.
func pivotWithoutValues(e *engine.SQLError, sql string) {
	src := []byte(sql)
	for _, t := range sqlscan.Tokens(src, 0) {
		if t.Is(src, "pivot") {
			e.Position = t.Start
			e.Message = "a PIVOT without IN (…) takes its columns from the data, which a plan cannot know: list the values (PIVOT … ON col IN ('a', 'b') USING …)"
			return
		}
	}
}
