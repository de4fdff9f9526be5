package dbtimport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	yast "github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/efmesh/efmesh/project"
)

// auditOf is the efmesh audit of one dbt column test: unique, not_null and
// accepted_values (warn(…) with severity: warn); ok is false for any other
// test, which the caller reports.
func auditOf(col string, test any) (string, bool) {
	name, args := "", map[string]any(nil)
	switch t := test.(type) {
	case string:
		name = t
	case map[string]any:
		if len(t) != 1 {
			return "", false
		}
		for k, v := range t {
			name = k
			args, _ = v.(map[string]any)
			if v != nil && args == nil {
				return "", false
			}
		}
	default:
		return "", false
	}
	var audit string
	switch name {
	case "unique", "not_null":
		audit = name + "(" + col + ")"
	case "accepted_values":
		vals, ok := args["values"].([]any)
		if !ok || len(vals) == 0 {
			return "", false
		}
		parts := []string{col}
		for _, v := range vals {
			s, ok := v.(string)
			if !ok {
				return "", false // efmesh's accepted compares text
			}
			parts = append(parts, sqlString(s))
		}
		audit = "accepted(" + strings.Join(parts, ", ") + ")"
	default:
		return "", false
	}
	for k, v := range args {
		switch {
		case k == "values" && name == "accepted_values":
		case k == "config" || k == "severity":
			cfg, _ := v.(map[string]any)
			sev := fmt.Sprint(v)
			if cfg != nil {
				sev = fmt.Sprint(cfg["severity"])
				if len(cfg) != 1 {
					return "", false
				}
			}
			if !strings.EqualFold(sev, "warn") && !strings.EqualFold(sev, "error") {
				return "", false
			}
			if strings.EqualFold(sev, "warn") {
				audit = "warn(" + audit + ")"
			}
		default:
			return "", false // where, quote, … are not guessed
		}
	}
	return audit, true
}

// testName is how a report names a dbt test: its name, without arguments.
func testName(test any) string {
	if m, ok := test.(map[string]any); ok {
		for k := range m {
			return k
		}
	}
	return fmt.Sprint(test)
}

// yamlAST finds the position of a YAML path in a file, for reports; a file
// that does not parse gives 1:1 (it decoded already, so it does).
type yamlAST struct{ f *yast.File }

func parseYAMLAST(path string) *yamlAST {
	b, err := os.ReadFile(path)
	if err != nil {
		return &yamlAST{}
	}
	f, err := parser.ParseBytes(b, 0)
	if err != nil {
		return &yamlAST{}
	}
	return &yamlAST{f: f}
}

func (a *yamlAST) pos(path string) (line, col int) {
	if a.f == nil {
		return 1, 1
	}
	p, err := yaml.PathString(path)
	if err != nil {
		return 1, 1
	}
	n, err := p.FilterFile(a.f)
	if err != nil || n == nil {
		return 1, 1
	}
	// A mapping's own token is a colon; its first key is what a reader
	// looks for.
	switch m := n.(type) {
	case *yast.MappingNode:
		if len(m.Values) > 0 {
			n = m.Values[0].Key
		}
	case *yast.MappingValueNode:
		n = m.Key
	}
	if n.GetToken() == nil {
		return 1, 1
	}
	return n.GetToken().Position.Line, n.GetToken().Position.Column
}

// testUse is one test of a YAML file: on a model (its dbt name) or a
// source ("s.t"), of a column or of the whole table.
type testUse struct {
	rel       string
	line, col int
	model     string // dbt model name, or ""
	source    string // "source.table", or ""
	column    string // "" for a table test
	test      any
}

// testConfig keys that change nothing in the audit efmesh runs.
var testConfigIgnored = map[string]bool{"tags": true, "meta": true, "description": true, "store_failures": true, "store_failures_as": true, "alias": true, "database": true, "schema": true, "enabled": true, "name": true, "severity": true, "where": true}

