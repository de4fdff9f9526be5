package macro

import (
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// nodeKind is what a node of a text is.
type nodeKind uint8

const (
	nText   nodeKind = iota // src[start:end] as written
	nCall                   // @name(args)
	nVar                    // @name without parentheses
	nInterp                 // @{name}: a value spliced into an identifier
)

// node is one part of a text read for expansion: SQL as written, or a
// macro.
type node struct {
	kind       nodeKind
	start, end int // the whole node; a @DEF(…) statement's end includes its ";"
	name       string
	nameStart  int // the word after @ (or inside @{ })
	nameEnd    int
	args       []arg
	open       int // the "(" of a call
	close      int // the ")" of a call, -1 when missing
}

// arg is one argument of a call: a value, or name := value.
type arg struct {
	name               string // lower case; "" for a positional argument
	nameStart, nameEnd int
	start, end         int // the value as written, blanks trimmed
	nodes              []node
}

// Primitives are the macros every later stage renders itself: expansion
// leaves them as written. @STAR and @UNION are among them because their
// columns come from the binder; their arguments are expanded all the same.
var primitives = map[string]bool{
	"ref": true, "start": true, "end": true, "this": true, "var": true,
	"start_ds": true, "end_ds": true, "start_ts": true, "end_ts": true,
	"execution_ds": true, "this_model": true, "env": true,
}

// noArgs are the primitives that take no arguments: a "(" after them is
// SQL's.
var noArgs = map[string]bool{
	"start": true, "end": true, "this": true, "start_ds": true, "end_ds": true, "start_ts": true,
	"end_ts": true, "execution_ds": true, "this_model": true, "env": true,
}

// IsPrimitive reports whether @name (any case) is rendered by the stage
// after expansion rather than by it.
func IsPrimitive(name string) bool { return primitives[strings.ToLower(name)] }

// parseNodes reads src[from:to] into nodes. Problems are malformed calls;
// unknown names are found when they are evaluated.
func parseNodes(src []byte, from, to int, probs *[]rawProblem) []node {
	var out []node
	text := from // start of the pending text node
	flush := func(end int) {
		if end > text {
			out = append(out, node{kind: nText, start: text, end: end})
		}
	}
	sc := sqlscan.NewScanner(src[:to], from)
	for {
		t := sc.Next()
		if t.Kind == sqlscan.EOF {
			break
		}
		switch {
		case t.Kind == sqlscan.Macro:
			wordEnd := sqlscan.IdentEnd(src, t.Start+1)
			name := strings.ToLower(string(src[t.Start+1 : wordEnd]))
			if name == "ref" {
				continue // a primitive read whole: the DAG's own scanner reads it
			}
			flush(t.Start)
			n := node{kind: nVar, start: t.Start, end: wordEnd, name: name, nameStart: t.Start + 1, nameEnd: wordEnd, close: -1}
			if p := sqlscan.SkipBlank(src[:to], wordEnd); p < to && src[p] == '(' && !noArgs[name] {
				n.kind = nCall
				n.open = p
				n.args, n.close, n.end = parseArgs(src, p, to, probs)
				if n.close < 0 {
					*probs = append(*probs, rawProblem{start: t.Start, end: wordEnd, code: CodeSyntax,
						msg: "expected ) to close @" + string(src[t.Start+1:wordEnd]) + "("})
				}
				if name == "def" {
					// A @DEF is a statement of its own: its ";" goes with it.
					if s := sqlscan.SkipBlank(src[:to], n.end); s < to && src[s] == ';' {
						n.end = s + 1
						// and the blanks after it, to the end of its line.
						for n.end < to && (src[n.end] == ' ' || src[n.end] == '\t') {
							n.end++
						}
						if n.end < to && src[n.end] == '\r' {
							n.end++
						}
						if n.end < to && src[n.end] == '\n' {
							n.end++
						}
					}
				}
			}
			out = append(out, n)
			text = n.end
			sc = sqlscan.NewScanner(src[:to], n.end)
		case t.Kind == sqlscan.Op && src[t.Start] == '@' && t.Start+1 < to && src[t.Start+1] == '{':
			flush(t.Start)
			n := node{kind: nInterp, start: t.Start, close: -1}
			i := sqlscan.SkipSpace(src, t.Start+2)
			n.nameStart = i
			if sqlscan.IsIdentStart(src, i) {
				n.nameEnd = sqlscan.IdentEnd(src, i)
			} else {
				n.nameEnd = i
			}
			n.name = strings.ToLower(string(src[n.nameStart:n.nameEnd]))
			j := sqlscan.SkipSpace(src, n.nameEnd)
			if j < to && src[j] == '}' {
				n.end = j + 1
			} else {
				n.end = n.nameEnd
				*probs = append(*probs, rawProblem{start: t.Start, end: n.nameEnd, code: CodeSyntax, msg: "expected @{name}: a name and a closing }"})
			}
			if n.name == "" {
				*probs = append(*probs, rawProblem{start: t.Start, end: n.end, code: CodeSyntax, msg: "expected a name inside @{ }"})
			}
			out = append(out, n)
			text = n.end
			sc = sqlscan.NewScanner(src[:to], n.end)
		}
	}
	flush(to)
	return out
}

// parseArgs reads the arguments of the call whose "(" is src[open]. It
// returns the ")" (-1 when missing) and where the call ends.
func parseArgs(src []byte, open, to int, probs *[]rawProblem) (args []arg, closeAt, end int) {
	depth := 0
	start := open + 1
	add := func(e int) {
		a := trimArg(src, start, e)
		if a.start == a.end && len(args) == 0 && src[e] == ')' {
			return // no arguments at all
		}
		a.nodes = parseNodes(src, a.start, a.end, probs)
		args = append(args, a)
	}
	sc := sqlscan.NewScanner(src[:to], open+1)
	for {
		t := sc.Next()
		if t.Kind == sqlscan.EOF {
			if start < to {
				a := trimArg(src, start, to)
				a.nodes = parseNodes(src, a.start, a.end, probs)
				args = append(args, a)
			}
			return args, -1, to
		}
		if t.Kind != sqlscan.Punct {
			continue
		}
		switch src[t.Start] {
		case '(', '[', '{':
			depth++
		case ']', '}':
			depth--
		case ')':
			if depth == 0 {
				add(t.Start)
				return args, t.Start, t.End
			}
			depth--
		case ',':
			if depth == 0 {
				add(t.Start)
				start = t.End
			}
		}
	}
}

// trimArg is the argument src[start:end] with blanks and comments around
// it removed and a leading "name :=" read.
func trimArg(src []byte, start, end int) arg {
	s := sqlscan.SkipBlank(src[:end], start)
	e := s
	for sc := sqlscan.NewScanner(src[:end], s); ; {
		t := sc.Next()
		if t.Kind == sqlscan.EOF {
			break
		}
		if t.Kind != sqlscan.Comment {
			e = t.End
		}
	}
	a := arg{start: s, end: e}
	if sqlscan.IsIdentStart(src, s) {
		we := sqlscan.IdentEnd(src, s)
		j := sqlscan.SkipBlank(src[:e], we)
		if j+1 < e && src[j] == ':' && src[j+1] == '=' && (j+2 >= e || !strings.ContainsRune("=<>", rune(src[j+2]))) {
			a.name = strings.ToLower(string(src[s:we]))
			a.nameStart, a.nameEnd = s, we
			a.start = sqlscan.SkipBlank(src[:e], j+2)
		}
	}
	return a
}

// Def is a project macro: MACRO name(params) AS body; in a macro file.
type Def struct {
	Name   string // as written
	Params []Param
	File   string // slash path relative to the project root
	Src    []byte // the whole file
	// Start and End span the whole definition; NameStart and NameEnd its
	// name; BodyStart and BodyEnd the SQL it expands to.
	Start, End         int
	NameStart, NameEnd int
	BodyStart, BodyEnd int
	// Doc is the comment right above the definition, without its markers.
	Doc  string
	body []node
	txt  *text // the file as a text, shared by its definitions
}

// text is d's file as the expansion reads it.
func (d *Def) text() *text {
	if d.txt == nil || d.txt.file != d.File {
		return newText(d.File, d.Src)
	}
	return d.txt
}

// Param is a parameter of a project macro, with its default when it has
// one (name := value).
type Param struct {
	Name       string // lower case
	Start, End int
	Default    *arg
}

// Signature is the definition's head as a user calls it: name(a, b := 1).
func (d *Def) Signature() string {
	var b strings.Builder
	b.WriteString("@" + d.Name + "(")
	for i, p := range d.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(d.Src[p.Start:p.End]))
	}
	b.WriteString(")")
	return b.String()
}

