package project

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the SQL-ish lexer of MODEL headers and the position
// bookkeeping shared by the parsers of this package.

type tokKind int

const (
	tokEOF     tokKind = iota
	tokIdent           // a bare or "quoted" identifier, possibly dotted: med.stays, "My Schema".t
	tokString          // 'text' with '' as the escaped quote
	tokNumber          // 12, 1.5, 1e3
	tokPunct           // any other single character: ( ) , ; [ ] < = …
	tokIllegal         // an unterminated string, quoted identifier or comment
)

// token is one lexeme of a header. start/end are byte offsets into the whole
// file, so positions never need translating.
type token struct {
	kind       tokKind
	start, end int
	// val is the token's value: for identifiers the parts unquoted and joined
	// by '.', for strings the text without quotes and with '' unescaped, for
	// punctuation the character, otherwise the source text. For tokIllegal it
	// is the error message.
	val    string
	quoted bool // an identifier with at least one "quoted" part
	parts  int  // the number of dot-separated parts of an identifier
}

// is reports whether t is the bare (unquoted, undotted) keyword kw, ignoring
// case. SQL keywords are case-insensitive; quoted identifiers never are.
func (t token) is(kw string) bool {
	return t.kind == tokIdent && !t.quoted && t.parts == 1 && strings.EqualFold(t.val, kw)
}

// isPunct reports whether t is the punctuation character c.
func (t token) isPunct(c string) bool { return t.kind == tokPunct && t.val == c }

// lexer produces header tokens on demand: the header ends wherever its
// closing parenthesis is, and the body after it need not be lexable.
type lexer struct {
	src []byte
	pos int
}

// skipSpace skips whitespace and comments. An unterminated block comment is
// returned as an illegal token.
func (lx *lexer) skipSpace() (token, bool) {
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			lx.pos++
		case c == '-' && lx.peekByte(1) == '-':
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.pos++
			}
		case c == '/' && lx.peekByte(1) == '*':
			start := lx.pos
			end, ok := skipBlockComment(lx.src, lx.pos)
			lx.pos = end
			if !ok {
				return token{kind: tokIllegal, start: start, end: start + 2, val: "unterminated /* comment"}, false
			}
		default:
			r, size := utf8.DecodeRune(lx.src[lx.pos:])
			if r == '\uFEFF' || (r != utf8.RuneError && unicode.IsSpace(r)) {
				lx.pos += size
				continue
			}
			return token{}, true
		}
	}
	return token{}, true
}

func (lx *lexer) peekByte(n int) byte {
	if lx.pos+n < len(lx.src) {
		return lx.src[lx.pos+n]
	}
	return 0
}

// next returns the next token.
func (lx *lexer) next() token {
	if t, ok := lx.skipSpace(); !ok {
		return t
	}
	start := lx.pos
	if start >= len(lx.src) {
		return token{kind: tokEOF, start: start, end: start}
	}
	c := lx.src[start]
	switch {
	case c == '\'':
		val, end, ok := scanQuoted(lx.src, start, '\'')
		lx.pos = end
		if !ok {
			return token{kind: tokIllegal, start: start, end: start + 1, val: "unterminated string"}
		}
		return token{kind: tokString, start: start, end: end, val: val}
	case c >= '0' && c <= '9':
		lx.pos = scanNumber(lx.src, start)
		return token{kind: tokNumber, start: start, end: lx.pos, val: string(lx.src[start:lx.pos])}
	case c == '"' || isIdentStart(lx.src, start):
		return lx.ident()
	}
	_, size := utf8.DecodeRune(lx.src[start:])
	lx.pos += size
	return token{kind: tokPunct, start: start, end: lx.pos, val: string(lx.src[start:lx.pos])}
}

