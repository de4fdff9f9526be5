package macro

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// Problem codes. They are stable: editors and CI filter on them.
const (
	CodeSyntax    = "macro-syntax"
	CodeUnknown   = "unknown-macro"
	CodeArgument  = "macro-argument"
	CodeValue     = "macro-value"
	CodeCycle     = "macro-cycle"
	CodeSize      = "macro-size"
	CodeDuplicate = "duplicate-macro"
)

// Limits of an expansion: a macro calling itself without end, or an
// expansion growing without bound, stops with a problem instead of a hang.
const (
	MaxDepth = 64
	MaxSize  = 16 << 20 // bytes of expanded text
)

// Problem is a user mistake found while expanding, at File[Start:End].
// A problem inside a macro's definition is reported at the call in the
// expanded file, with Related pointing at the definition.
type Problem struct {
	File       string
	Start, End int
	Code       string
	Message    string
	Related    []Related
	// Unknown is, for CodeUnknown, the name not found and Known the names
	// in scope there, for the caller to suggest the closest one; Fixable
	// says the name is written in the expanded file (not in a macro's
	// definition, nor an @{…}), so replacing it is a fix.
	Unknown string
	Known   []string
	Fixable bool
}

// Related is a place that explains a Problem.
type Related struct {
	File       string
	Src        []byte
	Start, End int
	Message    string
}

type rawProblem struct {
	start, end int
	code, msg  string
}

// text is a source a node was read from: the expanded file, or a macro
// file.
type text struct {
	file string
	src  []byte
	str  string // src as a string, made once: pieces copied from it share it
}

func newText(file string, src []byte) *text {
	return &text{file: file, src: src, str: string(src)}
}

// piece is a run of output text and where it came from: copied verbatim
// from t.src[start:end], or generated for the macro spanning it.
type piece struct {
	s          string
	t          *text
	start, end int
	copied     bool
	// site is the call in the expanded file whose expansion holds the
	// piece (-1 when none): a piece of a macro file maps back to it.
	siteStart, siteEnd int
}

// frag is SQL text being built.
type frag []piece

// blank reports whether f is blanks only.
func (f frag) blank() bool {
	for _, p := range f {
		if strings.TrimSpace(p.s) != "" {
			return false
		}
	}
	return true
}

func (f frag) String() string {
	switch len(f) {
	case 0:
		return ""
	case 1:
		return f[0].s
	}
	var b strings.Builder
	for _, p := range f {
		b.WriteString(p.s)
	}
	return b.String()
}

// value is what a macro or an argument evaluates to: SQL, a list of
// values, or a lambda.
type value struct {
	sql    frag
	list   []value
	isList bool
	lam    *lambda
	// start and end span the value as written (in t), for messages.
	t          *text
	start, end int
}

// lambda is x -> body or (x, y) -> body.
type lambda struct {
	params []string
	body   []node
	t      *text
	sc     *scope
}

// scope binds names to values: @DEF's, a lambda's or a macro's
// parameters.
type scope struct {
	vars   binds
	parent *scope
	// bare: a lambda's parameters are read bare too (x, not only @x), as
	// sqlmesh reads them.
	bare bool
}

// binds are the names a scope binds: a few (a macro's or lambda's
// parameters, a model's @DEFs), so a slice, which costs less to make than
// a map.
type binds []binding

type binding struct {
	name string
	v    value
}

func (b binds) get(name string) (value, bool) {
	for i := range b {
		if b[i].name == name {
			return b[i].v, true
		}
	}
	return value{}, false
}

// set binds name to v, in place of what it was bound to.
func (b *binds) set(name string, v value) {
	for i := range *b {
		if (*b)[i].name == name {
			(*b)[i].v = v
			return
		}
	}
	*b = append(*b, binding{name: name, v: v})
}

func (s *scope) lookup(name string) (value, bool, bool) {
	for c := s; c != nil; c = c.parent {
		if v, ok := c.vars.get(name); ok {
			return v, true, c.bare
		}
	}
	return value{}, false, false
}

