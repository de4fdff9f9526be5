package analysis

import (
	"testing"
)

func TestLastPartAt(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"amout)", "amout"},
		{"o.amout, x", "amout"},
		{"s.t.nme FROM", "nme"},
		{`"Weird ""o""".nope)`, "nope"},
		{`w . "Ünï x" + 1`, `"Ünï x"`},
		{"régions.é1 =", "é1"},
		{"o.", "o"},
		{"(x)", "("},
	} {
		s, e := lastPartAt([]byte(tc.src), 0)
		if got := tc.src[s:e]; got != tc.want {
			t.Errorf("lastPartAt(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}
