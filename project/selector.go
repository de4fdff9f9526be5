package project

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// Selectors: the --select and --exclude grammar of the CLI, evaluated on a
// project's DAG.
//
//	expr   = group { ("," | " ") group }      a union
//	group  = term { "&" term }                an intersection
//	term   = [depth] ["+"] atom ["+" [depth]] | "@" atom
//	atom   = name-glob | "tag:" tag | "path:" glob | "kind:" kind
//	       | "config.materialized:" name | "state:modified"
//
// A name glob matches model names with path.Match (core.*, *.orders); a
// leading "+" adds the atom's ancestors, a trailing "+" its descendants,
// each bounded to depth generations when a number is written (2+x, x+1).
// "@" adds the descendants and every ancestor of the atom and of each of
// them (dbt's "@": what it takes to build the atom's descendants).
// "path:" takes a project glob (MatchGlob) or a folder, matched against
// model files; "kind:" a kind name in any case, "incremental" standing for
// every INCREMENTAL_* kind; "config.materialized:" dbt's name of a kind
// (table FULL, view VIEW, incremental INCREMENTAL_*, ephemeral EMBEDDED,
// seed SEED). "state:modified" matches the models whose fingerprint
// differs from what an environment serves (SelectContext.Modified: a new
// model, a changed one or one its changed parents move, a deleted one the
// environment still serves); matching none is no error.
//
// The comma is a union, as a space is: efmesh read "a,b" as a union before
// it read dbt's intersections, and a selector written then keeps its
// meaning. dbt's "a,b" intersection is written "a&b" here; "&" binds
// tighter than the union ("tag:x&kind:full tag:y" is (x and full) or y).
//
// Each occurrence of a flag is one line of input: a SelectorError says
// "--select:2:5: …" for the fifth byte of the second --select.

// SelectorError is a mistake in a selector: the flag it came from, the
// occurrence of the flag (Line, from 1) and the byte column in it (from 1).
type SelectorError struct {
	Flag    string // "--select" or "--exclude"
	Line    int
	Col     int
	Message string
}

func (e *SelectorError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Flag, e.Line, e.Col, e.Message)
}

// selectorTerm is one parsed term of a selector.
type selectorTerm struct {
	text   string // as written
	col    int    // 1-based column of its first byte
	method string // "" (name glob), "tag", "path" or "kind"
	value  string
	up     int  // ancestors: 0 none, -1 all, n generations
	down   int  // descendants, likewise
	at     bool // "@": descendants and all their ancestors
}

// selectorGroup is one intersection of terms ("a&b"); most hold one term.
type selectorGroup struct {
	text  string // as written
	col   int
	terms []selectorTerm
}

// selectorMethods are the "method:" prefixes a term may carry.
var selectorMethods = []string{"tag", "path", "kind", "config.materialized", "state"}

// methodList is how an error lists selectorMethods.
const methodList = "tag:, path:, kind:, config.materialized: or state:"

// materialized maps dbt's materializations to the kinds they name.
var materialized = map[string][]KindName{
	"table":       {KindFull},
	"view":        {KindView},
	"incremental": {KindIncrementalByTimeRange, KindIncrementalByUniqueKey},
	"ephemeral":   {KindEmbedded},
	"seed":        {KindSeed},
}

// materializedNames are materialized's keys, in the order errors and
// completion list them.
var materializedNames = []string{"ephemeral", "incremental", "seed", "table", "view"}

// stateValues are what state: accepts.
var stateValues = []string{"modified"}

// SelectContext is what a selector reads beyond the project's files.
type SelectContext struct {
	// Modified returns the models whose fingerprint differs from what the
	// compared environment serves (state:modified); it is called once, and
	// only when a term needs it. Nil: a state: term is an error saying how
	// to name the environment.
	Modified func() (map[string]bool, error)
	// NoState is that error's hint, e.g. "pass --state <env>".
	NoState string
}

// SelectorUsesState reports whether one of the expressions has a state:
// term (which needs the project's analysis and a state store); a
// malformed expression reports false, its error coming from Select.
func SelectorUsesState(exprs ...[]string) bool {
	for _, list := range exprs {
		for _, e := range list {
			groups, err := parseSelector(e)
			if err != nil {
				continue
			}
			for _, g := range groups {
				for _, t := range g.terms {
					if t.method == "state" {
						return true
					}
				}
			}
		}
	}
	return false
}

