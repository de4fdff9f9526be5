package macro

import (
	"fmt"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// builtin expands one call of a built-in macro.
type builtin func(x *expander, n node, t *text, sc *scope) value

var builtins map[string]builtin

// Builtin describes a built-in macro for the editor: its parameters as a
// user writes them and what it does.
type Builtin struct {
	Name   string
	Params string
	Doc    string
}

// Builtins lists the built-in macros with sqlmesh's names, in name order.
var Builtins = []Builtin{
	{"AND", "condition, …", "The conditions joined by AND; NULL operands (an @IF without else) are dropped; TRUE when none is left."},
	{"DATE_SPINE", "datepart, start_date, end_date", "A query of one row per day, week, month, quarter or year from start_date to end_date (both included), in a column date_<datepart>."},
	{"DEDUPLICATE", "relation, partition_by := [...], order_by := [...]", "A query of the relation's rows keeping the first row of each partition in order_by's order."},
	{"DEF", "name, value", "Defines @name for the rest of the model: a value, a list or a lambda (x -> …)."},
	{"EACH", "list, x -> expression", "The expression for each item of the list, separated by commas."},
	{"FILTER", "list, x -> condition", "The items of the list for which the condition is true."},
	{"GENERATE_SURROGATE_KEY", "expression, …, hash_function := 'MD5', null_marker := …, separator := '|'", "A hash (MD5 unless hash_function names another) of the expressions cast to text, NULLs marked as sqlmesh marks them, separated by '|'; null_marker and separator make another tool's keys (dbt_utils: '_dbt_utils_surrogate_key_null_' and '-')."},
	{"IF", "condition, then[, else]", "then when the condition (known before the query runs) is true, else otherwise (or nothing)."},
	{"OR", "condition, …", "The conditions joined by OR; NULL operands are dropped; TRUE when none is left (as sqlmesh's)."},
	{"PIVOT", "column, values, alias := true, agg := 'SUM', cmp := '=', prefix := '', suffix := '', then_value := 1, else_value := 0, quote := true, distinct := false", "One aggregate per value: agg(CASE WHEN column cmp value THEN then_value ELSE else_value END) AS value."},
	{"REDUCE", "list, (acc, x) -> expression", "Folds the list from the left with the lambda."},
	{"SAFE_DIVIDE", "numerator, denominator", "numerator / denominator, NULL where the denominator is 0."},
	{"SQL", "'text'", "The string's text read as SQL (macros in it are expanded)."},
	{"STAR", "relation, alias := …, exclude := [...], prefix := '', suffix := '', quote_identifiers := true", "The relation's columns, as the binder knows them, each as alias.column AS prefix||column||suffix, except the excluded ones."},
	{"UNION", "[type,] relation, …", "The relations' rows stacked (type is 'all', the default, or 'distinct'), in the columns all of them have with the same name and type, in the first one's order."},
}

func init() {
	builtins = map[string]builtin{
		"def":                    biDef,
		"each":                   biEach,
		"if":                     biIf,
		"reduce":                 biReduce,
		"filter":                 biFilter,
		"sql":                    biSQL,
		"and":                    func(x *expander, n node, t *text, sc *scope) value { return biJoin(x, n, t, sc, "AND") },
		"or":                     func(x *expander, n node, t *text, sc *scope) value { return biJoin(x, n, t, sc, "OR") },
		"generate_surrogate_key": biSurrogateKey,
		"safe_divide":            biSafeDivide,
		"pivot":                  biPivot,
		"deduplicate":            biDeduplicate,
		"date_spine":             biDateSpine,
		"star":                   biPassThrough([]string{"relation", "alias", "exclude", "prefix", "suffix", "quote_identifiers"}, 1),
		"union":                  biPassThrough([]string{"type", "relations..."}, 1),
	}
}

// reserved reports whether name is a built-in or primitive macro.
func reserved(name string) bool { return builtins[name] != nil || primitives[name] }

// IsBuiltin reports whether @name (any case) is a built-in macro.
func IsBuiltin(name string) bool { return builtins[strings.ToLower(name)] != nil }

// bound are a built-in call's arguments by parameter name; a variadic
// parameter (name...) holds the rest in rest.
type bound struct {
	args map[string]arg
	rest []arg
}

func (b bound) has(name string) bool { _, ok := b.args[name]; return ok }

// bindBuiltin matches n's arguments to params (in order; a last "name..."
// takes the rest); aliases map other names to a parameter. required is how
// many leading parameters must be given.
func (x *expander) bindBuiltin(n node, t *text, params []string, required int, aliases map[string]string) (bound, bool) {
	b := bound{args: map[string]arg{}}
	ok := true
	variadic := len(params) > 0 && strings.HasSuffix(params[len(params)-1], "...")
	pos := 0
	usage := "@" + strings.ToUpper(n.name) + "(" + strings.ReplaceAll(strings.Join(params, ", "), "...", ", …") + ")"
	for _, a := range n.args {
		if a.name != "" {
			name := a.name
			if al, found := aliases[name]; found {
				name = al
			}
			if !slices.Contains(params, name) || strings.HasSuffix(name, "...") {
				x.problem(t, a.nameStart, a.nameEnd, CodeArgument, fmt.Sprintf("@%s has no parameter %s: %s", strings.ToUpper(n.name), a.name, usage))
				ok = false
				continue
			}
			if b.has(name) {
				x.problem(t, a.nameStart, a.nameEnd, CodeArgument, fmt.Sprintf("argument %s of @%s is given twice", a.name, strings.ToUpper(n.name)))
				ok = false
				continue
			}
			b.args[name] = a
			continue
		}
		switch {
		case variadic && pos >= len(params)-1:
			b.rest = append(b.rest, a)
		case pos < len(params):
			b.args[params[pos]] = a
			pos++
		default:
			x.problem(t, a.start, a.end, CodeArgument, fmt.Sprintf("@%s takes at most %d argument(s): %s", strings.ToUpper(n.name), len(params), usage))
			ok = false
		}
	}
	for i := 0; i < required && i < len(params); i++ {
		p := params[i]
		if strings.HasSuffix(p, "...") {
			if len(b.rest) == 0 {
				x.missing(n, t, strings.TrimSuffix(p, "..."), usage)
				ok = false
			}
			continue
		}
		if !b.has(p) {
			x.missing(n, t, p, usage)
			ok = false
		}
	}
	return b, ok
}

func (x *expander) missing(n node, t *text, p, usage string) {
	at := n.end
	if n.close >= 0 {
		at = n.close
	}
	x.problem(t, min(at, n.end), min(at+1, n.end), CodeArgument, fmt.Sprintf("@%s needs its argument %s: %s", strings.ToUpper(n.name), p, usage))
}

// list evaluates a as a list: [a, b], (a, b), a list value, or one item.
func (x *expander) list(a arg, t *text, sc *scope) []value {
	return x.asList(x.argValue(a, t, sc))
}

// strictList evaluates a as a list that must be one: [a, b], (a, b), or a
// value that is a list (a @DEF of one, another macro's list); false, with
// a problem at a, for anything else.
func (x *expander) strictList(a arg, t *text, sc *scope, usage string) ([]value, bool) {
	v := x.argValue(a, t, sc)
	items := x.asList(v)
	if !v.isList {
		s := strings.TrimSpace(v.sqlText())
		bracketed := len(s) >= 2 && (s[0] == '[' && s[len(s)-1] == ']' || s[0] == '(' && s[len(s)-1] == ')')
		if v.lam != nil || !bracketed || len(items) == 1 && items[0].sqlText() == v.sqlText() {
			x.problem(t, a.start, a.end, CodeValue, "expected a list here ([a, b] or (a, b), or a @DEF of one), found "+abbrev(s)+": "+usage)
			return nil, false
		}
	}
	return items, true
}

// abbrev is s cut for a message.
func abbrev(s string) string {
	if len(s) > 40 {
		return s[:37] + "…"
	}
	return s
}

func (x *expander) asList(v value) []value {
	if v.isList {
		return v.list
	}
	if v.lam != nil {
		return []value{v}
	}
	s := v.sql.String()
	src := []byte(s)
	toks := sqlscan.Tokens(src, 0)
	if len(toks) >= 2 {
		first, last := toks[0], toks[len(toks)-1]
		if first.Kind == sqlscan.Punct && last.Kind == sqlscan.Punct &&
			(src[first.Start] == '[' && src[last.Start] == ']' || src[first.Start] == '(' && src[last.Start] == ')') &&
			matches(src, toks) {
			var items []value
			depth := 0
			start := first.End
			for _, tk := range toks[1:] {
				if tk.Kind != sqlscan.Punct {
					continue
				}
				switch src[tk.Start] {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					if depth == 0 {
						if it := strings.TrimSpace(s[start:tk.Start]); it != "" || len(items) > 0 {
							items = append(items, sliceText(v, s, start, tk.Start))
						}
						return items
					}
					depth--
				case ',':
					if depth == 0 {
						items = append(items, sliceText(v, s, start, tk.Start))
						start = tk.End
					}
				}
			}
			return items
		}
	}
	return []value{v}
}

// matches reports whether the first token's bracket closes at the last
// token.
func matches(src []byte, toks []sqlscan.Token) bool {
	depth := 0
	for i, tk := range toks {
		if tk.Kind != sqlscan.Punct {
			continue
		}
		switch src[tk.Start] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 && i != len(toks)-1 {
				return false
			}
		}
	}
	return depth == 0
}

