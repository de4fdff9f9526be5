package sqlmeshimport

import (
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// This file reads sqlmesh's MODEL (…) and AUDIT (…) headers: a small,
// tolerant reader over sqlscan's tokens. sqlmesh's header grammar is wider
// than efmesh's (kind options efmesh lacks, [a, b] lists, "double quoted"
// strings, name := value pairs, trailing commas), so the converter reads
// it as property names and token runs, and maps each one it knows.

// block is one MODEL or AUDIT header: its properties in written order.
type block struct {
	word       string // "model" or "audit"
	start, end int    // the header, from its keyword to after its ')' (and ';')
	props      []prop
	closed     bool // the '(' found its ')'
}

// prop is one property: its name and the tokens of its value.
type prop struct {
	name       string // lower case
	nameStart  int
	start, end int // the value as written; start == end when there is none
	toks       []sqlscan.Token
}

// reader holds a file's tokens.
type reader struct {
	src  []byte
	toks []sqlscan.Token
}

func newReader(src []byte) *reader {
	return &reader{src: src, toks: sqlscan.Tokens(src, 0)}
}

// headerAt reads a header whose keyword word is the token at i (which must
// be followed by '('); next is the index of the first token after it.
func (r *reader) headerAt(i int, word string) (b *block, next int) {
	b = &block{word: word, start: r.toks[i].Start}
	b.props, next, b.closed = r.props(i + 1)
	b.end = r.toks[next-1].End
	if next < len(r.toks) && r.isPunct(next, ";") {
		b.end = r.toks[next].End
		next++
	}
	return b, next
}

// props reads `( name value, name value, … )` from the '(' at index open;
// next is after its ')'.
func (r *reader) props(open int) (props []prop, next int, closed bool) {
	i := open + 1
	for i < len(r.toks) {
		if r.isPunct(i, ")") {
			return props, i + 1, true
		}
		if r.isPunct(i, ",") {
			i++
			continue
		}
		p := prop{nameStart: r.toks[i].Start}
		if k := r.toks[i].Kind; k == sqlscan.Ident || k == sqlscan.QuotedIdent {
			p.name = strings.ToLower(r.toks[i].Value(r.src))
		}
		i++
		// sqlmesh also accepts name := value and name = value.
		if i < len(r.toks) && r.toks[i].Kind == sqlscan.Op && (r.text(i) == ":=" || r.text(i) == "=") {
			i++
		}
		j := r.valueEnd(i)
		p.toks = r.toks[i:j]
		if j > i {
			p.start, p.end = r.toks[i].Start, r.toks[j-1].End
		} else {
			p.start, p.end = r.toks[i-1].End, r.toks[i-1].End
		}
		props = append(props, p)
		i = j
	}
	return props, len(r.toks), false
}

// valueEnd is the index of the ',' or ')' that ends a value starting at i,
// at its own depth.
func (r *reader) valueEnd(i int) int {
	depth := 0
	for ; i < len(r.toks); i++ {
		switch {
		case r.isPunct(i, "(") || r.isPunct(i, "["):
			depth++
		case r.isPunct(i, ")") || r.isPunct(i, "]"):
			if depth == 0 {
				return i
			}
			depth--
		case r.isPunct(i, ",") && depth == 0:
			return i
		}
	}
	return i
}

func (r *reader) isPunct(i int, c string) bool {
	t := r.toks[i]
	return (t.Kind == sqlscan.Punct || t.Kind == sqlscan.Op) && string(r.src[t.Start:t.End]) == c
}

func (r *reader) text(i int) string { return r.toks[i].Text(r.src) }

// index is the index of the token starting at offset off.
func (r *reader) index(off int) int {
	for i, t := range r.toks {
		if t.Start >= off {
			return i
		}
	}
	return len(r.toks)
}

// value is the text of a property's value, as written.
func (b *block) value(src []byte, name string) (string, *prop) {
	for i := range b.props {
		if b.props[i].name == name {
			return string(src[b.props[i].start:b.props[i].end]), &b.props[i]
		}
	}
	return "", nil
}

// scalar is a value as a plain string: a 'string' or "string" unquoted, any
// other value as written.
func scalar(src []byte, p prop) string {
	if len(p.toks) == 1 {
		if k := p.toks[0].Kind; k == sqlscan.String || k == sqlscan.QuotedIdent {
			return p.toks[0].Value(src)
		}
	}
	return strings.TrimSpace(string(src[p.start:p.end]))
}

// list reads a value written as (a, b), [a, b] or a alone: the elements as
// written (a string keeps its quotes).
func list(src []byte, p prop) []string {
	toks := p.toks
	if len(toks) >= 2 {
		o, c := toks[0].Text(src), toks[len(toks)-1].Text(src)
		if (o == "(" && c == ")") || (o == "[" && c == "]") {
			toks = toks[1 : len(toks)-1]
			var out []string
			r := &reader{src: src, toks: toks}
			for i := 0; i < len(toks); {
				j := r.valueEnd(i)
				if j > i {
					out = append(out, strings.TrimSpace(string(src[toks[i].Start:toks[j-1].End])))
				}
				i = j + 1
			}
			return out
		}
	}
	if len(toks) == 0 {
		return nil
	}
	return []string{strings.TrimSpace(string(src[p.start:p.end]))}
}

// kindOf reads a kind value: its name and its options, if any.
func kindOf(src []byte, p prop) (name string, opts []prop) {
	if len(p.toks) == 0 {
		return "", nil
	}
	name = strings.ToUpper(p.toks[0].Text(src))
	if len(p.toks) > 1 && p.toks[1].Text(src) == "(" {
		r := &reader{src: src, toks: p.toks}
		opts, _, _ = r.props(1)
	}
	return name, opts
}

// callArgs reads an audit call's keyword arguments, name := value: the
// arguments by name; positional ones get the names "0", "1", ….
func callArgs(src []byte, toks []sqlscan.Token) (name string, args map[string]prop, ok bool) {
	if len(toks) == 0 || toks[0].Kind != sqlscan.Ident {
		return "", nil, false
	}
	name = strings.ToLower(toks[0].Text(src))
	args = map[string]prop{}
	if len(toks) == 1 {
		return name, args, true
	}
	if toks[1].Text(src) != "(" || toks[len(toks)-1].Text(src) != ")" {
		return "", nil, false
	}
	inner := toks[2 : len(toks)-1]
	for i, n := 0, 0; i < len(inner); {
		ir := &reader{src: src, toks: inner}
		j := ir.valueEnd(i)
		a := inner[i:j]
		key := ""
		if len(a) >= 2 && a[0].Kind == sqlscan.Ident && a[1].Kind == sqlscan.Op && (a[1].Text(src) == ":=" || a[1].Text(src) == "=") {
			key, a = strings.ToLower(a[0].Text(src)), a[2:]
		} else {
			key = string(rune('0' + n))
			n++
		}
		if len(a) > 0 {
			args[key] = prop{name: key, toks: a, start: a[0].Start, end: a[len(a)-1].End}
		}
		i = j + 1
	}
	return name, args, true
}
