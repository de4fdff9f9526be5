package lsp

import (
	"strings"
)

// A lexical reader of SQL bodies. It never fails: the editor asks about
// text that is half typed, so every byte becomes part of some token and
// positions are always byte offsets into the file. The engine's parser is
// the authority on syntax (diagnostics come from it); this reader only
// finds names, aliases and select items for hover, navigation and
// completion.

type tokKind uint8

const (
	tkIdent  tokKind = iota // plain identifier or keyword; val is lower case
	tkQuoted                // "quoted identifier"; val is unquoted, case kept
	tkString                // 'string'
	tkNumber
	tkPunct // ( ) , ; . [ ] { }
	tkOp    // operators: + - * / :: -> >= …
	tkMacro // @name; for @ref(x) the whole call, val "ref" and arg x
	tkParam // $name, ?
)

type sqlToken struct {
	kind       tokKind
	start, end int
	val        string
	// for @ref(x): the model name and its span
	arg              string
	argStart, argEnd int
}

func (t sqlToken) isIdent() bool { return t.kind == tkIdent || t.kind == tkQuoted }

// is reports whether t is the unquoted keyword kw (lower case).
func (t sqlToken) is(kw string) bool { return t.kind == tkIdent && t.val == kw }

func (t sqlToken) isPunct(p string) bool { return t.kind == tkPunct && t.val == p }

// scanSQL tokenizes src[from:to], skipping whitespace and comments.
func scanSQL(src []byte, from, to int) []sqlToken {
	to = min(to, len(src))
	var toks []sqlToken
	i := max(from, 0)
	for i < to {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < to && src[i+1] == '-':
			for i < to && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < to && src[i+1] == '*':
			j := i + 2
			for j+1 < to && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			i = min(j+2, to)
		case c == '\'':
			j := skipQuoted(src, i, to, '\'')
			toks = append(toks, sqlToken{kind: tkString, start: i, end: j, val: string(src[i:j])})
			i = j
		case c == '"':
			j := skipQuoted(src, i, to, '"')
			val := string(src[i+1 : j])
			if j-i >= 2 && src[j-1] == '"' {
				val = string(src[i+1 : j-1]) // closed
			}
			toks = append(toks, sqlToken{kind: tkQuoted, start: i, end: j, val: strings.ReplaceAll(val, `""`, `"`)})
			i = j
		case c == '@':
			toks = append(toks, scanMacroToken(src, i, to))
			i = toks[len(toks)-1].end
		case c == '$' || c == '?':
			j := i + 1
			for j < to && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, sqlToken{kind: tkParam, start: i, end: j, val: string(src[i:j])})
			i = j
		case isDigit(c) || (c == '.' && i+1 < to && isDigit(src[i+1])):
			j := i
			for j < to && (isDigit(src[j]) || src[j] == '.' || src[j] == '_' ||
				((src[j] == 'e' || src[j] == 'E') && j+1 < to && (isDigit(src[j+1]) || src[j+1] == '-' || src[j+1] == '+')) ||
				((src[j] == '-' || src[j] == '+') && j > i && (src[j-1] == 'e' || src[j-1] == 'E'))) {
				j++
			}
			toks = append(toks, sqlToken{kind: tkNumber, start: i, end: j, val: string(src[i:j])})
			i = j
		case isWordStart(c):
			j := i
			for j < to && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, sqlToken{kind: tkIdent, start: i, end: j, val: strings.ToLower(string(src[i:j]))})
			i = j
		case strings.IndexByte("(),;.[]{}", c) >= 0:
			toks = append(toks, sqlToken{kind: tkPunct, start: i, end: i + 1, val: string(c)})
			i++
		default:
			j := i + 1
			if strings.IndexByte("+-*/<>=~!|&%^:#", c) >= 0 {
				for j < to && strings.IndexByte("+-*/<>=~!|&%^:#", src[j]) >= 0 &&
					!(src[j] == '-' && j+1 < to && src[j+1] == '-') && !(src[j] == '/' && j+1 < to && src[j+1] == '*') {
					j++
				}
			}
			toks = append(toks, sqlToken{kind: tkOp, start: i, end: j, val: string(src[i:j])})
			i = j
		}
	}
	return toks
}

// scanMacroToken reads @name, and for @ref( … ) the whole call up to its
// closing parenthesis when the argument is a plain model name.
func scanMacroToken(src []byte, i, to int) sqlToken {
	j := i + 1
	for j < to && isWordByte(src[j]) {
		j++
	}
	t := sqlToken{kind: tkMacro, start: i, end: j, val: strings.ToLower(string(src[i+1 : j]))}
	if t.val != "ref" {
		return t
	}
	k := j
	for k < to && (src[k] == ' ' || src[k] == '\t') {
		k++
	}
	if k >= to || src[k] != '(' {
		return t
	}
	k++
	for k < to && (src[k] == ' ' || src[k] == '\t') {
		k++
	}
	as := k
	for k < to && (isWordByte(src[k]) || src[k] == '.' || src[k] == '"') {
		k++
	}
	ae := k
	for k < to && (src[k] == ' ' || src[k] == '\t') {
		k++
	}
	t.arg = strings.ToLower(strings.ReplaceAll(string(src[as:ae]), `"`, ""))
	t.argStart, t.argEnd = as, ae
	if k < to && src[k] == ')' {
		t.end = k + 1
	} else {
		t.end = ae // unclosed while typing
	}
	return t
}

// skipQuoted returns the offset after the quoted token starting at i,
// honouring doubled quotes; an unclosed token runs to the end of the line
// being typed so the rest of the body still scans.
func skipQuoted(src []byte, i, to int, q byte) int {
	j := i + 1
	for j < to {
		if src[j] == q {
			if j+1 < to && src[j+1] == q {
				j += 2
				continue
			}
			return j + 1
		}
		if src[j] == '\n' && q == '"' {
			return j
		}
		j++
	}
	return to
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isWordStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
func isWordByte(c byte) bool { return isWordStart(c) || isDigit(c) || c == '$' }

// tokenAt returns the index of the token containing offset (start <= off <
// end, or off == end for the token just before the cursor), or -1.
func tokenAt(toks []sqlToken, off int) int {
	for i, t := range toks {
		if off >= t.start && off < t.end {
			return i
		}
	}
	for i, t := range toks {
		if off == t.end {
			return i
		}
	}
	return -1
}

// lastSignificant returns the end of the last token of src[from:], ignoring
// trailing semicolons: the body without its statement terminator and
// trailing comments, so it can be wrapped.
func lastSignificant(src []byte, from int) int {
	toks := scanSQL(src, from, len(src))
	for i := len(toks) - 1; i >= 0; i-- {
		if !toks[i].isPunct(";") {
			return toks[i].end
		}
	}
	return from
}
