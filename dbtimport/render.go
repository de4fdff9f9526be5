package dbtimport

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// The Jinja of a model that convertBody does not know (loops, sets, macro
// calls, adapter.dispatch, packages) is evaluated by gonja with dbt's
// context. The output is SQL in the model language: ref() and source()
// render @ref(…), a project macro that is a plain template of its
// arguments renders a call of the efmesh macro written for it, and the
// dbt_utils macros efmesh has built-ins for render those.

// dbtCore is dbt's built-in package "dbt": its cross-database macros
// (dbt.date_trunc, dbt.type_string, dbt.dateadd, …) from dbt-adapters, and
// dbt-duckdb's implementations of them, which adapter.dispatch finds
// first. dbtcore/NOTICE says where each file comes from.
//
//go:embed dbtcore dbtutils
var dbtCore embed.FS

// jinjaMacro is one {% macro %} of the project or of an installed package.
type jinjaMacro struct {
	name, pkg string // pkg is "" for the project's own
	file      string // relative to the dbt project
	line      int    // of the {% macro %} tag
	params    []param
	body      string
	text      string // the whole {% macro %}…{% endmacro %}
	doc       string // the comment just before it, if any
	test      bool   // a generic test, {% test %}
}

type param struct{ name, def string } // def is the Jinja default, "" without one

// jinjaEnv is a dbt project's macros, loaded once for all models.
type jinjaEnv struct {
	macros  []*jinjaMacro
	byPkg   map[string]map[string]*jinjaMacro // "" is the project
	plain   map[string]*jinjaMacro            // project macros written as efmesh macros
	prelude string                            // every Jinja-evaluated macro, in order
	lines   []preludeLine                     // where each prelude line came from
	vars    map[string]any
	project string
	broken  map[string]error // macros gonja does not parse, by name
}

type preludeLine struct {
	file string
	line int
}

var (
	reMacro = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)\{%-?\s*macro\s+(\w+)\s*\((.*?)\)\s*-?%\}(.*?)\{%-?\s*endmacro\s*-?%\}`)
	})
	reTestOpen  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{%(-?)\s*test\s+(\w+)\s*\(`) })
	reTestEnd   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{%(-?)\s*endtest\s*(-?)%\}`) })
	reExprTag   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{-?\s*(\w+)\s*-?\}\}`) })
	reDocBefore = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)(?:\{#-?\s*(.*?)\s*-?#\}|--\s*([^\n]*))\s*$`)
	})
)