func (s *scope) bareLookup(name string) (value, bool) {
	for c := s; c != nil; c = c.parent {
		if v, ok := c.vars.get(name); ok {
			if c.bare {
				return v, true
			}
			return value{}, false
		}
	}
	return value{}, false
}

// Env is what an expansion may read.
type Env struct {
	// Macros are the project's macros by lower-case name.
	Macros map[string]*Def
	// Vars are the values of @var(name) by lower-case name, read where a
	// macro needs a value before the query runs (an @IF's condition).
	Vars map[string]string
	// LiteralBefore: a @var(name) written before this offset (a model's
	// header, whose values are literals) becomes its value as a string
	// literal; later ones are left for the query's rendering.
	LiteralBefore int
}

// Result is an expansion.
type Result struct {
	// Text is the expanded file: the text before from as it was, then the
	// expansion.
	Text []byte
	Map  Map
	// Calls are the macro calls written in the file (outermost first), with
	// where their expansion landed in Text.
	Calls []Call
	// Used are the project macros the expansion read (lower case,
	// sorted): a change to one of them changes the expansion.
	Used []string
	// Vars are the variables read while expanding, with the values read.
	Vars map[string]string
	// Absent are the names the expansion needs absent from the project's
	// macros (lower case, sorted): a @DEF's name, which a project macro
	// of that name would make a problem. With Used and Vars it is all an
	// expansion without problems read of Env: the same text expands the
	// same way while they are unchanged.
	Absent   []string
	Problems []Problem
	// Expanded reports that some macro was expanded: Text differs from the
	// input.
	Expanded bool
}

// Call is a macro call as written in the expanded file.
type Call struct {
	Name               string // lower case
	Start, End         int    // @name(…)
	NameStart, NameEnd int
	Args               []CallArg
	Close              int // the ")", -1 when missing
	// Def is the project macro called; nil for a built-in.
	Def *Def
	// OutStart and OutEnd span the call's expansion in Result.Text.
	OutStart, OutEnd int
	// Depth is 0 for a call written at the top level, 1 inside another
	// call's arguments, ….
	Depth int
}

// CallArg is an argument of a Call as written.
type CallArg struct {
	Name       string
	Start, End int
}

// expander is one expansion.
type expander struct {
	env      *Env
	top      *text
	probs    []Problem
	used     map[string]bool
	absent   map[string]bool
	vars     map[string]string
	stack    []string // the project macros being expanded, outermost first
	size     int
	calls    []Call
	depth    int // calls of the top text being evaluated
	expanded bool
	stopped  bool
}

// Expand expands the macros of src[from:] (a model body or an audit's
// query); file names src in problems.
func Expand(file string, src []byte, from int, env *Env) *Result {
	if env == nil {
		env = &Env{}
	}
	x := &expander{env: env, top: newText(file, src), used: map[string]bool{}}
	var raw []rawProblem
	nodes := parseNodes(src, from, len(src), &raw)
	for _, r := range raw {
		x.probs = append(x.probs, Problem{File: file, Start: r.start, End: r.end, Code: r.code, Message: r.msg})
	}
	root := &scope{}
	out := make(frag, 1, 2*len(nodes)+1)
	out[0] = piece{s: x.top.str[:from], t: x.top, start: 0, end: from, copied: true, siteStart: -1, siteEnd: -1}
	out = x.evalTo(out, nodes, x.top, root)
	r := &Result{Problems: x.probs, Vars: x.vars, Expanded: x.expanded}
	for n := range x.used {
		r.Used = append(r.Used, n)
	}
	sort.Strings(r.Used)
	for n := range x.absent {
		r.Absent = append(r.Absent, n)
	}
	sort.Strings(r.Absent)
	r.Text, r.Map = x.assemble(out)
	r.Calls = x.calls
	for i := range r.Calls {
		r.Calls[i].OutStart, r.Calls[i].OutEnd = r.Map.outSpan(r.Calls[i].Start, r.Calls[i].End)
	}
	return r
}

