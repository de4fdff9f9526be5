package project

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/macro"
	"github.com/efmesh/efmesh/sqlscan"
)

// Macros: a model body may call macros (package macro). The loader expands
// them once, when the project is assembled: the Model every later stage
// sees holds the expanded text in Source, Body and Macros, and Expansion
// keeps the file as written with the map back to it. Positions of the
// expanded text become positions of the file through Model.Diagnostic and
// Model.FileOffset; nothing else re-expands.

// Codes of macro problems.
const (
	CodeMacro          = "macro-error"
	CodeUnknownMacro   = macro.CodeUnknown
	CodeDuplicateMacro = macro.CodeDuplicate
)

// Expansion is how a model's body was expanded.
type Expansion struct {
	// File is the model file as written.
	File []byte
	// Map maps offsets of Model.Source (the expanded text) to File.
	Map macro.Map
	// Calls are the macro calls written in the body.
	Calls []macro.Call
	// Used are the project macros the expansion read, lower case.
	Used []string
	// Vars are the variables the expansion read before the query runs
	// (an @IF's condition), with the values read.
	Vars map[string]string
	// Parsed is the model as parsed, before expansion.
	Parsed *Model
}

// Written is the model file as written: Source itself when nothing was
// expanded.
func (m *Model) Written() []byte {
	if m.Expansion != nil {
		return m.Expansion.File
	}
	return m.Source
}

// FileOffset maps an offset of m.Source to the file as written: the same
// character where it was copied, else the macro call that made it.
func (m *Model) FileOffset(off int) int {
	if m.Expansion == nil {
		return off
	}
	return m.Expansion.Map.FileOffset(off)
}

// SourceOffset maps an offset of the file as written to m.Source: the same
// character where it was copied, else the start of the call's expansion.
func (m *Model) SourceOffset(fileOff int) int {
	if m.Expansion == nil {
		return fileOff
	}
	return m.Expansion.Map.OutOffset(fileOff)
}

// Diagnostic positions a problem at m.Source[start:end]. Its range and
// the fixes added to it are offsets of m.Source until MapDiagnostic moves
// them to the file as written; the funnels that collect a model's
// diagnostics (the checker, the planner's checks, lint) do.
func (m *Model) Diagnostic(start, end int, sev Severity, code, msg string) Diagnostic {
	d := NewDiagnostic(m.File, m.Source, start, end, sev, code, msg)
	d.inSource = m.Expansion != nil
	return d
}

// MapDiagnostic moves d, made by m.Diagnostic, to m's file as written: a
// problem inside a macro's expansion lands on the call, with Related
// pointing at the macro's definition. Fixes whose edits touch text a macro
// made are dropped: they cannot be made in the file. Other diagnostics are
// returned as they are.
func (m *Model) MapDiagnostic(d Diagnostic) Diagnostic {
	if m.Expansion == nil || !d.inSource || d.File != m.File {
		return d
	}
	d.inSource = false
	e := m.Expansion
	start, end := d.Range.Start.Offset, d.Range.End.Offset
	fs, fe := e.Map.FileRange(start, end)
	d.Range = RangeAt(e.File, fs, fe)
	if file, src, s, en, ok := e.Map.Origin(start); ok {
		d.Related = append(d.Related, Related{File: file, Range: RangeAt(src, s, max(en, s)),
			Message: "in the macro's definition: " + lineAround(src, s)})
	}
	var fixes []Fix
	for _, f := range d.Fixes {
		ok := true
		edits := make([]TextEdit, 0, len(f.Edits))
		for _, ed := range f.Edits {
			if ed.File == m.File {
				a, b, exact := e.Map.Exact(ed.Start, ed.End)
				if !exact {
					ok = false
					break
				}
				ed.Start, ed.End = a, b
			}
			edits = append(edits, ed)
		}
		if ok {
			f.Edits = edits
			fixes = append(fixes, f)
		}
	}
	d.Fixes = fixes
	return d
}