// ident lexes a dotted identifier whose parts are bare or double-quoted.
func (lx *lexer) ident() token {
	t := token{kind: tokIdent, start: lx.pos}
	var parts []string
	for {
		if lx.pos < len(lx.src) && lx.src[lx.pos] == '"' {
			val, end, ok := scanQuoted(lx.src, lx.pos, '"')
			if !ok {
				q := lx.pos
				lx.pos = end
				return token{kind: tokIllegal, start: q, end: q + 1, val: "unterminated quoted identifier"}
			}
			lx.pos = end
			parts = append(parts, val)
			t.quoted = true
		} else {
			s := lx.pos
			lx.pos = scanIdent(lx.src, lx.pos)
			parts = append(parts, string(lx.src[s:lx.pos]))
		}
		// A dot continues the name only when another part follows directly.
		if lx.pos+1 < len(lx.src) && lx.src[lx.pos] == '.' &&
			(lx.src[lx.pos+1] == '"' || isIdentStart(lx.src, lx.pos+1)) {
			lx.pos++
			continue
		}
		break
	}
	t.end = lx.pos
	t.val = strings.Join(parts, ".")
	t.parts = len(parts)
	return t
}

// isIdentStart reports whether an unquoted identifier starts at src[i]:
// a letter (any script) or an underscore.
func isIdentStart(src []byte, i int) bool {
	if i >= len(src) {
		return false
	}
	c := src[i]
	if c < utf8.RuneSelf {
		return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
	}
	r, _ := utf8.DecodeRune(src[i:])
	return r != utf8.RuneError && r != '\uFEFF' && unicode.IsLetter(r)
}

// scanIdent returns the end of the unquoted identifier starting at i.
func scanIdent(src []byte, i int) int {
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if c == '_' || c == '$' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
				i++
				continue
			}
			return i
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return i
		}
		i += size
	}
	return i
}

// isIdentByte reports whether c can continue an ASCII identifier; non-ASCII
// bytes count as identifier characters, as they do in DuckDB and Postgres.
func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c >= utf8.RuneSelf
}

func scanNumber(src []byte, i int) int {
	digits := func() {
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	digits()
	if i+1 < len(src) && src[i] == '.' && src[i+1] >= '0' && src[i+1] <= '9' {
		i++
		digits()
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && src[j] >= '0' && src[j] <= '9' {
			i = j
			digits()
		}
	}
	return i
}

// scanQuoted scans a string or quoted identifier opened by q at src[i], where
// a doubled q stands for itself. It returns the unescaped value and the offset
// after the closing quote; when unterminated, ok is false and end is len(src).
func scanQuoted(src []byte, i int, q byte) (val string, end int, ok bool) {
	var b strings.Builder
	j := i + 1
	for j < len(src) {
		k := j
		for k < len(src) && src[k] != q {
			k++
		}
		b.Write(src[j:k])
		if k >= len(src) {
			break
		}
		if k+1 < len(src) && src[k+1] == q {
			b.WriteByte(q)
			j = k + 2
			continue
		}
		return b.String(), k + 1, true
	}
	return "", len(src), false
}

// skipBlockComment skips the /* comment */ at src[i]. Block comments nest, as
// in Postgres and DuckDB.
func skipBlockComment(src []byte, i int) (end int, ok bool) {
	depth := 0
	for i < len(src) {
		switch {
		case src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
			depth++
			i += 2
		case src[i] == '*' && i+1 < len(src) && src[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i, true
			}
		default:
			i++
		}
	}
	return len(src), false
}

// lineIndex converts byte offsets to positions in O(log lines) after one
// pass over the file. It computes exactly what PosAt does.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of the first byte of each line
}

func newLineIndex(src []byte) *lineIndex {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{src: src, starts: starts}
}

func (li *lineIndex) pos(offset int) Pos {
	if offset < 0 {
		offset = 0
	}
	if offset > len(li.src) {
		offset = len(li.src)
	}
	line := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > offset }) - 1
	col := 1
	for i := li.starts[line]; i < offset; {
		_, size := utf8.DecodeRune(li.src[i:])
		col++
		i += size
	}
	return Pos{Offset: offset, Line: line + 1, Column: col}
}

func (li *lineIndex) rng(start, end int) Range {
	if end < start {
		end = start
	}
	return Range{Start: li.pos(start), End: li.pos(end)}
}

// offsetOf converts a 1-based line and a 1-based column counted in
// characters to a byte offset, clamping to the line.
func (li *lineIndex) offsetOf(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(li.starts) {
		return len(li.src)
	}
	i := li.starts[line-1]
	for c := 1; c < col && i < len(li.src) && li.src[i] != '\n'; c++ {
		_, size := utf8.DecodeRune(li.src[i:])
		i += size
	}
	return i
}