// sliceText is the SQL v.sql[a:b] (s is its text, a and b offsets into it), blanks
// trimmed, keeping where each piece came from.
func sliceText(v value, s string, a, b int) value {
	for a < b && isBlank(s[a]) {
		a++
	}
	for b > a && isBlank(s[b-1]) {
		b--
	}
	var out frag
	pos := 0
	for _, p := range v.sql {
		ps, pe := pos, pos+len(p.s)
		pos = pe
		lo, hi := max(ps, a), min(pe, b)
		if lo >= hi {
			continue
		}
		q := p
		q.s = p.s[lo-ps : hi-ps]
		if p.copied {
			q.start = p.start + (lo - ps)
			q.end = q.start + len(q.s)
		}
		out = append(out, q)
	}
	r := value{sql: out, t: v.t, start: v.start, end: v.end}
	if len(out) > 0 && out[0].copied && out[0].t == v.t {
		r.start = out[0].start
		if l := out[len(out)-1]; l.copied && l.t == v.t {
			r.end = l.end
		}
	}
	return r
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// biDef is @DEF(name, value): name is bound for the rest of the model.
func biDef(x *expander, n node, t *text, sc *scope) value {
	b, ok := x.bindBuiltin(n, t, []string{"name", "value"}, 2, nil)
	if !ok {
		return value{}
	}
	na := b.args["name"]
	name := strings.TrimPrefix(string(t.src[na.start:na.end]), "@")
	if !sqlscan.IsIdentStart([]byte(name), 0) || sqlscan.IdentEnd([]byte(name), 0) != len(name) {
		x.problem(t, na.start, na.end, CodeArgument, "@DEF needs a name first: @DEF(name, value)")
		return value{}
	}
	name = strings.ToLower(name)
	if !reserved(name) && x.env.Macros[name] == nil {
		if x.absent == nil {
			x.absent = map[string]bool{}
		}
		x.absent[name] = true
	}
	if reserved(name) || x.env.Macros[name] != nil {
		x.problem(t, na.start, na.end, CodeDuplicate, "@DEF("+name+", …) would hide the macro @"+name+": choose another name")
		return value{}
	}
	// The model's scope: a @DEF inside a lambda still defines for the rest
	// of the model, as sqlmesh's do.
	root := sc
	for root.parent != nil {
		root = root.parent
	}
	root.vars.set(name, x.argValue(b.args["value"], t, sc))
	return value{}
}

// biEach is @EACH(list, x -> expr).
func biEach(x *expander, n node, t *text, sc *scope) value {
	b, ok := x.bindBuiltin(n, t, []string{"list", "function"}, 2, nil)
	if !ok {
		return value{}
	}
	items, ok := x.strictList(b.args["list"], t, sc, "@EACH(list, x -> …)")
	if !ok {
		return value{}
	}
	lam := x.lambdaArg(b.args["function"], t, sc, 1, "@EACH(list, x -> …)")
	if lam == nil {
		return value{}
	}
	out := value{isList: true, t: t, start: n.start, end: n.end}
	for _, it := range items {
		out.list = append(out.list, x.apply(lam, []value{it}, n, t))
	}
	return out
}

// lambdaArg reads a as a lambda of arity params.
func (x *expander) lambdaArg(a arg, t *text, sc *scope, arity int, usage string) *lambda {
	v := x.argValue(a, t, sc)
	if v.lam == nil {
		x.problem(t, a.start, a.end, CodeArgument, "expected a lambda here: "+usage)
		return nil
	}
	if len(v.lam.params) != arity {
		x.problem(t, a.start, a.end, CodeArgument, fmt.Sprintf("the lambda takes %d argument(s) (%s), this macro gives it %d: %s",
			len(v.lam.params), strings.Join(v.lam.params, ", "), arity, usage))
		return nil
	}
	return v.lam
}

// biIf is @IF(condition, then[, else]).
func biIf(x *expander, n node, t *text, sc *scope) value {
	b, ok := x.bindBuiltin(n, t, []string{"condition", "true", "false"}, 2, nil)
	if !ok {
		return value{}
	}
	ca := b.args["condition"]
	cond := x.argValue(ca, t, sc)
	truth, ok := x.truth(cond, t, ca)
	if !ok {
		return value{}
	}
	if truth {
		return x.argValue(b.args["true"], t, sc)
	}
	if fa, has := b.args["false"]; has {
		return x.argValue(fa, t, sc)
	}
	return value{}
}

// truth evaluates a condition known before the query runs.
func (x *expander) truth(v value, t *text, a arg) (bool, bool) {
	c, err := x.constant(v)
	if err != nil {
		x.problem(t, a.start, a.end, CodeValue, "the condition must be known before the query runs: "+err.Error())
		return false, false
	}
	switch c.kind {
	case cBool:
		return c.b, true
	case cNull:
		return false, true
	}
	x.problem(t, a.start, a.end, CodeValue, fmt.Sprintf("the condition is %s, not a boolean", c.describe()))
	return false, false
}

// biReduce is @REDUCE(list, (acc, x) -> expr).
func biReduce(x *expander, n node, t *text, sc *scope) value {
	b, ok := x.bindBuiltin(n, t, []string{"list", "function"}, 2, nil)
	if !ok {
		return value{}
	}
	items, ok := x.strictList(b.args["list"], t, sc, "@REDUCE(list, (acc, x) -> …)")
	if !ok {
		return value{}
	}
	lam := x.lambdaArg(b.args["function"], t, sc, 2, "@REDUCE(list, (acc, x) -> …)")
	if lam == nil || len(items) == 0 {
		return value{}
	}
	acc := items[0]
	for _, it := range items[1:] {
		acc = x.apply(lam, []value{acc, it}, n, t)
	}
	return acc
}

// biFilter is @FILTER(list, x -> condition).
func biFilter(x *expander, n node, t *text, sc *scope) value {
	b, ok := x.bindBuiltin(n, t, []string{"list", "function"}, 2, nil)
	if !ok {
		return value{}
	}
	items, ok := x.strictList(b.args["list"], t, sc, "@FILTER(list, x -> …)")
	if !ok {
		return value{}
	}
	lam := x.lambdaArg(b.args["function"], t, sc, 1, "@FILTER(list, x -> …)")
	if lam == nil {
		return value{}
	}
	out := value{isList: true, t: t, start: n.start, end: n.end}
	fa := b.args["function"]
	for _, it := range items {
		keep, ok := x.truth(x.apply(lam, []value{it}, n, t), t, fa)
		if !ok {
			return value{}
		}
		if keep {
			out.list = append(out.list, it)
		}
	}
	return out
}

// biSQL is @SQL('text'): the text read as SQL.
func biSQL(x *expander, n node, t *text, sc *scope) value {
	b, ok := x.bindBuiltin(n, t, []string{"text"}, 1, nil)
	if !ok {
		return value{}
	}
	a := b.args["text"]
	c, err := x.constant(x.argValue(a, t, sc))
	if err != nil || c.kind != cString {
		what := "a value not known before the query runs"
		if err == nil {
			what = c.describe()
		}
		x.problem(t, a.start, a.end, CodeValue, "@SQL needs a string, not "+what)
		return value{}
	}
	if !x.enter("sql", n, t) {
		return value{}
	}
	defer x.leave()
	st := &text{file: t.file, src: []byte(c.s), str: c.s}
	var raw []rawProblem
	nodes := parseNodes(st.src, 0, len(st.src), &raw)
	for _, r := range raw {
		x.problem(t, a.start, a.end, r.code, r.msg)
	}
	// Its text is new: it maps to the call.
	f := x.eval(nodes, st, sc)
	for i := range f {
		if f[i].t == st {
			f[i] = piece{s: f[i].s, t: t, start: n.start, end: n.end, siteStart: -1, siteEnd: -1}
		}
	}
	return value{sql: f, t: t, start: n.start, end: n.end}
}

// biJoin is @AND / @OR.
func biJoin(x *expander, n node, t *text, sc *scope, op string) value {
	var parts []value
	for _, a := range n.args {
		if a.name != "" {
			x.problem(t, a.nameStart, a.nameEnd, CodeArgument, "@"+op+" takes conditions only, no named argument")
			continue
		}
		for _, v := range x.asList(x.argValue(a, t, sc)) {
			s := strings.TrimSpace(v.sqlText())
			if s == "" || strings.EqualFold(s, "null") {
				continue
			}
			parts = append(parts, v)
		}
	}
	out := value{t: t, start: n.start, end: n.end}
	if len(parts) == 0 {
		// TRUE for @OR too, as sqlmesh's: no condition filters nothing.
		out.sql = frag{x.gen("TRUE", t, n.start, n.end)}
		return out
	}
	out.sql = append(out.sql, x.gen("(", t, n.start, n.end))
	for i, p := range parts {
		if i > 0 {
			out.sql = append(out.sql, x.gen(" "+op+" ", t, n.start, n.end))
		}
		out.sql = append(out.sql, x.render(parenthesize(p))...)
	}
	out.sql = append(out.sql, x.gen(")", t, n.start, n.end))
	return out
}

// surrogateNull is what stands for NULL in a surrogate key: sqlmesh's, so
// keys made by either tool are the same.
const surrogateNull = "'_sqlmesh_surrogate_key_null_'"

// biSurrogateKey is @GENERATE_SURROGATE_KEY(a, b, …).
func biSurrogateKey(x *expander, n node, t *text, sc *scope) value {
	out := value{t: t, start: n.start, end: n.end}
	g := func(s string) { out.sql = append(out.sql, x.gen(s, t, n.start, n.end)) }
	var cols []value
	hash := "MD5"
	null, sep := surrogateNull, "'|'"
	for _, a := range n.args {
		if a.name == "null_marker" || a.name == "separator" {
			// Keys another tool made: dbt_utils marks NULLs
			// '_dbt_utils_surrogate_key_null_' and separates with '-'.
			c, err := x.constant(x.argValue(a, t, sc))
			if err != nil || c.kind != cString {
				x.problem(t, a.start, a.end, CodeValue, a.name+" must be a string")
				return value{}
			}
			lit := "'" + strings.ReplaceAll(c.s, "'", "''") + "'"
			if a.name == "null_marker" {
				null = lit
			} else {
				sep = lit
			}
			continue
		}
		if a.name == "hash_function" {
			c, err := x.constant(x.argValue(a, t, sc))
			if err != nil || c.kind != cString || !safeWord(c.s) {
				x.problem(t, a.start, a.end, CodeValue, "hash_function must be the name of a hash function as a string, such as 'MD5' or 'SHA256'")
				return value{}
			}
			hash = strings.ToUpper(c.s)
			continue
		}
		if a.name != "" {
			x.problem(t, a.nameStart, a.nameEnd, CodeArgument, "@GENERATE_SURROGATE_KEY has no parameter "+a.name)
			continue
		}
		cols = append(cols, x.asList(x.argValue(a, t, sc))...)
	}
	if len(cols) == 0 {
		x.missing(n, t, "expression", "@GENERATE_SURROGATE_KEY(expression, …)")
		return value{}
	}
	g(hash + "(CONCAT(")
	for i, c := range cols {
		if i > 0 {
			g(", " + sep + ", ")
		}
		g("COALESCE(CAST(")
		out.sql = append(out.sql, x.render(c)...)
		g(" AS TEXT), " + null + ")")
	}
	g("))")
	return out
}

// biSafeDivide is @SAFE_DIVIDE(a, b): a / NULLIF(b, 0).
func biSafeDivide(x *expander, n node, t *text, sc *scope) value {
	b, ok := x.bindBuiltin(n, t, []string{"numerator", "denominator"}, 2, nil)
	if !ok {
		return value{}
	}
	out := value{t: t, start: n.start, end: n.end}
	g := func(s string) { out.sql = append(out.sql, x.gen(s, t, n.start, n.end)) }
	g("(")
	out.sql = append(out.sql, x.render(parenthesize(x.argValue(b.args["numerator"], t, sc)))...)
	g(" / NULLIF(")
	out.sql = append(out.sql, x.render(x.argValue(b.args["denominator"], t, sc))...)
	g(", 0))")
	return out
}

// constArg is a's value known before the query runs, or def when a is
// absent.
func (x *expander) constArg(b bound, name string, t *text, sc *scope, def constant) (constant, bool) {
	a, ok := b.args[name]
	if !ok {
		return def, true
	}
	c, err := x.constant(x.argValue(a, t, sc))
	if err != nil {
		x.problem(t, a.start, a.end, CodeValue, name+" must be known before the query runs: "+err.Error())
		return def, false
	}
	return c, true
}

// biPivot is sqlmesh's @PIVOT: one aggregate per value.
func biPivot(x *expander, n node, t *text, sc *scope) value {
	params := []string{"column", "values", "alias", "agg", "cmp", "prefix", "suffix", "then_value", "else_value", "quote", "distinct"}
	b, ok := x.bindBuiltin(n, t, params, 2, nil)
	if !ok {
		return value{}
	}
	alias, ok1 := x.constArg(b, "alias", t, sc, constant{kind: cBool, b: true})
	agg, ok2 := x.constArg(b, "agg", t, sc, constant{kind: cString, s: "SUM"})
	cmp, ok3 := x.constArg(b, "cmp", t, sc, constant{kind: cString, s: "="})
	prefix, ok4 := x.constArg(b, "prefix", t, sc, constant{kind: cString})
	suffix, ok5 := x.constArg(b, "suffix", t, sc, constant{kind: cString})
	quote, ok6 := x.constArg(b, "quote", t, sc, constant{kind: cBool, b: true})
	distinct, ok7 := x.constArg(b, "distinct", t, sc, constant{kind: cBool})
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
		return value{}
	}
	if !safeWord(agg.s) || !safeOp(cmp.s) {
		a := b.args["agg"]
		if safeWord(agg.s) {
			a = b.args["cmp"]
		}
		x.problem(t, a.start, a.end, CodeValue, "agg must be a function name and cmp a comparison operator")
		return value{}
	}
	column := x.argValue(b.args["column"], t, sc)
	thenV := x.optSQL(b, "then_value", t, sc, "1")
	elseV := x.optSQL(b, "else_value", t, sc, "0")
	out := value{isList: true, t: t, start: n.start, end: n.end}
	for _, v := range x.list(b.args["values"], t, sc) {
		item := value{t: t, start: n.start, end: n.end}
		g := func(s string) { item.sql = append(item.sql, x.gen(s, t, n.start, n.end)) }
		g(strings.ToUpper(agg.s) + "(")
		if distinct.b {
			g("DISTINCT ")
		}
		g("CASE WHEN ")
		item.sql = append(item.sql, x.render(parenthesize(column))...)
		g(" " + cmp.s + " ")
		item.sql = append(item.sql, x.render(v)...)
		g(" THEN ")
		item.sql = append(item.sql, thenV...)
		g(" ELSE ")
		item.sql = append(item.sql, elseV...)
		g(" END)")
		if alias.kind != cBool || alias.b {
			name := prefix.s + identOf(v) + suffix.s
			if quote.kind == cBool && quote.b {
				g(" AS " + sqlscan.QuoteIdent(name))
			} else {
				g(" AS " + sqlscan.WriteIdent(name))
			}
		}
		out.list = append(out.list, item)
	}
	return out
}

