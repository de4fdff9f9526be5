package analysis

import (
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// MacroText says what each macro of a body renders to. ref returns the SQL
// for @ref(name) and false when it cannot be rendered.
type MacroText struct {
	Ref        func(name string) (string, bool) // a ref's relation, false for an unknown model
	Start, End string                           // what @start and @end become
	This       string                           // what @this becomes
	// Vars are the variables' values (Config.Variables); @var(name)
	// renders as Literal of its value (engine.QuoteString when nil).
	Vars    map[string]string
	Literal func(string) string
	// canonical leaves relations as written: no implicit alias. Only the
	// canonical form (the fingerprint's input) is rendered so; it names
	// refs by their model name, which binds as the table name anyway.
	canonical bool
	// shared holds the table names (lower-case, per scope) that unaliased
	// refs to different models in one scope have in common: those are
	// aliased by schema and table.
	shared map[scopedName]bool
}

// RenderBody renders m's body with its macros replaced, keeping the map back
// to file offsets. ok is false when a ref could not be rendered.
//
// A ref the SQL gives no alias is rendered with an implicit one, the
// referenced model's table name: `FROM @ref(core.orders)` keeps `orders`
// usable as a qualifier, as `FROM core.orders` does in plain SQL, whether
// the ref renders to a physical table, an environment view, a stand-in or
// an EMBEDDED model's subquery. Every render but the canonical one does
// this, so the checker binds exactly what apply runs.
//
// Two unaliased refs to different models of one table name (raw.orders and
// core.orders) in one scope are aliased <schema>__<table> instead: the one
// name would be given twice, which Postgres refuses even where plain SQL
// names the two tables apart by schema. Such a body qualifies by aliases of
// its own, as plain SQL must to be clear.
func RenderBody(m *project.Model, mt MacroText) (r engine.Rendered, ok bool) {
	ok = true
	end := BodyEnd(m.Source, m.BodyStart)
	if !mt.canonical {
		mt.shared = sharedTableNames(m.Macros)
	}
	subs := make([]engine.Substitution, 0, len(m.Macros))
	for _, mc := range m.Macros {
		if mc.Start < m.BodyStart || mc.End > end {
			continue
		}
		var text string
		switch mc.Kind {
		case project.MacroRef:
			t, found := mt.Ref(mc.Arg)
			if !found {
				ok = false
				t = engine.QuoteIdent(mc.Arg)
			}
			text = t + ImplicitAlias(mc, mt)
		case project.MacroStart:
			text = mt.Start
		case project.MacroEnd:
			text = mt.End
		case project.MacroThis:
			text = mt.This
		case project.MacroVar:
			v, found := mt.Vars[mc.Arg]
			if !found {
				ok = false
				text = "NULL"
				break
			}
			if mt.Literal != nil {
				text = mt.Literal(v)
			} else {
				text = engine.QuoteString(v)
			}
		default:
			continue
		}
		subs = append(subs, engine.Substitution{Start: mc.Start, End: mc.End, Text: text})
	}
	return engine.Render(m.Source, m.BodyStart, end, subs), ok
}

// ImplicitAlias is what follows a rendered ref that the SQL gives no
// alias: " AS <its table name>".
func ImplicitAlias(mc project.Macro, mt MacroText) string {
	if mt.canonical || mc.Aliased {
		return ""
	}
	_, t := SplitName(mc.Arg)
	if mt.shared[scopedName{mc.Scope, strings.ToLower(t)}] {
		// Unique, and present: a subquery (an EXTERNAL or EMBEDDED read in
		// place) needs an alias on Postgres.
		s, _ := SplitName(mc.Arg)
		return " AS " + engine.QuoteIdent(s+"__"+t)
	}
	return " AS " + engine.QuoteIdent(t)
}

// scopedName is a table name in one parenthesized group of a body.
type scopedName struct {
	scope int
	name  string
}

// sharedTableNames lists the table names that unaliased refs to more than
// one model share within one scope (a subquery's ref shadows an outer one
// of the same name, as in plain SQL: no clash).
func sharedTableNames(macros []project.Macro) map[scopedName]bool {
	first := map[scopedName]string{} // → the first model seen with it
	var shared map[scopedName]bool
	for _, mc := range macros {
		if mc.Kind != project.MacroRef || mc.Aliased {
			continue
		}
		_, t := SplitName(mc.Arg)
		k := scopedName{mc.Scope, strings.ToLower(t)}
		if prev, ok := first[k]; !ok {
			first[k] = strings.ToLower(mc.Arg)
		} else if prev != strings.ToLower(mc.Arg) {
			if shared == nil {
				shared = map[scopedName]bool{}
			}
			shared[k] = true
		}
	}
	return shared
}

// BodyEnd returns the offset after the last significant token of the SQL
// starting at from, ignoring trailing semicolons, comments and whitespace,
// so the body can be wrapped in a statement or a subquery. It reads the
// one scanner's tokens, so a "--" inside a string, a dollar quote or an
// E'…' string is text, as the engine reads it.
func BodyEnd(src []byte, from int) int {
	end := from
	for sc := sqlscan.NewScanner(src, from); ; {
		t := sc.Next()
		switch {
		case t.Kind == sqlscan.EOF:
			return end
		case t.Kind == sqlscan.Comment, t.Kind == sqlscan.Punct && t.End-t.Start == 1 && src[t.Start] == ';':
			continue
		}
		end = t.End
	}
}