// loadMacros reads the project's macro paths and dbt_packages/*/macros.
func loadMacros(from string, macroPaths, testPaths []string, vars map[string]any, project string) (*jinjaEnv, error) {
	env := &jinjaEnv{byPkg: map[string]map[string]*jinjaMacro{"": {}}, plain: map[string]*jinjaMacro{}, vars: vars, project: project}
	read := func(root, pkg string) error {
		return walk(root, func(path, _ string) error {
			if !strings.HasSuffix(path, ".sql") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(from, path)
			env.readFile(filepath.ToSlash(rel), string(b), pkg)
			return nil
		})
	}
	// dbt's own package first: a package or the project may override
	// any of its macros, as in dbt.
	embedded := func(root, pkg string) error {
		env.byPkg[pkg] = map[string]*jinjaMacro{}
		return fs.WalkDir(dbtCore, root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sql") {
				return err
			}
			b, err := dbtCore.ReadFile(path)
			if err != nil {
				return err
			}
			env.readFile("("+pkg+")/"+strings.TrimPrefix(path, root+"/"), string(b), pkg)
			return nil
		})
	}
	if err := embedded("dbtcore", "dbt"); err != nil {
		return nil, err
	}
	// dbt_utils's generic tests, for a project whose packages are not
	// installed (dbt_packages is rarely committed).
	if _, err := os.Stat(filepath.Join(from, "dbt_packages", "dbt_utils")); err != nil {
		if err := embedded("dbtutils", "dbt_utils"); err != nil {
			return nil, err
		}
	}
	pkgs, _ := os.ReadDir(filepath.Join(from, "dbt_packages"))
	for _, p := range pkgs {
		if !p.IsDir() {
			continue
		}
		if p.Name() == "dbt" {
			continue // dbt's own is built in
		}
		env.byPkg[p.Name()] = map[string]*jinjaMacro{}
		if err := read(filepath.Join(from, "dbt_packages", p.Name(), "macros"), p.Name()); err != nil {
			return nil, err
		}
	}
	for _, mp := range orDefault(macroPaths, "macros") {
		if err := read(filepath.Join(from, mp), ""); err != nil {
			return nil, err
		}
	}
	for _, tp := range orDefault(testPaths, "tests") {
		if err := read(filepath.Join(from, tp, "generic"), ""); err != nil {
			return nil, err
		}
	}
	var pre strings.Builder
	env.broken = map[string]error{}
	// A dispatcher whose DuckDB implementation is plain is one efmesh
	// macro: the dispatcher's name and defaults, the implementation's
	// body. Its variants for other warehouses are not written.
	variants := map[string]bool{}
	for _, m := range env.macros {
		if m.pkg != "" {
			continue
		}
		if impl := env.dispatchedPlain(m); impl != nil {
			env.plain[m.name] = &jinjaMacro{name: m.name, file: m.file, line: m.line, params: m.params, body: impl.body, doc: m.doc}
			for name, v := range env.byPkg[""] {
				if strings.HasSuffix(name, "__"+m.name) && v.pkg == "" {
					variants[name] = true
				}
			}
		}
	}
	for _, m := range env.macros {
		if m.pkg == "" && env.plain[m.name] != nil {
			continue
		}
		if m.pkg == "" && !variants[m.name] && isPlain(m) {
			env.plain[m.name] = m
			continue
		}
		// A macro gonja cannot parse is left out; a model that calls it
		// fails on the call, naming the macro's place and gonja's message.
		if _, err := gonja.FromString(m.text); err != nil {
			env.broken[m.name] = env.position(m.file, m.text, err, m.line-1)
			continue
		}
		for i := range strings.Count(m.text, "\n") + 1 {
			env.lines = append(env.lines, preludeLine{file: m.file, line: m.line + i})
		}
		pre.WriteString(m.text + "\n")
	}
	env.prelude = pre.String()
	return env, nil
}

func (env *jinjaEnv) readFile(rel, src, pkg string) {
	// A generic test, {% test name(model, …) %}…{% endtest %}, is the
	// macro test_name, as in dbt; the text keeps its lines.
	tests := map[string]bool{}
	src = reTestOpen().ReplaceAllStringFunc(src, func(t string) string {
		m := reTestOpen().FindStringSubmatch(t)
		tests["test_"+m[2]] = true
		return "{%" + m[1] + " macro test_" + m[2] + "("
	})
	src = reTestEnd().ReplaceAllString(src, "{%${1} endmacro ${2}%}")
	for _, at := range reMacro().FindAllStringSubmatchIndex(src, -1) {
		m := &jinjaMacro{name: src[at[2]:at[3]], pkg: pkg, file: rel, body: src[at[6]:at[7]], text: trailingCommas(src[at[0]:at[1]])}
		m.test = tests[m.name]
		m.line, _ = position(src, at[0])
		for _, p := range splitTop(src[at[4]:at[5]]) {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			name, def, _ := strings.Cut(p, "=")
			m.params = append(m.params, param{name: strings.TrimSpace(name), def: strings.TrimSpace(def)})
		}
		if d := reDocBefore().FindStringSubmatch(src[:at[0]]); d != nil {
			m.doc = oneLine(d[1] + d[2])
		}
		env.macros = append(env.macros, m)
		env.byPkg[pkg][m.name] = m
	}
}

