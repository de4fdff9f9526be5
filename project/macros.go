package project

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/efmesh/efmesh/macro"
	"github.com/efmesh/efmesh/sqlscan"
)

// knownMacros are the @-macros of a body, for messages.
var knownMacros = []string{"ref", "start", "end", "this", "var"}

// runVariables are the run's variables beside @start and @end, rendered
// by every stage (MacroStartDS, …).
var runVariables = []string{"start_ds", "end_ds", "start_ts", "end_ts", "execution_ds", "this_model", "env"}

// ScanMacros finds the @-macros of src[from:] (a model body, or the query of
// an audit file) and reports malformed ones. Offsets are into src.
//
// The scan is lexical on purpose (sqlscan's tokens, where strings, quoted
// identifiers and comments hide an @): the DAG comes from refs, so it must
// survive a body that does not parse as SQL yet.
func ScanMacros(file string, src []byte, from int) ([]Macro, []Diagnostic) {
	macros, diags, _ := scanMacros(file, src, newLineIndex(src), from)
	return macros, diags
}

// scanMacros is ScanMacros over a line index; open is the offset of a /*
// that is never closed (the engines read the rest as a comment), -1 when
// there is none.
func scanMacros(file string, src []byte, li *lineIndex, from int) (macros []Macro, diags []Diagnostic, open int) {
	macros, diags, open, _ = scanMacrosOf(file, src, li, from, false)
	return macros, diags, open
}

// scanMacrosOf is scanMacros that also reports whether the text calls a
// macro other than the primitives (or splices @{x}): a body the assembly
// expands. With expanded, such a macro is not a problem here: the
// expander reports it (or already did, for an expansion).
func scanMacrosOf(file string, src []byte, li *lineIndex, from int, expanded bool) (macros []Macro, diags []Diagnostic, open int, calls bool) {
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
	// Strings (E'' and $tag$ ones too), quoted identifiers and comments are
	// tokens of their own, where an @ is just text.
	for sc := sqlscan.NewScanner(src, from); ; {
		t := sc.Next()
		switch t.Kind {
		case sqlscan.EOF:
			return macros, diags, open, calls
		case sqlscan.Op:
			if src[t.Start] == '@' && t.Start+1 < len(src) && src[t.Start+1] == '{' {
				calls = true
			}
		case sqlscan.Comment:
			if t.Unterminated && src[t.Start] == '/' {
				open = t.Start
			}
		case sqlscan.Ident:
			if t.Is(src, "union") || t.Is(src, "intersect") || t.Is(src, "except") {
				scopes[len(scopes)-1] = fresh()
			}
		case sqlscan.Macro:
			if !macro.IsPrimitive(sqlscan.MacroName(src, t)) {
				calls = true
			}
			n := len(macros)
			scanMacro(src, t, &macros, bad, expanded)
			if len(macros) > n {
				macros[n].Scope = scopes[len(scopes)-1]
			}
		case sqlscan.Punct:
			switch src[t.Start] {
			case '(':
				// A subquery has a FROM of its own; other parentheses (a
				// parenthesized join, a call, an expression) are part of
				// the query around them.
				if subqueryFollows(src, t.End) {
					scopes = append(scopes, fresh())
				} else {
					scopes = append(scopes, scopes[len(scopes)-1])
				}
			case ')':
				if len(scopes) > 1 {
					scopes = scopes[:len(scopes)-1]
				}
			}
		}
	}
}