// ParseFile reads the macro definitions of a macro file: each is
//
//	-- what it does (the doc comment)
//	MACRO name(param, other := default) AS <SQL>;
//
// The SQL runs to the next ";" outside parentheses, strings and comments,
// or to the end of the file. Parameters are used in it as @param (or
// @{param} inside an identifier).
func ParseFile(file string, src []byte) ([]*Def, []Problem) {
	var defs []*Def
	var raw []rawProblem
	bad := func(start, end int, msg string) {
		raw = append(raw, rawProblem{start: start, end: end, code: CodeSyntax, msg: msg})
	}
	sc := sqlscan.NewScanner(src, 0)
	ft := newText(file, src)
	var doc []sqlscan.Token
	next := func() sqlscan.Token {
		for {
			t := sc.Next()
			if t.Kind != sqlscan.Comment {
				return t
			}
		}
	}
	for {
		t := sc.Next()
		if t.Kind == sqlscan.EOF {
			break
		}
		if t.Kind == sqlscan.Comment {
			// A blank line between a comment and the definition parts them.
			if len(doc) > 0 && strings.Count(string(src[doc[len(doc)-1].End:t.Start]), "\n") > 1 {
				doc = doc[:0]
			}
			doc = append(doc, t)
			continue
		}
		if t.Kind == sqlscan.Punct && src[t.Start] == ';' {
			doc = doc[:0]
			continue
		}
		if len(doc) > 0 && strings.Count(string(src[doc[len(doc)-1].End:t.Start]), "\n") > 1 {
			doc = doc[:0]
		}
		if !t.Is(src, "macro") {
			bad(t.Start, t.End, "expected MACRO name(params) AS …; a macro file holds macro definitions only")
			skipStatement(src, sc)
			doc = doc[:0]
			continue
		}
		d := &Def{File: file, Src: src, Start: t.Start, Doc: docText(src, doc), txt: ft}
		doc = doc[:0]
		nt := next()
		if nt.Kind != sqlscan.Ident && nt.Kind != sqlscan.Macro {
			bad(nt.Start, max(nt.End, nt.Start+1), "expected the macro's name after MACRO")
			skipStatement(src, sc)
			continue
		}
		if nt.Kind == sqlscan.Macro { // MACRO @name(…) reads too
			nt.Start++
			nt.End = sqlscan.IdentEnd(src, nt.Start)
			sc = sqlscan.NewScanner(src, nt.End)
		}
		d.Name, d.NameStart, d.NameEnd = string(src[nt.Start:nt.End]), nt.Start, nt.End
		if reserved(strings.ToLower(d.Name)) {
			bad(nt.Start, nt.End, "@"+d.Name+" is a built-in macro: name yours otherwise")
		}
		p := next()
		if p.Kind != sqlscan.Punct || src[p.Start] != '(' {
			bad(p.Start, max(p.End, p.Start+1), "expected ( and the parameters after the macro's name: MACRO "+d.Name+"(a, b) AS …")
			skipStatement(src, sc)
			continue
		}
		args, closeAt, end := parseArgs(src, p.Start, len(src), &raw)
		if closeAt < 0 {
			bad(p.Start, p.End, "expected ) after the parameters of "+d.Name)
			continue
		}
		seen := map[string]bool{}
		for _, a := range args {
			name, s, e := a.name, a.nameStart, a.nameEnd
			if name == "" {
				e = sqlscan.IdentEnd(src, a.start)
				if !sqlscan.IsIdentStart(src, a.start) || e != a.end {
					bad(a.start, max(a.end, a.start+1), "expected a parameter name, or name := default")
					continue
				}
				name, s = strings.ToLower(string(src[a.start:e])), a.start
			}
			if seen[name] {
				bad(s, e, "parameter "+name+" is given twice")
			}
			seen[name] = true
			pm := Param{Name: name, Start: s, End: a.end}
			if a.name != "" {
				def := a
				pm.Default = &def
			}
			d.Params = append(d.Params, pm)
		}
		sc = sqlscan.NewScanner(src, end)
		as := next()
		if !as.Is(src, "as") {
			bad(as.Start, max(as.End, as.Start+1), "expected AS and the macro's SQL after its parameters")
			skipStatement(src, sc)
			continue
		}
		d.BodyStart = sqlscan.SkipBlank(src, as.End)
		stop := skipStatement(src, sc)
		d.End = stop
		d.BodyEnd = trimArg(src, d.BodyStart, bodyStop(src, stop)).end
		if d.BodyEnd <= d.BodyStart {
			bad(d.Start, as.End, "the macro "+d.Name+" has no SQL after AS")
		}
		d.body = parseNodes(src, d.BodyStart, d.BodyEnd, &raw)
		defs = append(defs, d)
	}
	probs := make([]Problem, 0, len(raw))
	for _, r := range raw {
		probs = append(probs, Problem{File: file, Start: r.start, End: r.end, Code: r.code, Message: r.msg})
	}
	return defs, probs
}