var reDispatcher = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)^\s*\{\{-?\s*return\(\s*adapter\.dispatch\(\s*['"](\w+)['"]\s*\)\s*\(([\w\s,]*)\)\s*\)\s*-?\}\}\s*$`)
})

// dispatchedPlain is the implementation a project macro that is only
// {{ return(adapter.dispatch('name')(its params)) }} resolves to on
// DuckDB, when that implementation is plain; nil otherwise.
func (env *jinjaEnv) dispatchedPlain(m *jinjaMacro) *jinjaMacro {
	d := reDispatcher().FindStringSubmatch(m.body)
	if d == nil || d[1] != m.name {
		return nil
	}
	args := splitTop(d[2])
	if len(args) != len(m.params) {
		return nil
	}
	for i, a := range args {
		if strings.TrimSpace(a) != m.params[i].name {
			return nil
		}
	}
	for _, prefix := range dispatchOrder {
		if impl := env.byPkg[""][prefix+m.name]; impl != nil {
			if !isPlain(impl) || len(impl.params) != len(m.params) {
				return nil
			}
			// the implementation's parameter names may differ
			body := impl.body
			for i, p := range impl.params {
				body = regexp.MustCompile(`\{\{-?\s*`+regexp.QuoteMeta(p.name)+`\s*-?\}\}`).ReplaceAllString(body, "{{ "+m.params[i].name+" }}")
			}
			return &jinjaMacro{name: impl.name, params: m.params, body: body}
		}
	}
	return nil
}

// dispatchOrder is where adapter.dispatch looks on DuckDB: dbt-duckdb's
// own implementations, then the default; postgres__ last, for packages
// that write only a Postgres variant.
var dispatchOrder = []string{"duckdb__", "default__", "postgres__"}

// isPlain reports whether m is a plain SQL template of its arguments: no
// statement, every expression one of its parameters, defaults literals.
// Such a macro becomes an efmesh macro: one definition, called by name.
func isPlain(m *jinjaMacro) bool {
	if m.test || dbtNameMacros[m.name] || strings.Contains(m.body, "{%") || strings.Contains(m.body, ";") || strings.TrimSpace(m.body) == "" {
		return false
	}
	names := map[string]bool{}
	for _, p := range m.params {
		if !regexp.MustCompile(`^\w+$`).MatchString(p.name) {
			return false
		}
		if p.def != "" {
			if _, _, err := literal(p.def); err != nil {
				return false
			}
		}
		names[p.name] = true
	}
	rest := reExprTag().ReplaceAllStringFunc(m.body, func(s string) string {
		if names[reExprTag().FindStringSubmatch(s)[1]] {
			return ""
		}
		return s
	})
	return !strings.Contains(rest, "{{") && !strings.Contains(rest, "{#")
}

// dbtNameMacros are the macros dbt calls to name a relation: evaluated at
// import, never written as efmesh macros.
var dbtNameMacros = map[string]bool{"generate_schema_name": true, "generate_alias_name": true, "generate_database_name": true}

// efmeshMacro is the MACRO definition written for a plain macro.
func efmeshMacro(m *jinjaMacro) string {
	var ps []string
	for _, p := range m.params {
		if p.def == "" {
			ps = append(ps, p.name)
			continue
		}
		v, _, _ := literal(p.def)
		ps = append(ps, p.name+" := "+fmt.Sprint(v))
	}
	body := reExprTag().ReplaceAllString(strings.TrimSpace(m.body), "@$1")
	doc := m.doc
	if doc == "" {
		doc = "Converted from the dbt macro " + m.name + " (" + m.file + ")."
	}
	return "-- " + doc + "\nMACRO " + m.name + "(" + strings.Join(ps, ", ") + ") AS " + body + ";\n"
}

// trailingCommas drops the commas Python allows before a closing bracket
// inside Jinja tags (f(a, b,)), which gonja's parser refuses. Strings are
// left as they are; the text keeps its lines.
func trailingCommas(src string) string {
	var out strings.Builder
	last := 0
	for _, t := range scanTags(src) {
		if t.kind == '#' {
			continue
		}
		out.WriteString(src[last:t.start])
		tag := src[t.start:t.end]
		quote := byte(0)
		for i := 0; i < len(tag); i++ {
			c := tag[i]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '\'' || c == '"':
				quote = c
			case c == ',':
				j := i + 1
				for j < len(tag) && (tag[j] == ' ' || tag[j] == '\t' || tag[j] == '\n' || tag[j] == '\r') {
					j++
				}
				if j < len(tag) && (tag[j] == ')' || tag[j] == ']' || tag[j] == '}') {
					c = ' '
				}
			}
			out.WriteByte(c)
		}
		last = t.end
	}
	out.WriteString(src[last:])
	return out.String()
}

// splitTop splits s on the commas outside brackets and quotes.
func splitTop(s string) []string {
	var out []string
	depth, quote, last := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[last:i])
			last = i + 1
		}
	}
	return append(out, s[last:])
}

// relation is what ref(), source() and this are in a model's Jinja: it
// renders @ref(schema.table) and has dbt's attributes.
type relation map[string]any

func (r relation) String() string { return fmt.Sprint(r["__sql"]) }

