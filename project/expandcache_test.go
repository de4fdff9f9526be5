package project

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// cacheFiles is a project whose models call macros of two macro files,
// one of them under an @IF of a variable and one with a @DEF.
var cacheFiles = map[string]string{
	"macros/a.sql":   "MACRO plus_a(x) AS @x + 1;\n",
	"macros/b.sql":   "MACRO plus_b(x) AS @x + 2;\nMACRO both(x) AS @plus_a(@plus_b(@x));\n",
	"models/x.sql":   "MODEL (name s.x, kind FULL);\nSELECT @plus_a(1) AS v\n",
	"models/y.sql":   "MODEL (name s.y, kind FULL);\nSELECT @plus_b(v) AS v FROM @ref(s.x)\n",
	"models/z.sql":   "MODEL (name s.z, kind FULL);\n@DEF(k, 3);\nSELECT @k AS v FROM @ref(s.y)\n",
	"models/w.sql":   "MODEL (name s.w, kind FULL);\nSELECT @both(v) AS v FROM @ref(s.x) @IF(@var(region) = 'eu', WHERE v > 0)\n",
	"models/p.sql":   "MODEL (name s.p, kind FULL);\nSELECT v FROM @ref(s.z)\n",
	"models/bad.sql": "MODEL (name s.bad, kind FULL);\nSELECT @plus_c(v) AS v FROM @ref(s.x)\n",
}

const cacheConfig = "name: cache\nvars:\n  region: eu\nenvironments:\n  us:\n    vars:\n      region: us\n"

// cacheParse parses the files of cacheFiles with changes.
func cacheParse(changes map[string]string) *Files {
	cfg, diags := ParseConfig(ConfigFile, []byte(cacheConfig))
	f := &Files{Root: "/cache", Config: cfg, ConfigSrc: []byte(cacheConfig), ConfigDiagnostics: diags, ByRel: map[string]*FileParse{}}
	files := maps.Clone(cacheFiles)
	maps.Copy(files, changes)
	for rel, src := range files {
		kind := ModelFile
		if strings.HasPrefix(rel, "macros/") {
			kind = MacroFile
		}
		f.ByRel[rel] = ParseFile(kind, rel, []byte(src))
	}
	return f
}

// sameProject reports how got differs from want in what an assembly
// makes: the models' expanded text, macros and expansions, and the
// diagnostics.
func sameProject(got, want *Project) error {
	if len(got.Models) != len(want.Models) {
		return fmt.Errorf("%d models, want %d", len(got.Models), len(want.Models))
	}
	for i, m := range got.Models {
		w := want.Models[i]
		if m.Name != w.Name || string(m.Source) != string(w.Source) || m.Body != w.Body || !reflect.DeepEqual(m.Macros, w.Macros) ||
			(m.Expansion == nil) != (w.Expansion == nil) || !reflect.DeepEqual(m.Refs(), w.Refs()) {
			return fmt.Errorf("model %s:\n%s\nwant %s:\n%s", m.Name, m.Source, w.Name, w.Source)
		}
		if m.Expansion != nil && (string(m.Expansion.File) != string(w.Expansion.File) || !reflect.DeepEqual(m.Expansion.Used, w.Expansion.Used) ||
			!reflect.DeepEqual(m.Expansion.Vars, w.Expansion.Vars) || !reflect.DeepEqual(m.Expansion.Map, w.Expansion.Map)) {
			return fmt.Errorf("model %s: expansion %+v, want %+v", m.Name, m.Expansion, w.Expansion)
		}
	}
	if (len(got.Diagnostics) > 0 || len(want.Diagnostics) > 0) && !reflect.DeepEqual(got.Diagnostics, want.Diagnostics) {
		return fmt.Errorf("diagnostics\n%v\nwant\n%v", got.Diagnostics, want.Diagnostics)
	}
	return nil
}