// lineAround is the line of src holding offset off, trimmed.
func lineAround(src []byte, off int) string {
	off = min(max(off, 0), len(src))
	a := bytes.LastIndexByte(src[:off], '\n') + 1
	b := bytes.IndexByte(src[off:], '\n')
	if b < 0 {
		b = len(src) - off
	}
	return strings.TrimSpace(string(src[a : off+b]))
}

// needsExpansion reports whether the body src[from:] calls a macro other
// than the primitives every stage renders (@ref, @start, …), or splices a
// value into a name (@{x}).
func needsExpansion(src []byte, from int) bool {
	for sc := sqlscan.NewScanner(src, from); ; {
		t := sc.Next()
		switch t.Kind {
		case sqlscan.EOF:
			return false
		case sqlscan.Macro:
			name := sqlscan.MacroName(src, t)
			if !macro.IsPrimitive(name) {
				return true
			}
		case sqlscan.Op:
			if src[t.Start] == '@' && t.Start+1 < len(src) && src[t.Start+1] == '{' {
				return true
			}
		}
	}
}

// ParseMacros parses a macro file (macro.ParseFile) into diagnostics.
func ParseMacros(file string, src []byte) ([]*macro.Def, []Diagnostic) {
	defs, probs := macro.ParseFile(file, src)
	diags := make([]Diagnostic, 0, len(probs))
	for _, p := range probs {
		diags = append(diags, problemDiagnostic(p, src, nil))
	}
	return defs, diags
}

// problemDiagnostic is a macro problem as a Diagnostic of src (its file).
func problemDiagnostic(p macro.Problem, src []byte, fileOf func(int, int) (int, int)) Diagnostic {
	start, end := p.Start, p.End
	if fileOf != nil {
		start, end = fileOf(start, end)
	}
	code := CodeMacro
	switch p.Code {
	case macro.CodeUnknown, macro.CodeDuplicate:
		code = p.Code
	}
	d := Diagnostic{File: p.File, Range: RangeAt(src, start, end), Severity: SeverityError, Code: code, Message: p.Message}
	for _, r := range p.Related {
		d.Related = append(d.Related, Related{File: r.File, Range: RangeAt(r.Src, r.Start, r.End), Message: "in the macro's definition"})
	}
	if p.Suggest != "" && p.Code == macro.CodeUnknown {
		d.Fixes = []Fix{{Title: "Change to @" + p.Suggest, Edits: []TextEdit{{File: p.File, Start: start, End: end, NewText: "@" + p.Suggest}}}}
	}
	return d
}

// library is the project's macros by lower-case name, with a diagnostic at
// each definition of a name defined twice.
func library(defs []*macro.Def) (map[string]*macro.Def, []Diagnostic) {
	lib := make(map[string]*macro.Def, len(defs))
	byName := map[string][]*macro.Def{}
	for _, d := range defs {
		n := strings.ToLower(d.Name)
		byName[n] = append(byName[n], d)
	}
	var diags []Diagnostic
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		g := byName[n]
		lib[n] = g[0]
		if len(g) == 1 {
			continue
		}
		for _, d := range g {
			var others []string
			for _, o := range g {
				if o != d {
					others = append(others, fmt.Sprintf("%s:%d", o.File, RangeAt(o.Src, o.NameStart, o.NameEnd).Start.Line))
				}
			}
			diags = append(diags, Diagnostic{File: d.File, Range: RangeAt(d.Src, d.NameStart, d.NameEnd), Severity: SeverityError,
				Code: CodeDuplicateMacro, Message: fmt.Sprintf("macro @%s is defined twice (also at %s)", d.Name, strings.Join(others, ", "))})
		}
	}
	return lib, diags
}

