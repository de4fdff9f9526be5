package project

import (
	"reflect"
	"strings"
	"testing"
)

func TestScanMacros(t *testing.T) {
	type m struct {
		kind MacroKind
		text string // src[Start:End]
		arg  string // src[ArgStart:ArgEnd] for refs
	}
	tests := []struct {
		name  string
		src   string
		want  []m
		diags []string
	}{
		{
			name: "all kinds",
			src:  "SELECT * FROM @ref(med.stays) s WHERE t >= @start AND t < @END AND x IN (SELECT 1 FROM @this)",
			want: []m{
				{MacroRef, "@ref(med.stays)", "med.stays"},
				{MacroStart, "@start", ""},
				{MacroEnd, "@END", ""},
				{MacroThis, "@this", ""},
			},
		},
		{
			name: "whitespace and case inside ref",
			src:  "FROM @REF(\n  Med.Stays\n) x",
			want: []m{{MacroRef, "@REF(\n  Med.Stays\n)", "Med.Stays"}},
		},
		{
			name: "comments around the parentheses and the name",
			src:  "FROM @ref /* c */ ( /* a */ med.stays -- why\n) x JOIN @ref--x\n(a.b) y",
			want: []m{{MacroRef, "@ref /* c */ ( /* a */ med.stays -- why\n)", "med.stays"}, {MacroRef, "@ref--x\n(a.b)", "a.b"}},
		},
		{
			name: "a line comment ends at a carriage return, as in DuckDB and Postgres",
			src:  "SELECT 1 -- old Mac line\rFROM @ref(a.b)",
			want: []m{{MacroRef, "@ref(a.b)", "a.b"}},
		},
		{
			name: "quoted parts",
			src:  `FROM @ref("med".stays)`,
			want: []m{{MacroRef, `@ref("med".stays)`, `"med".stays`}},
		},
		{
			name: "strings, identifiers and comments are skipped",
			src: "SELECT '@ref(a.x)', 'it''s @start', \"@end\", \"a\"\"@this\", -- @ref(b.y)\n" +
				"/* @ref(c.z) /* nested @start */ still @end */ E'\\' @this', $$ @ref(d.w) $$, $tag$ @start $tag$, $1, @ref(e.v)",
			want: []m{{MacroRef, "@ref(e.v)", "e.v"}},
		},
		{
			name: "operators are not macros",
			src:  "SELECT @ -5, @(x), a <@ b, a @> b, t @@ q, [1] <@[2] AND @start",
			want: []m{{MacroStart, "@start", ""}},
		},
		{
			name: "a macro name must end the word",
			src:  "SELECT @started, @end_tsx, @this",
			want: []m{{MacroThis, "@this", ""}},
			diags: []string{
				"1:8: bad-macro: unknown macro @started; known: @ref, @start, @end, @this, @var",
				"1:18: bad-macro: unknown macro @end_tsx; known: @ref, @start, @end, @this, @var",
			},
		},
		{
			name: "non-ASCII text before a macro",
			src:  "SELECT 'é日本', \"naïve\" -- ü\n, ö AS x FROM @ref(a.b) WHERE @foo",
			want: []m{{MacroRef, "@ref(a.b)", "a.b"}},
			diags: []string{
				"2:31: bad-macro: unknown macro @foo; known: @ref, @start, @end, @this, @var",
			},
		},
		{
			name: "unterminated string hides the rest",
			src:  "SELECT @start, 'oops @ref(a.b)",
			want: []m{{MacroStart, "@start", ""}},
		},
		{
			name:  "a body that is not SQL",
			src:   "SELEC FRM @ref(a.b) ((( @ref(c.d) ''' @end",
			want:  []m{{MacroRef, "@ref(a.b)", "a.b"}, {MacroRef, "@ref(c.d)", "c.d"}},
			diags: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			macros, diags := ScanMacros("b.sql", []byte(tt.src), 0)
			var got []m
			for _, mc := range macros {
				g := m{kind: mc.Kind, text: tt.src[mc.Start:mc.End]}
				if mc.Kind == MacroRef {
					g.arg = tt.src[mc.ArgStart:mc.ArgEnd]
					if want := strings.ToLower(strings.ReplaceAll(g.arg, `"`, "")); mc.Arg != want {
						t.Errorf("Arg = %q, want %q", mc.Arg, want)
					}
				}
				got = append(got, g)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("macros = %+v\nwant     %+v", got, tt.want)
			}
			if ds := diagStrings(diags); !reflect.DeepEqual(ds, tt.diags) {
				t.Errorf("diagnostics = %q\nwant          %q", ds, tt.diags)
			}
		})
	}
}

