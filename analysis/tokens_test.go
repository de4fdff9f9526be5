package analysis

import "testing"

// tokenEnd reads a quoted name with doubled quotes whole and a word with $
// as one word, as DuckDB and Postgres do: a diagnostic underlines the name,
// not a piece of it.
func TestTokenEnd(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`"a""b" x`, `"a""b"`},
		{`"open`, `"open`},
		{"a$b+1", "a$b"},
		{"régions.x", "régions"},
		{"+x", "+"},
		{"", ""},
	} {
		if got := tc.src[:tokenEnd([]byte(tc.src), 0)]; got != tc.want {
			t.Errorf("tokenEnd(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}