// expandModel returns m with its body's macros expanded (m itself when it
// calls none), and the problems found, positioned in m's file.
func expandModel(m *Model, lib map[string]*macro.Def, vars map[string]string) (*Model, []Diagnostic) {
	if !m.expand {
		return m, nil
	}
	r := macro.Expand(m.File, m.Source, m.BodyStart, &macro.Env{Macros: lib, Vars: vars})
	n := *m
	n.expand = false
	n.Source = r.Text
	n.Body = string(r.Text[m.BodyStart:])
	n.Expansion = &Expansion{File: m.Source, Map: r.Map, Calls: r.Calls, Used: r.Used, Vars: r.Vars, Parsed: m}
	var diags []Diagnostic
	for _, p := range r.Problems {
		diags = append(diags, problemDiagnostic(p, m.Source, nil))
	}
	macros, more, open := scanMacrosOf(m.File, r.Text, newLineIndex(r.Text), m.BodyStart, true)
	n.Macros, n.OpenComment = macros, open
	for _, d := range more {
		if _, _, exact := r.Map.Exact(d.Range.Start.Offset, d.Range.End.Offset); exact {
			continue // written in the file: the parse said it
		}
		d.inSource = true
		diags = append(diags, n.MapDiagnostic(d))
	}
	return &n, diags
}

// Expand returns m, a model file parsed on its own (ParseModel), with its
// body's macros expanded by p's macros and variables, as the assembly
// expands the models of p: m itself when it calls none. The diagnostics
// are the expansion's problems, positioned in m's file.
func (p *Project) Expand(m *Model) (*Model, []Diagnostic) {
	if m == nil {
		return m, nil
	}
	return expandModel(m, p.Macros, p.Config.Variables)
}

// AssembleWith is Assemble with the project macros of the macro files:
// every model calling a macro is expanded first.
func AssembleWith(root string, cfg Config, models []*Model, diags []Diagnostic, tests []*UnitTest, audits []*CustomAudit, later []Diagnostic, defs []*macro.Def) *Project {
	in := &assembly{root: root, cfg: cfg, models: models, diags: diags, tests: tests, audits: audits, later: later, defs: defs}
	return in.assemble(cfg.Variables)
}

// assembly is what a Project was assembled from, kept so that other
// variables (WithVariables) can expand its models again.
type assembly struct {
	root   string
	cfg    Config
	models []*Model
	diags  []Diagnostic
	tests  []*UnitTest
	audits []*CustomAudit
	later  []Diagnostic
	defs   []*macro.Def
}

func (in *assembly) assemble(vars map[string]string) *Project {
	lib, libDiags := library(in.defs)
	diags := slices.Clone(in.diags)
	diags = append(diags, libDiags...)
	models := in.models
	expanded := false
	for i, m := range models {
		if m == nil || !m.expand {
			continue
		}
		if !expanded {
			models = slices.Clone(models)
			expanded = true
		}
		n, ds := expandModel(m, lib, vars)
		models[i] = n
		diags = append(diags, ds...)
	}
	cfg := in.cfg
	cfg.Variables = vars
	p := Assemble(in.root, cfg, models, diags, in.tests, in.audits, in.later)
	p.Macros = lib
	p.MacroDefs = in.defs
	p.assembly = in
	return p
}

// reexpandFor reports whether a model's expansion read a variable whose
// value vars changes.
func (p *Project) reexpandFor(vars map[string]string) bool {
	if p.assembly == nil {
		return false
	}
	for _, m := range p.Models {
		if m.Expansion == nil {
			continue
		}
		for k, v := range m.Expansion.Vars {
			if nv, ok := vars[k]; !ok || nv != v {
				return true
			}
		}
	}
	return false
}

// MacroCallers lists the models whose expansion read the project macro
// name (lower case), directly or through other macros, by name.
func (p *Project) MacroCallers(name string) []string {
	var out []string
	for _, m := range p.Models {
		if m.Expansion != nil && slices.Contains(m.Expansion.Used, name) {
			out = append(out, m.Name)
		}
	}
	return out
}