// bodyStop is where a definition's SQL ends: before the ";" at stop-1.
func bodyStop(src []byte, stop int) int {
	if stop > 0 && stop <= len(src) && src[stop-1] == ';' {
		return stop - 1
	}
	return stop
}

// skipStatement reads to after the next ";" outside parentheses (or to the
// end) and returns that offset.
func skipStatement(src []byte, sc *sqlscan.Scanner) int {
	depth := 0
	for {
		t := sc.Next()
		switch {
		case t.Kind == sqlscan.EOF:
			return t.End
		case t.Kind != sqlscan.Punct:
		case src[t.Start] == '(':
			depth++
		case src[t.Start] == ')':
			depth = max(depth-1, 0)
		case src[t.Start] == ';' && depth == 0:
			return t.End
		}
	}
}

// docText is the text of the comments above a definition.
func docText(src []byte, toks []sqlscan.Token) string {
	var lines []string
	for _, t := range toks {
		s := string(src[t.Start:t.End])
		if strings.HasPrefix(s, "--") {
			lines = append(lines, strings.TrimSpace(strings.TrimPrefix(s, "--")))
			continue
		}
		s = strings.TrimSuffix(strings.TrimPrefix(s, "/*"), "*/")
		for _, l := range strings.Split(s, "\n") {
			l = strings.TrimSpace(l)
			l = strings.TrimSpace(strings.TrimPrefix(l, "*"))
			lines = append(lines, l)
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// CallAt is the call written at src[at] (an @ followed by a name and
// "("): its name, arguments and end, as the expander reads them.
func CallAt(src []byte, at int) (Call, bool) {
	if at >= len(src) || src[at] != '@' || !sqlscan.IsIdentStart(src, at+1) {
		return Call{}, false
	}
	wordEnd := sqlscan.IdentEnd(src, at+1)
	p := sqlscan.SkipBlank(src, wordEnd)
	if p >= len(src) || src[p] != '(' {
		return Call{}, false
	}
	var raw []rawProblem
	args, closeAt, end := parseArgs(src, p, len(src), &raw)
	c := Call{Name: strings.ToLower(string(src[at+1 : wordEnd])), Start: at, End: end, NameStart: at + 1, NameEnd: wordEnd, Close: closeAt}
	for _, a := range args {
		c.Args = append(c.Args, CallArg{Name: a.name, Start: a.start, End: a.end})
	}
	return c, true
}