// TestExpansionReuse assembles again with the previous project to reuse
// (as the editor does after each change) and checks that the project is
// the one a fresh assembly makes, keeping the expansions of the models
// whose parse, macros and variables read are unchanged and redoing the
// others.
func TestExpansionReuse(t *testing.T) {
	prev := cacheParse(nil).Project()
	if len(prev.Diagnostics) != 1 || prev.Diagnostics[0].Code != CodeUnknownMacro {
		t.Fatalf("diagnostics %v, want the unknown @plus_c", prev.Diagnostics)
	}
	for _, c := range []struct {
		name    string
		changes map[string]string
		redone  []string // the models expanded again
	}{
		{"nothing changed", nil, nil},
		{"a model edited", map[string]string{"models/x.sql": "MODEL (name s.x, kind FULL);\nSELECT @plus_a(2) AS v\n"}, []string{"s.x"}},
		{"a macro file the same, parsed again", map[string]string{"macros/b.sql": cacheFiles["macros/b.sql"]}, nil},
		{"a macro changed", map[string]string{"macros/b.sql": "MACRO plus_b(x) AS @x + 20;\nMACRO both(x) AS @plus_a(@plus_b(@x));\n"},
			[]string{"s.y", "s.w", "s.bad"}},
		{"the macro an expansion lacked defined", map[string]string{"macros/a.sql": cacheFiles["macros/a.sql"] + "MACRO plus_c(x) AS @x + 3;\n"},
			[]string{"s.x", "s.w", "s.bad"}},
		{"a project macro named as a @DEF", map[string]string{"macros/c.sql": "MACRO k() AS 4;\n"}, []string{"s.z", "s.bad"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := cacheParse(c.changes)
			// The files that did not change keep their parse, as in the
			// editor.
			base := cacheParse(nil)
			for rel := range f.ByRel {
				if _, ok := c.changes[rel]; !ok {
					f.ByRel[rel] = base.ByRel[rel]
				}
			}
			p0 := (&Files{Root: base.Root, Config: base.Config, ConfigSrc: base.ConfigSrc, ConfigDiagnostics: base.ConfigDiagnostics, ByRel: base.ByRel}).Project()
			fresh := (&Files{Root: f.Root, Config: f.Config, ConfigSrc: f.ConfigSrc, ConfigDiagnostics: f.ConfigDiagnostics, ByRel: f.ByRel}).Project()
			f.Reuse = p0
			got := f.Project()
			if err := sameProject(got, fresh); err != nil {
				t.Fatal(err)
			}
			var redone []string
			for _, m := range got.Models {
				if m.Expansion != nil && p0.ByName[m.Name] != m {
					redone = append(redone, m.Name)
				}
			}
			slices.Sort(redone)
			slices.Sort(c.redone)
			if !slices.Equal(redone, c.redone) {
				t.Errorf("expanded again %v, want %v", redone, c.redone)
			}
		})
	}
}

// TestExpansionReuseVariables switches environments: only the model whose
// expansion read the variable is expanded again, and the one with a
// problem (whose message may name a variable without value).
func TestExpansionReuseVariables(t *testing.T) {
	p := cacheParse(nil).Project()
	us := WithVariables(p, "us", nil)
	if err := sameProject(us, WithVariables(cacheParse(nil).Project(), "us", nil)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(us.ByName["s.w"].Body, "WHERE") || !strings.Contains(p.ByName["s.w"].Body, "WHERE") {
		t.Errorf("s.w: %q in eu, %q in us", p.ByName["s.w"].Body, us.ByName["s.w"].Body)
	}
	for _, m := range us.Models {
		if m.Expansion != nil && (m.Name == "s.w" || m.Name == "s.bad") == (p.ByName[m.Name] == m) {
			t.Errorf("%s: reused %v", m.Name, p.ByName[m.Name] == m)
		}
	}
}

// TestWithBodyExpanded edits the bodies of models calling macros: WithBody
// swaps the expansion in, and the project is the one a Build of the
// edited files makes; an edit that changes the refs still needs a Build.
func TestWithBodyExpanded(t *testing.T) {
	for _, c := range []struct {
		name, rel, text string
		build           bool // WithBody declines
	}{
		{"another argument", "models/y.sql", "MODEL (name s.y, kind FULL);\nSELECT @plus_b(v * 2) AS v FROM @ref(s.x)\n", false},
		{"a macro misspelt", "models/y.sql", "MODEL (name s.y, kind FULL);\nSELECT @plus_bb(v) AS v FROM @ref(s.x)\n", false},
		{"the misspelling fixed", "models/bad.sql", "MODEL (name s.bad, kind FULL);\nSELECT @plus_b(v) AS v FROM @ref(s.x)\n", false},
		{"no macro any more", "models/y.sql", "MODEL (name s.y, kind FULL);\nSELECT v + 2 AS v FROM @ref(s.x)\n", false},
		{"a macro now", "models/p.sql", "MODEL (name s.p, kind FULL);\nSELECT @plus_a(v) AS v FROM @ref(s.z)\n", false},
		{"a ref added", "models/y.sql", "MODEL (name s.y, kind FULL);\nSELECT @plus_b(v) AS v FROM @ref(s.x), @ref(s.p)\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := cacheParse(nil)
			p := f.Project()
			old := f.ByRel[c.rel]
			edited := ParseFile(ModelFile, c.rel, []byte(c.text))
			got := p.WithBody(edited.Model, old.Diagnostics, edited.Diagnostics)
			if (got == nil) != c.build {
				t.Fatalf("WithBody gave %v, want a Build: %v", got != nil, c.build)
			}
			if got == nil {
				return
			}
			f.ByRel[c.rel] = edited
			want := cacheParse(map[string]string{c.rel: c.text}).Project()
			if err := sameProject(got, want); err != nil {
				t.Fatal(err)
			}
			// The assembly reads the edited file: other variables expand
			// it again from its new text.
			if err := sameProject(WithVariables(got, "us", nil), WithVariables(want, "us", nil)); err != nil {
				t.Fatalf("in us: %v", err)
			}
		})
	}
}