// assemble writes the output and its map.
func (x *expander) assemble(out frag) ([]byte, Map) {
	// The sizes first, so that the text and the map are allocated once.
	size, segs := 0, 0
	var last Segment
	for _, p := range out {
		if p.s == "" {
			continue
		}
		seg := x.segment(p, size)
		if segs > 0 && merges(&last, seg) {
			last.Len += seg.Len
			last.End = seg.End
		} else {
			segs++
			last = seg
		}
		size += len(p.s)
	}
	if size == 0 {
		return nil, Map{}
	}
	b := make([]byte, 0, size)
	m := Map{Segments: make([]Segment, 0, segs)}
	for _, p := range out {
		if p.s == "" {
			continue
		}
		seg := x.segment(p, len(b))
		b = append(b, p.s...)
		// Neighbouring copies of one text merge.
		if n := len(m.Segments); n > 0 && merges(&m.Segments[n-1], seg) {
			m.Segments[n-1].Len += seg.Len
			m.Segments[n-1].End = seg.End
			continue
		}
		m.Segments = append(m.Segments, seg)
	}
	return b, m
}

// segment is the segment of the map the piece p makes at offset out.
func (x *expander) segment(p piece, out int) Segment {
	seg := Segment{Out: out, Len: len(p.s), Start: p.start, End: p.end, Copied: p.copied, SiteStart: p.siteStart, SiteEnd: p.siteEnd}
	if p.t != x.top {
		seg.File, seg.Src = p.t.file, p.t.src
	}
	return seg
}

// merges reports whether seg continues last: neighbouring copies of one
// text merge.
func merges(last *Segment, seg Segment) bool {
	return last.Copied && seg.Copied && last.File == seg.File && last.End == seg.Start && last.Out+last.Len == seg.Out &&
		last.SiteStart == seg.SiteStart && last.SiteEnd == seg.SiteEnd
}

// problem records a problem at t[start:end]; one inside a macro file is
// moved to the call of the expanded file being expanded, with Related
// pointing at where it is.
func (x *expander) problem(t *text, start, end int, code, msg string) *Problem {
	p := Problem{File: t.file, Start: start, End: end, Code: code, Message: msg}
	if t != x.top {
		if n := len(x.calls); n > 0 {
			c := x.outerCall()
			p.File, p.Start, p.End = x.top.file, c.Start, c.End
		}
		p.Related = append(p.Related, Related{File: t.file, Src: t.src, Start: start, End: end, Message: msg})
		if code != CodeCycle {
			p.Message = msg + " (in " + x.path() + ")"
		}
	}
	x.probs = append(x.probs, p)
	return &x.probs[len(x.probs)-1]
}

// path names the macros being expanded, outermost first, as a message
// reads them: lambdas left out, a long chain cut in the middle.
func (x *expander) path() string {
	var names []string
	for _, n := range x.stack {
		if n != "lambda" && n != "sql" {
			names = append(names, "@"+n)
		}
	}
	if len(names) > 6 {
		names = append(append(names[:3:3], "…"), names[len(names)-2:]...)
	}
	return strings.Join(names, " → ")
}

// outerCall is the innermost call of the expanded file being evaluated.
func (x *expander) outerCall() Call {
	for i := len(x.calls) - 1; i >= 0; i-- {
		if x.calls[i].OutEnd == -1 {
			return x.calls[i]
		}
	}
	return x.calls[len(x.calls)-1]
}

// eval evaluates nodes of t in sc to SQL.
func (x *expander) eval(nodes []node, t *text, sc *scope) frag {
	return x.evalTo(make(frag, 0, len(nodes)), nodes, t, sc)
}