func (x *expander) optSQL(b bound, name string, t *text, sc *scope, def string) frag {
	if a, ok := b.args[name]; ok {
		return x.render(x.argValue(a, t, sc))
	}
	return frag{x.gen(def, t, 0, 0)}
}

func safeWord(s string) bool {
	b := []byte(s)
	return sqlscan.IsIdentStart(b, 0) && sqlscan.IdentEnd(b, 0) == len(b)
}

func safeOp(s string) bool {
	switch strings.ToLower(s) {
	case "=", "<>", "!=", "<", "<=", ">", ">=", "like", "ilike", "is", "is not":
		return true
	}
	return false
}

// biDeduplicate is @DEDUPLICATE(relation, partition_by, order_by): the
// first row of each partition, as a query both engines run (DISTINCT ON).
func biDeduplicate(x *expander, n node, t *text, sc *scope) value {
	b, ok := x.bindBuiltin(n, t, []string{"relation", "partition_by", "order_by"}, 3, nil)
	if !ok {
		return value{}
	}
	out := value{t: t, start: n.start, end: n.end}
	g := func(s string) { out.sql = append(out.sql, x.gen(s, t, n.start, n.end)) }
	parts := x.list(b.args["partition_by"], t, sc)
	orders := x.list(b.args["order_by"], t, sc)
	if len(parts) == 0 {
		a := b.args["partition_by"]
		x.problem(t, a.start, a.end, CodeArgument, "@DEDUPLICATE needs at least one partition_by expression")
		return value{}
	}
	g("SELECT DISTINCT ON (")
	for i, p := range parts {
		if i > 0 {
			g(", ")
		}
		out.sql = append(out.sql, x.render(p)...)
	}
	g(") * FROM ")
	out.sql = append(out.sql, x.render(x.argValue(b.args["relation"], t, sc))...)
	g(" ORDER BY ")
	for i, p := range parts {
		if i > 0 {
			g(", ")
		}
		out.sql = append(out.sql, x.render(p)...)
	}
	for _, o := range orders {
		g(", ")
		// sqlmesh writes the orders as strings: 'updated_at DESC'.
		if c, err := x.constant(o); err == nil && c.kind == cString {
			g(c.s)
			continue
		}
		out.sql = append(out.sql, x.render(o)...)
	}
	return out
}

