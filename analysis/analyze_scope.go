package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// A ref without an alias is bound under an implicit one (ImplicitAlias):
// its table name, or schema__table when two refs of one scope share the
// table name. A user who qualifies a column by a name of their own meets
// the engine's "table not found" with names they never wrote; these
// diagnostics say which names the refs are bound under and how to name
// them.

// boundRefs lists the refs of m's body that the engine sees under an
// implicit alias, as "alias (@ref(model))", for the names in cands.
func boundRefs(m *project.Model, cands []string) (bound []string, aliases []string) {
	shared := sharedTableNames(m.Macros)
	for _, mc := range m.Macros {
		if mc.Kind != project.MacroRef || mc.Aliased {
			continue
		}
		alias := strings.TrimPrefix(ImplicitAlias(mc, MacroText{shared: shared}), " AS ")
		name := unquoted(alias)
		if len(cands) > 0 && !slices.ContainsFunc(cands, func(c string) bool { return strings.EqualFold(c, name) }) {
			continue
		}
		if slices.Contains(aliases, name) {
			continue
		}
		aliases = append(aliases, name)
		bound = append(bound, fmt.Sprintf("%s (@ref(%s))", name, mc.Arg))
	}
	return bound, aliases
}

// tableScopeDiag is the diagnostic of a qualifier naming no relation in
// scope (engine.SubtypeTableNotInScope), at [start, end): the names in
// scope, which refs they stand for, and the fix (an alias of one's own),
// with a quick fix per name in scope.
func tableScopeDiag(m *project.Model, se *engine.SQLError, start, end int) project.Diagnostic {
	msg := fmt.Sprintf("no relation named %s in scope", engine.QuoteIdent(se.Name))
	bound, aliases := boundRefs(m, se.Candidates)
	var fixes []project.Fix
	if len(bound) > 0 {
		msg += "; the refs without an alias are bound as " + strings.Join(bound, ", ")
		mc := firstUnaliasedRef(m)
		msg += fmt.Sprintf(": name one yourself (@ref(%s) AS o, then o.%s) or qualify by %s", mc.Arg, colAfter(m.Source, end), strings.Join(aliases, " or "))
	} else if len(se.Candidates) > 0 {
		msg += "; in scope: " + strings.Join(se.Candidates, ", ")
		aliases = se.Candidates
	}
	for _, a := range aliases {
		fixes = append(fixes, project.Fix{Title: "Qualify by " + spellName(a),
			Edits: []project.TextEdit{{File: m.File, Start: start, End: end, NewText: spellName(a)}}})
	}
	d := m.Diagnostic(start, end, project.SeverityError, project.CodeBinder, msg)
	d.Fixes = fixes
	return d
}

func firstUnaliasedRef(m *project.Model) project.Macro {
	for _, mc := range m.Macros {
		if mc.Kind == project.MacroRef && !mc.Aliased {
			return mc
		}
	}
	return project.Macro{}
}

// colAfter is the column name after the qualifier ending at end (t.x:
// x), or "column" when there is none.
func colAfter(src []byte, end int) string {
	sc := sqlscan.NewScanner(src, end)
	if t := sc.Next(); t.Kind != sqlscan.Punct || t.Text(src) != "." {
		return "column"
	}
	if t := sc.Next(); isName(t) {
		return t.Text(src)
	}
	return "column"
}

// notAliases are the keywords a user may mean as a ref's alias that SQL
// reads as the start of a clause: FROM @ref(raw.orders) order is ORDER
// without BY, a syntax error at the next token.
var notAliases = map[string]bool{
	"order": true, "group": true, "limit": true, "offset": true, "where": true, "having": true,
	"window": true, "qualify": true, "select": true, "from": true, "union": true, "except": true,
	"intersect": true, "join": true, "on": true, "using": true, "natural": true, "left": true,
	"right": true, "full": true, "inner": true, "outer": true, "cross": true, "all": true,
	"end": true, "case": true, "when": true, "then": true, "else": true, "as": true,
	"default": true, "user": true, "table": true, "to": true, "desc": true, "asc": true,
}