// evalTo is eval appending to out.
func (x *expander) evalTo(out frag, nodes []node, t *text, sc *scope) frag {
	// A call that expands to nothing (an @IF without else whose condition
	// fails, an @EACH of an empty list) takes a comma next to it along, as
	// sqlmesh drops the expression from its list: SELECT a, @IF(FALSE, b)
	// FROM t is SELECT a FROM t.
	dropComma := false
	for _, n := range nodes {
		if x.stopped {
			return out
		}
		switch n.kind {
		case nText:
			if dropComma {
				out = append(out, dropCommaAt(x.appendText(nil, n, t, sc), true)...)
				dropComma = false
			} else {
				out = x.appendText(out, n, t, sc)
			}
		default:
			v := x.evalMacro(n, t, sc)
			r := x.render(v)
			if n.kind == nCall && n.name != "def" && r.blank() {
				if dropped := dropCommaAt(out, false); len(dropped) != len(out) {
					out = dropped
				} else {
					dropComma = true
				}
			}
			out = append(out, r...)
		}
	}
	return out
}

// dropCommaAt removes the comma that is the first (leading) or last
// character of f but blanks; f as it was when there is none.
func dropCommaAt(f frag, leading bool) frag {
	s := f.String()
	var at int
	if leading {
		at = len(s) - len(strings.TrimLeft(s, " \t\r\n"))
	} else {
		at = len(strings.TrimRight(s, " \t\r\n")) - 1
	}
	if at < 0 || at >= len(s) || s[at] != ',' {
		return f
	}
	out := make(frag, 0, len(f)+1)
	pos := 0
	for _, p := range f {
		if at < pos || at >= pos+len(p.s) {
			out = append(out, p)
			pos += len(p.s)
			continue
		}
		k := at - pos
		a, b := p, p
		a.s, b.s = p.s[:k], p.s[k+1:]
		if p.copied {
			a.end = p.start + k
			b.start = p.start + k + 1
		}
		out = append(out, a, b)
		pos += len(p.s)
	}
	return out
}

// appendText appends the SQL of n as written to out, putting bare lambda
// parameters' values in.
func (x *expander) appendText(out frag, n node, t *text, sc *scope) frag {
	hasBare := false
	for c := sc; c != nil; c = c.parent {
		if c.bare && len(c.vars) > 0 {
			hasBare = true
			break
		}
	}
	if !hasBare {
		return append(out, x.copyOf(t, n.start, n.end))
	}
	pos := n.start
	prevDot := false
	for s := sqlscan.NewScanner(t.src[:n.end], n.start); ; {
		tk := s.Next()
		if tk.Kind == sqlscan.EOF {
			break
		}
		if tk.Kind == sqlscan.Ident && !prevDot && !followedBy(t.src[:n.end], tk.End, '.') {
			if v, ok := sc.bareLookup(strings.ToLower(string(t.src[tk.Start:tk.End]))); ok {
				if tk.Start > pos {
					out = append(out, x.copyOf(t, pos, tk.Start))
				}
				x.reuse(v)
				out = append(out, x.render(parenthesize(v))...)
				pos = tk.End
			}
		}
		prevDot = tk.Kind == sqlscan.Punct && t.src[tk.Start] == '.'
	}
	if n.end > pos {
		out = append(out, x.copyOf(t, pos, n.end))
	}
	return out
}

// identByte reports whether c may be part of an unquoted name.
func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func followedBy(src []byte, i int, c byte) bool {
	j := sqlscan.SkipBlank(src, i)
	return j < len(src) && src[j] == c
}

func (x *expander) copyOf(t *text, start, end int) piece {
	x.grow(end - start)
	return piece{s: t.str[start:end], t: t, start: start, end: end, copied: true, siteStart: -1, siteEnd: -1}
}

// gen is generated text standing for t[start:end].
func (x *expander) gen(s string, t *text, start, end int) piece {
	x.grow(len(s))
	return piece{s: s, t: t, start: start, end: end, siteStart: -1, siteEnd: -1}
}

// reuse counts a value put in again (a parameter or a @DEF read) in the
// size of the expansion: its text is written once more, though no piece
// of it is made anew.
func (x *expander) reuse(v value) {
	n := 0
	var size func(v value)
	size = func(v value) {
		for _, p := range v.sql {
			n += len(p.s)
		}
		for _, it := range v.list {
			size(it)
		}
	}
	size(v)
	x.grow(n)
}

