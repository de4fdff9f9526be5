package duckdb

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/efmesh/efmesh/sqlscan"
)

// Long string literals cost DuckDB's tokenizer and serializer tens of
// nanoseconds a byte each time a query is parsed, and checking a model
// parses its query several times (canonical form, constants, columns): a
// model holding a 50 MB literal took minutes to plan. What checking needs
// of a literal is never more than that it is one: its value matters to the
// canonical form (spliced back into the serialized tree here, byte for byte
// as DuckDB writes it) and to the casts CheckConstants evaluates (put back
// into the decoded tree). So each literal of at least longLiteral bytes is
// sent as a short placeholder, and whatever the placeholder might change
// (an error, a column named after the literal, a tree the placeholder does
// not appear in exactly once) is answered on the query as written instead.

// longLiteral is the size from which a plain string literal is replaced by
// a placeholder while checking.
const longLiteral = 4 << 10

// placeholderMark starts every placeholder; a query that holds it already
// is sent as written.
const placeholderMark = "efmesh:long-literal:"

// shrunk is a query whose long literals are placeholders.
type shrunk struct {
	sql  string // the query as sent
	lits []longLit
}

// longLit is one long literal and its placeholder.
type longLit struct {
	start, end  int    // the literal, quotes included, in the query as written
	at, size    int    // the placeholder literal, quotes included, in shrunk.sql
	placeholder string // the placeholder's value
	value       string // the literal's value (doubled quotes collapsed)
}

// shrinkLiterals replaces the plain '…' literals of query of at least
// longLiteral bytes by placeholders; ok is false when it replaced none.
// E'…', dollar-quoted and prefixed (X'…', U&'…') strings are left as they
// are, and so are values DuckDB would refuse or that JSON cannot carry as
// written (invalid UTF-8, NUL).
func shrinkLiterals(query string) (s shrunk, ok bool) {
	if len(query) < longLiteral || strings.Contains(query, placeholderMark) {
		return shrunk{}, false
	}
	// Read only, never written: not a copy of what may be megabytes.
	src := unsafe.Slice(unsafe.StringData(query), len(query))
	var b strings.Builder
	last := 0
	for sc := sqlscan.NewScanner(src, 0); ; {
		t := sc.Next()
		if t.Kind == sqlscan.EOF {
			break
		}
		if t.Kind != sqlscan.String || t.Unterminated || t.End-t.Start < longLiteral || src[t.Start] != '\'' ||
			t.Start > 0 && (sqlscan.IsIdentByte(src[t.Start-1]) || src[t.Start-1] == '&') {
			continue
		}
		value := query[t.Start+1 : t.End-1] // no copy unless a quote is doubled
		if strings.Contains(value, "''") {
			value = strings.ReplaceAll(value, "''", "'")
		}
		if strings.IndexByte(value, 0) >= 0 || !utf8.ValidString(value) {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(query) / 16)
		}
		p := placeholderMark + strconv.Itoa(len(s.lits))
		b.WriteString(query[last:t.Start])
		lit := longLit{start: t.Start, end: t.End, at: b.Len(), size: len(p) + 2, placeholder: p, value: value}
		b.WriteString("'" + p + "'")
		s.lits = append(s.lits, lit)
		last = t.End
	}
	if len(s.lits) == 0 {
		return shrunk{}, false
	}
	b.WriteString(query[last:])
	s.sql = b.String()
	return s, true
}

// original returns the offset in the query as written of offset pos of
// s.sql; an offset inside a placeholder is its literal's start.
func (s shrunk) original(pos int) int {
	shift := 0
	for _, l := range s.lits {
		if pos < l.at {
			break
		}
		if pos < l.at+l.size {
			return l.start
		}
		shift = l.end - (l.at + l.size)
	}
	return pos + shift
}

// restoreCanonical puts the literals' values in place of their
// placeholders in a canonical tree of s.sql, escaped as DuckDB's JSON
// writer escapes them, so the result is the canonical tree of the query
// as written. ok is false unless every placeholder is in tree exactly once.
func (s shrunk) restoreCanonical(tree []byte) (out []byte, ok bool) {
	type spot struct {
		at int
		l  *longLit
	}
	spots := make([]spot, 0, len(s.lits))
	n := len(tree)
	for i := range s.lits {
		l := &s.lits[i]
		key := `"` + l.placeholder + `"`
		at := bytes.Index(tree, []byte(key))
		if at < 0 || bytes.Contains(tree[at+len(key):], []byte(key)) {
			return nil, false
		}
		spots = append(spots, spot{at, l})
		n += jsonStringLen(l.value) - len(l.placeholder)
	}
	slices.SortFunc(spots, func(a, b spot) int { return a.at - b.at })
	out = make([]byte, 0, n)
	last := 0
	for _, sp := range spots {
		out = append(out, tree[last:sp.at+1]...)
		out = appendDuckJSON(out, sp.l.value)
		last = sp.at + 1 + len(sp.l.placeholder)
	}
	return append(out, tree[last:]...), true
}

// restoreTree puts the literals' values in place of their placeholders in
// a decoded tree of s.sql (string values equal to a placeholder).
func (s shrunk) restoreTree(tree any) {
	values := make(map[string]string, len(s.lits))
	for _, l := range s.lits {
		values[l.placeholder] = l.value
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				v[k] = walk(x)
			}
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
		case string:
			if val, ok := values[v]; ok {
				return val
			}
		}
		return v
	}
	walk(tree)
}

// namesPlaceholder reports whether a column name holds a placeholder (a
// literal without an alias is named after its text).
func namesPlaceholder(name string) bool { return strings.Contains(name, placeholderMark) }

// appendDuckJSON appends s as a JSON string's content the way DuckDB's JSON writer
// (yyjson) writes it: quote and backslash escaped, \b \t \n \f \r, other
// control characters as \u00XX (upper-case hex), everything else as is.
func appendDuckJSON(out []byte, s string) []byte {
	const hexDigits = "0123456789ABCDEF"
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[last:i]...)
		switch c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\b':
			out = append(out, '\\', 'b')
		case '\t':
			out = append(out, '\\', 't')
		case '\n':
			out = append(out, '\\', 'n')
		case '\f':
			out = append(out, '\\', 'f')
		case '\r':
			out = append(out, '\\', 'r')
		default:
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		last = i + 1
	}
	return append(out, s[last:]...)
}

// jsonStringLen is the length of appendDuckJSON's output for s, quotes
// excluded.
func jsonStringLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}