func newRelation(name, sql string) relation {
	schema, table, _ := strings.Cut(name, ".")
	return relation{"__sql": sql, "schema": schema, "name": table, "identifier": table, "table": table, "database": ""}
}

// renderError is a Jinja error at a place in a file: bad input.
type renderError struct {
	file      string
	line, col int
	msg       string
}

func (e *renderError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.col, e.msg)
}

// maxDepth bounds macro calls inside macro calls: deeper is a recursion.
const maxDepth = 50

// renderBody evaluates a model's Jinja. It returns the body as convertBody
// does, or a *renderError for input that does not evaluate.
func (env *jinjaEnv) renderBody(file, src string, r resolver) (body, error) {
	return env.renderWith(file, src, r, nil)
}

// renderWith is renderBody with more names in the context (a test's
// model).
func (env *jinjaEnv) renderWith(file, src string, r resolver, extra map[string]any) (body, error) {
	b := body{cfgAt: -1, incrAt: -1, vars: map[string]string{}, varAt: map[string]Piece{}, config: map[string]any{}}
	// The is_incremental() filter becomes @start/@end as convertBody makes
	// it; the rest of the model is the full build (is_incremental() false).
	src2 := src
	tags := scanTags(src)
	for i, t := range tags {
		if t.kind != '%' || !reIfIncr().MatchString(t.inner) {
			continue
		}
		if j := matchingEndif(tags, i); j > 0 {
			if m := reTimeFlt().FindStringSubmatch(src[t.end:tags[j].start]); m != nil {
				b.timeCol, b.incrAt = strings.ToLower(m[3]), t.start
				repl := "{% raw %}" + m[1] + " " + m[2] + " >= @start AND " + m[2] + " < @end{% endraw %}"
				// keep the lines, so that positions stay true
				repl += strings.Repeat("\n", max(0, strings.Count(src[t.start:tags[j].end], "\n")-strings.Count(repl, "\n")))
				src2 = src[:t.start] + repl + src[tags[j].end:]
			} else {
				b.incrAt = t.start
			}
		}
		break
	}
	if at := strings.Index(src, "config("); at >= 0 {
		b.cfgAt = strings.LastIndex(src[:at], "{{")
		if b.cfgAt < 0 {
			b.cfgAt = at
		}
	}
	human := func(name, why string) {
		line, col := 1, 1
		for _, n := range []string{"dbt_utils." + name, name} {
			if at := strings.Index(src, n); at >= 0 {
				line, col = position(src, at)
				name = n
				break
			}
		}
		b.pieces = append(b.pieces, Piece{File: file, Line: line, Col: col, Text: name, Reason: why})
	}
	var rerr error
	fail := func(format string, args ...any) *exec.Value {
		err := fmt.Errorf(format, args...)
		if rerr == nil {
			rerr = err
		}
		return exec.AsValue(err)
	}
	str := func(v *exec.Value) string {
		if v == nil {
			return ""
		}
		return v.String()
	}
	kw := func(va *exec.VarArgs, i int, name string) *exec.Value {
		if v, ok := va.KwArgs[name]; ok {
			return v
		}
		if i >= 0 && i < len(va.Args) {
			return va.Args[i]
		}
		return nil
	}
	ctx := map[string]any{}
	ctx["ref"] = func(va *exec.VarArgs) *exec.Value {
		n := str(va.Args[len(va.Args)-1])
		name, ok := r.model(n)
		if !ok {
			return fail("ref to %q, which is not a model of this dbt project", n)
		}
		b.refs = append(b.refs, name)
		return exec.AsValue(newRelation(name, "@ref("+name+")"))
	}
	ctx["source"] = func(va *exec.VarArgs) *exec.Value {
		if len(va.Args) != 2 {
			return fail("source() takes a source and a table")
		}
		name, ok := r.source(str(va.Args[0]), str(va.Args[1]))
		if !ok {
			return fail("source %q.%q is not declared in the project's YAML", str(va.Args[0]), str(va.Args[1]))
		}
		b.refs = append(b.refs, name)
		return exec.AsValue(newRelation(name, "@ref("+name+")"))
	}
	ctx["config"] = func(va *exec.VarArgs) *exec.Value {
		for k, v := range va.KwArgs {
			b.config[k] = goValue(v)
		}
		return exec.AsValue("")
	}
	ctx["var"] = func(va *exec.VarArgs) *exec.Value {
		n := str(va.First())
		if v, ok := env.vars[n]; ok {
			return exec.AsValue(v)
		}
		if len(va.Args) > 1 {
			return va.Args[1]
		}
		return fail("var(%q) has no value in dbt_project.yml's vars and no default", n)
	}
	ctx["env_var"] = func(va *exec.VarArgs) *exec.Value {
		n := str(va.First())
		if v, ok := os.LookupEnv(n); ok {
			return exec.AsValue(v)
		}
		if len(va.Args) > 1 {
			return va.Args[1]
		}
		return fail("env_var(%q) is not set and has no default", n)
	}
	ctx["is_incremental"] = func() bool { return false }
	ctx["this"] = relation{"__sql": "@this"}
	ctx["target"] = map[string]any{"name": "dev", "schema": "main", "type": "duckdb", "database": "", "threads": 1, "profile_name": env.project}
	ctx["run_started_at"] = relation{"__sql": "CURRENT_TIMESTAMP"}
	ctx["modules"] = map[string]any{"datetime": map[string]any{}}
	ctx["log"] = func(va *exec.VarArgs) string { return "" }
	ctx["exceptions"] = map[string]any{
		"raise_compiler_error": func(va *exec.VarArgs) *exec.Value { return fail("compiler error: %s", str(va.First())) },
		"warn":                 func(va *exec.VarArgs) string { return "" },
		"raise_not_implemented": func(va *exec.VarArgs) *exec.Value {
			return fail("not implemented: %s", str(va.First()))
		},
	}
	// api.Column.translate_type: dbt's type labels, as dbt-duckdb keeps
	// them (dbt.type_string() is text, type_int() int, …).
	ctx["api"] = map[string]any{"Column": map[string]any{"translate_type": func(t string) string {
		if l, ok := map[string]string{"STRING": "text", "TIMESTAMP": "timestamp", "FLOAT": "float", "INTEGER": "int", "BOOLEAN": "boolean"}[strings.ToUpper(t)]; ok {
			return l
		}
		return t
	}, "numeric_type": func(t string, precision, scale *exec.Value) string {
		if precision == nil || scale == nil || precision.IsNil() || scale.IsNil() {
			return t
		}
		return fmt.Sprintf("%s(%s,%s)", t, precision.String(), scale.String())
	}, "string_type": func(size *exec.Value) string {
		return "character varying(" + size.String() + ")"
	}}}
	ctx["run_query"] = func(va *exec.VarArgs) *exec.Value {
		human("run_query", "run_query needs the warehouse at compile time: write the result by hand")
		return exec.AsValue(nil)
	}
	ctx["execute"] = true
	ctx["should_store_failures"] = func() bool { return false }
	ctx["flags"] = map[string]any{"FULL_REFRESH": false}
	ctx["builtins"] = map[string]any{}

	// return(): the first value a macro returns is its result.
	var returns []*exec.Value
	ctx["return"] = func(v *exec.Value) string {
		if n := len(returns); n > 0 && returns[n-1] == nil {
			returns[n-1] = v
		}
		return ""
	}
	depth := 0
	wrap := func(name string, orig exec.Macro) exec.Macro {
		return func(va *exec.VarArgs) *exec.Value {
			if depth >= maxDepth {
				return fail("macro %s calls itself without end (recursion deeper than %d)", name, maxDepth)
			}
			depth++
			returns = append(returns, nil)
			out := orig(va)
			ret := returns[len(returns)-1]
			returns = returns[:len(returns)-1]
			depth--
			if out.IsError() || ret == nil {
				return out
			}
			return ret
		}
	}
	// Plain project macros render a call of the efmesh macro.
	for name, m := range env.plain {
		ctx[name] = func(va *exec.VarArgs) string {
			var args []string
			for i, p := range m.params {
				v := kw(va, i, p.name)
				if v == nil {
					break
				}
				args = append(args, str(v))
			}
			return "@" + name + "(" + strings.Join(args, ", ") + ")"
		}
	}
	for name, err := range env.broken {
		ctx[name] = func(*exec.VarArgs) *exec.Value {
			if rerr == nil {
				rerr = fmt.Errorf("macro %s does not parse: %w", name, err)
			}
			return exec.AsValue(rerr)
		}
	}
	builtins := dbtUtilsBuiltins(env.vars, str, kw, human)
	ctx["__efmesh_install"] = func(e *exec.Evaluator, _ *exec.VarArgs) string {
		c := e.Environment.Context
		for _, m := range env.macros {
			if _, plain := env.plain[m.name]; plain && m.pkg == "" {
				continue
			}
			if v, ok := c.Get(m.name); ok {
				if f, ok := v.(exec.Macro); ok {
					c.Set(m.name, wrap(m.name, f))
				}
			}
		}
		for pkg, ms := range env.byPkg {
			if pkg == "" {
				continue
			}
			ns := map[string]any{}
			for name := range ms {
				if v, ok := c.Get(name); ok {
					ns[name] = v
				}
			}
			if pkg == "dbt_utils" {
				for name, f := range builtins {
					ns[name] = f
				}
			}
			c.Set(pkg, ns)
		}
		if _, ok := env.byPkg["dbt_utils"]; !ok {
			ns := map[string]any{}
			for name, f := range builtins {
				ns[name] = f
			}
			c.Set("dbt_utils", ns)
		}
		c.Set("adapter", map[string]any{"type": func() string { return "duckdb" },
			"quote": func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` },
			"get_columns_in_relation": func(*exec.VarArgs) *exec.Value {
				human("get_columns_in_relation", "adapter.get_columns_in_relation reads the warehouse at compile time: write its result by hand")
				return exec.AsValue([]any{})
			},
			"dispatch": func(va *exec.VarArgs) *exec.Value {
				name, pkg := str(va.First()), str(kw(va, 1, "macro_namespace"))
				for _, prefix := range dispatchOrder {
					if m, ok := env.byPkg[""][prefix+name]; ok && m != nil {
						if v, ok := c.Get(prefix + name); ok {
							return exec.AsValue(v)
						}
					}
					if ns, ok := env.byPkg[pkg]; ok && ns[prefix+name] != nil {
						if v, ok := c.Get(prefix + name); ok {
							return exec.AsValue(v)
						}
					}
				}
				return fail("adapter.dispatch(%q, %q): no duckdb__, postgres__ or default__%s macro in the project or the package", name, pkg, name)
			}})
		return ""
	}
	for k, v := range extra {
		ctx[k] = v
	}
	const mark = "\x00efmesh-body\x00"
	text := env.prelude + "{{ __efmesh_install() }}" + mark + trailingCommas(src2)
	tpl, err := gonja.FromString(text)
	if err != nil {
		return b, env.position(file, src, err, -1)
	}
	out, err := tpl.ExecuteToString(exec.NewContext(ctx))
	if rerr != nil {
		// gonja's error has the place, ours says what went wrong
		var re *renderError
		if errors.As(rerr, &re) {
			return b, re
		}
		if err == nil {
			err = rerr
		}
		pe := env.position(file, src, err, -1)
		if errors.As(pe, &re) {
			re.msg = rerr.Error()
		}
		return b, pe
	}
	if err != nil {
		return b, env.position(file, src, err, -1)
	}
	_, out, _ = strings.Cut(out, mark)
	b.sql = strings.TrimSpace(blankLines(out))
	return b, nil
}

// dbtUtilsBuiltins are the dbt_utils macros efmesh has built-ins for, as
// Jinja functions rendering the built-in's call; and those that need the
// warehouse, which are left to a human.
func dbtUtilsBuiltins(vars map[string]any, str func(*exec.Value) string, kw func(*exec.VarArgs, int, string) *exec.Value, human func(name, why string)) map[string]any {
	list := func(v *exec.Value) []string {
		if v == nil {
			return nil
		}
		var out []string
		if v.IsList() {
			for i := range v.Len() {
				out = append(out, v.Index(i).String())
			}
			return out
		}
		return []string{v.String()}
	}
	quoted := func(s string) string { return sqlString(s) }
	needsWarehouse := func(name string) func(*exec.VarArgs) *exec.Value {
		return func(*exec.VarArgs) *exec.Value {
			human(name, "dbt_utils."+name+" reads the warehouse at compile time: write its result by hand, or a macro efmesh runs")
			return exec.AsValue([]any{})
		}
	}
	return map[string]any{
		"star": func(va *exec.VarArgs) string {
			args := []string{str(kw(va, 0, "from"))}
			if ex := list(kw(va, 1, "except")); len(ex) > 0 {
				args = append(args, "exclude := ["+strings.Join(ex, ", ")+"]")
			}
			if a := str(kw(va, 2, "relation_alias")); a != "" && a != "False" {
				args = append(args, "alias := "+a)
			}
			if p := str(kw(va, 3, "prefix")); p != "" {
				args = append(args, "prefix := "+quoted(p))
			}
			if s := str(kw(va, 4, "suffix")); s != "" {
				args = append(args, "suffix := "+quoted(s))
			}
			return "@STAR(" + strings.Join(args, ", ") + ")"
		},
		// @GENERATE_SURROGATE_KEY with dbt_utils's NULL marker and
		// separator: the same string hashed, so the keys a dbt project has
		// already handed out stay the same.
		"generate_surrogate_key": func(va *exec.VarArgs) string {
			null := "_dbt_utils_surrogate_key_null_"
			if v, ok := vars["surrogate_key_treat_nulls_as_empty_strings"].(bool); ok && v {
				null = ""
			}
			fields := list(kw(va, 0, "field_list"))
			return "@GENERATE_SURROGATE_KEY(" + strings.Join(fields, ", ") + ", null_marker := " + quoted(null) + ", separator := '-')"
		},
		"safe_divide": func(va *exec.VarArgs) string {
			return "@SAFE_DIVIDE(" + str(kw(va, 0, "numerator")) + ", " + str(kw(va, 1, "denominator")) + ")"
		},
		"union_relations": func(va *exec.VarArgs) string {
			return "@UNION('all', " + strings.Join(list(kw(va, 0, "relations")), ", ") + ")"
		},
		"deduplicate": func(va *exec.VarArgs) string {
			return "@DEDUPLICATE(" + str(kw(va, 0, "relation")) + ", [" + strings.Join(list(kw(va, 1, "partition_by")), ", ") + "], [" + strings.Join(list(kw(va, 2, "order_by")), ", ") + "])"
		},
		"pivot": func(va *exec.VarArgs) string {
			var vals []string
			for _, v := range list(kw(va, 1, "values")) {
				vals = append(vals, quoted(v))
			}
			args := []string{str(kw(va, 0, "column")), "[" + strings.Join(vals, ", ") + "]"}
			if a := kw(va, 2, "alias"); a != nil {
				args = append(args, "alias := "+strings.ToLower(str(a)))
			}
			if a := str(kw(va, 3, "agg")); a != "" && a != "sum" {
				args = append(args, "agg := "+quoted(a))
			}
			if c := str(kw(va, 4, "cmp")); c != "" && c != "=" {
				args = append(args, "cmp := "+quoted(c))
			}
			if p := str(kw(va, 5, "prefix")); p != "" {
				args = append(args, "prefix := "+quoted(p))
			}
			if s := str(kw(va, 6, "suffix")); s != "" {
				args = append(args, "suffix := "+quoted(s))
			}
			return "@PIVOT(" + strings.Join(args, ", ") + ")"
		},
		"date_spine": func(va *exec.VarArgs) string {
			// dbt_utils's end is exclusive, @DATE_SPINE's inclusive.
			part := str(kw(va, 0, "datepart"))
			return "@DATE_SPINE('" + part + "', " + str(kw(va, 1, "start_date")) + ", (" + str(kw(va, 2, "end_date")) + ")::DATE - INTERVAL 1 " + strings.ToUpper(part) + ")"
		},
		// dbt_utils's own passes **kwargs on, which gonja does not
		// parse: the same SQL, from Go.
		"test_not_null_proportion": func(va *exec.VarArgs) string {
			gb := list(kw(va, 1, "group_by_columns"))
			sel, group := "", ""
			if len(gb) > 0 {
				sel, group = strings.Join(gb, " ,")+", ", "group by "+strings.Join(gb, ",")
			}
			col := str(kw(va, -1, "column_name"))
			atLeast, atMost := str(kw(va, -1, "at_least")), "1"
			if v := kw(va, -1, "at_most"); v != nil {
				atMost = str(v)
			}
			return "with validation as (\n  select\n    " + sel + "\n    sum(case when " + col + " is null then 0 else 1 end) / cast(count(*) as numeric(28,6)) as not_null_proportion\n" +
				"  from " + str(kw(va, 0, "model")) + "\n  " + group + "\n),\nvalidation_errors as (\n  select\n    " + sel + "\n    not_null_proportion\n  from validation\n" +
				"  where not_null_proportion < " + atLeast + " or not_null_proportion > " + atMost + "\n)\nselect\n  *\nfrom validation_errors"
		},
		"get_column_values":         needsWarehouse("get_column_values"),
		"get_relations_by_pattern":  needsWarehouse("get_relations_by_pattern"),
		"get_relations_by_prefix":   needsWarehouse("get_relations_by_prefix"),
		"get_query_results_as_dict": needsWarehouse("get_query_results_as_dict"),
		"get_single_value":          needsWarehouse("get_single_value"),
	}
}

// goValue is a Jinja value as the Go values config() carries.
func goValue(v *exec.Value) any {
	switch {
	case v.IsList():
		var out []any
		for i := range v.Len() {
			out = append(out, goValue(v.Index(i)))
		}
		return out
	case v.IsBool():
		return v.Bool()
	case v.IsString():
		return v.String()
	case v.IsNil():
		return nil
	}
	return v.String()
}

var reLineCol = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)line:?\s*(\d+)(?:\s*col:?\s*(\d+))?`)
})

// position turns a gonja error into a renderError at its place: in the
// model, or in the macro file its prelude line came from; shift >= 0 is
// the line before a lone macro's text in its file.
func (env *jinjaEnv) position(file, src string, err error, shift int) error {
	var re *renderError
	if errors.As(err, &re) {
		return re
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "failed to parse template '") {
		if i := strings.LastIndex(msg, "': "); i >= 0 {
			msg = msg[i+3:]
		}
	}
	line, col := 1, 1
	if m := reLineCol().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			col, _ = strconv.Atoi(m[2])
		}
	}
	pre := strings.Count(env.prelude, "\n")
	if shift >= 0 {
		return &renderError{file: file, line: line + shift, col: col, msg: "Jinja: " + strings.Join(strings.Fields(msg), " ")}
	}
	if line <= pre && line-1 < len(env.lines) && line >= 1 {
		pl := env.lines[line-1]
		file, line = pl.file, pl.line
	} else if line > pre {
		line -= pre
	}
	if line > strings.Count(src, "\n")+1 && file != "" {
		line = 1
	}
	// gonja's messages nest; the last clause says what went wrong
	if m := regexp.MustCompile(`'(\w+)' is not callable on\s*$`).FindStringSubmatch(msg); m != nil {
		if pkg := regexp.MustCompile(`(\w+)\.` + m[1] + `\b`).FindStringSubmatch(src); pkg != nil && env.byPkg[pkg[1]] == nil {
			msg = "no macro " + pkg[1] + "." + m[1] + ": the package " + pkg[1] + " is not installed (dbt deps puts it in dbt_packages/)"
		} else {
			msg = "no macro named " + m[1] + " in the project's macros or an installed package (dbt_packages)"
		}
	} else if m := regexp.MustCompile(`(\w+) is not callable`).FindStringSubmatch(msg); m != nil {
		msg = "no macro named " + m[1] + " in the project's macros or an installed package (dbt_packages)"
	}
	msg = regexp.MustCompile(`\s+`).ReplaceAllString(msg, " ")
	msg = strings.ReplaceAll(msg, "\x00efmesh-body\x00", "")
	return &renderError{file: file, line: line, col: col, msg: "Jinja: " + msg}
}

// blankLines drops the lines a Jinja statement left empty, keeping one
// empty line between paragraphs.
func blankLines(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	empty := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			empty++
			if empty > 1 {
				continue
			}
			out = append(out, "")
			continue
		}
		empty = 0
		out = append(out, strings.TrimRight(l, " \t"))
	}
	return strings.Join(out, "\n")
}

// testMacro is the macro of the generic test name: in pkg when given,
// else the project's, a package's, or dbt's own.
func (env *jinjaEnv) testMacro(pkg, name string) *jinjaMacro {
	if pkg != "" {
		return env.byPkg[pkg]["test_"+name]
	}
	if m := env.byPkg[""]["test_"+name]; m != nil {
		return m
	}
	for p, ms := range env.byPkg {
		if p != "dbt" && ms["test_"+name] != nil {
			return ms["test_"+name]
		}
	}
	return env.byPkg["dbt"]["test_"+name]
}

// sortedPlain is the plain macros in name order, for writing.
func (env *jinjaEnv) sortedPlain() []*jinjaMacro {
	var out []*jinjaMacro
	for _, m := range env.plain {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
