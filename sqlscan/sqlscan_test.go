package sqlscan

import (
	"fmt"
	"go/build"
	"slices"
	"strings"
	"testing"
)

// show renders tokens as Kind:text, with a ! for unterminated ones.
func show(src string, toks []Token) string {
	var out []string
	for _, t := range toks {
		s := fmt.Sprintf("%s:%s", t.Kind, src[t.Start:t.End])
		if t.Unterminated {
			s += "!"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func all(src string) []Token {
	var out []Token
	for s := NewScanner([]byte(src), 0); ; {
		t := s.Next()
		if t.Kind == EOF {
			return out
		}
		out = append(out, t)
	}
}

func TestScan(t *testing.T) {
	tests := []struct{ src, want string }{
		{"SELECT a, b.c FROM t;", "Ident:SELECT Ident:a Punct:, Ident:b Punct:. Ident:c Ident:FROM Ident:t Punct:;"},
		{`"Quoted ""x""" "a".b`, `QuotedIdent:"Quoted ""x""" QuotedIdent:"a" Punct:. Ident:b`},
		{`'it''s' E'\'' e'a' x'1'`, `String:'it''s' String:E'\'' String:e'a' Ident:x String:'1'`},
		{"$$ @ref(a.b) ' $$ $tag$ -- $$ $tag$ $1 $name ?", "String:$$ @ref(a.b) ' $$ String:$tag$ -- $$ $tag$ Param:$1 Param:$name Param:?"},
		{"1 1.5 1e3 1.5e-3 1. 2e", "Number:1 Number:1.5 Number:1e3 Number:1.5e-3 Number:1 Punct:. Number:2 Ident:e"},
		{"a::INT, x->y, a>=b, a<>b", "Ident:a Op::: Ident:INT Punct:, Ident:x Op:-> Ident:y Punct:, Ident:a Op:>= Ident:b Punct:, Ident:a Op:<> Ident:b"},
		{"a-- c\n/* x /* nested */ y */b", "Ident:a Comment:-- c Comment:/* x /* nested */ y */ Ident:b"},
		{"a+-- c\nb", "Ident:a Op:+ Comment:-- c Ident:b"},
		{"a-- c\rb", "Ident:a Comment:-- c Ident:b"},
		{"@ref(a.b) @this @start @END @foo", "Macro:@ref(a.b) Macro:@this Macro:@start Macro:@END Macro:@foo"},
		{"@ref( /* c */ a.b -- d\n) x", "Macro:@ref( /* c */ a.b -- d\n) Ident:x"},
		{"@REF(\n  a.b\n)", "Macro:@REF(\n  a.b\n)"},
		{`@ref("A".b)`, `Macro:@ref("A".b)`},
		{"@ref(a.b", "Macro:@ref(a.b"},
		{"@ref(", "Macro:@ref("},
		{"@ref()", "Macro:@ref()"},
		{"@ref('x')", "Macro:@ref( String:'x' Punct:)"},
		{"@ref x", "Macro:@ref Ident:x"},
		{"@ -5, a <@ b, a @> b, t @@ q, ts>=@start, <@start", "Op:@ Op:- Number:5 Punct:, Ident:a Op:<@ Ident:b Punct:, Ident:a Op:@> Ident:b Punct:, Ident:t Op:@@ Ident:q Punct:, Ident:ts Op:>= Macro:@start Punct:, Op:<@ Ident:start"},
		{"café naïve_1 x$y", "Ident:café Ident:naïve_1 Ident:x$y"},
		{"a\u00a0b\ufeffc → d", "Ident:a Ident:b Ident:c Op:→ Ident:d"},
		{"\xff\xfe", "Op:\xff Op:\xfe"},
		{"'open", "String:'open!"},
		{`"open`, `QuotedIdent:"open!`},
		{"E'open\\'", "String:E'open\\'!"},
		{"$t$ open", "String:$t$ open!"},
		{"/* open /* */", "Comment:/* open /* */!"},
		{"`x` \\", "Op:` Ident:x Op:` Op:\\"},
	}
	for _, tc := range tests {
		if got := show(tc.src, all(tc.src)); got != tc.want {
			t.Errorf("scan %q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

func TestTokensSkipsComments(t *testing.T) {
	src := "a /* b */ -- c\n d"
	if got := show(src, Tokens([]byte(src), 0)); got != "Ident:a Ident:d" {
		t.Errorf("got %s", got)
	}
	// A scan from an offset reports file offsets.
	if toks := Tokens([]byte(src), 10); len(toks) != 1 || toks[0].Start != 16 {
		t.Errorf("from 10: %+v", toks)
	}
}

func TestParseRef(t *testing.T) {
	tests := []struct {
		src      string
		arg      string // src[ArgStart:ArgEnd]
		parts    []string
		complete bool
		open     bool
		close    bool
		end      string // src[:End]
	}{
		{"@ref(a.b) x", "a.b", []string{"a", "b"}, true, true, true, "@ref(a.b)"},
		{"@Ref ( /* c */ A.\"B c\" -- d\n) x", `A."B c"`, []string{"a", "b c"}, true, true, true, "@Ref ( /* c */ A.\"B c\" -- d\n)"},
		{"@ref(a.) x", "a.", []string{"a"}, false, true, true, "@ref(a.)"},
		{"@ref(1x.y", "1x.y", []string{"1x", "y"}, true, true, false, "@ref(1x.y"},
		{`@ref("a`, `"a`, nil, false, true, false, `@ref("a`},
		{"@ref()", "", nil, false, true, true, "@ref()"},
		{"@ref( ", "", nil, false, true, false, "@ref( "},
		{"@ref(+)", "", nil, false, true, false, "@ref("},
		{"@ref x", "", nil, false, false, false, "@ref"},
		{"@ref(a b)", "a", []string{"a"}, true, true, false, "@ref(a"},
	}
	for _, tc := range tests {
		src := []byte(tc.src)
		r := ParseRef(src, 0)
		got := fmt.Sprintf("%q %q %v %v %v %q", src[r.ArgStart:r.ArgEnd], r.Parts, r.Complete, r.Open >= 0, r.Close >= 0, src[:r.End])
		want := fmt.Sprintf("%q %q %v %v %v %q", tc.arg, tc.parts, tc.complete, tc.open, tc.close, tc.end)
		if got != want {
			t.Errorf("ParseRef(%q):\n got %s\nwant %s", tc.src, got, want)
		}
		if r.Name() != strings.Join(tc.parts, ".") {
			t.Errorf("ParseRef(%q).Name() = %q", tc.src, r.Name())
		}
	}
}

func TestValue(t *testing.T) {
	tests := map[string]string{
		`'it''s'`:     "it's",
		`"a""b"`:      `a"b`,
		`"open`:       "open",
		`$t$ x $t$`:   " x ",
		`$$x`:         "x",
		`E'a\'b'`:     `a\'b`,
		"abc":         "abc",
		`'`:           "",
		`"`:           "",
		`E'`:          "",
		"$q$":         "",
		"$q$$q$":      "",
		"'open''":     "open'",
		"1.5":         "1.5",
		"@ref(a.b)":   "@ref(a.b)",
		"/* c */":     "/* c */",
		"$1":          "$1",
		"'a' 'b'":     "a",
		`"x" "y"`:     "x",
		"E'x' rest":   "x",
		"$a$ $a$ $b$": " ",
	}
	for src, want := range tests {
		toks := all(src)
		if len(toks) == 0 {
			t.Fatalf("%q: no token", src)
		}
		if got := toks[0].Value([]byte(src)); got != want {
			t.Errorf("Value(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestSkipBlankAndWords(t *testing.T) {
	src := []byte(" \t-- a\n /* b /* c */ */ x")
	if i := SkipBlank(src, 0); string(src[i:]) != "x" {
		t.Errorf("SkipBlank stopped at %q", src[i:])
	}
	if i := SkipBlank([]byte("/* open"), 0); i != 7 {
		t.Errorf("SkipBlank in an open comment = %d", i)
	}
	if !(Token{Kind: Ident, Start: 0, End: 6}).Is([]byte("SeLeCt"), "select") {
		t.Error("Is should ignore case")
	}
	if got := MacroName([]byte("@REF(x)"), Token{Kind: Macro, End: 7}); got != "ref" {
		t.Errorf("MacroName = %q", got)
	}
}

// FuzzScan checks the scanner's invariants on any input: it ends, tokens
// are in order, never empty (but EOF), within the input, and everything
// between them is blank.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM @ref( /* c */ a.b ) x WHERE t >= @start AND s = $$ @ref(x.y) $$",
		"E'\\'' $t$ $t $t$ \"a\"\"b\" 'c''d' /* /* */ -- x\n1.5e-3 <@ @@ ?",
		"@ref(", "@ref(\"", "$", "'", "\"", "/*", "E'", "\xff@\xfe", "@ref(a.", "café→", "\ufeff\u00a0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src := []byte(s)
		sc := NewScanner(src, 0)
		prev := 0
		for n := 0; ; n++ {
			if n > len(src)+1 {
				t.Fatal("the scan does not end")
			}
			tok := sc.Next()
			if tok.Start < prev || tok.End < tok.Start || tok.End > len(src) {
				t.Fatalf("token %+v after %d in %d bytes", tok, prev, len(src))
			}
			if gap := src[prev:tok.Start]; SkipSpace(gap, 0) != len(gap) {
				t.Fatalf("non-blank %q skipped before %+v", gap, tok)
			}
			if tok.Kind == EOF {
				if tok.Start != len(src) {
					t.Fatalf("EOF at %d of %d", tok.Start, len(src))
				}
				break
			}
			if tok.End == tok.Start {
				t.Fatalf("empty token %+v", tok)
			}
			if tok.Unterminated && tok.End != len(src) {
				t.Fatalf("unterminated token %+v ends before the input", tok)
			}
			_ = tok.Value(src)
			if tok.Kind == Macro {
				if r := ParseRef(src, tok.Start); IsRef(src, tok) && r.End != tok.End {
					t.Fatalf("ref token %+v, ParseRef ends at %d", tok, r.End)
				}
			}
			prev = tok.End
		}
		// Tokens agrees with the scanner.
		toks := Tokens(src, 0)
		if slices.ContainsFunc(toks, func(t Token) bool { return t.Kind == Comment || t.Kind == EOF }) {
			t.Fatal("Tokens returned a comment or EOF")
		}
	})
}

// Every layer imports sqlscan, so it imports nothing of this module.
func TestLeafPackage(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if strings.HasPrefix(imp, "github.com/efmesh/") {
			t.Errorf("sqlscan imports %s", imp)
		}
	}
}

// FoldName folds ASCII letters only, as the engines compare names.
func TestFoldName(t *testing.T) {
	for in, want := range map[string]string{
		"Käufer": "käufer", "KÄUFER": "kÄufer", "STRAßE": "straße", "İX": "İx", "ΣΟΦΟΣ": "ΣΟΦΟΣ", "plain": "plain", "": "",
	} {
		if got := FoldName(in); got != want {
			t.Errorf("FoldName(%q) = %q, want %q", in, got, want)
		}
	}
	if !SameName("Käufer", "KäUFER") || SameName("Käufer", "KÄUFER") {
		t.Error("SameName folds A-Z and tells ä from Ä")
	}
}
