package planner

import (
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// macroText says what each macro of a body renders to. ref returns the SQL
// for @ref(name) and false when it cannot be rendered.
type macroText struct {
	ref        func(name string) (string, bool)
	start, end string
	this       string
}

// renderBody renders m's body with its macros replaced, keeping the map back
// to file offsets. ok is false when a ref could not be rendered.
func renderBody(m *project.Model, mt macroText) (r engine.Rendered, ok bool) {
	ok = true
	end := bodyEnd(m.Source, m.BodyStart)
	subs := make([]engine.Substitution, 0, len(m.Macros))
	for _, mc := range m.Macros {
		if mc.Start < m.BodyStart || mc.End > end {
			continue
		}
		var text string
		switch mc.Kind {
		case project.MacroRef:
			t, found := mt.ref(mc.Arg)
			if !found {
				ok = false
				t = engine.QuoteIdent(mc.Arg)
			}
			text = aliased(t, m.Source, mc.End, mc.Arg)
		case project.MacroStart:
			text = mt.start
		case project.MacroEnd:
			text = mt.end
		case project.MacroThis:
			text = mt.this
		default:
			continue
		}
		subs = append(subs, engine.Substitution{Start: mc.Start, End: mc.End, Text: text})
	}
	return engine.Render(m.Source, m.BodyStart, end, subs), ok
}

// aliased gives a ref rendered as a subquery (a virtual model read in
// place) the alias a relation would have had, the model's table name, when
// the SQL after the ref at end names none: "FROM @ref(raw.orders)" keeps
// reading orders.amount, and Postgres wants an alias on every subquery.
func aliased(text string, src []byte, end int, name string) string {
	if !strings.HasPrefix(text, "(") || hasAlias(src, end) {
		return text
	}
	_, table := splitName(name)
	return text + " AS " + engine.QuoteIdent(table)
}

// bodyEnd returns the offset after the last significant token of the SQL
// starting at from, ignoring trailing semicolons, comments and whitespace,
// so the body can be wrapped in a statement or a subquery.
func bodyEnd(src []byte, from int) int {
	end := from
	for i := from; i < len(src); {
		c := src[i]
		switch {
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
				i++
			}
			i += 2
		case c == '\'' || c == '"':
			q := c
			i++
			for i < len(src) {
				if src[i] == q {
					if i+1 < len(src) && src[i+1] == q {
						i += 2
						continue
					}
					break
				}
				i++
			}
			i++
			end = i
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';':
			i++
		default:
			i++
			end = i
		}
	}
	if end > len(src) {
		end = len(src)
	}
	return end
}