// renderTests turns every test of the YAML files into an audit of its
// model: unique, not_null and accepted_values into efmesh's built-ins;
// any other test (relationships, a dbt_utils test, the project's own
// generic tests) into a custom audit file, its SQL rendered from the
// test's macro for this use, with the model as @this. A test no macro
// defines, or that needs the warehouse, is reported.
func (c *converter) renderTests(r resolver) error {
	var bad []error
	for _, u := range c.uses {
		owner, table := "", ""
		if u.model != "" {
			n, ok := c.names[u.model]
			if !ok {
				continue // a disabled model, or none: dbt ignores its tests
			}
			owner, table = n, u.model
		} else {
			owner = c.sources[u.source]
			_, table, _ = strings.Cut(u.source, ".")
		}
		on := table
		if u.column != "" {
			on += "." + u.column
		}
		if u.source != "" {
			on = "source " + u.source
			if u.column != "" {
				on += "." + u.column
			}
		}
		human := func(why string) {
			c.res.Unconverted = append(c.res.Unconverted, Piece{File: u.rel, Line: u.line, Col: u.col, Text: testName(u.test) + " on " + on, Reason: why})
		}
		if u.column != "" {
			if a, ok := auditOf(ident(u.column), u.test); ok {
				c.audits[owner] = append(c.audits[owner], a)
				continue
			}
		}
		name, args, ok := splitTest(u.test)
		if !ok {
			human("dbt test efmesh cannot read (a name, or a name with its arguments)")
			continue
		}
		cfg := map[string]any{}
		if m, ok := args["config"].(map[string]any); ok {
			cfg = m
		}
		delete(args, "config")
		if m, ok := args["arguments"].(map[string]any); ok {
			delete(args, "arguments")
			for k, v := range m {
				args[k] = v
			}
		}
		for _, k := range []string{"severity", "where", "name", "tags", "enabled", "error_if", "warn_if", "limit", "fail_calc", "store_failures", "meta"} {
			if v, ok := args[k]; ok {
				if _, set := cfg[k]; !set {
					cfg[k] = v
				}
				delete(args, k)
			}
		}
		if en, ok := cfg["enabled"].(bool); ok && !en {
			continue
		}
		var odd []string
		for k := range cfg {
			if !testConfigIgnored[k] {
				odd = append(odd, k)
			}
		}
		if len(odd) > 0 {
			sort.Strings(odd)
			human("dbt test config efmesh has no equivalent for (" + strings.Join(odd, ", ") + "): an audit fails on any row")
			continue
		}
		warn := false
		switch sev := strings.ToLower(fmt.Sprint(cfg["severity"])); sev {
		case "warn":
			warn = true
		case "error", "<nil>":
		default:
			human("dbt test severity " + sev + " (warn or error)")
			continue
		}
		pkg, short, dotted := strings.Cut(name, ".")
		if !dotted {
			pkg, short = "", name
		}
		if c.jinja.testMacro(pkg, short) == nil {
			human("dbt test with no definition in the project (macros/, tests/generic/), its packages or dbt: write it as a custom audit")
			continue
		}
		model := "@ref(" + owner + ")"
		if w := str(cfg["where"]); w != "" {
			model = "(select * from @ref(" + owner + ") where " + w + ") dbt_subquery"
		}
		var call strings.Builder
		callee := "test_" + short
		if pkg != "" {
			callee = pkg + "." + callee
		}
		call.WriteString("{{ " + callee + "(model=__efmesh_model")
		if u.column != "" {
			call.WriteString(", column_name=" + jinjaLiteral(u.column))
		}
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			call.WriteString(", " + k + "=" + jinjaLiteral(args[k]))
		}
		call.WriteString(") }}")
		b, err := c.jinja.renderWith(u.rel, call.String(), r, map[string]any{"__efmesh_model": relation{"__sql": model}})
		if err != nil {
			msg := err.Error()
			var re *renderError
			if errors.As(err, &re) {
				msg = re.msg
			}
			if re != nil && (strings.Contains(re.msg, "Unable to parse") || strings.Contains(re.msg, " does not parse: ")) {
				// gonja's limit, not the project's: dbt_utils's equality
				// and recency, for one
				human(fmt.Sprintf("dbt test whose macro efmesh's Jinja engine cannot parse (write it as a custom audit): %s:%d:%d: %s", re.file, re.line, re.col, msg))
				continue
			}
			bad = append(bad, &renderError{file: u.rel, line: u.line, col: u.col, msg: "test " + name + " on " + on + ": " + msg})
			continue
		}
		if len(b.pieces) > 0 {
			human("dbt test that needs the warehouse at compile time: " + b.pieces[0].Reason)
			continue
		}
		host, ok := c.auditHost(append([]string{owner}, b.refs...))
		if !ok {
			human("dbt test that reads models none of which is built after the others: an efmesh audit runs when its model is built (write it as a model, or check it by hand)")
			continue
		}
		sql := strings.ReplaceAll(b.sql, "@ref("+host+")", "@this")
		audit := str(cfg["name"])
		if audit == "" {
			audit = short + "_" + table
			if u.column != "" {
				audit += "_" + u.column
			}
		}
		audit = c.customAudit(ident(audit), "dbt test "+name+" on "+on+" ("+u.rel+")", sql)
		if warn {
			audit = "warn(" + audit + ")"
		}
		c.audits[host] = append(c.audits[host], audit)
	}
	return errors.Join(bad...)
}