func (x *expander) grow(n int) {
	x.size += n
	if x.size > MaxSize && !x.stopped {
		x.stopped = true
		c := Call{}
		if len(x.calls) > 0 {
			c = x.outerCall()
		}
		x.probs = append(x.probs, Problem{File: x.top.file, Start: c.Start, End: c.End, Code: CodeSize,
			Message: fmt.Sprintf("the expansion grows past %d MB: stopped", MaxSize>>20)})
	}
}

// render is v as SQL: a list's items separated by commas.
func (x *expander) render(v value) frag {
	switch {
	case v.isList:
		var out frag
		for i, it := range v.list {
			if i > 0 {
				out = append(out, x.gen(", ", it.t, it.start, it.start))
			}
			out = append(out, x.render(it)...)
		}
		return out
	case v.lam != nil:
		return frag{x.copyOf(v.t, v.start, v.end)}
	}
	return v.sql
}

// evalMacro evaluates the macro node n.
func (x *expander) evalMacro(n node, t *text, sc *scope) value {
	if n.kind == nInterp {
		v, ok, _ := sc.lookup(n.name)
		if !ok {
			x.unknown(n, t, sc)
			return x.sqlValue(t, n.start, n.end, x.copyOf(t, n.start, n.end))
		}
		return x.sqlValue(t, n.start, n.end, x.gen(identOf(v), t, n.start, n.end))
	}
	// A name bound in scope (a @DEF, a lambda's or a macro's parameter).
	if v, ok, _ := sc.lookup(n.name); ok {
		if n.kind == nVar {
			x.expanded = true
			if n.start > 0 && identByte(t.src[n.start-1]) {
				// The end of a name (column_@x), as sqlmesh's: like @{x}.
				return x.sqlValue(t, n.start, n.end, x.gen(identOf(v), t, n.start, n.end))
			}
			x.reuse(v)
			return v
		}
		if v.lam != nil {
			return x.callLambda(n, t, sc, v)
		}
	}
	if n.kind == nVar {
		if IsPrimitive(n.name) {
			return x.sqlValue(t, n.start, n.end, x.copyOf(t, n.start, n.end))
		}
		d, ok := x.env.Macros[n.name]
		switch {
		case !ok:
			x.unknown(n, t, sc)
			return x.sqlValue(t, n.start, n.end, x.gen("NULL", t, n.start, n.end))
		case len(d.Params) > 0:
			x.problem(t, n.start, n.end, CodeArgument, fmt.Sprintf("@%s takes arguments in parentheses: %s", d.Name, d.Signature()))
			return x.sqlValue(t, n.start, n.end, x.gen("NULL", t, n.start, n.end))
		}
		// A macro without parameters called without parentheses (@cols):
		// a call like @cols(), whose expansion maps to it.
	}
	if n.name == "var" {
		if t == x.top && n.start < x.env.LiteralBefore {
			if v, ok := x.varValue(n, t); ok {
				x.expanded = true
				return x.sqlValue(t, n.start, n.end, x.gen("'"+strings.ReplaceAll(v, "'", "''")+"'", t, n.start, n.end))
			}
		}
		return x.sqlValue(t, n.start, n.end, x.copyOf(t, n.start, n.end))
	}
	if t == x.top {
		x.calls = append(x.calls, Call{Name: n.name, Start: n.start, End: n.end, NameStart: n.nameStart, NameEnd: n.nameEnd,
			Close: n.close, OutEnd: -1, Depth: x.depth})
		for _, a := range n.args {
			x.calls[len(x.calls)-1].Args = append(x.calls[len(x.calls)-1].Args, CallArg{Name: a.name, Start: a.start, End: a.end})
		}
		i := len(x.calls) - 1
		x.depth++
		v := x.callNamed(n, t, sc, i)
		x.depth--
		x.calls[i].OutEnd = 0
		// What the call made that is not copied from this file maps to it.
		x.markSite(&v, n.start, n.end)
		return v
	}
	return x.callNamed(n, t, sc, -1)
}

