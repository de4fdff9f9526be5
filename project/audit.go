package project

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// This file holds custom audits — audits/*.sql files — and the check of the
// audit calls of model headers against the built-ins and those files.
//
// A custom audit file is an AUDIT header and one query over @this (the
// audited relation) that returns the violating rows:
//
//	AUDIT (name positive_duration, blocking true);
//	SELECT * FROM @this WHERE duration < 0
//
// blocking defaults to true; warn(name) in a model's audits turns a
// blocking audit into a warning for that model.

// CodeAudit marks a problem with an audit: an audit file, or an audit call
// in a model's header that names no audit.
const CodeAudit = "audit"

// CustomAudit is one parsed audit file.
type CustomAudit struct {
	Name        string // lower case
	Blocking    bool   // false: violations are logged, never fatal
	Description string
	File        string // slash path relative to the project root
	Source      []byte

	Header    Range   // the AUDIT (...) block
	NameRange Range   // the name value; the header's start when missing
	Body      string  // the query after the header
	BodyStart int     // byte offset of Body in Source
	Macros    []Macro // @this and @ref(…) of the body (offsets into Source)
	// Expansion is set when the query called macros: Source, Body and
	// Macros are then of the expanded text (see Model.Expansion).
	Expansion *Expansion
	expand    bool
}

// Refs returns the distinct models the audit's query references.
func (a *CustomAudit) Refs() []string {
	var out []string
	for _, mc := range a.Macros {
		if mc.Kind == MacroRef && !slices.Contains(out, mc.Arg) {
			out = append(out, mc.Arg)
		}
	}
	return out
}

// BuiltinAudits lists the built-in audits and the wrappers, for completion
// and messages.
func BuiltinAudits() []string {
	names := make([]string, 0, len(builtinAudits)+len(auditWrappers))
	for n := range builtinAudits {
		names = append(names, n)
	}
	sort.Strings(names)
	return append(names, auditWrappers...)
}

// IsBuiltinAudit reports whether name is a built-in audit (not a wrapper).
func IsBuiltinAudit(name string) bool {
	_, ok := builtinAudits[name]
	return ok
}

// auditProperties are the AUDIT header properties, in documentation order.
var auditProperties = []string{"name", "blocking", "description"}

// ParseAudit parses one audit file. Like ParseModel it collects every
// problem of the file and returns whatever could be parsed.
func ParseAudit(file string, src []byte) (*CustomAudit, []Diagnostic) {
	a := &CustomAudit{File: file, Source: src, Blocking: true}
	p := &headerParser{file: file, src: src, li: newLineIndex(src)}
	a.Header = p.rng(0, 0)
	a.NameRange = a.Header
	hasHeader, end := p.parseBlock("AUDIT", "an audit file", &a.Header, func(toks []token) { p.auditProperty(a, toks) })
	if hasHeader && p.hasProps {
		if _, ok := p.seen.get("name"); !ok {
			p.errorf(p.modelTok.start, p.modelTok.end, CodeMissingProperty, "the AUDIT header has no name: add name my_audit")
		}
	}
	start := end
	for start < len(src) && isSpaceByte(src[start]) {
		start++
	}
	a.BodyStart = start
	a.Body = string(src[start:])
	macros, diags, _, calls := scanMacrosOf(file, src, p.li, start, true)
	a.Macros, a.expand = macros, calls
	p.diags = append(p.diags, diags...)
	if hasHeader && !p.unclosed {
		p.checkAuditBody(a, end)
	}
	SortDiagnostics(p.diags)
	return a, p.diags
}

// auditProperty parses one "name value" entry of an AUDIT header.
func (p *headerParser) auditProperty(a *CustomAudit, toks []token) {
	nameTok := toks[0]
	if nameTok.kind != tokIdent || nameTok.quoted || nameTok.parts != 1 {
		p.errorf(nameTok.start, nameTok.end, CodeHeaderSyntax, "expected a property name, found %s", p.describe(nameTok))
		return
	}
	name := strings.ToLower(nameTok.val)
	if !slices.Contains(auditProperties, name) {
		p.unknownName(nameTok, "audit property", auditProperties)
		return
	}
	if first, dup := p.seen.get(name); dup {
		p.errorf(nameTok.start, nameTok.end, CodeDuplicateProperty, "duplicate property %s (first set on line %d)", name, p.li.pos(first.start).Line)
		return
	}
	p.seen.set(name, nameTok)
	if len(toks) == 1 {
		p.errorf(nameTok.start, nameTok.end, CodeHeaderSyntax, "property %s needs a value", name)
		return
	}
	c := newCursor(toks[1:], nameTok.end)
	ok := false
	switch name {
	case "name":
		t := c.next()
		if t.kind != tokIdent || t.parts != 1 || t.quoted || !ValidNamePart(strings.ToLower(t.val)) {
			p.errorf(t.start, t.end, CodeBadValue, "an audit name is one word of a-z, 0-9 and _ starting with a letter, found %s", p.describe(t))
			return
		}
		a.Name = strings.ToLower(t.val)
		a.NameRange = p.rng(t.start, t.end)
		ok = true
	case "blocking":
		var v string
		if v, ok = p.keyword(c, "blocking", "true", "false"); ok {
			a.Blocking = v == "true"
		}
	case "description":
		var t token
		if t, ok = p.str(c, "description"); ok {
			a.Description = t.val
		}
	}
	if ok && !c.done() {
		s, e := span(c.rest())
		p.errorf(s, e, CodeHeaderSyntax, "unexpected %s after the %s value (properties are separated by commas)", p.describe(c.peek()), name)
	}
}

