package sqlmeshimport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	yast "github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/efmesh/efmesh/project"
)

// smConfig is what efmesh.yaml takes from sqlmesh's config.
type smConfig struct {
	engine string // the engine: line of efmesh.yaml
	start  string
	cron   string
	vars   map[string]string
}

type connection struct {
	Type     string `yaml:"type"`
	Database string `yaml:"database"`
	Host     string `yaml:"host"`
	Port     any    `yaml:"port"`
	User     string `yaml:"user"`
}

type configFile struct {
	Gateways map[string]struct {
		Connection *connection `yaml:"connection"`
	} `yaml:"gateways"`
	DefaultGateway string         `yaml:"default_gateway"`
	ModelDefaults  map[string]any `yaml:"model_defaults"`
	Variables      map[string]any `yaml:"variables"`
	BeforeAll      []string       `yaml:"before_all"`
	AfterAll       []string       `yaml:"after_all"`
}

// readConfig reads config.yaml (or config.yml). A project configured in
// Python (config.py) converts with efmesh's defaults, reported.
func (c *converter) readConfig() error {
	c.cfg = smConfig{engine: "engine: {type: duckdb, path: efmesh.duckdb}", vars: map[string]string{}}
	var rel string
	for _, n := range []string{"config.yaml", "config.yml"} {
		if _, err := os.Stat(filepath.Join(c.from, n)); err == nil {
			rel = n
			break
		}
	}
	if rel == "" {
		if src, err := os.ReadFile(filepath.Join(c.from, "config.py")); err == nil {
			c.report("config.py", src, 0, "config.py", "configuration in Python: efmesh.yaml has efmesh's defaults (a DuckDB file); set its engine, start and defaults by hand")
			return nil
		}
		return fmt.Errorf("%s is not a sqlmesh project: it has no config.yaml, config.yml or config.py", c.from)
	}
	var cf configFile
	src, err := readYAML(c.from, c.shown, rel, &cf)
	if err != nil {
		return err
	}
	ast := parseYAMLAST(src)
	at := func(path string) (int, int) { return ast.pos(path) }
	piece := func(path, text, reason string) {
		line, col := at(path)
		c.res.Unconverted = append(c.res.Unconverted, Piece{File: rel, Line: line, Col: col, Text: text, Reason: reason})
	}

	gw := cf.DefaultGateway
	if gw == "" {
		names := make([]string, 0, len(cf.Gateways))
		for n := range cf.Gateways {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) > 0 {
			gw = names[0] // sqlmesh's default is the first; YAML maps keep no order here
		}
	}
	engineType := "duckdb"
	if g, ok := cf.Gateways[gw]; ok && g.Connection != nil {
		conn := g.Connection
		path := "$.gateways." + gw + ".connection"
		switch strings.ToLower(conn.Type) {
		case "duckdb", "motherduck":
			db := conn.Database
			if db == "" || db == ":memory:" || filepath.IsAbs(db) || strings.Contains(db, "://") {
				if filepath.IsAbs(db) || strings.Contains(db, "://") {
					piece(path+".database", db, "a database outside the project: efmesh.yaml names efmesh.duckdb instead")
				}
				db = "efmesh.duckdb"
			}
			c.cfg.engine = "engine: {type: duckdb, path: " + yamlString(filepath.ToSlash(db)) + "}"
		case "postgres":
			engineType = "postgres"
			host := conn.Host
			if host == "" {
				host = "localhost"
			}
			port := "5432"
			if conn.Port != nil {
				port = fmt.Sprint(conn.Port)
			}
			user := conn.User
			if user == "" {
				user = "${PGUSER}"
			}
			// The password is never copied: efmesh reads it from the
			// environment when it connects.
			url := fmt.Sprintf("postgres://%s:${PGPASSWORD}@%s:%s/%s", user, host, port, conn.Database)
			c.cfg.engine = "engine: {type: postgres, url: " + yamlString(url) + "}"
		default:
			piece(path+".type", conn.Type, "connection type efmesh has no engine for (duckdb, postgres): efmesh.yaml names a DuckDB file instead")
		}
	} else if gw != "" {
		piece("$.default_gateway", gw, "default gateway with no connection: efmesh.yaml names a DuckDB file")
	}
	for k, v := range cf.ModelDefaults {
		path := "$.model_defaults." + k
		s := fmt.Sprint(v)
		switch k {
		case "dialect":
			if d := strings.ToLower(strings.SplitN(s, ",", 2)[0]); d != engineType {
				piece(path, "dialect "+s, "model dialect differs from the engine's ("+engineType+"): efmesh runs the SQL as written, without translating it")
			}
		case "start":
			if _, err := project.ParseTime(s); err != nil {
				piece(path, "start "+s, "start efmesh cannot read (write YYYY-MM-DD): efmesh.yaml has none")
				continue
			}
			c.cfg.start = s
		case "cron":
			if _, err := project.ParseCron(s); err != nil {
				piece(path, "cron "+s, "cron efmesh cannot read")
				continue
			}
			c.cfg.cron = s
		case "owner", "description":
		default:
			piece(path, fmt.Sprintf("%s: %v", k, v), "model default efmesh has no equivalent for")
		}
	}
	for k, v := range cf.Variables {
		switch v.(type) {
		case string, int, int64, uint64, float64, bool:
			c.cfg.vars[strings.ToLower(k)] = fmt.Sprint(v)
		default:
			piece("$.variables."+k, k, "variable that is no string, number or boolean: efmesh's vars are scalars")
		}
	}
	for i, s := range cf.BeforeAll {
		piece(fmt.Sprintf("$.before_all[%d]", i), s, "before_all statement: efmesh runs no statements beside its models")
	}
	for i, s := range cf.AfterAll {
		piece(fmt.Sprintf("$.after_all[%d]", i), s, "after_all statement: efmesh runs no statements beside its models")
	}
	return nil
}