func (x *expander) callNamed(n node, t *text, sc *scope, call int) value {
	x.expanded = true
	if b, ok := builtins[n.name]; ok && n.kind == nCall {
		return b(x, n, t, sc)
	}
	if d, ok := x.env.Macros[n.name]; ok {
		if call >= 0 {
			x.calls[call].Def = d
		}
		return x.callDef(n, t, sc, d)
	}
	// NULL stands for it, so that the engine does not read the call as
	// SQL of its own and report it again.
	x.unknown(n, t, sc)
	return x.sqlValue(t, n.start, n.end, x.gen("NULL", t, n.start, n.end))
}

// varValue is the value of the @var(name) call n, recorded as read.
func (x *expander) varValue(n node, t *text) (string, bool) {
	r := sqlscan.ParseRef(t.src[:n.end], n.start)
	name := r.Name()
	v, ok := x.env.Vars[name]
	if !ok {
		x.problem(t, n.start, n.end, CodeValue, "@var("+name+") has no value: set it under vars in efmesh.yaml")
		return "", false
	}
	if x.vars == nil {
		x.vars = map[string]string{}
	}
	x.vars[name] = v
	return v, true
}

// markSite gives every piece of v without a site that is not copied from
// the expanded file the call at [start, end).
func (x *expander) markSite(v *value, start, end int) {
	for i := range v.sql {
		p := &v.sql[i]
		if p.siteStart < 0 && (p.t != x.top || !p.copied) {
			p.siteStart, p.siteEnd = start, end
		}
	}
	for i := range v.list {
		x.markSite(&v.list[i], start, end)
	}
}

// unknown reports an unknown macro name with the names known there.
func (x *expander) unknown(n node, t *text, sc *scope) {
	var known []string
	for k := range builtins {
		known = append(known, k)
	}
	for k := range primitives {
		known = append(known, k)
	}
	for k := range x.env.Macros {
		known = append(known, k)
	}
	for c := sc; c != nil; c = c.parent {
		for _, b := range c.vars {
			known = append(known, b.name)
		}
	}
	slices.Sort(known)
	msg := "unknown macro @" + string(t.src[n.nameStart:n.nameEnd])
	if n.kind == nInterp {
		msg = "unknown name " + n.name + " in @{…}: it is no @DEF, no parameter of a lambda or a macro"
	}
	p := x.problem(t, n.start, n.nameEnd, CodeUnknown, msg)
	p.Unknown, p.Known = n.name, known
	p.Fixable = n.kind != nInterp && t == x.top
}

func (x *expander) sqlValue(t *text, start, end int, p ...piece) value {
	return value{sql: frag(p), t: t, start: start, end: end}
}

// argValue evaluates an argument: a lambda stays one, other values are
// evaluated in sc.
func (x *expander) argValue(a arg, t *text, sc *scope) value {
	if lam, ok := x.lambdaOf(a, t, sc); ok {
		return value{lam: lam, t: t, start: a.start, end: a.end}
	}
	if len(a.nodes) == 1 && a.nodes[0].kind != nText && a.nodes[0].start == a.start && a.nodes[0].end == a.end {
		// One macro: its value as it is (a list stays a list).
		v := x.evalMacro(a.nodes[0], t, sc)
		if v.t == nil {
			v.t, v.start, v.end = t, a.start, a.end
		}
		return v
	}
	return value{sql: x.eval(a.nodes, t, sc), t: t, start: a.start, end: a.end}
}

