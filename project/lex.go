package project

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/efmesh/efmesh/sqlscan"
)

// This file holds the SQL-ish lexer of MODEL headers and the position
// bookkeeping shared by the parsers of this package.

type tokKind uint8

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
	quoted bool  // an identifier with at least one "quoted" part
	parts  int32 // the number of dot-separated parts of an identifier
}

// is reports whether t is the bare (unquoted, undotted) keyword kw, ignoring
// case. SQL keywords are case-insensitive; quoted identifiers never are.
func (t token) is(kw string) bool {
	return t.kind == tokIdent && !t.quoted && t.parts == 1 && strings.EqualFold(t.val, kw)
}

// isPunct reports whether t is the punctuation character c.
func (t token) isPunct(c string) bool { return t.kind == tokPunct && t.val == c }

// lexer produces header tokens on demand: the header ends wherever its
// closing parenthesis is, and the body after it need not be lexable. It
// reads sqlscan's tokens in the header's terms: dotted names are one
// token, and what the header grammar lacks (operators, parameters,
// macros, E-strings and dollar-quoted strings) is read one character at a
// time, as punctuation.
type lexer struct {
	src []byte
	pos int
}

// next returns the next token.
func (lx *lexer) next() token {
	for {
		sc := sqlscan.NewScanner(lx.src, lx.pos)
		t := sc.Next()
		lx.pos = sc.Pos()
		switch t.Kind {
		case sqlscan.EOF:
			return token{kind: tokEOF, start: t.Start, end: t.End}
		case sqlscan.Comment:
			if t.Unterminated && lx.src[t.Start] == '/' {
				return token{kind: tokIllegal, start: t.Start, end: t.Start + 2, val: "unterminated /* comment"}
			}
			continue
		case sqlscan.Ident, sqlscan.QuotedIdent:
			lx.pos = t.Start
			return lx.ident()
		case sqlscan.Number:
			return token{kind: tokNumber, start: t.Start, end: t.End, val: t.Text(lx.src)}
		case sqlscan.String:
			switch lx.src[t.Start] {
			case '\'':
				if t.Unterminated {
					return token{kind: tokIllegal, start: t.Start, end: t.Start + 1, val: "unterminated string"}
				}
				return token{kind: tokString, start: t.Start, end: t.End, val: t.Value(lx.src)}
			case 'e', 'E': // the E of E'' is a name here
				lx.pos = t.Start
				return lx.ident()
			}
		}
		_, size := utf8.DecodeRune(lx.src[t.Start:])
		lx.pos = t.Start + size
		return token{kind: tokPunct, start: t.Start, end: lx.pos, val: string(lx.src[t.Start:lx.pos])}
	}
}

// ident lexes a dotted identifier whose parts are bare or double-quoted.
// A name of bare parts is its source text (the parts joined by '.'), one
// string; only a quoted part makes the parts be joined anew.
func (lx *lexer) ident() token {
	t := token{kind: tokIdent, start: lx.pos}
	var quotedVal []byte // the parts unquoted and joined, once a part is quoted
	for {
		if t.parts > 0 && quotedVal != nil {
			quotedVal = append(quotedVal, '.')
		}
		if lx.pos < len(lx.src) && lx.src[lx.pos] == '"' {
			val, end, ok := sqlscan.Unquote(lx.src, lx.pos)
			if !ok {
				q := lx.pos
				lx.pos = end
				return token{kind: tokIllegal, start: q, end: q + 1, val: "unterminated quoted identifier"}
			}
			if quotedVal == nil {
				// The bare parts before this one, with their dots.
				quotedVal = append(make([]byte, 0, end-t.start), lx.src[t.start:lx.pos]...)
			}
			lx.pos = end
			quotedVal = append(quotedVal, val...)
			t.quoted = true
		} else {
			s := lx.pos
			lx.pos = sqlscan.IdentEnd(lx.src, lx.pos)
			if quotedVal != nil {
				quotedVal = append(quotedVal, lx.src[s:lx.pos]...)
			}
		}
		t.parts++
		// A dot continues the name only when another part follows directly.
		if lx.pos+1 < len(lx.src) && lx.src[lx.pos] == '.' &&
			(lx.src[lx.pos+1] == '"' || sqlscan.IsIdentStart(lx.src, lx.pos+1)) {
			lx.pos++
			continue
		}
		break
	}
	t.end = lx.pos
	if quotedVal != nil {
		t.val = string(quotedVal)
	} else {
		t.val = string(lx.src[t.start:t.end])
	}
	return t
}

// lineIndex converts byte offsets to positions in O(log lines) after one
// pass over the file. It computes exactly what PosAt does.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of the first byte of each line
}

func newLineIndex(src []byte) *lineIndex {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
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
