// Package format decides the one canonical layout of a model file: the
// MODEL header one property per line with a two-space indent, kind names
// upper case and their option names lower case; the body with keywords
// upper case, clause keywords at the start of a line, subqueries and CTEs
// indented, and one select column per line once the list does not fit the
// width.
//
// It reads SQL only through sqlscan (no second tokenizer) and works on
// tokens: strings, quoted identifiers, numbers and @-macros are copied
// byte for byte, every comment is kept where it was (on its own line or
// after the token it followed), and only the blanks between tokens and the
// case of keywords change. Before returning, it checks that the result
// holds the same tokens as the input (keywords compared without case) and
// refuses otherwise; the layout is idempotent: formatting the result again
// gives the result.
//
// Whether the model's fingerprint is unchanged is not decided here (it
// needs the engine's canonical form): the workspace checks it before a
// file is written. This package knows nothing of projects or engines.
package format

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/efmesh/efmesh/sqlscan"
)

// Width is the line width past which a select list is written one column
// per line, and a condition broken before its top-level AND and OR.
const Width = 100

// Source formats one model file (header and body) and returns its
// canonical text.
func Source(src []byte) (_ []byte, err error) {
	defer func() {
		// A layout bug must not take an editor or a command down: the file
		// is then left as it is.
		if r := recover(); r != nil {
			err = fmt.Errorf("format: internal error: %v", r)
		}
	}()
	toks := lex(src)
	p := &printer{fresh: true}
	i := 0
	// Comments before the header stay before it, each on its own line.
	for i < len(toks) && toks[i].Kind == sqlscan.Comment {
		p.comment(toks[i])
		i++
	}
	if i < len(toks) && (toks[i].is("model") || toks[i].is("audit")) && i+1 < len(toks) && toks[i+1].text == "(" {
		i = formatHeader(p, toks, i)
		body := append([]tok(nil), toks[i:]...)
		rematch(body)
		if len(body) > 0 {
			p.newline(0)
			p.blank()
		}
		p.keepBlanks = true
		formatBody(p, body)
	} else {
		body := append([]tok(nil), toks[i:]...)
		rematch(body)
		p.keepBlanks = true
		formatBody(p, body)
	}
	if p.len() > 0 {
		p.newline(0)
	}
	out := p.bytes()
	if err := sameTokens(src, out); err != nil {
		// An open string, comment or @ref( at the end swallows the last
		// line break: leave it out.
		trimmed := bytes.TrimSuffix(out, []byte("\n"))
		if sameTokens(src, trimmed) != nil {
			return nil, err
		}
		out = trimmed
	}
	return out, nil
}

// tok is a token with what the layout needs of its surroundings.
type tok struct {
	sqlscan.Token
	text string
	// nlBefore and nlAfter: a line break separates the token from the one
	// before (or it starts the file) and from the one after. Only comments
	// use them: an own-line comment stays on its own line.
	nlBefore, nlAfter bool
	// blankBefore: an empty line separates the token from the one before.
	// In a body it is kept where the layout starts a line with the token.
	blankBefore bool
	// match is the index of the matching bracket, -1 for other tokens.
	match int
}

func (t tok) is(kw string) bool { return t.Kind == sqlscan.Ident && strings.EqualFold(t.text, kw) }

func lex(src []byte) []tok {
	var out []tok
	s := sqlscan.NewScanner(src, 0)
	prevEnd := 0
	for {
		t := s.Next()
		if t.Kind == sqlscan.EOF {
			if n := len(out); n > 0 {
				out[n-1].nlAfter = true
			}
			break
		}
		gap := src[prevEnd:t.Start]
		nl := len(out) == 0 || bytes.ContainsAny(gap, "\n\r")
		if n := len(out); n > 0 {
			out[n-1].nlAfter = nl
		}
		blank := len(out) > 0 && (bytes.Count(gap, []byte("\n")) >= 2 || !bytes.Contains(gap, []byte("\n")) && bytes.Count(gap, []byte("\r")) >= 2)
		out = append(out, tok{Token: t, text: t.Text(src), nlBefore: nl, blankBefore: blank, match: -1})
		prevEnd = t.End
	}
	rematch(out)
	out = glueMacros(src, out)
	rematch(out)
	return out
}

