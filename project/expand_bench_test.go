package project

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/internal/gen"
)

// macroTwins are the two projects of the macro benchmark (DESIGN §9): the
// one whose even models call project macros, and the one with the same
// SQL written out.
var macroTwins = []struct {
	name   string
	macros gen.Macros
}{{"calls", gen.MacroCalls}, {"by-hand", gen.MacrosByHand}}

// TestGenMacroTwins checks the benchmark's premise: every model of the
// macro project expands to the text of its twin, with no problem. (200
// expansions: the assembly spreads them over the cores.)
func TestGenMacroTwins(t *testing.T) {
	const n = 400
	var loaded [2]*Project
	for k, tw := range macroTwins {
		root := t.TempDir()
		if _, err := gen.Write(root, gen.Options{Models: n, Macros: tw.macros}); err != nil {
			t.Fatal(err)
		}
		p, err := Load(root)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Diagnostics) > 0 {
			t.Fatalf("%s: %v", tw.name, p.Diagnostics)
		}
		loaded[k] = p
	}
	calls, hand := loaded[0], loaded[1]
	if len(calls.Models) != n+1 || len(hand.Models) != n+1 {
		t.Fatalf("%d and %d models, want %d", len(calls.Models), len(hand.Models), n+1)
	}
	expanded := 0
	for _, m := range calls.Models {
		h := hand.ByName[m.Name]
		if h == nil || string(m.Source) != string(h.Source) || m.Body != h.Body {
			t.Fatalf("%s expands to\n%s\nwant\n%s", m.Name, m.Source, h.Source)
		}
		if m.Expansion != nil {
			expanded++
		}
	}
	if expanded != n/2 {
		t.Errorf("%d models expanded, want %d", expanded, n/2)
	}
}

// BenchmarkLoadMacros is BenchmarkLoad on the macro twins of 2,000 models
// (gen's project; half the models call project macros, or write the same
// SQL out): reading, parsing and assembly.
func BenchmarkLoadMacros(b *testing.B) {
	for _, tw := range macroTwins {
		b.Run(tw.name, func(b *testing.B) {
			root := b.TempDir()
			if _, err := gen.Write(root, gen.Options{Models: 2000, Macros: tw.macros}); err != nil {
				b.Fatal(err)
			}
			cpu := cpuTime()
			for b.Loop() {
				if _, err := Load(root); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkAssembleMacros is the assembly alone (Files.Project, which
// expands the macro models) of the macro twins of 2,000 models: cold
// expands every macro model (a load), edit parses one model file again (a
// macro model of the calls twin) and assembles reusing the previous
// project's expansions, as the editor does when an edit needs a Build.
func BenchmarkAssembleMacros(b *testing.B) {
	for _, tw := range macroTwins {
		for _, mode := range []string{"cold", "edit"} {
			b.Run(tw.name+"/"+mode, func(b *testing.B) {
				root := b.TempDir()
				if _, err := gen.Write(root, gen.Options{Models: 2000, Macros: tw.macros}); err != nil {
					b.Fatal(err)
				}
				f, err := ReadFiles(root, ReadFile, nil)
				if err != nil {
					b.Fatal(err)
				}
				rel := fmt.Sprintf("models/m/model_%05d.sql", 1002)
				src, err := ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
				if err != nil {
					b.Fatal(err)
				}
				cpu := cpuTime()
				for b.Loop() {
					if mode == "edit" {
						f.ByRel[rel] = ParseFile(ModelFile, rel, src)
					}
					p := f.Project()
					if len(p.Models) != 2001 {
						b.Fatalf("%d models", len(p.Models))
					}
					if mode == "edit" {
						f.Reuse = p
					}
				}
				reportCPU(b, cpu)
			})
		}
	}
}

// reportCPU reports the CPU time per iteration since from (cpuTime).
func reportCPU(b *testing.B, from time.Duration) {
	b.ReportMetric(float64(cpuTime()-from)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