// external is a table declared in external_models.yaml or schema.yaml.
type external struct {
	name    string
	columns [][2]string // name, type
	descr   string
	file    string
	audits  []string // sqlmesh audit calls, as written in a MODEL header
	auditAt [][2]int // line, col of each in file
}

type externalEntry struct {
	Name        string          `yaml:"name"`
	Description string          `yaml:"description"`
	Gateway     string          `yaml:"gateway"`
	Columns     yaml.MapSlice   `yaml:"columns"`
	Audits      []yaml.MapSlice `yaml:"audits"`
}

// readExternals reads the declared external tables: external_models.yaml,
// schema.yaml and external_models/**/*.yaml.
func (c *converter) readExternals() error {
	var files []string
	for _, n := range []string{"external_models.yaml", "external_models.yml", "schema.yaml", "schema.yml"} {
		if _, err := os.Stat(filepath.Join(c.from, n)); err == nil {
			files = append(files, n)
		}
	}
	err := walk(filepath.Join(c.from, "external_models"), func(path string) error {
		if strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml") {
			files = append(files, c.rel(path))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, rel := range files {
		var entries []externalEntry
		src, err := readYAML(c.from, c.shown, rel, &entries)
		if err != nil {
			return err
		}
		ast := parseYAMLAST(src)
		for i, e := range entries {
			if e.Gateway != "" {
				continue // another gateway's table
			}
			parts := strings.Split(strings.ToLower(strings.ReplaceAll(e.Name, `"`, "")), ".")
			if len(parts) == 3 {
				parts = parts[1:]
			}
			if len(parts) != 2 {
				continue
			}
			x := external{name: strings.Join(parts, "."), descr: e.Description, file: rel}
			for _, col := range e.Columns {
				x.columns = append(x.columns, [2]string{fmt.Sprint(col.Key), fmt.Sprint(col.Value)})
			}
			// An audit is {name: n, arg: value, …}, the values written as
			// SQL in YAML strings: the call sqlmesh's header would hold.
			for j, a := range e.Audits {
				var name string
				var args []string
				for _, it := range a {
					k, v := fmt.Sprint(it.Key), fmt.Sprint(it.Value)
					if k == "name" {
						name = v
						continue
					}
					args = append(args, k+" := "+v)
				}
				call := name
				if len(args) > 0 {
					call += "(" + strings.Join(args, ", ") + ")"
				}
				line, col := ast.pos(fmt.Sprintf("$[%d].audits[%d]", i, j))
				x.audits = append(x.audits, call)
				x.auditAt = append(x.auditAt, [2]int{line, col})
			}
			c.ext[x.name] = x
		}
	}
	return nil
}

// externals writes an EXTERNAL model for every declared external table a
// body reads.
func (c *converter) externals() {
	names := make([]string, 0, len(c.extUsed))
	for n := range c.extUsed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		x := c.ext[n]
		var b strings.Builder
		fmt.Fprintf(&b, "-- Converted from sqlmesh %s\nMODEL (\n  name %s,\n  kind EXTERNAL (table %s)", x.file, n, n)
		if len(x.columns) > 0 {
			cols := make([]string, len(x.columns))
			for i, col := range x.columns {
				cols[i] = ident(col[0]) + " " + strings.ToUpper(col[1])
			}
			fmt.Fprintf(&b, ",\n  columns (%s)", strings.Join(cols, ", "))
		}
		before := len(c.res.Unconverted)
		if a := c.externalAudits(x); len(a) > 0 {
			fmt.Fprintf(&b, ",\n  audits (%s)", strings.Join(a, ", "))
		}
		if x.descr != "" {
			fmt.Fprintf(&b, ",\n  description %s", sqlString(x.descr))
		}
		b.WriteString("\n);\n")
		parts := strings.Split(n, ".")
		file := "models/_external/" + parts[0] + "/" + parts[1] + ".sql"
		c.emit(file, b.String())
		c.res.Models = append(c.res.Models, Model{Name: n, Kind: "EXTERNAL", File: file, From: x.file, Converted: len(c.res.Unconverted) == before})
	}
}

// externalAudits maps the audits of a declared external table as a MODEL
// header's would be; what does not convert is reported at its YAML entry.
func (c *converter) externalAudits(x external) []string {
	var out []string
	for i, call := range x.audits {
		src := []byte("MODEL (audits (" + call + "))")
		r := newReader(src)
		hdr, _ := r.headerAt(0, "model")
		if len(hdr.props) != 1 {
			continue
		}
		m := &smModel{rel: x.file, src: src, name: x.name}
		at := x.auditAt[i]
		out = append(out, c.auditCalls(m, hdr.props[0], func(_ int, text, reason string) {
			c.res.Unconverted = append(c.res.Unconverted, Piece{File: x.file, Line: at[0], Col: at[1], Text: text + " on " + x.name, Reason: reason})
		})...)
	}
	return out
}

// pythonMacros reports the Python files of macros/: efmesh's macros are
// SQL (MACRO name(params) AS …;) and its standard library.
func (c *converter) pythonMacros() {
	_ = walk(filepath.Join(c.from, "macros"), func(path string) error {
		rel := c.rel(path)
		src, _ := os.ReadFile(path)
		switch {
		case strings.HasSuffix(path, ".py"):
			if strings.TrimSpace(string(src)) == "" {
				return nil
			}
			for _, def := range pythonMacroDefs(src) {
				c.report(rel, src, def.off, "@"+def.name, "Python macro: efmesh's macros are SQL (MACRO "+def.name+"(…) AS …; in macros/*.sql) or its standard library")
			}
		case strings.HasSuffix(path, ".sql"):
			c.report(rel, src, 0, filepath.Base(rel), "Jinja macro file: efmesh has no Jinja; rewrite the macros as MACRO name(…) AS …;")
		}
		return nil
	})
}

type pyDef struct {
	name string
	off  int
}

// pythonMacroDefs finds the functions a Python macro file decorates with
// @macro(): the names a model calls.
func pythonMacroDefs(src []byte) []pyDef {
	var out []pyDef
	lines := strings.Split(string(src), "\n")
	off := 0
	decorated := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "@macro"):
			decorated = true
		case decorated && strings.HasPrefix(t, "def "):
			name := strings.TrimPrefix(t, "def ")
			if i := strings.IndexByte(name, '('); i > 0 {
				name = name[:i]
			}
			out = append(out, pyDef{name: name, off: off + strings.Index(l, "def ")})
			decorated = false
		case !strings.HasPrefix(t, "@") && t != "":
			decorated = false
		}
		off += len(l) + 1
	}
	return out
}

// readYAML decodes dir/rel and returns its text; a syntax or type error
// names the file (under shown, the folder as the user wrote it) and its
// line:col.
func readYAML(dir, shown, rel string, v any) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		var ye interface {
			GetToken() *token.Token
			GetMessage() string
		}
		if errors.As(err, &ye) && ye.GetToken() != nil {
			pos := ye.GetToken().Position
			return nil, fmt.Errorf("%s:%d:%d: %s", filepath.ToSlash(filepath.Join(shown, rel)), pos.Line, pos.Column, ye.GetMessage())
		}
		return nil, fmt.Errorf("%s: %v", filepath.ToSlash(filepath.Join(shown, rel)), err)
	}
	return b, nil
}

// yamlAST finds the position of a YAML path in a file, for reports.
type yamlAST struct{ f *yast.File }

func parseYAMLAST(src []byte) *yamlAST {
	f, err := parser.ParseBytes(src, 0)
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
	if err != nil || n == nil || n.GetToken() == nil {
		return 1, 1
	}
	if m, ok := n.(*yast.MappingNode); ok && len(m.Values) > 0 {
		n = m.Values[0].Key
	}
	return n.GetToken().Position.Line, n.GetToken().Position.Column
}
