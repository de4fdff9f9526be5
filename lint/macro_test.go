package lint_test

import (
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// lintMacros lints t.m written as src on top of parents and the macro
// file macros/m.sql.
func lintMacros(t *testing.T, src, macros string) ([]project.Diagnostic, string) {
	t.Helper()
	files := map[string]string{"models/t/m.sql": src, "macros/m.sql": macros}
	for k, v := range parents {
		files[k] = v
	}
	dir := testkit.WriteProject(t, files)
	_, ds := lintDir(t, dir)
	return ds, dir
}

const lintMacroFile = `-- Every column.
MACRO everything() AS *;

-- The amount, unqualified.
MACRO amt(scale := 1) AS amount * @scale;

-- Now, truncated to the second.
MACRO stamp() AS date_trunc('second', now())::TIMESTAMP;
`

// TestFindingsInMacroExpansion: a rule that fires on text a macro made
// (the expansion is what lint reads) reports on the call as written in
// the file, with the macro's definition as related information, and
// offers no fix: its edit would fall in text the file does not hold.
func TestFindingsInMacroExpansion(t *testing.T) {
	for _, c := range []struct {
		name, body, call, rule, in string
	}{
		{"now() from a macro in an incremental model", "SELECT id, ts FROM @ref(raw.orders) WHERE ts >= @start AND ts < least(@end, @stamp())\n",
			"@stamp()", "nondeterministic_incremental", "now()"},
		{"star from a project macro", "SELECT @everything() FROM @ref(raw.orders)\n", "@everything()", "no_select_star", "*"},
		{"star from a macro without parentheses", "SELECT @everything FROM @ref(raw.orders)\n", "@everything", "no_select_star", "*"},
		{"unqualified column in a macro with a named argument", "SELECT o.id, @amt(scale := 100) AS cents, c.name FROM @ref(raw.orders) AS o JOIN @ref(raw.customers) AS c ON o.customer_id = c.cid\n",
			"@amt(scale := 100)", "unqualified_column", "amount"},
		// A lambda's parameter is put in as written in the file: the
		// finding is on the column written in the @DEF, exactly.
		{"unqualified column given to @EACH", "@DEF(cols, [amount, c.name]);\nSELECT o.id, @EACH(@cols, x -> x) FROM @ref(raw.orders) AS o JOIN @ref(raw.customers) AS c ON o.customer_id = c.cid\n",
			"amount", "unqualified_column", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			header := view
			if c.rule == "nondeterministic_incremental" {
				header = incr
			}
			src := header + c.body
			ds, _ := lintMacros(t, src, lintMacroFile)
			var got []project.Diagnostic
			for _, d := range ds {
				if d.Code == c.rule {
					got = append(got, d)
				}
			}
			if len(got) != 1 {
				t.Fatalf("findings of %s: %v (all: %v)", c.rule, got, ds)
			}
			d := got[0]
			at := strings.Index(src, c.call)
			want := project.RangeAt([]byte(src), at, at+len(c.call))
			if d.File != "models/t/m.sql" || d.Range.Start != want.Start || d.Range.End != want.End {
				t.Errorf("%s at %s %d:%d-%d:%d, want the call %q at %d:%d-%d:%d", c.rule, d.File,
					d.Range.Start.Line, d.Range.Start.Column, d.Range.End.Line, d.Range.End.Column,
					c.call, want.Start.Line, want.Start.Column, want.End.Line, want.End.Column)
			}
			if c.in == "" {
				if len(d.Related) != 0 {
					t.Errorf("related %+v for text of the file", d.Related)
				}
				return
			}
			if len(d.Fixes) != 0 {
				t.Errorf("a fix of text the file does not hold: %+v", d.Fixes)
			}
			{
				// The macro's definition is named.
				if len(d.Related) != 1 || d.Related[0].File != "macros/m.sql" {
					t.Fatalf("related %+v", d.Related)
				}
				r := d.Related[0].Range
				line := strings.Split(lintMacroFile, "\n")[r.Start.Line-1]
				if !strings.Contains(line[r.Start.Column-1:], c.in) {
					t.Errorf("related at %d:%d (%q), want on %q", r.Start.Line, r.Start.Column, line, c.in)
				}
			}
		})
	}
}

// TestFindingsInCopiedText: a rule that fires on text copied from the
// file, after and between macro calls whose expansions are longer or
// shorter than the calls, reports at that text exactly, and its fix edits
// the file as written (the calls kept).
func TestFindingsInCopiedText(t *testing.T) {
	body := "@DEF(k, 5);\nSELECT @EACH([1, 2], x -> x + @k AS c_@{x}), @amt(), * FROM @ref(raw.orders)\n"
	src := view + body
	ds, dir := lintMacros(t, src, lintMacroFile)
	var star *project.Diagnostic
	for i, d := range ds {
		if d.Code == "no_select_star" {
			star = &ds[i]
		}
	}
	if star == nil {
		t.Fatalf("no no_select_star finding: %v", ds)
	}
	at := strings.Index(src, "* FROM")
	want := project.RangeAt([]byte(src), at, at+1)
	if star.Range.Start != want.Start || star.Range.End != want.End || len(star.Related) != 0 {
		t.Errorf("no_select_star at %d:%d-%d:%d (related %v), want %d:%d-%d:%d", star.Range.Start.Line, star.Range.Start.Column,
			star.Range.End.Line, star.Range.End.Column, star.Related, want.Start.Line, want.Start.Column, want.End.Line, want.End.Column)
	}
	fixed := applyFirst(t, dir, []project.Diagnostic{*star}, "no_select_star")
	if w := strings.Replace(src, "* FROM", "id, customer_id, amount, ts FROM", 1); fixed != w {
		t.Errorf("fixed model\n got %q\nwant %q", fixed, w)
	}
}