// spineParts are @DATE_SPINE's date parts and their steps.
var spineParts = map[string]string{"day": "1 day", "week": "7 days", "month": "1 month", "quarter": "3 months", "year": "1 year"}

// biDateSpine is @DATE_SPINE(datepart, start, end): one row per step from
// start to end, both included, in date_<datepart>.
func biDateSpine(x *expander, n node, t *text, sc *scope) value {
	b, ok := x.bindBuiltin(n, t, []string{"datepart", "start_date", "end_date"}, 3, nil)
	if !ok {
		return value{}
	}
	pa := b.args["datepart"]
	part := strings.ToLower(strings.Trim(identOf(x.argValue(pa, t, sc)), " "))
	step, known := spineParts[part]
	if !known {
		x.problem(t, pa.start, pa.end, CodeValue, "@DATE_SPINE's datepart is one of day, week, month, quarter, year; not "+part)
		return value{}
	}
	out := value{t: t, start: n.start, end: n.end}
	g := func(s string) { out.sql = append(out.sql, x.gen(s, t, n.start, n.end)) }
	col := "date_" + part
	g("SELECT CAST(_efmesh_spine." + col + " AS DATE) AS " + col + " FROM generate_series(CAST(")
	out.sql = append(out.sql, x.render(x.argValue(b.args["start_date"], t, sc))...)
	g(" AS TIMESTAMP), CAST(")
	out.sql = append(out.sql, x.render(x.argValue(b.args["end_date"], t, sc))...)
	g(" AS TIMESTAMP), INTERVAL '" + step + "') AS _efmesh_spine(" + col + ")")
	return out
}

// biPassThrough checks a call whose expansion needs the binder (@STAR,
// @UNION) and writes it again with its arguments expanded, for the stage
// that knows the columns.
func biPassThrough(params []string, required int) builtin {
	return func(x *expander, n node, t *text, sc *scope) value {
		aliases := map[string]string{}
		if n.name == "star" {
			aliases["except"] = "exclude"
		}
		if _, ok := x.bindBuiltin(n, t, params, required, aliases); !ok {
			return x.sqlValue(t, n.start, n.end, x.gen("NULL", t, n.start, n.end))
		}
		out := value{t: t, start: n.start, end: n.end}
		out.sql = append(out.sql, x.copyOf(t, n.start, n.open+1))
		for i, a := range n.args {
			if i > 0 {
				out.sql = append(out.sql, x.gen(", ", t, a.start, a.start))
			}
			if a.name != "" {
				out.sql = append(out.sql, x.copyOf(t, a.nameStart, a.start))
			}
			out.sql = append(out.sql, x.render(x.argValue(a, t, sc))...)
		}
		out.sql = append(out.sql, x.gen(")", t, n.end, n.end))
		return out
	}
}
