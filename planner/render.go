package planner

import (
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// macroText says what each macro of a body renders to. ref returns the SQL
// for @ref(name) and false when it cannot be rendered.
type macroText struct {
	ref        func(name string) (string, bool)
	start, end string
	this       string
	// canonical leaves relations as written: no implicit alias. Only the
	// canonical form (the fingerprint's input) is rendered so; it names
	// refs by their model name, which binds as the table name anyway.
	canonical bool
}

// renderBody renders m's body with its macros replaced, keeping the map back
// to file offsets. ok is false when a ref could not be rendered.
//
// A ref the SQL gives no alias is rendered with an implicit one, the
// referenced model's table name: `FROM @ref(core.orders)` keeps `orders`
// usable as a qualifier, as `FROM core.orders` does in plain SQL, whether
// the ref renders to a physical table, an environment view, a stand-in or
// an EMBEDDED model's subquery. Every render but the canonical one does
// this, so the checker binds exactly what apply runs.
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
			text = t + implicitAlias(mc, mt)
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

// implicitAlias is what follows a rendered ref that the SQL gives no
// alias: " AS <its table name>".
func implicitAlias(mc project.Macro, mt macroText) string {
	if mt.canonical || mc.Aliased {
		return ""
	}
	_, t := splitName(mc.Arg)
	return " AS " + engine.QuoteIdent(t)
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
