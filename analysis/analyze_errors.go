package analysis

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// sqlDiag positions an engine error in the model's file.
func (c *checker) sqlDiag(m *project.Model, r engine.Rendered, err error) {
	// A /* that never ends swallows the rest of the body: whatever the
	// engine says next is about what is left, so say this instead.
	if off := m.OpenComment; off > 0 {
		c.diag(m, off, off+2, project.CodeSyntax, "unterminated /* comment: the rest of the body is ignored")
		return
	}
	var se *engine.SQLError
	if !errors.As(err, &se) {
		c.diag(m, m.BodyStart, m.BodyStart, project.CodeSyntax, err.Error())
		return
	}
	if se.Subtype == engine.SubtypeNotAQuery {
		at := m.BodyStart
		if se.Position > 0 {
			at = r.SourceOffset(se.Position)
		}
		c.diag(m, at, tokenEnd(m.Source, at), project.CodeSyntax, FirstLine(se.Message))
		return
	}
	start := m.BodyStart
	if se.Position >= 0 {
		start = r.SourceOffset(se.Position)
	}
	end := tokenEnd(m.Source, start)
	if se.Position <= 0 && se.Type == "Binder" {
		// (0: DESCRIBE's own position, before the query, cut to its start.)
		if s, e, ok := namedInBody(m, se.Names); ok {
			start, end = s, e
		} else if s, e, ok := namedClause(m, FirstLine(se.Message)); se.Position < 0 && ok {
			start, end = s, e
		}
	}
	msg := FirstLine(se.Message)
	code := project.CodeBinder
	switch {
	case se.Type == "Parser":
		if d, ok := keywordAlias(m, start, c.columnNamed(m)); ok {
			c.add(m, d)
			return
		}
		code = project.CodeSyntax
		if !strings.HasPrefix(msg, "syntax error") {
			msg = "syntax error: " + msg
		}
	case (se.Subtype == engine.SubtypeColumnNotFound || se.Subtype == engine.SubtypeFieldNotFound ||
		se.Subtype == engine.SubtypeAmbiguousColumn || se.Subtype == engine.SubtypeNotGrouped) &&
		(se.Position >= 0 || se.Name != ""):
		// (Neither positioned nor named, the word at the body's start
		// is no reference: the engine's message is said as it is.)
		switch {
		case start < len(m.Source) && m.Source[start] == '\'':
			// s['f']: the string that names the field.
			end = sqlscan.NewScanner(m.Source, start).Next().End
		case se.Name != "": // t.x: the engine points at t; point at x
			start, end = lastPartAt(m.Source, start)
		}
		if d, ok := referenceDiag(m, se, start, end); ok {
			c.add(m, d)
			return
		}
	case se.Subtype == engine.SubtypeFunctionNotFound:
		c.add(m, functionDiag(m, se, start, end))
		return
	case se.Subtype == engine.SubtypeTableNotInScope:
		c.add(m, tableScopeDiag(m, se, start, end))
		return
	case se.Type == "Catalog":
		code = project.CodeUnknownTable
		name := strings.ToLower(qualifiedNameAt(m.Source, start))
		if target := c.a.Project.ByName[name]; target != nil {
			code = project.CodePlainModelName
			msg = fmt.Sprintf("%s is a model: reference it as @ref(%s) so the DAG knows about it", name, name)
			end = start + len(qualifiedNameAt(m.Source, start))
			d := m.Diagnostic(start, end, project.SeverityError, code, msg)
			d.Fixes = []project.Fix{{Title: "Wrap in @ref(" + name + ")", Edits: []project.TextEdit{{File: m.File, Start: start, End: end, NewText: "@ref(" + name + ")"}}}}
			c.add(m, d)
			return
		}
		msg = strings.ReplaceAll(msg, c.catalog+".", "")
	}
	c.diag(m, start, end, code, msg)
}

// columnNamed reports, for a word, a column of that name (ASCII case
// aside) the project knows, as spelled where it is declared: m's own
// contract, its parents' columns, any model's contract.
func (c *checker) columnNamed(m *project.Model) func(string) (string, bool) {
	return func(w string) (string, bool) {
		for _, col := range m.Columns {
			if strings.EqualFold(col.Name, w) {
				return col.Name, true
			}
		}
		for _, mc := range m.Macros {
			if mc.Kind != project.MacroRef {
				continue
			}
			if info := c.a.Models[strings.ToLower(mc.Arg)]; info != nil {
				for _, col := range info.Columns {
					if strings.EqualFold(col.Name, w) {
						return col.Name, true
					}
				}
			}
		}
		for _, pm := range c.a.Project.Models {
			for _, col := range pm.Columns {
				if strings.EqualFold(col.Name, w) {
					return col.Name, true
				}
			}
		}
		return "", false
	}
}