// lambdaOf reads a as x -> body or (x, y) -> body.
func (x *expander) lambdaOf(a arg, t *text, sc *scope) (*lambda, bool) {
	src := t.src[:a.end]
	i := a.start
	var params []string
	switch {
	case sqlscan.IsIdentStart(src, i):
		e := sqlscan.IdentEnd(src, i)
		params = []string{strings.ToLower(string(src[i:e]))}
		i = e
	case i < len(src) && src[i] == '(':
		i++
		for {
			i = sqlscan.SkipBlank(src, i)
			if !sqlscan.IsIdentStart(src, i) {
				return nil, false
			}
			e := sqlscan.IdentEnd(src, i)
			params = append(params, strings.ToLower(string(src[i:e])))
			i = sqlscan.SkipBlank(src, e)
			if i < len(src) && src[i] == ',' {
				i++
				continue
			}
			if i < len(src) && src[i] == ')' {
				i++
				break
			}
			return nil, false
		}
	default:
		return nil, false
	}
	i = sqlscan.SkipBlank(src, i)
	if i+2 > len(src) || src[i] != '-' || src[i+1] != '>' || (i+2 < len(src) && src[i+2] == '>') {
		return nil, false
	}
	bodyStart := sqlscan.SkipBlank(src, i+2)
	var raw []rawProblem
	body := parseNodes(t.src, bodyStart, a.end, &raw)
	for _, r := range raw {
		x.problem(t, r.start, r.end, r.code, r.msg)
	}
	return &lambda{params: params, body: body, t: t, sc: sc}, true
}

// apply calls a lambda with values.
func (x *expander) apply(lam *lambda, args []value, at node, t *text) value {
	if len(args) != len(lam.params) {
		x.problem(t, at.start, at.end, CodeArgument, fmt.Sprintf("the lambda takes %d argument(s) (%s), given %d",
			len(lam.params), strings.Join(lam.params, ", "), len(args)))
		return value{}
	}
	if !x.enter("lambda", at, t) {
		return value{}
	}
	defer x.leave()
	inner := &scope{vars: make(binds, 0, len(lam.params)), parent: lam.sc, bare: true}
	for i, p := range lam.params {
		inner.vars.set(p, args[i])
	}
	return value{sql: x.eval(lam.body, lam.t, inner), t: lam.t}
}

func (x *expander) callLambda(n node, t *text, sc *scope, v value) value {
	var args []value
	for _, a := range n.args {
		args = append(args, x.argValue(a, t, sc))
	}
	return x.apply(v.lam, args, n, t)
}

// enter notes a nested expansion; false when the depth limit is reached
// (the problem names the cycle).
func (x *expander) enter(name string, at node, t *text) bool {
	if len(x.stack) >= MaxDepth {
		if !x.stopped {
			x.stopped = true
			x.problem(t, at.start, at.end, CodeCycle, "macros nest deeper than "+fmt.Sprint(MaxDepth)+" calls: "+cycleOf(x.stack))
		}
		return false
	}
	x.stack = append(x.stack, name)
	return true
}

func (x *expander) leave() { x.stack = x.stack[:len(x.stack)-1] }

// cycleOf names the repeating part of a stack of macro names.
func cycleOf(stack []string) string {
	stack = slices.DeleteFunc(slices.Clone(stack), func(n string) bool { return n == "lambda" || n == "sql" })
	if len(stack) == 0 {
		return "lambdas nest without end"
	}
	last := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		if stack[i] == last {
			return "@" + strings.Join(stack[i:], " → @") + " calls itself without end"
		}
	}
	return "@" + strings.Join(stack, " → @")
}

// callDef expands a project macro.
func (x *expander) callDef(n node, t *text, sc *scope, d *Def) value {
	x.used[strings.ToLower(d.Name)] = true
	bound, ok := x.bind(n, t, sc, d)
	if !ok {
		return x.sqlValue(t, n.start, n.end, x.gen("NULL", t, n.start, n.end))
	}
	if !x.enter(strings.ToLower(d.Name), n, t) {
		return value{}
	}
	defer x.leave()
	dt := d.text()
	inner := &scope{vars: bound}
	return value{sql: x.eval(d.body, dt, inner), t: t, start: n.start, end: n.end}
}

