package analysis

import "testing"

func TestBodyEnd(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"SELECT 1;\n-- done\n", "SELECT 1"},
		{"SELECT 1 /* c */ ;; \n", "SELECT 1"},
		{"SELECT $$a -- b$$ AS x, id FROM t", "SELECT $$a -- b$$ AS x, id FROM t"},
		{`SELECT id, E'it\'s -- x' AS y FROM t`, `SELECT id, E'it\'s -- x' AS y FROM t`},
		{"SELECT 'a''; -- b' AS y -- trailing", "SELECT 'a''; -- b' AS y"},
		{"SELECT $tag$ ; /* $tag$ FROM t /* open", "SELECT $tag$ ; /* $tag$ FROM t"},
		{"SELECT 'open", "SELECT 'open"},
	} {
		if got := tc.src[:BodyEnd([]byte(tc.src), 0)]; got != tc.want {
			t.Errorf("BodyEnd(%q) keeps %q, want %q", tc.src, got, tc.want)
		}
	}
}
