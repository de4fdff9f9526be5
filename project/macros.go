package project

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// knownMacros are the @-macros of a body, for messages.
var knownMacros = []string{"ref", "start", "end", "this"}

// ScanMacros finds the @-macros of src[from:] (a model body, or the query of
// an audit file) and reports malformed ones. Offsets are into src.
//
// The scan is lexical on purpose: the DAG comes from refs, so it must
// survive a body that does not parse as SQL yet. It skips string literals
// (including E” and $tag$ strings), quoted identifiers and comments, where
// an @ is just text.
func ScanMacros(file string, src []byte, from int) ([]Macro, []Diagnostic) {
	macros, diags, _ := scanMacros(file, src, newLineIndex(src), from)
	return macros, diags
}

// scanMacros is ScanMacros over a line index; open is the offset of a /*
// that is never closed (the engines read the rest as a comment), -1 when
// there is none.
func scanMacros(file string, src []byte, li *lineIndex, from int) (macros []Macro, diags []Diagnostic, open int) {
	open = -1
	bad := func(start, end int, format string, args ...any) *Diagnostic {
		diags = append(diags, Diagnostic{
			File:     file,
			Range:    li.rng(start, end),
			Severity: SeverityError,
			Code:     CodeBadMacro,
			Message:  fmt.Sprintf(format, args...),
		})
		return &diags[len(diags)-1]
	}

	// scopes holds, innermost last, the scope of each ( not yet closed;
	// a set operation (UNION, INTERSECT, EXCEPT) starts a new scope in its
	// group, since each SELECT of it has a FROM of its own.
	scopes := []int{0}
	next := 0
	fresh := func() int { next++; return next }
	i := max(from, 0)
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\'':
			// E'…' strings escape with backslashes; the E must be a word of
			// its own, not the end of an identifier.
			escapes := i > from && (src[i-1] == 'e' || src[i-1] == 'E') && (i-1 == from || !isIdentByte(src[i-2]))
			i = skipString(src, i, escapes)
		case c == '"':
			_, i, _ = scanQuoted(src, i, '"')
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			start := i
			var ok bool
			if i, ok = skipBlockComment(src, i); !ok {
				open = start
			}
		case c == '$' && (i == from || !isIdentByte(src[i-1])):
			i = skipDollarQuoted(src, i)
		case isIdentByte(c):
			// Skip whole words, so the E of E'' is seen as a word's end.
			start := i
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
			switch w := src[start:i]; {
			case asciiEqualFold(w, "union"), asciiEqualFold(w, "intersect"), asciiEqualFold(w, "except"):
				scopes[len(scopes)-1] = fresh()
			}
		case c == '@':
			n := len(macros)
			i = scanMacro(src, i, from, &macros, bad)
			if len(macros) > n {
				macros[n].Scope = scopes[len(scopes)-1]
			}
		case c == '(':
			// A subquery has a FROM of its own; other parentheses (a
			// parenthesized join, a call, an expression) are part of the
			// query around them.
			if subqueryFollows(src, i+1) {
				scopes = append(scopes, fresh())
			} else {
				scopes = append(scopes, scopes[len(scopes)-1])
			}
			i++
		case c == ')':
			if len(scopes) > 1 {
				scopes = scopes[:len(scopes)-1]
			}
			i++
		default:
			i++
		}
	}
	return macros, diags, open
}