// bind matches a call's arguments to a project macro's parameters.
func (x *expander) bind(n node, t *text, sc *scope, d *Def) (binds, bool) {
	bound := make(binds, 0, len(d.Params))
	ok := true
	pos := 0
	for _, a := range n.args {
		if a.name == "" {
			if pos >= len(d.Params) {
				x.problem(t, a.start, a.end, CodeArgument, fmt.Sprintf("@%s takes %d argument(s): %s", d.Name, len(d.Params), d.Signature()))
				ok = false
				continue
			}
			bound.set(d.Params[pos].Name, x.argValue(a, t, sc))
			pos++
			continue
		}
		i := slices.IndexFunc(d.Params, func(p Param) bool { return p.Name == a.name })
		switch {
		case i < 0:
			x.problem(t, a.nameStart, a.nameEnd, CodeArgument, fmt.Sprintf("@%s has no parameter %s: %s", d.Name, a.name, d.Signature()))
			ok = false
		case isBound(bound, a.name):
			x.problem(t, a.nameStart, a.nameEnd, CodeArgument, fmt.Sprintf("argument %s of @%s is given twice", a.name, d.Name))
			ok = false
		default:
			bound.set(a.name, x.argValue(a, t, sc))
		}
	}
	var dt *text
	for _, p := range d.Params {
		if _, set := bound.get(p.Name); set {
			continue
		}
		if p.Default != nil {
			if dt == nil {
				dt = d.text()
			}
			bound.set(p.Name, x.argValue(*p.Default, dt, &scope{}))
			continue
		}
		at := n.end
		if n.close >= 0 {
			at = n.close
		}
		x.problem(t, at, min(at+1, n.end), CodeArgument, fmt.Sprintf("@%s needs its argument %s: %s", d.Name, p.Name, d.Signature()))
		ok = false
	}
	return bound, ok
}

// isBound reports whether name is bound to a value written somewhere.
func isBound(b binds, name string) bool {
	v, ok := b.get(name)
	return ok && v.t != nil
}

// identOf is v spliced into an identifier: a string's text, a name as
// written.
func identOf(v value) string {
	s := strings.TrimSpace(v.sqlText())
	if toks := sqlscan.Tokens([]byte(s), 0); len(toks) == 1 && (toks[0].Kind == sqlscan.String || toks[0].Kind == sqlscan.QuotedIdent) {
		return toks[0].Value([]byte(s))
	}
	return s
}

func (v value) sqlText() string {
	if v.isList {
		parts := make([]string, len(v.list))
		for i, it := range v.list {
			parts[i] = it.sqlText()
		}
		return strings.Join(parts, ", ")
	}
	if v.lam != nil {
		return string(v.t.src[v.start:v.end])
	}
	return v.sql.String()
}

// parenthesize wraps a value put in for a bare parameter in parentheses
// when it is an expression of operators, so that x * y with x = a + b
// stays (a + b) * y.
func parenthesize(v value) value {
	if v.isList || v.lam != nil || len(v.sql) == 0 {
		return v
	}
	s := v.sql.String()
	src := []byte(s)
	toks := sqlscan.Tokens(src, 0)
	depth := 0
	needs := false
	for _, tk := range toks {
		switch {
		case tk.Kind == sqlscan.Punct && strings.ContainsRune("([{", rune(src[tk.Start])):
			depth++
		case tk.Kind == sqlscan.Punct && strings.ContainsRune(")]}", rune(src[tk.Start])):
			depth--
		case depth > 0:
		case tk.Kind == sqlscan.Punct && src[tk.Start] == ',', tk.Is(src, "as"):
			return v
		case tk.Kind == sqlscan.Op && string(src[tk.Start:tk.End]) != "::",
			tk.Is(src, "and"), tk.Is(src, "or"), tk.Is(src, "not"), tk.Is(src, "is"), tk.Is(src, "in"),
			tk.Is(src, "between"), tk.Is(src, "like"), tk.Is(src, "ilike"):
			needs = true
		}
	}
	if !needs {
		return v
	}
	out := v
	first := piece{s: "(", t: v.sql[0].t, start: v.sql[0].start, end: v.sql[0].start, siteStart: -1, siteEnd: -1}
	last := v.sql[len(v.sql)-1]
	closeP := piece{s: ")", t: last.t, start: last.end, end: last.end, siteStart: -1, siteEnd: -1}
	out.sql = append(append(frag{first}, v.sql...), closeP)
	return out
}
