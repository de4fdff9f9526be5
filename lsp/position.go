package lsp

import (
	"sort"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Positions.
//
// Everything below the language server measures text in byte offsets into a
// file's UTF-8 source: project.Pos.Offset, project.TextEdit, macro spans,
// engine source maps. The LSP measures a position as a 0-based line and a
// 0-based character that counts UTF-16 code units from the start of that
// line. This file is the one place that converts between the two; no other
// file does arithmetic on protocol.Position.
//
// Rules (from the LSP specification, with clamping instead of errors, since
// a client's position can be a keystroke ahead of the server's text):
//   - a line ends at "\n", "\r\n" or a lone "\r"; the terminator belongs to
//     the line it ends, and no position points inside it;
//   - a rune outside the Basic Multilingual Plane (an emoji) is two UTF-16
//     units, every other rune one; a byte of invalid UTF-8 counts as one
//     unit (it is shown as U+FFFD);
//   - a byte offset inside a multi-byte rune is rounded down to the rune's
//     start; a character inside a surrogate pair is rounded down too;
//   - a character past the end of its line is the end of the line; a line
//     past the last line is the end of the file.

// Mapper converts between byte offsets of one source text and LSP
// positions. It is immutable and safe for concurrent use.
type Mapper struct {
	src   []byte
	lines []int // byte offset where each line starts; lines[0] == 0
}

// NewMapper indexes the line starts of src.
func NewMapper(src []byte) *Mapper {
	m := &Mapper{src: src, lines: []int{0}}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			m.lines = append(m.lines, i+1)
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			m.lines = append(m.lines, i+1)
		}
	}
	return m
}

// lineEnd returns the offset where line's content ends (before its
// terminator).
func (m *Mapper) lineEnd(line int) int {
	if line+1 >= len(m.lines) {
		return len(m.src)
	}
	end := m.lines[line+1]
	if end > 0 && m.src[end-1] == '\n' {
		end--
	}
	if end > m.lines[line] && m.src[end-1] == '\r' {
		end--
	}
	return end
}

// Position converts a byte offset into an LSP position. Offsets outside the
// text are clamped to it.
func (m *Mapper) Position(offset int) protocol.Position {
	offset = max(0, min(offset, len(m.src)))
	line := sort.Search(len(m.lines), func(i int) bool { return m.lines[i] > offset }) - 1
	end := min(offset, m.lineEnd(line))
	units := 0
	for i := m.lines[line]; i < end; {
		r, size := utf8.DecodeRune(m.src[i:])
		if i+size > end {
			break // offset inside this rune: round down
		}
		units += utf16Len(r)
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

// Offset converts an LSP position into a byte offset, clamping as the rules
// above say.
func (m *Mapper) Offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(m.lines) {
		return len(m.src)
	}
	i, end := m.lines[line], m.lineEnd(line)
	for units := 0; i < end; {
		r, size := utf8.DecodeRune(m.src[i:])
		n := utf16Len(r)
		if units+n > int(p.Character) {
			break
		}
		units += n
		i += size
	}
	return i
}

// Range converts the byte span [start, end) into an LSP range.
func (m *Mapper) Range(start, end int) protocol.Range {
	if end < start {
		end = start
	}
	return protocol.Range{Start: m.Position(start), End: m.Position(end)}
}

// Offsets converts an LSP range into a byte span; a reversed range is
// reordered.
func (m *Mapper) Offsets(r protocol.Range) (start, end int) {
	start, end = m.Offset(r.Start), m.Offset(r.End)
	if end < start {
		start, end = end, start
	}
	return start, end
}

func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}
