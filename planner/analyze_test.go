package planner

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/state/sqlite"
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

// TestStandInErrorIsReported: a model whose columns cannot make a table
// (SELECT * over a join repeating a name) is an error of the project, and a
// plan refuses it instead of reaching its children.
func TestStandInErrorIsReported(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/o.sql": "MODEL (name m.o);\nSELECT 1 AS id, 2 AS amount",
		"models/c.sql": "MODEL (name m.c);\nSELECT 1 AS id, 'x' AS name",
		"models/j.sql": "MODEL (name m.j);\nSELECT * FROM @ref(m.o) AS o JOIN @ref(m.c) AS c ON o.id = c.id",
		"models/r.sql": "MODEL (name m.r);\nSELECT amount FROM @ref(m.j)",
	})
	if !a.Models["m.j"].Broken || !a.Errors() {
		t.Fatalf("m.j broken %v, analysis errors %v: %v", a.Models["m.j"].Broken, a.Errors(), a.Diagnostics)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var pe *ProblemsError
	if _, err := MakePlan(context.Background(), a, st, "dev"); !errors.As(err, &pe) {
		t.Fatalf("MakePlan = %v, want the project's problems", err)
	}
}
