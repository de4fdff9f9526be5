// Package sqlscan reads SQL text as tokens: identifiers, quoted
// identifiers, strings (plain, E'…' and $tag$…$tag$), numbers,
// punctuation, operators, parameters, comments and efmesh's @-macros.
//
// It is the one lexical reader of SQL in efmesh: the project loader finds
// macros with it, the planner positions diagnostics with it, the editor
// reads bodies with it and the engines skip comments with it. It never
// fails and never panics: text that is half typed or does not parse still
// becomes tokens, an unterminated string, quoted identifier or comment runs
// to the end of the input with Token.Unterminated set, and every byte of
// the input is either blank or part of exactly one token.
//
// Offsets are byte offsets into the whole input, so a scan that starts in
// the middle of a file (after a MODEL header) needs no translation.
//
// The package knows SQL's lexical rules as DuckDB and Postgres share them
// and efmesh's macros; it must not import anything of this module, so that
// every layer may use it.
package sqlscan

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of a token.
type Kind uint8

const (
	EOF         Kind = iota // the end of the input; Start == End
	Ident                   // a bare word: a keyword or an unquoted identifier
	QuotedIdent             // "name", with "" standing for "
	String                  // 'text' (quote doubled), E'text' (with \ escapes) or $tag$text$tag$
	Number                  // 12, 1.5, 1e-3
	Punct                   // one of ( ) , ; . [ ] { }
	Op                      // a run of operator characters, or any other single character
	Param                   // ?, $1, $name
	Macro                   // @word; a @ref(…) call is one token up to its ")"
	Comment                 // -- to the end of the line (\n or \r), or /* … */ (nested)
)

var kindNames = [...]string{"EOF", "Ident", "QuotedIdent", "String", "Number", "Punct", "Op", "Param", "Macro", "Comment"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(?)"
}

// Token is one lexeme: src[Start:End].
type Token struct {
	Kind       Kind
	Start, End int
	// Unterminated marks a string, quoted identifier or block comment
	// whose closing delimiter is missing: it runs to the end of the input.
	Unterminated bool
}

// Text returns the token's source text.
func (t Token) Text(src []byte) string { return string(src[t.Start:t.End]) }

// Is reports whether t is the bare word kw, ignoring ASCII case.
func (t Token) Is(src []byte, kw string) bool {
	return t.Kind == Ident && EqualFold(src[t.Start:t.End], kw)
}

// Scanner reads the tokens of src from an offset on.
type Scanner struct {
	src       []byte
	from, pos int
}

// NewScanner returns a scanner of src starting at from. To scan a part of
// a file, pass the file up to the part's end: offsets stay file offsets.
func NewScanner(src []byte, from int) *Scanner {
	from = min(max(from, 0), len(src))
	return &Scanner{src: src, from: from, pos: from}
}

// Pos is the offset the next token is read from.
func (s *Scanner) Pos() int { return s.pos }

// Next returns the next token, comments included, after any blanks; at the
// end it returns EOF tokens.
func (s *Scanner) Next() Token {
	s.pos = SkipSpace(s.src, s.pos)
	// A token glued to a word (a number's end: 1$$, 2E'') does not open a
	// string.
	glued := s.pos > s.from && IsIdentByte(s.src[s.pos-1])
	t := scan(s.src, s.pos, glued)
	s.pos = t.End
	return t
}

// Tokens returns the tokens of src from from on, without comments.
func Tokens(src []byte, from int) []Token {
	var out []Token
	for s := NewScanner(src, from); ; {
		t := s.Next()
		switch t.Kind {
		case EOF:
			return out
		case Comment:
			continue
		}
		out = append(out, t)
	}
}