// scanMacro reads the macro token t.
func scanMacro(src []byte, t sqlscan.Token, macros *[]Macro, bad func(int, int, string, ...any) *Diagnostic, expanded bool) {
	at := t.Start
	wordEnd := sqlscan.IdentEnd(src, at+1)
	word := string(src[at+1 : wordEnd])
	switch strings.ToLower(word) {
	case "start":
		*macros = append(*macros, Macro{Kind: MacroStart, Start: at, End: wordEnd})
	case "end":
		*macros = append(*macros, Macro{Kind: MacroEnd, Start: at, End: wordEnd})
	case "this":
		*macros = append(*macros, Macro{Kind: MacroThis, Start: at, End: wordEnd, Aliased: aliasFollows(src, wordEnd)})
	case "ref":
		scanRef(src, at, macros, bad)
	case "var":
		scanVar(src, at, macros, bad)
	case "star", "union":
		if c, ok := macro.CallAt(src, at); ok && c.Close >= 0 {
			*macros = append(*macros, Macro{Kind: MacroKind(strings.ToLower(word)), Start: at, End: c.End})
			// A relation named bare (sqlmesh's @STAR(orders)) is a ref: the
			// DAG, renames and unknown names treat it as one.
			star := strings.EqualFold(word, "star")
			for i, a := range c.Args {
				if a.Name != "" && a.Name != "relation" || i > 0 && star || a.End <= a.Start {
					continue
				}
				if !star && i == 0 && src[a.Start] == '\'' {
					continue // @UNION's type
				}
				switch name, ref := RelationArg(string(src[a.Start:a.End])); {
				case ref:
					continue // the @ref's own token is a ref already
				case name != "":
					*macros = append(*macros, Macro{Kind: MacroRef, Arg: name, Start: a.Start, End: a.End, ArgStart: a.Start, ArgEnd: a.End, Aliased: true})
					continue
				}
				// Its columns come from the binder's view of a model: a CTE
				// or an alias has none before the query runs.
				bad(a.Start, a.End, "@%s reads models: write @ref(schema.table) or schema.table here, not %s", strings.ToUpper(word), string(src[a.Start:a.End]))
			}
			return
		}
		if !expanded {
			bad(at, wordEnd, "@%s needs its arguments in parentheses", word)
		}
	default:
		if w := strings.ToLower(word); slices.Contains(runVariables, w) {
			*macros = append(*macros, Macro{Kind: MacroKind(w), Start: at, End: wordEnd})
			return
		}
		if expanded {
			return
		}
		d := bad(at, wordEnd, "unknown macro @%s; known: @ref, @start, @end, @this, @var", word)
		if s, ok := DidYouMean(strings.ToLower(word), knownMacros); ok {
			d.Fixes = []Fix{{
				Title: "Change to @" + s,
				Edits: []TextEdit{{File: d.File, Start: at + 1, End: wordEnd, NewText: s}},
			}}
		}
	}
}

// scanRef reads @ref(name) from the @ at src[at] and reports what is wrong
// with it.
func scanRef(src []byte, at int, macros *[]Macro, bad func(int, int, string, ...any) *Diagnostic) {
	const usage = "@ref(schema.table)"
	r := sqlscan.ParseRef(src, at)
	ok := r.Complete && !slices.ContainsFunc(r.Parts, func(p string) bool { return !ValidNamePart(p) })
	switch {
	case r.Open < 0:
		bad(at, r.WordEnd, "@ref needs a model name in parentheses: %s", usage)
	case r.ArgEnd == r.ArgStart && (r.ArgStart >= len(src) || src[r.ArgStart] == ')'):
		bad(at, min(r.ArgStart+1, len(src)), "@ref needs a model name: %s", usage)
	case r.ArgEnd == r.ArgStart:
		c, size := utf8.DecodeRune(src[r.ArgStart:])
		bad(r.ArgStart, r.ArgStart+size, "expected a model name in @ref, found %q: write %s", c, usage)
	case !ok:
		bad(r.ArgStart, r.ArgEnd, "invalid model name %q in @ref: write %s with letters, digits and _", string(src[r.ArgStart:r.ArgEnd]), usage)
	case r.Close < 0:
		bad(at, r.ArgEnd, "expected ) after the model name in @ref")
	default:
		*macros = append(*macros, Macro{
			Kind:     MacroRef,
			Arg:      r.Name(),
			Start:    at,
			End:      r.End,
			ArgStart: r.ArgStart,
			ArgEnd:   r.ArgEnd,
			Aliased:  aliasFollows(src, r.End),
		})
	}
}

