package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func TestMapperPositions(t *testing.T) {
	// "é" is 2 bytes and 1 UTF-16 unit; "🙂" is 4 bytes and 2 units.
	src := []byte("ab\né🙂x\r\nlast")
	m := NewMapper(src)
	tests := []struct {
		offset int
		pos    protocol.Position
	}{
		{0, pos(0, 0)},
		{2, pos(0, 2)},  // before \n
		{3, pos(1, 0)},  // line 2 starts
		{5, pos(1, 1)},  // after é
		{9, pos(1, 3)},  // after 🙂: two units
		{10, pos(1, 4)}, // after x, before \r\n
		{12, pos(2, 0)},
		{16, pos(2, 4)}, // end of file
	}
	for _, tt := range tests {
		if got := m.Position(tt.offset); got != tt.pos {
			t.Errorf("Position(%d) = %v, want %v", tt.offset, got, tt.pos)
		}
		if got := m.Offset(tt.pos); got != tt.offset {
			t.Errorf("Offset(%v) = %d, want %d", tt.pos, got, tt.offset)
		}
	}
}

func TestMapperClamps(t *testing.T) {
	src := []byte("é🙂x\nyz")
	m := NewMapper(src)
	tests := []struct {
		name string
		pos  protocol.Position
		want int
	}{
		{"past the end of a line", pos(0, 99), 7},
		{"inside a surrogate pair rounds down", pos(0, 2), 2},
		{"past the last line", pos(9, 0), len(src)},
		{"last line", pos(1, 1), 9},
	}
	for _, tt := range tests {
		if got := m.Offset(tt.pos); got != tt.want {
			t.Errorf("%s: Offset(%v) = %d, want %d", tt.name, tt.pos, got, tt.want)
		}
	}
	// Offsets inside a multi-byte rune round down to its start.
	if got := m.Position(1); got != pos(0, 0) {
		t.Errorf("Position inside é = %v", got)
	}
	if got := m.Position(4); got != pos(0, 1) {
		t.Errorf("Position inside 🙂 = %v", got)
	}
	if got := m.Position(-5); got != pos(0, 0) {
		t.Errorf("negative offset = %v", got)
	}
	if got := m.Position(999); got != pos(1, 2) {
		t.Errorf("offset past the end = %v", got)
	}
}

func TestMapperLineEndings(t *testing.T) {
	src := []byte("a\rb\r\nc\nd")
	m := NewMapper(src)
	for off, want := range map[int]protocol.Position{0: pos(0, 0), 2: pos(1, 0), 5: pos(2, 0), 7: pos(3, 0), 1: pos(0, 1), 3: pos(1, 1)} {
		if got := m.Position(off); got != want {
			t.Errorf("Position(%d) = %v, want %v", off, got, want)
		}
	}
	// Never inside a \r\n: the character past "b" is the end of line 1.
	if got := m.Offset(pos(1, 5)); got != 3 {
		t.Errorf("Offset past b = %d, want 3", got)
	}
}

func TestMapperInvalidUTF8(t *testing.T) {
	src := []byte("a\xffb")
	m := NewMapper(src)
	if got := m.Position(2); got != pos(0, 2) {
		t.Errorf("Position after an invalid byte = %v", got)
	}
	if got := m.Offset(pos(0, 2)); got != 2 {
		t.Errorf("Offset = %d", got)
	}
}

func TestMapperRoundTrip(t *testing.T) {
	src := []byte("MODEL (name s.u, description 'Über 🙂');\r\nSELECT 'é🙂' AS s\n")
	m := NewMapper(src)
	for off := 0; off <= len(src); off++ {
		p := m.Position(off)
		back := m.Offset(p)
		if back > off || m.Position(back) != p {
			t.Fatalf("offset %d -> %v -> %d", off, p, back)
		}
	}
}