// scan reads the token at i, which is not blank; glued reports that a word
// byte precedes it.
func scan(src []byte, i int, glued bool) Token {
	if i >= len(src) {
		return Token{Kind: EOF, Start: len(src), End: len(src)}
	}
	c := src[i]
	tok := func(k Kind, end int) Token { return Token{Kind: k, Start: i, End: end} }
	open := func(k Kind, end int, ok bool) Token {
		return Token{Kind: k, Start: i, End: end, Unterminated: !ok}
	}
	switch {
	case c == '-' && at(src, i+1) == '-':
		j := i
		for j < len(src) && src[j] != '\n' && src[j] != '\r' {
			j++
		}
		return tok(Comment, j)
	case c == '/' && at(src, i+1) == '*':
		end, ok := BlockCommentEnd(src, i)
		return open(Comment, end, ok)
	case c == '\'':
		end, ok := QuotedEnd(src, i)
		return open(String, end, ok)
	case c == '"':
		end, ok := QuotedEnd(src, i)
		return open(QuotedIdent, end, ok)
	case (c == 'e' || c == 'E') && at(src, i+1) == '\'' && !glued:
		end, ok := escapeStringEnd(src, i+1)
		return open(String, end, ok)
	case c >= '0' && c <= '9':
		return tok(Number, numberEnd(src, i))
	case c == '@' && IsIdentStart(src, i+1):
		return tok(Macro, macroEnd(src, i))
	case c == '$':
		if tag := dollarTag(src, i); tag > 0 && !glued {
			end, ok := dollarEnd(src, i, tag)
			return open(String, end, ok)
		}
		return tok(Param, IdentEnd(src, i+1))
	case c == '?':
		return tok(Param, i+1)
	case strings.IndexByte("(),;.[]{}", c) >= 0:
		return tok(Punct, i+1)
	case isOpByte(c) || c == '@':
		j := i + 1
		for j < len(src) && (isOpByte(src[j]) || src[j] == '@' && (src[j-1] == '<' || src[j-1] == '@')) &&
			!(src[j] == '-' && at(src, j+1) == '-') && !(src[j] == '/' && at(src, j+1) == '*') {
			j++
		}
		return tok(Op, j)
	case IsIdentStart(src, i):
		return tok(Ident, IdentEnd(src, i))
	}
	_, size := utf8.DecodeRune(src[i:])
	return tok(Op, i+size)
}

// isOpByte reports the characters of operators. @ joins an operator only
// after < or @ (<@, @@), so ts>=@start is an operator and a macro.
func isOpByte(c byte) bool { return strings.IndexByte("+-*/<>=~!|&%^:#", c) >= 0 }

func at(src []byte, i int) byte {
	if i < len(src) {
		return src[i]
	}
	return 0
}

// SkipSpace returns the offset of the first non-blank character at or
// after i. Blanks are ASCII white space, Unicode spaces and the byte order
// mark.
func SkipSpace(src []byte, i int) int {
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r != '\uFEFF' && (r == utf8.RuneError || !unicode.IsSpace(r)) {
			return i
		}
		i += size
	}
	return i
}

// SkipBlank returns the offset of the first character at or after i that
// is neither blank nor part of a comment. An unterminated block comment
// runs to the end.
func SkipBlank(src []byte, i int) int {
	for {
		i = SkipSpace(src, i)
		switch {
		case at(src, i) == '-' && at(src, i+1) == '-':
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				i++
			}
		case at(src, i) == '/' && at(src, i+1) == '*':
			i, _ = BlockCommentEnd(src, i)
		default:
			return i
		}
	}
}

// IsIdentStart reports whether an unquoted identifier starts at src[i]: a
// letter (of any script) or an underscore.
func IsIdentStart(src []byte, i int) bool {
	if i >= len(src) {
		return false
	}
	c := src[i]
	if c < utf8.RuneSelf {
		return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
	}
	r, _ := utf8.DecodeRune(src[i:])
	return r != utf8.RuneError && r != '\uFEFF' && unicode.IsLetter(r)
}

// IdentEnd returns the end of the unquoted identifier continuing at i:
// letters and digits of any script, _ and $.
func IdentEnd(src []byte, i int) int {
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if c == '_' || c == '$' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
				i++
				continue
			}
			return i
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return i
		}
		i += size
	}
	return i
}

// IsIdentByte reports whether c can be part of a word as DuckDB's and
// Postgres's lexers see it: ASCII letters and digits, _, $, and every
// non-ASCII byte. Byte-wise scans (a word's boundaries, a name reported
// whole) use it; tokens use IsIdentStart and IdentEnd.
func IsIdentByte(c byte) bool {
	return c == '_' || c == '$' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c >= utf8.RuneSelf
}