// scanVar reads @var(name) from the @ at src[at]; it reads like a ref of
// one part.
func scanVar(src []byte, at int, macros *[]Macro, bad func(int, int, string, ...any) *Diagnostic) {
	const usage = "@var(name)"
	r := sqlscan.ParseRef(src, at)
	switch {
	case r.Open < 0:
		bad(at, r.WordEnd, "@var needs a variable name in parentheses: %s", usage)
	case r.ArgEnd == r.ArgStart:
		bad(at, min(r.ArgStart+1, len(src)), "@var needs a variable name: %s", usage)
	case !r.Complete || len(r.Parts) != 1 || !ValidNamePart(r.Parts[0]):
		bad(r.ArgStart, r.ArgEnd, "invalid variable name %q in @var: write %s with letters, digits and _", string(src[r.ArgStart:r.ArgEnd]), usage)
	case r.Close < 0:
		bad(at, r.ArgEnd, "expected ) after the variable name in @var")
	default:
		*macros = append(*macros, Macro{Kind: MacroVar, Arg: r.Parts[0], Start: at, End: r.End, ArgStart: r.ArgStart, ArgEnd: r.ArgEnd})
	}
}

// aliasFollows reports whether the relation that ends at src[i] is given an
// alias by what follows it: AS, a quoted identifier, or a bare word that
// is not a keyword that can follow a table reference. It decides as the
// DuckDB and Postgres grammars do (a bare alias is any word that is not
// reserved, nor a join or predicate keyword); a keyword of either engine
// counts, so a bare alias that is a keyword in one of them must be written
// with AS.
func aliasFollows(src []byte, i int) bool {
	i = sqlscan.SkipBlank(src, i)
	if i >= len(src) {
		return false
	}
	if src[i] == '"' {
		return true
	}
	if !sqlscan.IsIdentStart(src, i) {
		return false
	}
	word := strings.ToLower(string(src[i:sqlscan.IdentEnd(src, i)]))
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

// IsKeyword reports whether word (any case) is one of the keywords that
// cannot stand bare as an alias or a column name (notAliasWords): a column
// so named must be quoted.
func IsKeyword(word string) bool { return notAliasWords[strings.ToLower(word)] }

// subqueryFollows reports whether the SQL at i (after a "(") starts a
// query: SELECT, WITH, FROM (DuckDB's FROM-first), VALUES or TABLE, after
// blanks and comments.
func subqueryFollows(src []byte, i int) bool {
	i = sqlscan.SkipBlank(src, i)
	j := i
	for j < len(src) && sqlscan.IsIdentByte(src[j]) {
		j++
	}
	w := src[i:j]
	return sqlscan.EqualFold(w, "select") || sqlscan.EqualFold(w, "with") || sqlscan.EqualFold(w, "from") ||
		sqlscan.EqualFold(w, "values") || sqlscan.EqualFold(w, "table")
}

// RelationArg is the model a relation argument of @STAR or @UNION names,
// as written: @ref(schema.table) (ref true) or a bare schema.table; ""
// when it names none (a CTE, an alias, a string).
func RelationArg(text string) (name string, ref bool) {
	src := []byte(strings.TrimSpace(text))
	if len(src) > 0 && src[0] == '@' {
		if r := sqlscan.ParseRef(src, 0); sqlscan.IsRef(src, sqlscan.Token{Kind: sqlscan.Macro, Start: 0}) && r.Complete && r.End == len(src) {
			return r.Name(), true
		}
		return "", false
	}
	r := sqlscan.ParseRef(append([]byte("@ref("), src...), 0)
	if r.Complete && len(r.Parts) == 2 && r.ArgEnd == len("@ref(")+len(src) {
		return r.Name(), false
	}
	return "", false
}
