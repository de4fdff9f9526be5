package sqlscan

import "strings"

// efmesh's macros: @ followed directly by a word (@ref, @this, @start,
// @end, and unknown ones, which the loader reports). DuckDB and Postgres
// use @ as an operator too (@ x, <@, @>, @@): an @ followed by anything
// else than a letter, or written after < or @, is an operator.

// MacroName returns the word of the macro token t, lower-cased.
func MacroName(src []byte, t Token) string {
	return strings.ToLower(string(src[t.Start+1 : IdentEnd(src, t.Start+1)]))
}

// Ref is a @ref( name ) call as written, read error-tolerantly. Blanks
// and comments may surround the parentheses and the name.
type Ref struct {
	WordEnd int // after "ref"
	// Open is the offset of the "(", -1 when none follows.
	Open int
	// ArgStart and ArgEnd delimit the model name as written; they are equal
	// when there is none.
	ArgStart, ArgEnd int
	// Parts are the name's dot-separated parts, unquoted and lower-cased.
	// Complete is false when the name stops short: a dot with no part
	// after it, or an unterminated quoted part (then Parts is empty and
	// ArgEnd is the end of the input). Whether each part is a valid model
	// name part is for the caller to judge.
	Parts    []string
	Complete bool
	// Close is the offset of the ")" after the name, -1 when missing.
	Close int
	// End is where the call ends and scanning goes on: after the ")",
	// else after the name, else at what stands where the name should be.
	End int
}

// Name is the model name: the parts joined by dots.
func (r Ref) Name() string { return strings.Join(r.Parts, ".") }

// IsRef reports whether the macro token t is a @ref.
func IsRef(src []byte, t Token) bool {
	return t.Kind == Macro && EqualFold(src[t.Start+1:IdentEnd(src, t.Start+1)], "ref")
}

// ParseRef reads the @ref call whose @ is at src[at].
func ParseRef(src []byte, at int) Ref {
	r := Ref{WordEnd: IdentEnd(src, at+1), Open: -1, Close: -1}
	i := SkipBlank(src, r.WordEnd)
	if i >= len(src) || src[i] != '(' {
		r.ArgStart, r.ArgEnd, r.End = r.WordEnd, r.WordEnd, r.WordEnd
		return r
	}
	r.Open = i
	r.ArgStart = SkipBlank(src, i+1)
	r.ArgEnd, r.Parts, r.Complete = refName(src, r.ArgStart)
	if c := SkipBlank(src, r.ArgEnd); c < len(src) && src[c] == ')' {
		r.Close = c
	}
	if r.Close >= 0 {
		r.End = r.Close + 1
	} else {
		// Without ")" the call ends after the name, or where the name
		// should be, so what stands there is scanned as itself.
		r.End = r.ArgEnd
	}
	return r
}

// refName reads a dotted name of bare or "quoted" parts at src[i]. Bare
// parts take every word byte (IsIdentByte), digits first included, so a
// bad name is reported whole rather than cut at the bad character.
func refName(src []byte, i int) (end int, parts []string, complete bool) {
	for {
		if i < len(src) && src[i] == '"' {
			val, e, ok := Unquote(src, i)
			if !ok {
				return e, nil, false
			}
			parts = append(parts, strings.ToLower(val))
			i = e
		} else {
			s := i
			for i < len(src) && IsIdentByte(src[i]) {
				i++
			}
			if i == s {
				return i, parts, false
			}
			parts = append(parts, strings.ToLower(string(src[s:i])))
		}
		if i < len(src) && src[i] == '.' {
			i++
			continue
		}
		return i, parts, true
	}
}

// macroEnd returns the end of the macro token at src[at].
func macroEnd(src []byte, at int) int {
	end := IdentEnd(src, at+1)
	if EqualFold(src[at+1:end], "ref") || EqualFold(src[at+1:end], "var") {
		return ParseRef(src, at).End
	}
	return end
}
