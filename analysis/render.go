package analysis

import (
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/macro"
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
	// Columns are the columns a model yields (its children's view of it),
	// for @STAR and @UNION; false when unknown.
	Columns func(model string) ([]engine.Column, bool)
	// Env is the environment @env names ("" renders a NULL text).
	Env string
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
		case project.MacroStartDS, project.MacroEndDS:
			b := mt.Start
			if mc.Kind == project.MacroEndDS {
				b = mt.End
			}
			text = "CAST(CAST(" + b + " AS DATE) AS TEXT)"
		case project.MacroStartTS, project.MacroEndTS:
			b := mt.Start
			if mc.Kind == project.MacroEndTS {
				b = mt.End
			}
			text = "CAST(CAST(" + b + " AS TIMESTAMP) AS TEXT)"
		case project.MacroExecutionDS:
			text = "CAST(CURRENT_DATE AS TEXT)"
		case project.MacroThisModel:
			text = mt.literal(m.Name)
		case project.MacroEnv:
			// Outside an environment (a check of the project alone) a text
			// without a value.
			text = "CAST(NULL AS TEXT)"
			if mt.Env != "" {
				text = mt.literal(mt.Env)
			}
		case project.MacroStar, project.MacroUnion:
			t, found := renderRelationMacro(m, mc, mt)
			if !found {
				ok = false
			}
			text = t
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

func (mt MacroText) literal(s string) string {
	if mt.Literal != nil {
		return mt.Literal(s)
	}
	return engine.QuoteString(s)
}

// renderRelationMacro renders @STAR or @UNION with the columns of the
// models they read; false when a relation or its columns are unknown.
func renderRelationMacro(m *project.Model, mc project.Macro, mt MacroText) (string, bool) {
	c, ok := macro.CallAt(m.Source[:mc.End], mc.Start)
	if !ok {
		return "NULL", false
	}
	arg := func(name string, pos int) (string, bool) {
		p := 0
		for _, a := range c.Args {
			if a.Name == name || name == "exclude" && a.Name == "except" {
				return string(m.Source[a.Start:a.End]), true
			}
			if a.Name == "" {
				if p == pos {
					return string(m.Source[a.Start:a.End]), true
				}
				p++
			}
		}
		return "", false
	}
	columns := func(rel string) (string, []engine.Column, bool) {
		name, _ := project.RelationArg(rel)
		if name == "" || mt.Columns == nil {
			return name, nil, false
		}
		cols, ok := mt.Columns(name)
		return name, cols, ok && len(cols) > 0
	}
	if mc.Kind == project.MacroStar {
		rel, _ := arg("relation", 0)
		_, cols, ok := columns(rel)
		if !ok {
			return "NULL", false
		}
		alias, _ := arg("alias", 1)
		exclude, _ := arg("exclude", 2)
		prefix, _ := arg("prefix", 3)
		suffix, _ := arg("suffix", 4)
		quote, hasQuote := arg("quote_identifiers", 5)
		ident := engine.QuoteIdent
		if hasQuote && strings.EqualFold(strings.TrimSpace(quote), "false") {
			ident = sqlscan.WriteIdent
		}
		skip := map[string]bool{}
		for _, e := range listItems(exclude) {
			skip[sqlscan.FoldName(e)] = true
		}
		qual := ""
		if a := unquoteWord(alias); a != "" {
			qual = engine.QuoteIdent(a) + "."
		}
		var items []string
		for _, col := range cols {
			if skip[sqlscan.FoldName(col.Name)] {
				continue
			}
			items = append(items, qual+engine.QuoteIdent(col.Name)+" AS "+ident(unquoteWord(prefix)+col.Name+unquoteWord(suffix)))
		}
		if len(items) == 0 {
			return "NULL", false
		}
		return strings.Join(items, ", "), true
	}
	// @UNION([type,] relation, …): the relations stacked by column name,
	// every column any of them has, in order of first appearance; where a
	// relation lacks one it is NULL of the column's type. A column whose
	// type differs between relations is read as text in all of them, so
	// that both engines stack it. type is 'all' (the default) or 'distinct'.
	op := " UNION ALL "
	var rels []string
	for i, a := range c.Args {
		if a.Name != "" {
			continue
		}
		text := string(m.Source[a.Start:a.End])
		if name, _ := project.RelationArg(text); i == 0 && name == "" {
			if strings.EqualFold(unquoteWord(text), "distinct") {
				op = " UNION "
			}
			continue
		}
		rels = append(rels, text)
	}
	if len(rels) == 0 || mt.Ref == nil {
		return "NULL", false
	}
	type rel struct {
		from string
		cols map[string]bool
	}
	var all []rel
	var order []engine.Column
	types := map[string]string{}
	mixed := map[string]bool{}
	for _, text := range rels {
		name, cols, ok := columns(text)
		if !ok {
			return "NULL", false
		}
		from, found := mt.Ref(name)
		if !found {
			return "NULL", false
		}
		r := rel{from: from, cols: map[string]bool{}}
		for _, col := range cols {
			k := sqlscan.FoldName(col.Name)
			r.cols[k] = true
			typ := strings.ToLower(strings.TrimSpace(col.Type))
			if prev, seen := types[k]; !seen {
				types[k] = typ
				order = append(order, col)
			} else if prev != typ {
				mixed[k] = true
			}
		}
		all = append(all, r)
	}
	parts := make([]string, len(all))
	for i, r := range all {
		items := make([]string, len(order))
		for j, col := range order {
			k := sqlscan.FoldName(col.Name)
			q := engine.QuoteIdent(col.Name)
			typ := col.Type
			if mixed[k] {
				typ = "TEXT"
			}
			if r.cols[k] {
				items[j] = "CAST(" + q + " AS " + typ + ") AS " + q
			} else {
				items[j] = "CAST(NULL AS " + typ + ") AS " + q
			}
		}
		parts[i] = "SELECT " + strings.Join(items, ", ") + " FROM " + r.from + " AS " + engine.QuoteIdent("_efmesh_union_"+strconv.Itoa(i+1))
	}
	return strings.Join(parts, op), true
}

// listItems are the names of a list argument as written: [a, 'b', "C"].
func listItems(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if (strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]")) || (strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")")) {
		s = s[1 : len(s)-1]
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if w := unquoteWord(p); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// unquoteWord is a name or string as written, without its quotes.
func unquoteWord(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if toks := sqlscan.Tokens([]byte(s), 0); len(toks) == 1 && (toks[0].Kind == sqlscan.String || toks[0].Kind == sqlscan.QuotedIdent) {
		return toks[0].Value([]byte(s))
	}
	return s
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

// ColumnsOf is what model name yields to its children (ModelInfo.Columns):
// the columns @STAR and @UNION read.
func (a *Analysis) ColumnsOf(name string) ([]engine.Column, bool) {
	info := a.Models[name]
	if info == nil || info.Columns == nil {
		return nil, false
	}
	return info.Columns, true
}