// auditHost is the model an audit reading models goes to: the one that
// reads every other, so that it is built after them; else, when none of
// them reads another, the first (efmesh orders a model after the models
// its audits read). ok is false when some read others but none reads all.
func (c *converter) auditHost(models []string) (string, bool) {
	var uniq []string
	for _, m := range models {
		if !slices.Contains(uniq, m) {
			uniq = append(uniq, m)
		}
	}
	for _, h := range uniq {
		all := true
		for _, o := range uniq {
			all = all && (o == h || c.reads(h, o))
		}
		if all {
			return h, true
		}
	}
	for _, a := range uniq {
		for _, b := range uniq {
			if a != b && c.reads(a, b) {
				return "", false
			}
		}
	}
	return uniq[0], true
}

// reads reports whether model from reads target, through its refs.
func (c *converter) reads(from, target string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(n string) bool {
		if n == target {
			return true
		}
		if seen[n] {
			return false
		}
		seen[n] = true
		for _, r := range c.deps[n] {
			if walk(r) {
				return true
			}
		}
		return false
	}
	return walk(from)
}

// singularTests turns each query of the test paths (tests/*.sql, outside
// tests/generic) into a custom audit of the one model it refs, that ref
// becoming @this. A query that refs no model or several is reported: an
// efmesh audit belongs to one model.
func (c *converter) singularTests(r resolver) error {
	var bad []error
	for _, tp := range orDefault(c.dp.TestPaths, "tests") {
		err := walk(filepath.Join(c.from, tp), func(path, under string) error {
			if !strings.HasSuffix(path, ".sql") || strings.HasPrefix(filepath.ToSlash(under), "generic/") {
				return nil
			}
			rel := c.rel(path)
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b := convertBody(rel, string(src), r)
			if needsJinja(b) {
				if b, err = c.jinja.renderBody(rel, string(src), r); err != nil {
					bad = append(bad, err)
					return nil
				}
			}
			human := func(why string) {
				c.res.Unconverted = append(c.res.Unconverted, Piece{File: rel, Line: 1, Col: 1, Text: "test " + strings.TrimSuffix(filepath.Base(path), ".sql"), Reason: why})
			}
			if en, ok := b.config["enabled"].(bool); ok && !en {
				return nil
			}
			if len(b.pieces) > 0 {
				c.res.Unconverted = append(c.res.Unconverted, b.pieces...)
				return nil
			}
			var refs []string
			for _, n := range b.refs {
				if !slices.Contains(refs, n) {
					refs = append(refs, n)
				}
			}
			if len(refs) != 1 {
				human(fmt.Sprintf("singular test that refs %d models: an efmesh audit belongs to one model (write it as a custom audit of one, or as a model)", len(refs)))
				return nil
			}
			warn := false
			switch sev := strings.ToLower(str(b.config["severity"])); sev {
			case "warn":
				warn = true
			case "error", "":
			default:
				human("dbt test severity " + sev + " (warn or error)")
				return nil
			}
			sql := strings.ReplaceAll(b.sql, "@ref("+refs[0]+")", "@this")
			audit := c.customAudit(ident(strings.TrimSuffix(filepath.Base(path), ".sql")), "dbt test "+rel, sql)
			if warn {
				audit = "warn(" + audit + ")"
			}
			c.audits[refs[0]] = append(c.audits[refs[0]], audit)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return errors.Join(bad...)
}

// customAudit writes audits/<name>.sql, a name no other audit has, and
// returns the name.
func (c *converter) customAudit(name, from, sql string) string {
	base := name
	for i := 2; c.auditNames[name] || project.IsBuiltinAudit(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	c.auditNames[name] = true
	sql = strings.TrimRight(strings.TrimSpace(sql), ";")
	c.out = append(c.out, output{path: "audits/" + name + ".sql",
		text: fmt.Sprintf("-- Converted from %s\nAUDIT (name %s, blocking true);\n\n%s\n", from, name, sql)})
	return name
}

// splitTest reads a YAML test: a name, or a map of one name to its
// arguments.
func splitTest(test any) (string, map[string]any, bool) {
	switch t := test.(type) {
	case string:
		return t, map[string]any{}, true
	case map[string]any:
		if len(t) != 1 {
			return "", nil, false
		}
		for k, v := range t {
			if v == nil {
				return k, map[string]any{}, true
			}
			m, ok := v.(map[string]any)
			if !ok {
				return "", nil, false
			}
			args := make(map[string]any, len(m))
			for k2, v2 := range m {
				args[k2] = v2
			}
			return k, args, true
		}
	}
	return "", nil, false
}

var reRelArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(ref|source)\(.*\)\s*$`) })

// jinjaLiteral is a YAML value as a Jinja expression; a string that is a
// ref(…) or source(…) call is that call, as dbt reads a test's arguments.
func jinjaLiteral(v any) string {
	switch v := v.(type) {
	case nil:
		return "none"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case string:
		if reRelArg().MatchString(v) {
			return strings.TrimSpace(v)
		}
		return strconv.Quote(v)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = jinjaLiteral(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ": " + jinjaLiteral(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}