func TestScanMacrosOffsetsInFile(t *testing.T) {
	// Offsets are bytes into the whole file, and positions count
	// characters, whatever precedes the macro.
	src := "MODEL (name a.b, description 'Ünïcödé ☃');\nSELECT '☃☃' AS s, @ref(c.d), @bogus"
	m, _ := ParseModel("m.sql", []byte(src))
	p := AssembleWith("", DefaultConfig(), []*Model{m}, nil, nil, nil, nil, nil)
	m = p.Models[0]
	var diags []Diagnostic
	for _, d := range p.Diagnostics {
		if d.Code == CodeUnknownMacro {
			diags = append(diags, d)
		}
	}
	if len(m.Macros) != 1 {
		t.Fatalf("macros: %+v", m.Macros)
	}
	mc := m.Macros[0]
	if got := src[mc.Start:mc.End]; got != "@ref(c.d)" {
		t.Errorf("src[Start:End] = %q", got)
	}
	if got := src[mc.ArgStart:mc.ArgEnd]; got != "c.d" {
		t.Errorf("src[ArgStart:ArgEnd] = %q", got)
	}
	if len(diags) != 1 || diags[0].Range.Start.Line != 2 || diags[0].Range.Start.Column != 30 || diags[0].Range.End.Column != 36 {
		t.Errorf("diagnostics: %+v", diags)
	}
	if got := src[diags[0].Range.Start.Offset:diags[0].Range.End.Offset]; got != "@bogus" {
		t.Errorf("diagnostic covers %q", got)
	}
}

func TestScanMacrosFixUnknown(t *testing.T) {
	src := "SELECT @strat"
	_, diags := ScanMacros("b.sql", []byte(src), 0)
	if len(diags) != 1 || len(diags[0].Fixes) != 1 {
		t.Fatalf("diagnostics: %+v", diags)
	}
	e := diags[0].Fixes[0].Edits[0]
	if got := src[:e.Start] + e.NewText + src[e.End:]; got != "SELECT @start" {
		t.Errorf("fixed: %q", got)
	}
}

// TestOpenComment: a /* that never ends is found in a body, but not one
// inside a string literal of any form, a quoted name or a -- comment.
func TestOpenComment(t *testing.T) {
	for body, want := range map[string]string{
		"SELECT id /* abc FROM x":                           "/* abc FROM x",
		"SELECT $1, 'a' /* x":                               "/* x",
		"SELECT /* a /* nested */ still open":               "/* a /* nested */ still open",
		"SELECT $$/*$$ AS a FROM x":                         "",
		"SELECT $tag$ /* $tag$ AS a FROM x":                 "",
		"SELECT E'\\' /*' AS c FROM x":                      "",
		`SELECT '/*' AS "/*" -- /*` + "\n/* done */ FROM x": "",
	} {
		src := "MODEL (name a.m);\n" + body
		m, _ := ParseModel("m.sql", []byte(src))
		got := ""
		if m.OpenComment >= 0 {
			got = src[m.OpenComment:]
		}
		if got != want {
			t.Errorf("%q: open comment at %q, want %q", body, got, want)
		}
	}
}
