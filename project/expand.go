package project

import (
	"bytes"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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

	// What the expansion read besides Parsed, so that a later assembly
	// reuses it while that is unchanged (reusable): the definitions of
	// Used (same order), the names it needs absent from the macros, and,
	// when it has problems (whose messages name every macro and read
	// variables that have no value), the whole library and variables.
	defs     []*macro.Def
	absent   []string
	problems bool
	lib      map[string]*macro.Def
	vars     map[string]string
	// diags are expandModel's diagnostics of it.
	diags []Diagnostic
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
	if file, src, s, en, ok := e.Map.OriginRange(start, end); ok {
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

// headerHasMacros reports whether the header src[:end] holds a macro.
func headerHasMacros(src []byte, end int) bool {
	for sc := sqlscan.NewScanner(src[:end], 0); ; {
		t := sc.Next()
		switch {
		case t.Kind == sqlscan.EOF:
			return false
		case t.Kind == sqlscan.Macro, t.Kind == sqlscan.Op && src[t.Start] == '@' && t.Start+1 < end && src[t.Start+1] == '{':
			return true
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
	if p.Code == macro.CodeUnknown {
		if sug, ok := DidYouMean(p.Unknown, p.Known); ok {
			d.Message += fmt.Sprintf("; did you mean @%s?", sug)
			if p.Fixable {
				d.Fixes = []Fix{{Title: "Change to @" + sug, Edits: []TextEdit{{File: p.File, Start: start, End: end, NewText: "@" + sug}}}}
			}
		}
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
	if m.expandHeader {
		return expandWhole(m, lib, vars)
	}
	n := *m
	n.expand = false
	var diags []Diagnostic
	n.Source, n.Expansion, n.Macros, n.OpenComment, diags = expandBody(m.File, m.Source, m.BodyStart, lib, vars)
	n.Expansion.Parsed = m
	n.Body = string(n.Source[m.BodyStart:])
	return &n, diags
}

// expandWhole expands a model whose header calls macros: the whole file,
// @var in the header as literals, then parses the expansion as the file.
func expandWhole(m *Model, lib map[string]*macro.Def, vars map[string]string) (*Model, []Diagnostic) {
	src := m.Source
	r := macro.Expand(m.File, src, 0, &macro.Env{Macros: lib, Vars: vars, LiteralBefore: m.headerEnd})
	n, parsed := ParseModel(m.File, r.Text)
	n.expand, n.expandHeader = false, false
	n.Expansion = newExpansion(src, r, lib, vars)
	n.Expansion.Parsed = m
	var diags []Diagnostic
	for _, p := range r.Problems {
		diags = append(diags, problemDiagnostic(p, src, nil))
	}
	for _, d := range parsed {
		if _, _, exact := r.Map.Exact(d.Range.Start.Offset, d.Range.End.Offset); exact && d.Range.Start.Offset >= r.Map.OutOffset(m.headerEnd) {
			continue // in the body as written: the first parse said it
		}
		d.inSource = true
		md := n.MapDiagnostic(d)
		// What a wrong call stands for (NULL) is not a second problem.
		if slices.ContainsFunc(r.Problems, func(p macro.Problem) bool {
			return p.File == m.File && md.Range.Start.Offset >= p.Start && md.Range.Start.Offset <= p.End
		}) {
			continue
		}
		diags = append(diags, md)
	}
	// The ranges of the header the editor and messages use are the file's.
	n.Header = mapRange(n, n.Header)
	n.NameRange = mapRange(n, n.NameRange)
	for i := range n.Columns {
		n.Columns[i].Range = mapRange(n, n.Columns[i].Range)
	}
	for i := range n.Audits {
		n.Audits[i].Range = mapRange(n, n.Audits[i].Range)
	}
	for i := range n.Properties {
		n.Properties[i].Range = mapRange(n, n.Properties[i].Range)
		n.Properties[i].ValueRange = mapRange(n, n.Properties[i].ValueRange)
	}
	n.Expansion.diags = diags
	return n, diags
}

// newExpansion is the Expansion of r, with what deciding its reuse needs.
func newExpansion(src []byte, r *macro.Result, lib map[string]*macro.Def, vars map[string]string) *Expansion {
	e := &Expansion{File: src, Map: r.Map, Calls: r.Calls, Used: r.Used, Vars: r.Vars,
		absent: r.Absent, problems: len(r.Problems) > 0}
	for _, name := range r.Used {
		e.defs = append(e.defs, lib[name])
	}
	if e.problems {
		e.lib, e.vars = lib, vars
	}
	return e
}

// mapRange moves a range of m.Source to m's file as written.
func mapRange(m *Model, r Range) Range {
	s, e := m.Expansion.Map.FileRange(r.Start.Offset, r.End.Offset)
	return RangeAt(m.Expansion.File, s, e)
}

// expandAudit is expandModel for a custom audit's query.
func expandAudit(a *CustomAudit, lib map[string]*macro.Def, vars map[string]string) (*CustomAudit, []Diagnostic) {
	if !a.expand {
		return a, nil
	}
	n := *a
	n.expand = false
	var diags []Diagnostic
	n.Source, n.Expansion, n.Macros, _, diags = expandBody(a.File, a.Source, a.BodyStart, lib, vars)
	n.Body = string(n.Source[a.BodyStart:])
	return &n, diags
}

// expandBody expands src[from:] and scans the expansion's primitives.
func expandBody(file string, src []byte, from int, lib map[string]*macro.Def, vars map[string]string) ([]byte, *Expansion, []Macro, int, []Diagnostic) {
	r := macro.Expand(file, src, from, &macro.Env{Macros: lib, Vars: vars})
	e := newExpansion(src, r, lib, vars)
	var diags []Diagnostic
	for _, p := range r.Problems {
		diags = append(diags, problemDiagnostic(p, src, nil))
	}
	macros, more, open, _ := scanMacrosOf(file, r.Text, newLineIndex(r.Text), from, true)
	tmp := &Model{File: file, Source: r.Text, Expansion: e}
	for _, d := range more {
		if _, _, exact := r.Map.Exact(d.Range.Start.Offset, d.Range.End.Offset); exact {
			continue // written in the file: the parse said it
		}
		d.inSource = true
		diags = append(diags, tmp.MapDiagnostic(d))
	}
	e.diags = diags
	return r.Text, e, macros, open, diags
}

// reusable reports whether the expansion e is what expanding its parsed
// model again with lib and vars would make: the variables it read have
// the values read, the macros it called are the same definitions (the
// same *macro.Def, or one of the same version of the same file), and the
// names it needs absent are; an expansion with problems also needs the
// same library and variables. same memoizes the comparison of two
// definitions for one assembly.
func (e *Expansion) reusable(lib map[string]*macro.Def, vars map[string]string, same map[[2]*macro.Def]bool) bool {
	for k, v := range e.Vars {
		if nv, ok := vars[k]; !ok || nv != v {
			return false
		}
	}
	for i, name := range e.Used {
		if !sameDef(lib[name], e.defs[i], same) {
			return false
		}
	}
	for _, name := range e.absent {
		if lib[name] != nil {
			return false
		}
	}
	if e.problems {
		if !maps.Equal(e.vars, vars) || len(e.lib) != len(lib) {
			return false
		}
		for name, d := range lib {
			if !sameDef(d, e.lib[name], same) {
				return false
			}
		}
	}
	return true
}

// sameDef reports whether a and b are one definition: the same, or the
// same of the same version (the same text) of one macro file.
func sameDef(a, b *macro.Def, same map[[2]*macro.Def]bool) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.File != b.File || a.Start != b.Start || a.Name != b.Name {
		return false
	}
	k := [2]*macro.Def{a, b}
	eq, ok := same[k]
	if !ok {
		eq = bytes.Equal(a.Src, b.Src)
		same[k] = eq
	}
	return eq
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
	return assembleWith(root, cfg, models, diags, tests, audits, later, defs, nil)
}

// assembleWith is AssembleWith reusing the expansions of prev (nil: none)
// whose inputs are unchanged: the same parsed model, macros and variables
// read (Expansion.reusable).
func assembleWith(root string, cfg Config, models []*Model, diags []Diagnostic, tests []*UnitTest, audits []*CustomAudit, later []Diagnostic, defs []*macro.Def, prev *Project) *Project {
	in := &assembly{root: root, cfg: cfg, models: models, diags: diags, tests: tests, audits: audits, later: later, defs: defs}
	return in.assemble(cfg.Variables, prev)
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

// assemble expands the models calling macros with vars, reusing the
// expansions of prev (nil: none) whose inputs are unchanged, and
// assembles the project.
func (in *assembly) assemble(vars map[string]string, prev *Project) *Project {
	lib, libDiags := library(in.defs)
	diags := slices.Clone(in.diags)
	diags = append(diags, libDiags...)
	// prev's expansions by the parse they expand.
	var done map[*Model]*Model
	if prev != nil {
		for _, m := range prev.Models {
			if m.Expansion != nil {
				if done == nil {
					done = make(map[*Model]*Model)
				}
				done[m.Expansion.Parsed] = m
			}
		}
	}
	same := map[[2]*macro.Def]bool{}
	models := in.models
	var calling, todo []int // positions of the models calling macros, of those to expand
	for i, m := range models {
		if m == nil || !m.expand {
			continue
		}
		if calling == nil {
			models = slices.Clone(models)
		}
		calling = append(calling, i)
		if old := done[m]; old != nil && old.Expansion.reusable(lib, vars, same) {
			models[i] = old
			continue
		}
		todo = append(todo, i)
	}
	expandAll(models, todo, lib, vars)
	for _, i := range calling {
		diags = append(diags, models[i].Expansion.diags...)
	}
	audits := in.audits
	later := in.later
	cloned := false
	for i, a := range audits {
		if a == nil || !a.expand {
			continue
		}
		if !cloned {
			audits, later = slices.Clone(audits), slices.Clone(later)
			cloned = true
		}
		n, ds := expandAudit(a, lib, vars)
		audits[i] = n
		later = append(later, ds...)
	}
	cfg := in.cfg
	cfg.Variables = vars
	p := Assemble(in.root, cfg, models, diags, in.tests, audits, later)
	p.Macros = lib
	p.MacroDefs = in.defs
	p.assembly = in
	return p
}

// expandChunk is the fewest expansions worth a goroutine of their own.
const expandChunk = 64

// expandAll replaces models[i] by its expansion for every i of todo:
// expansions are independent (macro.Expand is a pure function of the
// text, the macros and the variables), so a load's are spread over the
// cores.
func expandAll(models []*Model, todo []int, lib map[string]*macro.Def, vars map[string]string) {
	workers := min(runtime.GOMAXPROCS(0), len(todo)/expandChunk)
	if workers < 2 {
		for _, i := range todo {
			models[i], _ = expandModel(models[i], lib, vars)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(todo) {
					return
				}
				i := todo[k]
				models[i], _ = expandModel(models[i], lib, vars)
			}
		})
	}
	wg.Wait()
}

// withFile is the assembly with the file of old (a model of the project
// it assembled) parsed as m with diags; nil when old is not its.
func (in *assembly) withFile(old, m *Model, diags []Diagnostic) *assembly {
	was := old
	if old.Expansion != nil {
		was = old.Expansion.Parsed
	}
	i := slices.Index(in.models, was)
	if i < 0 {
		return nil
	}
	n := *in
	n.models = slices.Clone(in.models)
	n.models[i] = m
	n.diags = make([]Diagnostic, 0, len(in.diags)+len(diags))
	for _, d := range in.diags {
		if d.File != m.File {
			n.diags = append(n.diags, d)
		}
	}
	n.diags = append(n.diags, diags...)
	return &n
}

// reexpandFor reports whether a model's expansion read a variable whose
// value vars changes.
func (p *Project) reexpandFor(vars map[string]string) bool {
	if p.assembly == nil {
		return false
	}
	changes := func(e *Expansion) bool {
		if e == nil {
			return false
		}
		for k, v := range e.Vars {
			if nv, ok := vars[k]; !ok || nv != v {
				return true
			}
		}
		return false
	}
	for _, m := range p.Models {
		if changes(m.Expansion) {
			return true
		}
	}
	for _, a := range p.Audits {
		if changes(a.Expansion) {
			return true
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
