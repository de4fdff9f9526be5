package macro

import (
	"strings"
	"testing"
)

// FuzzExpand: any text expands without a panic or a hang, its map stays
// within the text, and a problem is within the file.
func FuzzExpand(f *testing.F) {
	macros, _ := ParseFile("macros/m.sql", []byte(testMacros))
	lib := map[string]*Def{}
	for _, d := range macros {
		lib[strings.ToLower(d.Name)] = d
	}
	for _, s := range []string{
		"SELECT @add_one(a)", "@DEF(f, (a, b) -> a * b);\nSELECT @f(x, y)", "SELECT @EACH([a, b], c -> c AS @{c}_x)",
		"SELECT @IF(1 < 2, a, b)", "SELECT @loop_a(1)", "SELECT @SQL('@SQL(''x'')')", "SELECT @REDUCE([1,2,3], (a, b) -> a + b)",
		"SELECT @amounts(['x'], col := y)", "@", "@{", "@EACH(", "SELECT @STAR(@ref(a.b), except := [c])", "@DEF(x, @x); SELECT @x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Expand("m.sql", []byte(s), 0, &Env{Macros: lib, Vars: map[string]string{"v": "1"}})
		for _, p := range r.Problems {
			if p.File == "m.sql" && (p.Start < 0 || p.End > len(s) || p.Start > p.End) {
				t.Fatalf("problem outside the text: %+v", p)
			}
		}
		for off := 0; off <= len(r.Text); off++ {
			if fo := r.Map.FileOffset(off); fo < 0 || fo > len(s) {
				t.Fatalf("offset %d maps to %d, outside the text", off, fo)
			}
		}
		_, _ = ParseFile("m.sql", []byte(s))
	})
}