// scanMacro reads the macro whose @ is at src[at] and returns where scanning
// goes on.
func scanMacro(src []byte, at, from int, macros *[]Macro, bad func(int, int, string, ...any) *Diagnostic) int {
	// DuckDB and Postgres use @ as operators: @ x (absolute value), <@, @>,
	// @@. Only @ directly followed by a word is a macro.
	if !isIdentStart(src, at+1) || (at > from && (src[at-1] == '<' || src[at-1] == '@')) {
		return at + 1
	}
	wordEnd := scanIdent(src, at+1)
	word := string(src[at+1 : wordEnd])
	switch strings.ToLower(word) {
	case "start":
		*macros = append(*macros, Macro{Kind: MacroStart, Start: at, End: wordEnd})
	case "end":
		*macros = append(*macros, Macro{Kind: MacroEnd, Start: at, End: wordEnd})
	case "this":
		*macros = append(*macros, Macro{Kind: MacroThis, Start: at, End: wordEnd, Aliased: aliasFollows(src, wordEnd)})
	case "ref":
		return scanRef(src, at, wordEnd, macros, bad)
	default:
		d := bad(at, wordEnd, "unknown macro @%s; known: @ref, @start, @end, @this", word)
		if s, ok := DidYouMean(strings.ToLower(word), knownMacros); ok {
			d.Fixes = []Fix{{
				Title: "Change to @" + s,
				Edits: []TextEdit{{File: d.File, Start: at + 1, End: wordEnd, NewText: s}},
			}}
		}
	}
	return wordEnd
}

// skipBlank skips spaces and comments (-- to the end of the line, /* */
// nested) from i.
func skipBlank(src []byte, i int) int {
	for {
		i = skipSpaces(src, i)
		switch {
		case i+1 < len(src) && src[i] == '-' && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case i+1 < len(src) && src[i] == '/' && src[i+1] == '*':
			i, _ = skipBlockComment(src, i)
		default:
			return i
		}
	}
}

// scanRef reads @ref(name) from the @ at src[at]; wordEnd is after "ref";
// spaces and comments may surround the parentheses and the name.
func scanRef(src []byte, at, wordEnd int, macros *[]Macro, bad func(int, int, string, ...any) *Diagnostic) int {
	const usage = "@ref(schema.table)"
	i := skipBlank(src, wordEnd)
	if i >= len(src) || src[i] != '(' {
		bad(at, wordEnd, "@ref needs a model name in parentheses: %s", usage)
		return wordEnd
	}
	argStart := skipBlank(src, i+1)
	argEnd, name, ok := scanRefName(src, argStart)
	closeAt := skipBlank(src, argEnd)
	switch {
	case argEnd == argStart && (argStart >= len(src) || src[argStart] == ')'):
		end := min(argStart+1, len(src))
		bad(at, end, "@ref needs a model name: %s", usage)
		return end
	case argEnd == argStart:
		r, size := utf8.DecodeRune(src[argStart:])
		bad(argStart, argStart+size, "expected a model name in @ref, found %q: write %s", r, usage)
		return argStart
	case !ok:
		bad(argStart, argEnd, "invalid model name %q in @ref: write %s with letters, digits and _", string(src[argStart:argEnd]), usage)
	case closeAt >= len(src) || src[closeAt] != ')':
		bad(at, argEnd, "expected ) after the model name in @ref")
		return argEnd
	default:
		*macros = append(*macros, Macro{
			Kind:     MacroRef,
			Arg:      name,
			Start:    at,
			End:      closeAt + 1,
			ArgStart: argStart,
			ArgEnd:   argEnd,
			Aliased:  aliasFollows(src, closeAt+1),
		})
		return closeAt + 1
	}
	if closeAt < len(src) && src[closeAt] == ')' {
		return closeAt + 1
	}
	return argEnd
}

// scanRefName reads a dotted name of bare or "quoted" parts at src[i]. ok
// reports whether every part is a valid, lower-cased model name part.
func scanRefName(src []byte, i int) (end int, name string, ok bool) {
	start := i
	var parts []string
	ok = true
	for {
		if i < len(src) && src[i] == '"' {
			val, e, closed := scanQuoted(src, i, '"')
			if !closed {
				return e, "", false
			}
			parts = append(parts, strings.ToLower(val))
			i = e
		} else {
			// Take every identifier byte, digits first included, so a bad
			// name is reported whole rather than cut at the bad character.
			s := i
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
			if i == s {
				if i == start {
					return i, "", false
				}
				ok = false
				break
			}
			parts = append(parts, strings.ToLower(string(src[s:i])))
		}
		if i < len(src) && src[i] == '.' {
			i++
			continue
		}
		break
	}
	for _, p := range parts {
		if !ValidNamePart(p) {
			ok = false
		}
	}
	return i, strings.Join(parts, "."), ok
}