// Select evaluates --select expressions (none: every model) less the
// --exclude ones on p's DAG, returning the model names in name order. Every
// term must match some model; a mistake or a term matching nothing is a
// *SelectorError.
func (p *Project) Select(selects, excludes []string) ([]string, error) {
	return p.SelectIn(selects, excludes, SelectContext{})
}

// SelectIn is Select with what state: terms compare against. A selection
// that a state: term leaves empty (nothing modified) is no error: the
// result is then empty.
func (p *Project) SelectIn(selects, excludes []string, sc SelectContext) ([]string, error) {
	ev := &selectorEval{p: p, sc: sc}
	chosen := map[string]bool{}
	if len(selects) == 0 {
		for name := range p.ByName {
			chosen[name] = true
		}
	}
	for i, s := range selects {
		got, err := ev.eval("--select", i+1, s)
		if err != nil {
			return nil, err
		}
		for n := range got {
			chosen[n] = true
		}
	}
	for i, s := range excludes {
		got, err := ev.eval("--exclude", i+1, s)
		if err != nil {
			return nil, err
		}
		for n := range got {
			delete(chosen, n)
		}
	}
	if len(chosen) == 0 && ev.usedState && len(excludes) == 0 {
		return []string{}, nil
	}
	if len(chosen) == 0 {
		return nil, &SelectorError{Flag: "--exclude", Line: 1, Col: 1, Message: "--exclude leaves no model selected"}
	}
	out := make([]string, 0, len(chosen))
	for n := range chosen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// selectorEval evaluates the flags of one SelectIn call.
type selectorEval struct {
	p         *Project
	sc        SelectContext
	modified  map[string]bool // SelectContext.Modified's answer, once asked
	usedState bool
}

// eval parses and evaluates one flag value.
func (ev *selectorEval) eval(flag string, line int, expr string) (map[string]bool, error) {
	groups, err := parseSelector(expr)
	if err != nil {
		err.Flag, err.Line = flag, line
		return nil, err
	}
	out := map[string]bool{}
	for _, g := range groups {
		var set map[string]bool
		stateful := false
		for k, t := range g.terms {
			got, err := ev.term(t)
			if err != nil {
				if se, ok := err.(*SelectorError); ok {
					se.Flag, se.Line = flag, line
				}
				return nil, err
			}
			stateful = stateful || t.method == "state"
			if k == 0 {
				set = got
				continue
			}
			for n := range set {
				if !got[n] {
					delete(set, n)
				}
			}
		}
		if len(set) == 0 && len(g.terms) > 1 && !stateful {
			return nil, &SelectorError{Flag: flag, Line: line, Col: g.col, Message: fmt.Sprintf("%s matches no model: no model is in every term", g.text)}
		}
		for n := range set {
			out[n] = true
		}
	}
	return out, nil
}

// term returns the models one term selects, its graph operators applied.
func (ev *selectorEval) term(t selectorTerm) (map[string]bool, error) {
	p := ev.p
	if t.method == "state" {
		ev.usedState = true
		if ev.modified == nil {
			if ev.sc.Modified == nil {
				hint := ev.sc.NoState
				if hint == "" {
					hint = "this command compares with no environment"
				}
				return nil, &SelectorError{Col: t.col, Message: fmt.Sprintf("%s needs an environment to compare with: %s", t.text, hint)}
			}
			m, err := ev.sc.Modified()
			if err != nil {
				return nil, err
			}
			if m == nil {
				m = map[string]bool{}
			}
			ev.modified = m
		}
	}
	base, err := p.matchAtom(t, ev.modified)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, n := range base {
		out[n] = true
		if t.up != 0 {
			p.walkSelector(n, t.up, p.parentsOf, out)
		}
		if t.down != 0 || t.at {
			down := t.down
			if t.at {
				down = -1
			}
			p.walkSelector(n, down, func(x string) []string { return p.Children[x] }, out)
		}
	}
	if t.at {
		for n := range maps.Clone(out) {
			p.walkSelector(n, -1, p.parentsOf, out)
		}
	}
	return out, nil
}

// parentsOf returns the models name refs that exist in the project.
func (p *Project) parentsOf(name string) []string {
	m := p.ByName[name]
	if m == nil {
		return nil
	}
	var out []string
	for _, r := range m.Refs() {
		if r != name && p.ByName[r] != nil {
			out = append(out, r)
		}
	}
	return out
}

// walkSelector adds to out the models next leads to from start, breadth
// first, up to depth generations (-1: all).
func (p *Project) walkSelector(start string, depth int, next func(string) []string, out map[string]bool) {
	seen := map[string]bool{start: true}
	frontier := []string{start}
	for gen := 0; len(frontier) > 0 && (depth < 0 || gen < depth); gen++ {
		var nextGen []string
		for _, n := range frontier {
			for _, x := range next(n) {
				if !seen[x] {
					seen[x] = true
					out[x] = true
					nextGen = append(nextGen, x)
				}
			}
		}
		frontier = nextGen
	}
}

// matchAtom returns the models a term's atom matches, before its graph
// operators, or an error naming the term when it matches none.
func (p *Project) matchAtom(t selectorTerm, modified map[string]bool) ([]string, *SelectorError) {
	var out []string
	for _, m := range p.Models {
		if atomMatches(t, m, modified) {
			out = append(out, m.Name)
		}
	}
	if len(out) > 0 || t.method == "state" {
		return out, nil
	}
	msg := fmt.Sprintf("%s matches no model", t.text)
	if t.method == "" && !strings.ContainsAny(t.value, "*?[") {
		names := make([]string, 0, len(p.ByName))
		for n := range p.ByName {
			names = append(names, n)
		}
		slices.Sort(names)
		if s, ok := DidYouMean(t.value, names); ok {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
	}
	return nil, &SelectorError{Col: t.col, Message: msg}
}

func atomMatches(t selectorTerm, m *Model, modified map[string]bool) bool {
	switch t.method {
	case "state":
		return modified[m.Name]
	case "config.materialized":
		return slices.Contains(materialized[t.value], m.Kind.Name)
	case "tag":
		return slices.ContainsFunc(m.Tags, func(tag string) bool { return strings.EqualFold(tag, t.value) })
	case "path":
		pat := strings.TrimSuffix(t.value, "/")
		return MatchGlob(pat, m.File) || MatchGlob(pat+"/**", m.File)
	case "kind":
		if t.value == "incremental" {
			return m.Kind.Name == KindIncrementalByTimeRange || m.Kind.Name == KindIncrementalByUniqueKey
		}
		return strings.EqualFold(string(m.Kind.Name), t.value)
	}
	ok, err := path.Match(t.value, m.Name)
	return ok && err == nil
}

// parseSelector splits a flag value into groups of terms. Its errors
// carry the column only; the caller fills in the flag and line.
func parseSelector(expr string) ([]selectorGroup, *SelectorError) {
	var groups []selectorGroup
	// emptyAt is the column of a comma with no term before it (or after
	// it, at the end): an empty term, reported once the expression is
	// known not to be empty altogether.
	emptyAt := 0
	i := 0
	for {
		comma := -1
		for i < len(expr) && (expr[i] == ' ' || expr[i] == ',' || expr[i] == '\t') {
			if expr[i] == ',' {
				if (comma >= 0 || len(groups) == 0) && emptyAt == 0 {
					emptyAt = i + 1
				}
				comma = i
			}
			i++
		}
		if i == len(expr) {
			if comma >= 0 && len(groups) > 0 && emptyAt == 0 {
				emptyAt = comma + 1
			}
			break
		}
		j := i
		for j < len(expr) && expr[j] != ' ' && expr[j] != ',' && expr[j] != '\t' {
			j++
		}
		g := selectorGroup{text: expr[i:j], col: i + 1}
		for k := i; k <= j; {
			e := k
			for e < j && expr[e] != '&' {
				e++
			}
			if e == k {
				return nil, &SelectorError{Col: k + 1, Message: "empty term beside &: expected a model name, a glob, " + methodList + " on each side"}
			}
			t, err := parseTerm(expr[k:e], k+1)
			if err != nil {
				return nil, err
			}
			g.terms = append(g.terms, t)
			k = e + 1
		}
		groups = append(groups, g)
		i = j
	}
	if len(groups) == 0 {
		return nil, &SelectorError{Col: 1, Message: "empty selector: expected a model name, a glob, " + methodList}
	}
	if emptyAt > 0 {
		return nil, &SelectorError{Col: emptyAt, Message: "empty term at this comma: expected a model name, a glob, " + methodList + " on each side"}
	}
	return groups, nil
}

// parseTerm reads one term; col is the column of its first byte.
func parseTerm(s string, col int) (selectorTerm, *SelectorError) {
	t := selectorTerm{text: s, col: col}
	errAt := func(off int, format string, args ...any) *SelectorError {
		return &SelectorError{Col: col + off, Message: fmt.Sprintf(format, args...)}
	}
	i := 0
	if s[0] == '@' {
		t.at = true
		atom := s[1:]
		if atom == "" {
			return t, errAt(0, "@ needs a model name or a selector after it")
		}
		if k := strings.IndexByte(atom, '+'); k >= 0 {
			return t, errAt(1+k, "@ takes no +: @model already holds its descendants and all their ancestors")
		}
		if atom[0] == '@' {
			return t, errAt(1, "unexpected @ after @")
		}
		at, err := parseTerm(atom, col+1)
		at.text, at.col, at.at = s, col, true
		return at, err
	}
	if s[0] == '-' {
		return t, errAt(0, "unexpected '-' at the start of a selector: write n+model for n generations of ancestors, and use --exclude to leave models out")
	}
	// [depth] "+"
	d := 0
	for d < len(s) && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	switch {
	case d > 0 && (d == len(s) || s[d] != '+'):
		return t, errAt(0, "a depth (%s) must be followed by + and a model: %s+model", s[:d], s[:d])
	case d > 0:
		n, ok := depthOf(s[:d])
		if !ok {
			return t, errAt(0, "depth %s: must be between 1 and 9999", s[:d])
		}
		t.up, i = n, d+1
	case strings.HasPrefix(s, "+"):
		t.up, i = -1, 1
	}
	// atom ["+" [depth]]
	end := len(s)
	if k := strings.LastIndexByte(s, '+'); k >= i {
		tail := s[k+1:]
		if tail == "" {
			t.down = -1
		} else {
			n, ok := depthOf(tail)
			if !ok {
				return t, errAt(k+1, "expected a depth after +, found %q", tail)
			}
			t.down = n
		}
		end = k
	}
	atom := s[i:end]
	if atom == "" {
		return t, errAt(i, "+ needs a model name or a selector beside it")
	}
	if k := strings.IndexByte(atom, '+'); k >= 0 {
		return t, errAt(i+k, "unexpected + inside %q", atom)
	}
	if k := strings.IndexByte(atom, ':'); k >= 0 {
		method := strings.ToLower(atom[:k])
		if !slices.Contains(selectorMethods, method) {
			msg := fmt.Sprintf("unknown selector method %q; expected %s", atom[:k], methodList)
			if s, ok := DidYouMean(method, selectorMethods); ok {
				msg = fmt.Sprintf("unknown selector method %q; did you mean %s:?", atom[:k], s)
			}
			return t, errAt(i, "%s", msg)
		}
		t.method, t.value = method, atom[k+1:]
		if t.value == "" {
			return t, errAt(i, "%s: needs a value", method)
		}
		switch method {
		case "path":
			if err := ValidateGlob(t.value); err != nil {
				return t, errAt(i+k+1, "path:%s: %v", t.value, err)
			}
		case "kind":
			t.value = strings.ToLower(t.value)
			if !slices.Contains(selectorKinds(), t.value) {
				return t, errAt(i+k+1, "unknown kind %q; expected one of %s", t.value, strings.Join(selectorKinds(), ", "))
			}
		case "config.materialized":
			t.value = strings.ToLower(t.value)
			if materialized[t.value] == nil {
				return t, errAt(i+k+1, "unknown materialization %q; expected one of %s", t.value, strings.Join(materializedNames, ", "))
			}
		case "state":
			t.value = strings.ToLower(t.value)
			if !slices.Contains(stateValues, t.value) {
				return t, errAt(i+k+1, "unknown state %q; expected %s", t.value, strings.Join(stateValues, ", "))
			}
		case "tag":
			if strings.ContainsAny(t.value, ":") {
				return t, errAt(i+k+1, "a tag has no %q", ":")
			}
		}
		return t, nil
	}
	t.value = strings.ToLower(atom)
	for k, r := range t.value {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("_.*?[]-!^", r)) {
			return t, errAt(i+k, "unexpected %q in a model name or glob", r)
		}
	}
	if _, err := path.Match(t.value, ""); err != nil {
		return t, errAt(i, "bad glob %q", atom)
	}
	return t, nil
}

// selectorKinds are the values kind: accepts, lower case.
func selectorKinds() []string {
	out := []string{"incremental"}
	for _, k := range kindNames {
		out = append(out, strings.ToLower(k))
	}
	return out
}

// depthOf reads a generation count of a graph operator.
func depthOf(s string) (int, bool) {
	if s == "" || len(s) > 4 {
		return 0, false
	}
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, n > 0
}