// glueMacros makes one token, written as it stands, of each macro call
// (@name(…) up to its closing parenthesis) and of each name a value is
// spliced into (@{x}, with the word parts glued to it: tbl_@{x}_day). A
// call's arguments are not SQL alone (lambdas x -> …, name := value,
// @{x}, clauses such as @IF(cond, WHERE …)), and a splice is one name:
// the layout moves them as a whole and never changes their text. @ref(…)
// is one token already.
func glueMacros(src []byte, toks []tok) []tok {
	out := make([]tok, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.Kind == sqlscan.Macro && !strings.Contains(t.text, "(") && i+1 < len(toks) &&
			toks[i+1].Start == t.End && toks[i+1].Kind == sqlscan.Punct && toks[i+1].text == "(" && toks[i+1].match > i+1:
			m := toks[i+1].match
			out = append(out, glued(src, t, toks[m], sqlscan.Macro))
			i = m
		case splice(toks, i):
			first := t
			// The word parts glued before it (tbl_@{x}).
			for n := len(out); n > 0 && out[n-1].End == first.Start && out[n-1].Kind == sqlscan.Ident; n = len(out) {
				first = out[n-1]
				out = out[:n-1]
			}
			// And after it (@{x}_day, @{x}@{y}).
			j := toks[i+1].match
			for j+1 < len(toks) && toks[j+1].Start == toks[j].End {
				if toks[j+1].Kind == sqlscan.Ident || toks[j+1].Kind == sqlscan.Number {
					j++
				} else if splice(toks, j+1) {
					j = toks[j+2].match
				} else {
					break
				}
			}
			out = append(out, glued(src, first, toks[j], sqlscan.Ident))
			i = j
		default:
			out = append(out, t)
		}
	}
	return out
}

// splice reports whether toks[i] starts @{name}: an @ with { glued to it.
func splice(toks []tok, i int) bool {
	return toks[i].Kind == sqlscan.Op && toks[i].text == "@" && i+1 < len(toks) && toks[i+1].Start == toks[i].End &&
		toks[i+1].Kind == sqlscan.Punct && toks[i+1].text == "{" && toks[i+1].match > i+1
}

// glued is first to last as one token of kind k, its text as written.
func glued(src []byte, first, last tok, k sqlscan.Kind) tok {
	t := first
	t.Token = sqlscan.Token{Kind: k, Start: first.Start, End: last.End}
	t.text = string(src[first.Start:last.End])
	t.nlAfter = last.nlAfter
	t.match = -1
	return t
}

// rematch sets the bracket matches of toks, counted within toks.
func rematch(out []tok) {
	var stack []int
	for i := range out {
		out[i].match = -1
	}
	for i, t := range out {
		if t.Kind != sqlscan.Punct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			stack = append(stack, i)
		case ")", "]", "}":
			pair := map[string]string{")": "(", "]": "[", "}": "{"}[t.text]
			if n := len(stack); n > 0 && out[stack[n-1]].text == pair {
				out[stack[n-1]].match, out[i].match = i, stack[n-1]
				stack = stack[:n-1]
			}
		}
	}
}

// formatHeader writes MODEL ( … ) and the ; after it, and returns the index
// of the first token after the header.
func formatHeader(p *printer, toks []tok, i int) int {
	p.word(strings.ToUpper(toks[i].text))
	p.text(" (", false)
	open := i + 1
	end := toks[open].match
	if end < 0 {
		end = len(toks)
	}
	// Properties are separated by the commas directly inside the header.
	var props [][]tok
	cur := []tok{}
	for j := open + 1; j < end; j++ {
		t := toks[j]
		if t.text == "," && t.Kind == sqlscan.Punct {
			props = append(props, cur)
			cur = []tok{}
			continue
		}
		cur = append(cur, t)
		if t.match > j {
			cur = append(cur, toks[j+1:t.match+1]...)
			j = t.match
		}
	}
	if len(cur) > 0 || len(props) > 0 {
		props = append(props, cur)
	}
	for k, prop := range props {
		// Leading comments: after the previous comma, or on their own lines.
		// A comment on its own line right before the property stays on the
		// property's line (/* why */ grain (id)).
		before := false
		for len(prop) > 0 && prop[0].Kind == sqlscan.Comment {
			before = prop[0].nlBefore || k == 0
			if !prop[0].nlBefore && k > 0 {
				p.comment(prop[0])
			} else {
				p.newline(2)
				p.comment(prop[0])
			}
			prop = prop[1:]
		}
		if len(prop) == 0 {
			// An empty property (a stray comma) keeps its comma.
			if k < len(props)-1 {
				p.punct(",")
			}
			continue
		}
		if !before || p.brk {
			p.newline(2)
		}
		// Comments after the property's value follow its comma, so a line
		// comment does not push the comma onto a line of its own.
		n := len(prop)
		for n > 0 && prop[n-1].Kind == sqlscan.Comment {
			n--
		}
		trailing := prop[n:]
		prop = append([]tok(nil), prop[:n]...)
		rematch(prop)
		kind := normalizeProperty(prop)
		e := &emitter{p: p, toks: prop, indent: 4, header: true, kind: kind}
		e.property()
		if k < len(props)-1 {
			p.punct(",")
		}
		for _, c := range trailing {
			p.comment(c)
		}
	}
	if end >= len(toks) {
		return end
	}
	p.newline(0)
	p.punct(toks[end].text)
	j := end + 1
	if j < len(toks) && toks[j].text == ";" {
		p.punct(";")
		j++
	}
	// A comment after the header on the same line stays there.
	for j < len(toks) && toks[j].Kind == sqlscan.Comment && !toks[j].nlBefore {
		p.comment(toks[j])
		j++
	}
	return j
}

