package project

import (
	"strings"
	"testing"
)

// TestUnknownMacroSuggestion: an unknown macro written in the model gets the
// closest name and a fix; one written in a macro's definition gets the
// closest name, but no fix (the model's call is not what is misspelt).
func TestUnknownMacroSuggestion(t *testing.T) {
	defs, diags := ParseMacros("macros/m.sql", []byte("MACRO cents(x) AS @x * 100;\nMACRO broken(x) AS @cent(@x);"))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	model := func(body string) Diagnostic {
		m, _ := ParseModel("models/a.sql", []byte("MODEL (name a.b, kind VIEW);\nSELECT "+body+" AS y FROM t"))
		p := AssembleWith("", DefaultConfig(), []*Model{m}, nil, nil, nil, nil, defs)
		for _, d := range p.Diagnostics {
			if d.Code == CodeUnknownMacro {
				return d
			}
		}
		t.Fatalf("%s: no unknown-macro diagnostic in %v", body, p.Diagnostics)
		return Diagnostic{}
	}
	d := model("@cent(1)")
	if !strings.Contains(d.Message, "did you mean @cents?") || len(d.Fixes) != 1 || d.Fixes[0].Edits[0].NewText != "@cents" {
		t.Errorf("in the model: %+v", d)
	}
	d = model("@broken(1)")
	if !strings.Contains(d.Message, "did you mean @cents?") || len(d.Fixes) != 0 || len(d.Related) != 1 {
		t.Errorf("in a macro's definition: %+v", d)
	}
}