// checkAuditBody checks the query of an audit: there is one, it reads @this,
// and it uses no interval bounds (an audit sees a relation, not a run).
func (p *headerParser) checkAuditBody(a *CustomAudit, headerEnd int) {
	lx := &lexer{src: p.src, pos: headerEnd}
	first := lx.next()
	for first.isPunct(";") {
		first = lx.next()
	}
	if first.kind == tokEOF {
		p.errorf(p.closeTok.start, p.closeTok.end, CodeSyntax, "the audit has no query: write a SELECT over @this that returns the violating rows")
		return
	}
	this := false
	for _, mc := range a.Macros {
		switch mc.Kind {
		case MacroThis:
			this = true
		case MacroStart, MacroEnd:
			p.errorf(mc.Start, mc.End, CodeBadMacro, "@%s is not available in an audit: it audits a relation (@this), not an interval", mc.Kind)
		}
	}
	if !this {
		p.errorf(first.start, first.end, CodeAudit, "the audit query never reads @this, the audited model")
	}
}

// CheckAudits reports custom audit files that clash (two files of one name,
// a name of a built-in) and every audit call in a model's header that names
// no audit, calls a custom audit with arguments, or wraps contradicting
// wrappers. Column checks need schemas and live in the planner.
func CheckAudits(p *Project) []Diagnostic {
	var diags []Diagnostic
	byName := map[string]*CustomAudit{}
	for _, a := range p.Audits {
		if a.Name == "" {
			continue
		}
		if IsBuiltinAudit(a.Name) || slices.Contains(auditWrappers, a.Name) {
			diags = append(diags, Diagnostic{File: a.File, Range: a.NameRange, Severity: SeverityError, Code: CodeAudit,
				Message: fmt.Sprintf("audit name %s is taken by a built-in audit; choose another name", a.Name)})
			continue
		}
		if prev, dup := byName[a.Name]; dup {
			diags = append(diags, Diagnostic{File: a.File, Range: a.NameRange, Severity: SeverityError, Code: CodeAudit,
				Message: fmt.Sprintf("audit %s is also defined in %s", a.Name, prev.File)})
			continue
		}
		byName[a.Name] = a
		for _, mc := range a.Macros {
			if mc.Kind == MacroRef && p.ByName[mc.Arg] == nil {
				d := Diagnostic{File: a.File, Range: RangeAt(a.Source, mc.ArgStart, mc.ArgEnd), Severity: SeverityError, Code: CodeUnknownRef,
					Message: fmt.Sprintf("unknown model %q", mc.Arg)}
				if s, ok := DidYouMean(mc.Arg, projectModelNames(p)); ok {
					d.Message += "; did you mean " + s + "?"
				}
				diags = append(diags, d)
			}
		}
	}
	known := BuiltinAudits()
	for n := range byName {
		known = append(known, n)
	}
	sort.Strings(known)
	for _, m := range p.Models {
		for _, call := range m.Audits {
			diags = append(diags, checkAuditCall(m, &call, byName, known, false, false)...)
		}
	}
	return diags
}

func checkAuditCall(m *Model, call *AuditCall, custom map[string]*CustomAudit, known []string, warned, scoped bool) []Diagnostic {
	errAt := func(format string, args ...any) []Diagnostic {
		return []Diagnostic{{File: m.File, Range: call.Range, Severity: SeverityError, Code: CodeAudit, Message: fmt.Sprintf(format, args...)}}
	}
	switch call.Name {
	case "warn":
		if warned {
			return errAt("warn is applied twice in %s", call.Text)
		}
		warned = true
	case "per_interval", "whole":
		if scoped {
			return errAt("%s cannot be combined with another scope: an audit runs per interval or on the whole table", call.Name)
		}
		scoped = true
	default:
		if IsBuiltinAudit(call.Name) {
			return nil
		}
		if _, ok := custom[call.Name]; ok {
			if len(call.Args) > 0 {
				return errAt("custom audit %s takes no arguments: write %s", call.Name, call.Name)
			}
			return nil
		}
		d := Diagnostic{File: m.File, Range: call.Range, Severity: SeverityError, Code: CodeAudit,
			Message: fmt.Sprintf("unknown audit %q in the audits of %s", call.Name, m.Name)}
		if s, ok := DidYouMean(call.Name, known); ok {
			d.Message += "; did you mean " + s + "?"
			if i := strings.Index(strings.ToLower(string(m.Source[call.Range.Start.Offset:call.Range.End.Offset])), call.Name); i >= 0 {
				at := call.Range.Start.Offset + i
				d.Fixes = []Fix{{Title: "Change to " + s, Edits: []TextEdit{{File: m.File, Start: at, End: at + len(call.Name), NewText: s}}}}
			}
		} else {
			d.Message += " (built-in: " + strings.Join(BuiltinAudits(), ", ") + "; custom audits are AUDIT files matched by the audits globs)"
		}
		return []Diagnostic{d}
	}
	if call.Inner == nil {
		return nil
	}
	return checkAuditCall(m, call.Inner, custom, known, warned, scoped)
}

func projectModelNames(p *Project) []string {
	names := make([]string, 0, len(p.ByName))
	for n := range p.ByName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Audit returns the custom audit of that name, or nil. Of two files
// defining one name, the first by file wins (the other is a diagnostic).
func (p *Project) Audit(name string) *CustomAudit {
	for _, a := range p.Audits {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// AuditsOf returns the custom audits m's calls run, through their
// wrappers (warn, per_interval, whole), each once, in call order. Calls
// naming a built-in or no audit at all have none.
func (p *Project) AuditsOf(m *Model) []*CustomAudit {
	var out []*CustomAudit
	for i := range m.Audits {
		c := &m.Audits[i]
		for c.Inner != nil && slices.Contains(auditWrappers, c.Name) {
			c = c.Inner
		}
		if a := p.Audit(c.Name); a != nil && !IsBuiltinAudit(c.Name) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}