func skipSpaces(src []byte, i int) int {
	for i < len(src) && isSpaceByte(src[i]) {
		i++
	}
	return i
}

// skipString skips the string literal at src[i]; with escapes, a backslash
// escapes the next byte (E'…'). Unterminated strings run to the end.
func skipString(src []byte, i int, escapes bool) int {
	for j := i + 1; j < len(src); j++ {
		switch {
		case escapes && src[j] == '\\':
			j++
		case src[j] == '\'':
			if j+1 < len(src) && src[j+1] == '\'' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(src)
}

// skipDollarQuoted skips a $tag$…$tag$ string at src[i]; a $ that does not
// open one (a $1 parameter) is skipped alone.
func skipDollarQuoted(src []byte, i int) int {
	j := i + 1
	if isIdentStart(src, j) {
		for j < len(src) && src[j] != '$' && isIdentByte(src[j]) {
			j++
		}
	}
	if j >= len(src) || src[j] != '$' {
		return i + 1
	}
	tag := src[i : j+1]
	if k := strings.Index(string(src[j+1:]), string(tag)); k >= 0 {
		return j + 1 + k + len(tag)
	}
	return len(src)
}

// aliasFollows reports whether the relation that ends at src[i] is given an
// alias by what follows it: AS, a quoted identifier, or a bare word that
// is not a keyword that can follow a table reference. It decides as the
// DuckDB and Postgres grammars do (a bare alias is any word that is not
// reserved, nor a join or predicate keyword); a keyword of either engine
// counts, so a bare alias that is a keyword in one of them must be written
// with AS.
func aliasFollows(src []byte, i int) bool {
	i = skipBlank(src, i)
	if i >= len(src) {
		return false
	}
	if src[i] == '"' {
		return true
	}
	if !isIdentStart(src, i) {
		return false
	}
	word := strings.ToLower(string(src[i:scanIdent(src, i)]))
	return word == "as" || !notAliasWords[word]
}

// notAliasWords are the words that, after a table reference, start
// something else than its alias: DuckDB's and Postgres's reserved keywords
// and their type/function-name keywords that cannot be a bare alias (the
// join kinds, ASOF, POSITIONAL, TABLESAMPLE, AT, …). DuckDB's list is
// duckdb_keywords() minus what its parser takes as an alias in
// "SELECT * FROM t <word>"; the corpus test checks every ref against it.
var notAliasWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		all analyse analyze and any array as asc asymmetric both case cast check collate column
		constraint create default deferrable desc describe distinct do else end except false fetch
		for foreign from group having in initially intersect into lambda lateral leading limit not
		null offset on only or order pivot pivot_longer pivot_wider placing primary qualify
		references returning select show some summarize symmetric table then to trailing true union
		unique unpivot using variadic when where window with
		anti asof at authorization binary by collation concurrently cross freeze full glob ilike
		inner is isnull join left like natural notnull outer overlaps positional right semi similar
		tablesample unpack verbose
		current_catalog current_date current_role current_time current_timestamp current_user
		grant localtime localtimestamp session_user system_user user current_schema`) {
		m[w] = true
	}
	return m
}()

// asciiEqualFold reports whether w is word, ignoring ASCII case.
func asciiEqualFold(w []byte, word string) bool {
	if len(w) != len(word) {
		return false
	}
	for i := range w {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// subqueryFollows reports whether the SQL at i (after a "(") starts a
// query: SELECT, WITH, FROM (DuckDB's FROM-first), VALUES or TABLE, after
// blanks and comments.
func subqueryFollows(src []byte, i int) bool {
	i = skipBlank(src, i)
	j := i
	for j < len(src) && isIdentByte(src[j]) {
		j++
	}
	w := src[i:j]
	return asciiEqualFold(w, "select") || asciiEqualFold(w, "with") || asciiEqualFold(w, "from") ||
		asciiEqualFold(w, "values") || asciiEqualFold(w, "table")
}