func (c *checker) propDiag(m *project.Model, prop, code, msg string) {
	if p, ok := m.Property(prop); ok {
		c.diag(m, p.Range.Start.Offset, p.Range.End.Offset, code, msg)
		return
	}
	c.diag(m, m.Header.Start.Offset, m.Header.Start.Offset, code, msg)
}

// AbsPath resolves a project-relative path; URLs pass through.
func AbsPath(root, p string) string {
	if strings.Contains(p, "://") || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ErrMessage is an error's text for a diagnostic: the engine's own message
// for a SQL error, else the error's text.
func ErrMessage(err error) string {
	var se *engine.SQLError
	if errors.As(err, &se) {
		return se.Message
	}
	return err.Error()
}

// FirstLine is s up to its first line break.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// tokenEnd returns the end of the identifier, quoted name, string or
// single character at off.
func tokenEnd(src []byte, off int) int {
	if off >= len(src) {
		return off
	}
	if src[off] == '"' || src[off] == '\'' {
		end, _ := sqlscan.QuotedEnd(src, off)
		return end
	}
	i := off
	for i < len(src) && isIdentByte(src[i]) {
		i++
	}
	if i == off {
		return off + 1
	}
	return i
}

// lastPartAt reads a dotted name at off (s.t.x; parts may be quoted, dots
// surrounded by spaces) and returns the range of its last part.
func lastPartAt(src []byte, off int) (start, end int) {
	start, end = off, tokenEnd(src, off)
	for i := off; i < len(src); {
		s := i
		if src[i] == '"' {
			e, ok := sqlscan.QuotedEnd(src, i)
			if !ok {
				return
			}
			i = e
		} else {
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
			if i == s {
				return
			}
		}
		start, end = s, i
		j := sqlscan.SkipSpace(src, i)
		if j >= len(src) || src[j] != '.' {
			return
		}
		i = sqlscan.SkipSpace(src, j+1)
	}
	return
}

// qualifiedNameAt reads a dotted name (a.b.c) starting at off.
func qualifiedNameAt(src []byte, off int) string {
	i := off
	for i < len(src) && (isIdentByte(src[i]) || src[i] == '.') {
		i++
	}
	return strings.Trim(string(src[off:i]), ".")
}

func isIdentByte(c byte) bool { return sqlscan.IsIdentByte(c) }

// functionDiag is the diagnostic of a call of a function the engine does
// not have, at its name, with the nearest of the engine's own suggestions
// as a fix.
func functionDiag(m *project.Model, se *engine.SQLError, start, end int) project.Diagnostic {
	name := se.Name
	if name == "" {
		name = string(m.Source[start:end])
	}
	msg := fmt.Sprintf("unknown function %s", engine.QuoteIdent(name))
	var fixes []project.Fix
	if s, ok := project.DidYouMean(name, se.Candidates); ok {
		msg += fmt.Sprintf("; did you mean %s?", engine.QuoteIdent(s))
		fixes = append(fixes, project.Fix{Title: "Change to " + s,
			Edits: []project.TextEdit{{File: m.File, Start: start, End: end, NewText: s}}})
	}
	d := m.Diagnostic(start, end, project.SeverityError, project.CodeUnknownFunction, msg)
	d.Fixes = fixes
	return d
}

// clauseWords are the clauses an engine message may name, as written in
// it.
// namedInBody finds the place an engine error without a position names
// (SQLError.Names) in m's body, when the body has exactly one such place:
// the field in expr.field or expr['field'], the column of an UNPIVOT's ON
// list or of a star's EXCLUDE (REPLACE, RENAME) list, a keyword, the
// function a lambda is passed to. Several candidates (or none) leave the
// error where it was.
func namedInBody(m *project.Model, n *engine.Named) (start, end int, ok bool) {
	if n == nil {
		return 0, 0, false
	}
	src := m.Source
	var toks []sqlscan.Token
	bodyEnd := BodyEnd(src, m.BodyStart)
	for _, t := range sqlscan.Tokens(src, m.BodyStart) {
		if t.Start >= bodyEnd {
			break
		}
		if t.Kind != sqlscan.Comment {
			toks = append(toks, t)
		}
	}
	name := func(t sqlscan.Token, want string) bool {
		switch t.Kind {
		case sqlscan.Ident:
			return sqlscan.SameName(t.Text(src), want)
		case sqlscan.QuotedIdent:
			return t.Value(src) == want
		}
		return false
	}
	punct := func(i int, p string) bool {
		return i >= 0 && i < len(toks) && (toks[i].Kind == sqlscan.Punct || toks[i].Kind == sqlscan.Op) && toks[i].Text(src) == p
	}
	var found []sqlscan.Token
	switch {
	case n.Kind == engine.NamedField:
		field, expr := n.Name, n.Of
		for i, t := range toks {
			if !name(t, expr) {
				continue
			}
			switch {
			case punct(i+1, ".") && i+2 < len(toks) && name(toks[i+2], field):
				found = append(found, toks[i+2])
			case punct(i+1, "[") && i+2 < len(toks) && toks[i+2].Kind == sqlscan.String && toks[i+2].Value(src) == field:
				found = append(found, toks[i+2])
			}
		}
	case n.Kind == engine.NamedListColumn && strings.EqualFold(n.Of, "UNPIVOT"):
		col := n.Name
		on := false
		for _, t := range toks {
			switch {
			case t.Kind == sqlscan.Ident && t.Is(src, "UNPIVOT"):
				on = true
			case on && t.Kind == sqlscan.Ident && (t.Is(src, "INTO") || t.Is(src, "FOR")):
				on = false
			case on && name(t, col):
				found = append(found, t)
			}
		}
	case n.Kind == engine.NamedListColumn:
		col := n.Name
		depth := -1 // inside the list's parentheses: > 0
		for i, t := range toks {
			switch {
			case t.Kind == sqlscan.Ident && t.Is(src, n.Of) && punct(i+1, "("):
				depth = 0
			case depth >= 0 && punct(i, "("):
				depth++
			case depth >= 0 && punct(i, ")"):
				if depth--; depth == 0 {
					depth = -1
				}
			case depth > 0 && name(t, col) && !punct(i-1, "."):
				found = append(found, t)
			}
		}
	case n.Kind == engine.NamedKeyword:
		for _, t := range toks {
			if t.Kind == sqlscan.Ident && t.Is(src, n.Name) {
				found = append(found, t)
			}
		}
	case n.Kind == engine.NamedLambdaCall:
		// The call whose parentheses hold a top-level ->.
		var calls []int // token index of each open paren's call, -1 for none
		for i, t := range toks {
			switch {
			case punct(i, "("):
				c := -1
				if i > 0 && (toks[i-1].Kind == sqlscan.Ident || toks[i-1].Kind == sqlscan.QuotedIdent) {
					c = i - 1
				}
				calls = append(calls, c)
			case punct(i, ")") && len(calls) > 0:
				calls = calls[:len(calls)-1]
			case t.Kind == sqlscan.Op && t.Text(src) == "->" && len(calls) > 0 && calls[len(calls)-1] >= 0:
				if c := toks[calls[len(calls)-1]]; len(found) == 0 || found[len(found)-1] != c {
					found = append(found, c)
				}
			}
		}
	}
	if len(found) != 1 {
		return 0, 0, false
	}
	return found[0].Start, found[0].End, true
}

var clauseWords = []string{"SELECT", "FROM", "WHERE", "GROUP BY", "HAVING", "WINDOW", "QUALIFY", "ORDER BY", "LIMIT"}

// namedClause positions an engine error that has no position but names
// clauses of the query ("Combining QUALIFY with GROUP BY ALL is not
// supported", "at least one window function must appear in the SELECT
// column or QUALIFY clause"): at the keyword of the named clause that
// comes last in the body's top-level query, the one whose presence the
// message is about.
func namedClause(m *project.Model, msg string) (start, end int, ok bool) {
	var named []string
	for _, w := range clauseWords {
		if strings.Contains(msg, w+" ") || strings.HasSuffix(msg, w) {
			named = append(named, strings.Fields(w)[0])
		}
	}
	if len(named) == 0 {
		return 0, 0, false
	}
	depth := 0
	bodyEnd := BodyEnd(m.Source, m.BodyStart)
	for _, t := range sqlscan.Tokens(m.Source, m.BodyStart) {
		if t.Start >= bodyEnd {
			break
		}
		switch {
		case t.Kind == sqlscan.Punct && t.Text(m.Source) == "(":
			depth++
		case t.Kind == sqlscan.Punct && t.Text(m.Source) == ")":
			depth--
		case depth == 0 && t.Kind == sqlscan.Ident:
			for _, w := range named {
				if t.Is(m.Source, w) {
					start, end, ok = t.Start, t.End, true
				}
			}
		}
	}
	return start, end, ok
}