// numberEnd returns the end of the number at i: digits, an optional
// fraction and an optional exponent.
func numberEnd(src []byte, i int) int {
	digits := func() {
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	digits()
	if at(src, i) == '.' && at(src, i+1) >= '0' && at(src, i+1) <= '9' {
		i++
		digits()
	}
	if c := at(src, i); c == 'e' || c == 'E' {
		j := i + 1
		if c := at(src, j); c == '+' || c == '-' {
			j++
		}
		if c := at(src, j); c >= '0' && c <= '9' {
			i = j
			digits()
		}
	}
	return i
}

// QuotedEnd returns the offset after the string or quoted identifier whose
// opening quote is src[i]; a doubled quote stands for itself. When the
// closing quote is missing, end is len(src) and ok is false.
func QuotedEnd(src []byte, i int) (end int, ok bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		if src[j] == q {
			if j+1 < len(src) && src[j+1] == q {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return len(src), false
}

// Unquote returns the value of the string or quoted identifier whose
// opening quote is src[i] (doubled quotes collapsed) and the offset after
// it; ok is false when it is unterminated.
func Unquote(src []byte, i int) (val string, end int, ok bool) {
	end, ok = QuotedEnd(src, i)
	if !ok {
		return "", end, false
	}
	q := string(src[i : i+1])
	return strings.ReplaceAll(string(src[i+1:end-1]), q+q, q), end, true
}

// escapeStringEnd returns the end of the E'…' string whose quote is at i: a
// backslash escapes the next byte.
func escapeStringEnd(src []byte, i int) (int, bool) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\'':
			if j+1 < len(src) && src[j+1] == '\'' {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return len(src), false
}

// dollarTag returns the length of the $tag$ opening a dollar-quoted string
// at src[i] ($$ included), or 0 when the $ opens none (a $1 parameter).
func dollarTag(src []byte, i int) int {
	j := i + 1
	if IsIdentStart(src, j) {
		for j < len(src) && src[j] != '$' && IsIdentByte(src[j]) {
			j++
		}
	}
	if at(src, j) != '$' {
		return 0
	}
	return j + 1 - i
}

// dollarEnd returns the end of the dollar-quoted string at i whose opening
// tag is n bytes long.
func dollarEnd(src []byte, i, n int) (int, bool) {
	tag := src[i : i+n]
	if k := strings.Index(string(src[i+n:]), string(tag)); k >= 0 {
		return i + n + k + n, true
	}
	return len(src), false
}

// BlockCommentEnd returns the offset after the /* comment */ at src[i].
// Block comments nest, as in DuckDB and Postgres. When it never closes,
// end is len(src) and ok is false.
func BlockCommentEnd(src []byte, i int) (end int, ok bool) {
	depth := 0
	for i < len(src) {
		switch {
		case src[i] == '/' && at(src, i+1) == '*':
			depth++
			i += 2
		case src[i] == '*' && at(src, i+1) == '/':
			depth--
			i += 2
			if depth == 0 {
				return i, true
			}
		default:
			i++
		}
	}
	return len(src), false
}

// FoldName is the form of an identifier the engines compare: ASCII
// letters lower-cased, every other character kept. DuckDB binds Käufer
// and käufer (quoted or not) to the same column, but not KÄUFER; straße
// and STRAßE, not STRASSE; Postgres folds unquoted names the same way.
// Unicode case folding (strings.ToLower, strings.EqualFold) would match
// names the engine refuses.
func FoldName(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// SameName reports whether two identifiers name the same column for the
// engine: equal but for ASCII case (see FoldName).
func SameName(a, b string) bool { return EqualFold([]byte(a), b) }

// EqualFold reports whether w is word, ignoring ASCII case.
func EqualFold(w []byte, word string) bool {
	if len(w) != len(word) {
		return false
	}
	for i := range w {
		a, b := w[i], word[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// Value returns what a quoted identifier or a string denotes: the text
// between its quotes with doubled quotes collapsed ('it”s' is it's). An E'…'
// string keeps its backslashes and a $tag$ string its text as written. An
// unterminated token's value runs to its end. Other tokens' value is their
// text.
func (t Token) Value(src []byte) string {
	text := src[t.Start:t.End]
	switch {
	case t.Kind == QuotedIdent || t.Kind == String && text[0] == '\'':
		q := text[:1]
		inner := text[1:]
		if !t.Unterminated {
			inner = inner[:len(inner)-1]
		}
		return strings.ReplaceAll(string(inner), string(q)+string(q), string(q))
	case t.Kind == String && text[0] == '$':
		n := dollarTag(src, t.Start)
		if t.Unterminated {
			return string(text[n:])
		}
		return string(text[n : len(text)-n])
	case t.Kind == String: // E'…'
		inner := text[2:]
		if !t.Unterminated {
			inner = inner[:len(inner)-1]
		}
		return string(inner)
	}
	return string(text)
}