// keywordAlias finds, for a syntax error at or after off, a ref followed by
// a keyword the user may have meant as its alias (FROM @ref(raw.orders)
// order), the keyword being the last word before the error; or a keyword
// the project uses as a column name (column reports a column of that name,
// as spelled where it is declared) at off or right before it (WHERE at
// BETWEEN …: AT is a keyword). ok is false when there is none: the
// engine's message stands.
func keywordAlias(m *project.Model, off int, column func(string) (string, bool)) (d project.Diagnostic, ok bool) {
	for _, mc := range m.Macros {
		if mc.Kind != project.MacroRef || mc.Aliased || mc.End > off {
			continue
		}
		t := sqlscan.NewScanner(m.Source, mc.End).Next()
		if t.Kind != sqlscan.Ident || t.Start > off || !notAliases[strings.ToLower(t.Text(m.Source))] {
			continue
		}
		// The keyword is what the parser choked on: it ends the body, or
		// it is ORDER or GROUP without BY, the error right after it. A
		// keyword that starts a clause (WHERE …) is one.
		w := t.Text(m.Source)
		rest := sqlscan.NewScanner(m.Source, t.End).Next()
		lone := rest.Kind == sqlscan.EOF
		if k := strings.ToLower(w); (k == "order" || k == "group") && !rest.Is(m.Source, "by") && rest.Start == off {
			lone = true
		}
		if !lone {
			continue
		}
		msg := fmt.Sprintf("syntax error: %s is a keyword, not an alias: name @ref(%s) another way (@ref(%s) AS o) or quote it (AS \"%s\")",
			strings.ToUpper(w), mc.Arg, mc.Arg, strings.ToLower(w))
		d := m.Diagnostic(t.Start, t.End, project.SeverityError, project.CodeSyntax, msg)
		d.Fixes = []project.Fix{{Title: fmt.Sprintf("Quote as AS \"%s\"", strings.ToLower(w)),
			Edits: []project.TextEdit{{File: m.File, Start: t.Start, End: t.End, NewText: fmt.Sprintf("AS \"%s\"", strings.ToLower(w))}}}}
		return d, true
	}
	if column != nil {
		return keywordColumn(m, off, column)
	}
	return project.Diagnostic{}, false
}

// keywordColumn is keywordAlias's second case: the token at off, or the
// one right before it, is a bare keyword that names a column of the
// project (not after a "." : t.at is a column).
func keywordColumn(m *project.Model, off int, column func(string) (string, bool)) (project.Diagnostic, bool) {
	// at: the token at off; last: the one before it; dot: whether a "."
	// precedes each.
	var at, last sqlscan.Token
	var dotAt, dotLast, dot bool
	for _, t := range sqlscan.Tokens(m.Source, m.BodyStart) {
		if t.Start > off {
			break
		}
		if t.Start == off {
			at, dotAt = t, dot
			break
		}
		last, dotLast = t, dot
		dot = t.Kind == sqlscan.Punct && t.Text(m.Source) == "."
	}
	var prev sqlscan.Token
	for _, c := range []struct {
		t   sqlscan.Token
		dot bool
	}{{at, dotAt}, {last, dotLast}} {
		if c.t.Kind == sqlscan.Ident && !c.dot && project.IsKeyword(c.t.Text(m.Source)) {
			if _, ok := column(c.t.Text(m.Source)); ok {
				prev = c.t
				break
			}
		}
	}
	if prev.Kind != sqlscan.Ident {
		return project.Diagnostic{}, false
	}
	w := prev.Text(m.Source)
	name, _ := column(w)
	quoted := engine.QuoteIdent(name)
	msg := fmt.Sprintf("syntax error: %s is a keyword: quote it as %s", strings.ToUpper(w), quoted)
	d := m.Diagnostic(prev.Start, prev.End, project.SeverityError, project.CodeSyntax, msg)
	d.Fixes = []project.Fix{{Title: "Quote as " + quoted,
		Edits: []project.TextEdit{{File: m.File, Start: prev.Start, End: prev.End, NewText: quoted}}}}
	return d, true
}
