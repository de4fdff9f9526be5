package project

import (
	"slices"
	"strings"
)

// Reading property values: a cursor over one value's tokens and the
// readers for identifiers, keywords, strings, groups and name lists.

// cursor walks the tokens of one value.
type cursor struct {
	toks []token
	i    int
	end  int // offset used to position "missing" errors once toks run out
}

func newCursor(toks []token, end int) *cursor {
	if len(toks) > 0 {
		end = toks[len(toks)-1].end
	}
	return &cursor{toks: toks, end: end}
}

func (c *cursor) done() bool { return c.i >= len(c.toks) }

func (c *cursor) peek() token {
	if c.i < len(c.toks) {
		return c.toks[c.i]
	}
	return token{kind: tokEOF, start: c.end, end: c.end}
}

func (c *cursor) next() token {
	t := c.peek()
	if c.i < len(c.toks) {
		c.i++
	}
	return t
}

func (c *cursor) rest() []token { return c.toks[c.i:] }

// span returns the byte range covered by toks.
func span(toks []token) (start, end int) {
	if len(toks) == 0 {
		return 0, 0
	}
	return toks[0].start, toks[len(toks)-1].end
}

// ident reads one undotted identifier (a column or a keyword-like value).
func (p *headerParser) ident(c *cursor, what string) (token, bool) {
	t := c.next()
	if t.kind != tokIdent || t.parts != 1 {
		p.errorf(t.start, t.end, CodeBadValue, "expected %s, found %s", what, p.describe(t))
		return t, false
	}
	return t, true
}

// keyword reads an identifier that must be one of choices (case-insensitive)
// and returns it lower-cased.
func (p *headerParser) keyword(c *cursor, what string, choices ...string) (string, bool) {
	t := c.next()
	if t.kind == tokIdent && t.parts == 1 && !t.quoted {
		v := strings.ToLower(t.val)
		if slices.Contains(choices, v) {
			return v, true
		}
	}
	p.errorf(t.start, t.end, CodeBadValue, "%s must be %s, found %s", what, strings.Join(choices, " or "), p.describe(t))
	return "", false
}

func (p *headerParser) str(c *cursor, what string) (token, bool) {
	t := c.next()
	if t.kind != tokString {
		p.errorf(t.start, t.end, CodeBadValue, "%s must be a 'quoted string', found %s", what, p.describe(t))
		return t, false
	}
	return t, true
}

// group parses "( item, item, … )" at the cursor and returns the items split
// at top-level commas. A trailing comma is accepted.
func (p *headerParser) group(c *cursor) (items [][]token, ok bool) {
	open := c.next()
	if !open.isPunct("(") {
		p.errorf(open.start, open.end, CodeHeaderSyntax, "expected (, found %s", p.describe(open))
		return nil, false
	}
	depth := 0
	var cur []token
	for !c.done() {
		t := c.next()
		switch {
		case t.isPunct(")") && depth == 0:
			if len(cur) > 0 {
				items = append(items, cur)
			}
			return items, true
		case t.isPunct(",") && depth == 0:
			if len(cur) == 0 {
				p.errorf(t.start, t.end, CodeHeaderSyntax, "expected a value before ,")
			} else {
				items = append(items, cur)
			}
			cur = nil
			continue
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case (t.isPunct(")") || t.isPunct("]")) && depth > 0:
			depth--
		}
		cur = append(cur, t)
	}
	p.errorf(open.start, open.end, CodeHeaderSyntax, "this ( is never closed: expected )")
	return nil, false
}

// nameList parses "(a, b)" or a single "a" into identifier values. With
// strings, 'quoted' items are accepted too (tags).
func (p *headerParser) nameList(c *cursor, what string, allowStrings bool) ([]string, bool) {
	item := func(toks []token) (string, bool) {
		if len(toks) == 1 {
			t := toks[0]
			if t.kind == tokIdent && t.parts == 1 {
				return t.val, true
			}
			if allowStrings && t.kind == tokString {
				return t.val, true
			}
		}
		s, e := span(toks)
		p.errorf(s, e, CodeBadValue, "expected %s, found %s", what, p.describeSpan(toks))
		return "", false
	}
	if !c.peek().isPunct("(") {
		v, ok := item([]token{c.next()})
		if !ok {
			return nil, false
		}
		return []string{v}, true
	}
	items, ok := p.group(c)
	if !ok {
		return nil, false
	}
	out := []string{}
	for _, it := range items {
		if v, ok := item(it); ok {
			out = append(out, v)
		}
	}
	return out, true
}

// joinTokens renders tokens as written, with whitespace normalized: one
// space between words, none inside brackets or before commas. A type written
// as DECIMAL ( 10,2 ) reads DECIMAL(10, 2).
func (p *headerParser) joinTokens(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			prev := toks[i-1]
			space := true
			switch {
			case t.kind == tokPunct && strings.Contains("),].", t.val):
				space = false
			case t.isPunct("(") || t.isPunct("["):
				space = prev.kind == tokPunct && prev.val == ","
			case prev.kind == tokPunct && strings.Contains("([.", prev.val):
				space = false
			}
			if space {
				b.WriteByte(' ')
			}
		}
		b.Write(p.src[t.start:t.end])
	}
	return b.String()
}