// normalizeProperty lower-cases a property's name and, for kind, upper-cases
// the kind's name and lower-cases its option names. Values are kept. It
// reports whether the property is the kind.
func normalizeProperty(prop []tok) bool {
	first := -1
	for i, t := range prop {
		if t.Kind != sqlscan.Comment {
			first = i
			break
		}
	}
	if first < 0 || prop[first].Kind != sqlscan.Ident {
		return false
	}
	prop[first].text = strings.ToLower(prop[first].text)
	if prop[first].text != "kind" {
		return false
	}
	k := next(prop, first)
	if k >= len(prop) || prop[k].Kind != sqlscan.Ident {
		return true
	}
	prop[k].text = strings.ToUpper(prop[k].text)
	o := next(prop, k)
	if o >= len(prop) || prop[o].text != "(" {
		return true
	}
	depth := 0
	wantName := true
	for j := o; j < len(prop); j++ {
		t := prop[j]
		switch {
		case t.Kind == sqlscan.Comment:
			continue
		case t.text == "(" || t.text == "[" || t.text == "{":
			depth++
			wantName = depth == 1
			continue
		case t.text == ")" || t.text == "]" || t.text == "}":
			depth--
		case depth == 1 && t.text == ",":
			wantName = true
			continue
		case depth == 1 && wantName && t.Kind == sqlscan.Ident:
			prop[j].text = strings.ToLower(t.text)
		}
		wantName = false
	}
	return true
}

// property writes a header property on its line; when it does not fit or
// holds a line comment, the items of its first bracket go one per line.
func (e *emitter) property() {
	n := len(e.toks)
	if e.fits(0, n) {
		e.flat(0, n)
		return
	}
	for k, t := range e.toks {
		if t.text == "(" && t.Kind == sqlscan.Punct && t.match > k {
			e.flat(0, k+1)
			e.list(k+1, t.match, 4, true)
			e.p.newline(2)
			e.prev = nil
			e.flat(t.match, n)
			return
		}
	}
	e.flat(0, n)
}

// next returns the index of the first non-comment token after i.
func next(toks []tok, i int) int {
	for i++; i < len(toks) && toks[i].Kind == sqlscan.Comment; i++ {
	}
	return i
}

// formatBody writes the statements of a body, a blank line between them.
func formatBody(p *printer, toks []tok) {
	start := 0
	e := &emitter{p: p, toks: toks}
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && !(toks[i].text == ";" && toks[i].Kind == sqlscan.Punct) {
			if toks[i].match > i {
				i = toks[i].match
			}
			continue
		}
		if start < i {
			e.query(start, i, 0)
		}
		if i < len(toks) {
			p.punct(";")
			def := defStatement(toks[start:i])
			// Comments after the ; on its line stay there.
			for i+1 < len(toks) && toks[i+1].Kind == sqlscan.Comment && !toks[i+1].nlBefore {
				i++
				p.comment(toks[i])
			}
			if i+1 < len(toks) {
				p.newline(0)
				// The @DEF(…); statements before a query are each on a
				// line, together (a blank line between them is kept).
				if !def {
					p.blank()
				}
			}
		}
		start = i + 1
	}
	if p.len() > 0 {
		p.newline(0)
	}
}

// defStatement reports whether toks (a statement, without its ;) is a
// @DEF(name, value) call.
func defStatement(toks []tok) bool {
	n := 0
	def := false
	for _, t := range toks {
		if t.Kind == sqlscan.Comment {
			continue
		}
		n++
		def = t.Kind == sqlscan.Macro && len(t.text) > 5 && strings.EqualFold(t.text[:5], "@def(")
	}
	return n == 1 && def
}

// sameTokens checks that out holds src's tokens in the same order:
// identifiers compared without case, everything else byte for byte. The
// comments are compared as a sequence of their own: the header writes a
// comment that followed a property's value after the property's comma.
func sameTokens(src, out []byte) error {
	if err := sameTokensOf(src, out, false); err != nil {
		return err
	}
	return sameTokensOf(src, out, true)
}

// sameTokensOf compares the comments of src and out (comments set) or
// their other tokens.
func sameTokensOf(src, out []byte, comments bool) error {
	a, b := sqlscan.NewScanner(src, 0), sqlscan.NewScanner(out, 0)
	nextOf := func(s *sqlscan.Scanner) sqlscan.Token {
		for {
			t := s.Next()
			if t.Kind == sqlscan.EOF || (t.Kind == sqlscan.Comment) == comments {
				return t
			}
		}
	}
	for {
		x, y := nextOf(a), nextOf(b)
		tx, ty := x.Text(src), y.Text(out)
		same := x.Kind == y.Kind && (tx == ty || x.Kind == sqlscan.Ident && strings.EqualFold(tx, ty))
		if !same {
			return fmt.Errorf("format: the layout would change the token %q at byte %d into %q", tx, x.Start, ty)
		}
		if x.Kind == sqlscan.EOF {
			return nil
		}
	}
}

// printer builds the output text line by line.
type printer struct {
	b      []byte
	col    int  // runes on the current line
	indent int  // indent of the current line
	fresh  bool // the current line holds nothing yet
	// brk: a line comment ended the last token, so the next one starts a
	// new line.
	brk bool
	// keepBlanks: an empty line before a token that starts a line is kept
	// (in a body; at most one).
	keepBlanks bool
}

func (p *printer) bytes() []byte { return p.b }
func (p *printer) len() int      { return len(p.b) }

// newline starts a new line indented by n spaces, unless the current line
// is still empty (then it only takes the new indent).
func (p *printer) newline(n int) {
	p.brk = false
	if len(p.b) == 0 {
		p.indent, p.fresh = n, true
		return
	}
	if p.fresh {
		p.indent = n
		return
	}
	p.b = append(p.b, '\n')
	p.col, p.indent, p.fresh = 0, n, true
}

// blank ends the current line with an empty line after it.
func (p *printer) blank() {
	if len(p.b) > 0 && !bytes.HasSuffix(p.b, []byte("\n\n")) {
		p.b = append(p.b, '\n')
	}
}

// text writes s, after a space when space is set and the line is not
// empty.
func (p *printer) text(s string, space bool) {
	if p.brk {
		p.newline(p.indent)
	}
	if p.fresh {
		for range p.indent {
			p.b = append(p.b, ' ')
		}
		p.col = p.indent
		p.fresh = false
	} else if space {
		p.b = append(p.b, ' ')
		p.col++
	}
	p.b = append(p.b, s...)
	if k := strings.LastIndexAny(s, "\n\r"); k >= 0 {
		p.col = utf8.RuneCountInString(s[k+1:])
	} else {
		p.col += utf8.RuneCountInString(s)
	}
}

func (p *printer) word(s string)  { p.text(s, true) }
func (p *printer) punct(s string) { p.text(s, false) }

// comment writes a comment where it was: on its own line when it stood on
// its own line, else after what precedes it; a line comment, or one a line
// break followed, ends its line.
func (p *printer) comment(t tok) { p.commentSpaced(t, true) }

// commentSpaced is comment, with no space before a comment that stays on
// its line when space is unset.
func (p *printer) commentSpaced(t tok, space bool) {
	if t.nlBefore && !p.fresh {
		p.newline(p.indent)
	}
	p.keepBlank(t)
	p.text(t.text, space || t.nlBefore)
	if strings.HasPrefix(t.text, "--") || t.nlAfter {
		p.brk = true
	}
}

// keepBlank writes the empty line that stood before t when t starts a line
// of a body (after a line comment, or where the layout broke the line).
func (p *printer) keepBlank(t tok) {
	if !t.blankBefore || !p.keepBlanks {
		return
	}
	if p.brk {
		p.newline(p.indent)
	}
	if p.fresh {
		p.blank()
	}
}
