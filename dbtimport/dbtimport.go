// Package dbtimport converts a dbt project into an efmesh project: models
// with their Jinja, sources declared in YAML, seeds and dbt_project.yml's
// folder configs.
//
// It reads and writes files only; it knows no engine, state or plan.
//
// Jinja. A model whose only Jinja is {{ ref }}, {{ source }}, {{ config }},
// {{ var }}, {{ this }} and an {% if is_incremental() %} filter is
// rewritten tag by tag (var stays @var). Any other Jinja is evaluated by
// github.com/nikolalohinski/gonja/v2 with dbt's context: ref and source
// (rendering @ref), config (recorded), var with dbt_project.yml's vars and
// defaults, env_var, target (type duckdb), this, is_incremental() (false:
// the full build; a recognised filter still becomes @start/@end),
// run_started_at, modules, return, adapter.dispatch (duckdb__, default__,
// then postgres__, in the project then the package), log and
// exceptions.raise_compiler_error, api.Column. The project's macros, those
// of dbt_packages/*/macros and dbt's own package "dbt" are loaded into the
// environment. dbt's package is built in (dbtcore/, with its LICENSE and
// NOTICE): its cross-database macros (dbt.date_trunc, dateadd, datediff,
// type_string and the other type_ macros, safe_cast, concat, hash,
// cast_bool_to_text, split_part, listagg, current_timestamp, …) from
// dbt-adapters, and dbt-duckdb's duckdb__ implementations, which dispatch
// finds first; a project's or package's own implementation wins. All of
// its macros/utils files parse; dbt's materialization and adapter macros
// are left out (a model does not call them). gonja was chosen
// over github.com/ardanlabs/jinja on dbt's own snippets: it keeps Jinja2's
// whitespace rules (ardanlabs trims blocks as chat templates want, which
// changes the SQL's layout), runs {% call %} with caller(), lets Go
// functions take and return any value (relations with attributes, lists
// from return()) and positions its syntax errors by line and column.
//
// What a macro becomes:
//   - A project macro that is a plain SQL template of its arguments (no
//     statement, only its parameters in {{ }}), or a dispatcher whose DuckDB
//     implementation is one, becomes an efmesh MACRO in macros/, and the
//     call stays a call (@name(args)), so reuse survives.
//   - dbt_utils.star, union_relations, deduplicate, pivot, safe_divide and
//     date_spine render efmesh's built-ins (@STAR, @UNION, …);
//     generate_surrogate_key becomes @GENERATE_SURROGATE_KEY with dbt_utils's
//     NULL marker and separator (null_marker, separator): without them it
//     marks NULLs and separates as sqlmesh does and every key would change.
//   - Any other macro is expanded at import.
//   - What needs the warehouse at compile time (run_query,
//     dbt_utils.get_column_values, get_relations_by_pattern, …) is left to
//     a human: listed with its file:line:col in the Result.
//
// Jinja that does not evaluate (a syntax error, a macro no file defines,
// a recursion, raise_compiler_error) is bad input: Convert returns every
// such error at its file:line:col and writes nothing. A macro gonja cannot
// parse is an error only when a model calls it.
//
// Choices where dbt and efmesh differ:
//   - A model's schema is its schema config (config(schema=…) or
//     +schema in dbt_project.yml, used as written, not prefixed with a
//     target schema), else the folder that holds the file, else the dbt
//     project's name. A source table s.t is the EXTERNAL model s.t; a seed
//     takes its +schema, else its folder's name (seeds/x.csv is seeds.x).
//     A project that overrides generate_schema_name names its models,
//     seeds and snapshots (those without target_schema) with it instead,
//     as dbt does, with target.schema main and target.name dev.
//   - dbt_project.yml's configs apply folder by folder, deeper winning,
//     but tags add up (the project's, each folder's, the file's), as in
//     dbt; a value that is Jinja (+enabled: "{{ var('load', false) }}")
//     is evaluated. +enabled: false leaves a model, seed or snapshot out.
//   - Hooks (pre_hook, post_hook, on-run-start, on-run-end) have no
//     efmesh equivalent: each is listed for a human, with where dbt runs
//     it.
//   - materialized: view (dbt's default) → VIEW, table → FULL, ephemeral →
//     EMBEDDED. incremental → INCREMENTAL_BY_TIME_RANGE when its
//     {% if is_incremental() %} block is a recognisable timestamp filter
//     (WHERE|AND col >[=] (SELECT max(col) FROM {{ this }})), which becomes
//     col >= @start AND col < @end; else INCREMENTAL_BY_UNIQUE_KEY when it
//     has a unique_key (the block stays as a comment: efmesh merges the
//     whole query by key); else FULL, reported as not converted.
//   - Column tests unique, not_null and accepted_values (of text values)
//     become efmesh's built-in audits. Every other test of the YAML files
//     (relationships, dbt_utils's unique_combination_of_columns,
//     accepted_range, not_null_proportion, expression_is_true and the rest,
//     the project's generic tests of macros/ and tests/generic/) becomes a
//     custom audit file per use, rendered from the test's own macro with
//     its arguments (to: ref('x') is the relation), the model as @this and
//     a where config as dbt's subquery. dbt_utils's tests come from
//     dbt_packages when installed, else from a copy built in (dbtutils/).
//     A singular test (tests/*.sql) becomes a custom audit of the one model
//     it refs; over several models it is reported. severity: warn is
//     warn(…). An audit that reads other models goes to the model built
//     after all of them (efmesh audits a model when it builds it, dbt after
//     every model); when some read others but none reads all, the test is
//     reported. A test no macro defines, or with error_if, warn_if, limit
//     or fail_calc, or whose macro gonja cannot parse (dbt_utils's
//     equality and recency; not_null_proportion's **kwargs is rendered
//     from Go instead), is reported, as are dbt unit tests.
//   - A snapshot ({% snapshot %} in snapshots/*.sql) is an SCD_TYPE_2
//     model named target_schema (else schema, else snapshots).name, keyed
//     by unique_key, with dbt's column names (dbt_valid_from,
//     dbt_valid_to). It converts in full for strategy='check',
//     check_cols='all' and hard_deletes='invalidate', where the two agree;
//     every other setting is written the same way and reported with the
//     difference (snapshots.go lists them).
package dbtimport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/token"

	"github.com/efmesh/efmesh/project"
)

// Result is what a conversion wrote.
type Result struct {
	From   string  `json:"from"`   // the dbt project folder
	Root   string  `json:"root"`   // the efmesh project folder
	Name   string  `json:"name"`   // the project's name
	Models []Model `json:"models"` // every efmesh model written, by name
	// Unconverted lists every piece left as a comment or reported, in file
	// order; empty when everything converted.
	Unconverted []Piece           `json:"unconverted"`
	Vars        map[string]string `json:"vars,omitempty"`
	Files       []string          `json:"files"` // written, relative to Root
}

// Model is one efmesh model written.
type Model struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	File      string `json:"file"` // relative to Root
	From      string `json:"from"` // the dbt file, relative to From
	Converted bool   `json:"converted"`
}

// Piece is something of the dbt project that was not converted.
type Piece struct {
	File   string `json:"file"` // relative to the dbt project
	Line   int    `json:"line"`
	Col    int    `json:"col"`
	Text   string `json:"text"`
	Reason string `json:"reason"`

	incremental bool // an is_incremental() block a unique key makes moot
}

func (p Piece) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", p.File, p.Line, p.Col, p.Reason, oneLine(p.Text))
}

// ExistsError is returned when the destination already holds an efmesh
// project or a file the conversion would write: nothing is written then.
type ExistsError struct{ Paths []string }

func (e *ExistsError) Error() string {
	paths := e.Paths
	more := ""
	if len(paths) > 5 {
		paths, more = paths[:5], fmt.Sprintf(" and %d more", len(paths)-5)
	}
	return "not overwriting " + strings.Join(paths, ", ") + more + ": nothing was written"
}

type dbtProject struct {
	Name          string         `yaml:"name"`
	ModelPaths    []string       `yaml:"model-paths"`
	SourcePaths   []string       `yaml:"source-paths"`
	SeedPaths     []string       `yaml:"seed-paths"`
	DataPaths     []string       `yaml:"data-paths"`
	MacroPaths    []string       `yaml:"macro-paths"`
	TestPaths     []string       `yaml:"test-paths"`
	SnapshotPaths []string       `yaml:"snapshot-paths"`
	Snapshots     map[string]any `yaml:"snapshots"`
	OnRunStart    any            `yaml:"on-run-start"`
	OnRunEnd      any            `yaml:"on-run-end"`
	Vars          map[string]any `yaml:"vars"`
	Models        map[string]any `yaml:"models"`
	Seeds         map[string]any `yaml:"seeds"`
}

type yamlFile struct {
	UnitTests []struct {
		Name  string `yaml:"name"`
		Model string `yaml:"model"`
	} `yaml:"unit_tests"`
	Sources []struct {
		Name   string         `yaml:"name"`
		Schema string         `yaml:"schema"`
		Meta   map[string]any `yaml:"meta"`
		Config map[string]any `yaml:"config"`
		Tables []struct {
			Name        string         `yaml:"name"`
			Identifier  string         `yaml:"identifier"`
			Description string         `yaml:"description"`
			Meta        map[string]any `yaml:"meta"`
			Config      map[string]any `yaml:"config"`
			Columns     []struct {
				Name      string `yaml:"name"`
				DataType  string `yaml:"data_type"`
				Tests     []any  `yaml:"tests"`
				DataTests []any  `yaml:"data_tests"`
			} `yaml:"columns"`
			// Tests on the whole table (dbt_utils and the like): none
			// converts, each is reported.
			Tests     []any `yaml:"tests"`
			DataTests []any `yaml:"data_tests"`
		} `yaml:"tables"`
	} `yaml:"sources"`
	Models []struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Tests       []any  `yaml:"tests"`
		DataTests   []any  `yaml:"data_tests"`
		Columns     []struct {
			Name      string `yaml:"name"`
			Tests     []any  `yaml:"tests"`
			DataTests []any  `yaml:"data_tests"`
		} `yaml:"columns"`
	} `yaml:"models"`
}

// Options tune a conversion.
type Options struct {
	// Start is efmesh.yaml's start (YYYY-MM-DD), the first interval of
	// incremental models; empty writes none.
	Start string
}

// output is one file to write.
type output struct {
	path, text string
	optional   bool // kept as it is when it exists (a .gitignore)
}

// Convert reads the dbt project in from and writes the efmesh project into
// to. It writes nothing when to already holds efmesh.yaml or any file it
// would write (*ExistsError). Bad input (no dbt_project.yml, YAML that does
// not parse) is an error naming the file, line and column.
func Convert(from, to string, opt Options) (*Result, error) {
	shown := from
	from, err := filepath.Abs(from)
	if err != nil {
		return nil, err
	}
	if to, err = filepath.Abs(to); err != nil {
		return nil, err
	}
	var dp dbtProject
	if err := readYAML(from, shown, "dbt_project.yml", &dp); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a dbt project: it has no dbt_project.yml", from)
		}
		return nil, err
	}
	c := &converter{from: from, shown: shown, to: to, dp: dp, res: &Result{From: from, Root: to, Name: ident(dp.Name), Vars: map[string]string{}, Unconverted: []Piece{}},
		names: map[string]string{}, sources: map[string]string{}, descr: map[string]string{}, audits: map[string][]string{}, deps: map[string][]string{}}
	if c.res.Name == "" {
		c.res.Name = ident(filepath.Base(from))
	}
	if err := c.run(opt); err != nil {
		return nil, err
	}
	return c.res, nil
}

type converter struct {
	from, to   string
	shown      string // from as the user wrote it, for messages
	dp         dbtProject
	res        *Result
	out        []output
	names      map[string]string   // dbt model name → efmesh name
	sources    map[string]string   // "s.t" → efmesh name
	descr      map[string]string   // dbt model name → description
	audits     map[string][]string // efmesh model name → its audits, from dbt's tests
	uses       []testUse           // the tests of the YAML files, in file order
	srcModels  []*sourceModel
	auditNames map[string]bool     // custom audits written
	deps       map[string][]string // efmesh model name → the models its query reads
	models     []*dbtModel         // the dbt models and snapshots
	taken      map[string]string   // efmesh name → dbt file, for duplicates
	jinja      *jinjaEnv           // the project's and packages' macros
}

type dbtModel struct {
	rel      string // relative to the dbt project
	under    string // relative to its model path
	src      string
	name     string
	cfg      map[string]any
	snapshot bool // a {% snapshot %} block; src is its body, at its lines
	at       int  // the line of the {% snapshot %} tag
}

func (c *converter) run(opt Options) error {
	c.taken = map[string]string{}
	env, err := loadMacros(c.from, c.dp.MacroPaths, c.dp.TestPaths, c.dp.Vars, c.dp.Name)
	if err != nil {
		return err
	}
	c.jinja = env
	modelPaths := orDefault(append(c.dp.ModelPaths, c.dp.SourcePaths...), "models")
	seedPaths := orDefault(append(c.dp.SeedPaths, c.dp.DataPaths...), "seeds")

	// YAML files first: sources and descriptions.
	var models []*dbtModel
	for _, mp := range modelPaths {
		err := walk(filepath.Join(c.from, mp), func(path, under string) error {
			rel := c.rel(path)
			switch {
			case strings.HasSuffix(path, ".yml") || strings.HasSuffix(path, ".yaml"):
				return c.readSources(rel)
			case strings.HasSuffix(path, ".sql"):
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				models = append(models, &dbtModel{rel: rel, under: under, src: string(b), name: strings.TrimSuffix(filepath.Base(path), ".sql")})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, sp := range orDefault(c.dp.SnapshotPaths, "snapshots") {
		err := walk(filepath.Join(c.from, sp), func(path, under string) error {
			if !strings.HasSuffix(path, ".sql") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			models = append(models, snapshotBlocks(c.rel(path), under, string(b))...)
			return nil
		})
		if err != nil {
			return err
		}
	}
	c.models = models
	none := resolver{
		model:  func(string) (string, bool) { return "", false },
		source: func(string, string) (string, bool) { return "", false },
	}
	// Names need the configs (schema, alias): a first pass reads them.
	for _, m := range models {
		if m.snapshot {
			fb := convertBody(m.rel, m.src, resolver{
				model:  func(string) (string, bool) { return "", false },
				source: func(string, string) (string, bool) { return "", false },
			})
			m.cfg = c.folderConfig(c.dp.Snapshots, m.under)
			if err := c.evalConfig(m.cfg, none); err != nil {
				return err
			}
			mergeConfig(m.cfg, fb.config, false)
			if en, ok := m.cfg["enabled"].(bool); ok && !en {
				continue
			}
			schema := ident(first(str(m.cfg["target_schema"]), str(m.cfg["schema"]), "snapshots"))
			if str(m.cfg["target_schema"]) == "" {
				// dbt names a snapshot without target_schema as a model
				s, err := c.schemaName(str(m.cfg["schema"]), "snapshot", m, schema)
				if err != nil {
					return err
				}
				schema = s
			}
			table := m.name
			if a := str(m.cfg["alias"]); a != "" {
				table = a
			}
			c.names[m.name] = schema + "." + ident(table)
			continue
		}
		first := convertBody(m.rel, m.src, resolver{
			model:  func(string) (string, bool) { return "", false },
			source: func(string, string) (string, bool) { return "", false },
		})
		m.cfg = c.folderConfig(c.dp.Models, m.under)
		if err := c.evalConfig(m.cfg, none); err != nil {
			return err
		}
		mergeConfig(m.cfg, first.config, false)
		if en, ok := m.cfg["enabled"].(bool); ok && !en {
			continue
		}
		schema := ident(str(m.cfg["schema"]))
		if schema == "" && filepath.Dir(m.under) != "." {
			schema = ident(filepath.Base(filepath.Dir(m.under)))
		}
		if schema == "" {
			schema = c.res.Name // a model at the top of its model path
		}
		if s, err := c.schemaName(str(m.cfg["schema"]), "model", m, schema); err != nil {
			return err
		} else {
			schema = s
		}
		table := m.name
		if a := str(m.cfg["alias"]); a != "" {
			table = a
		}
		c.names[m.name] = schema + "." + ident(table)
	}
	// Seeds are refs too: ref('countries') reads seeds/countries.csv.
	for _, sp := range seedPaths {
		err := walk(filepath.Join(c.from, sp), func(path, under string) error {
			if !strings.HasSuffix(path, ".csv") {
				return nil
			}
			return c.seed(path, under)
		})
		if err != nil {
			return err
		}
	}
	r := resolver{
		model: func(n string) (string, bool) { s, ok := c.names[n]; return s, ok },
		source: func(s, t string) (string, bool) {
			n, ok := c.sources[s+"."+t]
			return n, ok
		},
	}
	c.auditNames = map[string]bool{}
	var bad []error
	usedVars, varAt := map[string]string{}, map[string]Piece{}
	type rendered struct {
		m    *dbtModel
		name string
		b    body
	}
	var done []rendered
	for _, m := range models {
		name, ok := c.names[m.name]
		if !ok {
			continue // enabled: false
		}
		if err := c.claim(name, m.rel); err != nil {
			return err
		}
		b := convertBody(m.rel, m.src, r)
		if needsJinja(b) {
			jb, err := c.jinja.renderBody(m.rel, m.src, r)
			if err != nil {
				bad = append(bad, err)
				continue
			}
			mergeConfig(m.cfg, jb.config, false)
			b = jb
		}
		for k, v := range b.vars {
			if _, seen := usedVars[k]; !seen || v != "" {
				usedVars[k] = v
			}
			if _, seen := varAt[k]; !seen {
				varAt[k] = b.varAt[k]
			}
		}
		c.deps[name] = b.refs
		done = append(done, rendered{m, name, b})
	}
	// Tests once every model's refs are known: an audit goes to the model
	// built after every other it reads.
	if err := c.renderTests(r); err != nil {
		bad = append(bad, err)
	}
	if err := c.singularTests(r); err != nil {
		bad = append(bad, err)
	}
	for _, s := range c.srcModels {
		c.writeSource(s)
	}
	for _, d := range done {
		if d.m.snapshot {
			c.snapshot(d.m, d.name, d.b)
			continue
		}
		c.model(d.m, d.name, d.b)
	}
	if len(bad) > 0 {
		return errors.Join(bad...)
	}
	c.runHooks()
	c.macros()
	c.vars(usedVars, varAt)
	c.config(opt)
	sort.Slice(c.res.Models, func(i, j int) bool { return c.res.Models[i].Name < c.res.Models[j].Name })
	sort.SliceStable(c.res.Unconverted, func(i, j int) bool {
		a, b := c.res.Unconverted[i], c.res.Unconverted[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return c.write()
}

func (c *converter) claim(name, file string) error {
	if prev, dup := c.taken[name]; dup {
		return fmt.Errorf("%s and %s both become the efmesh model %s: give one a schema or alias config", prev, file, name)
	}
	c.taken[name] = file
	return nil
}

// model writes one converted dbt model.
func (c *converter) model(m *dbtModel, name string, b body) {
	var pieces []Piece
	var notes []string
	report := func(p Piece) {
		pieces = append(pieces, p)
	}
	kind := ""
	mat := strings.ToLower(str(m.cfg["materialized"]))
	keys := toList(m.cfg["unique_key"])
	switch mat {
	case "", "view":
		kind = "VIEW"
	case "table":
		kind = "FULL"
	case "ephemeral":
		kind = "EMBEDDED"
	case "incremental":
		switch {
		case b.timeCol != "":
			kind = "INCREMENTAL_BY_TIME_RANGE (time_column " + b.timeCol + ")"
			if !selects(b.sql, b.timeCol) {
				line, col := position(m.src, b.incrAt)
				report(Piece{File: m.rel, Line: line, Col: col, Text: "time_column " + b.timeCol,
					Reason: "the is_incremental() filter's column is not visibly in the select list: check the model's time_column"})
			}
		case len(keys) > 0:
			kind = "INCREMENTAL_BY_UNIQUE_KEY (key (" + strings.Join(keys, ", ") + "))"
		default:
			kind = "FULL"
			report(Piece{File: m.rel, Line: 1, Col: 1, Text: "materialized='incremental'",
				Reason: "incremental model without a unique_key or a recognisable is_incremental() timestamp filter: written as FULL"})
		}
	default:
		kind = "FULL"
		report(Piece{File: m.rel, Line: 1, Col: 1, Text: "materialized='" + mat + "'", Reason: "materialization efmesh has no equivalent for: written as FULL"})
	}
	for _, p := range b.pieces {
		if p.incremental && strings.HasPrefix(kind, "INCREMENTAL_BY_UNIQUE_KEY") {
			continue
		}
		report(p)
	}
	cfgKeys := make([]string, 0, len(m.cfg))
	for k := range m.cfg {
		cfgKeys = append(cfgKeys, k)
	}
	sort.Strings(cfgKeys)
	line, col := 1, 1
	if b.cfgAt >= 0 {
		line, col = position(m.src, b.cfgAt)
	}
	for _, k := range cfgKeys {
		switch k {
		case "materialized", "unique_key", "schema", "alias", "tags", "enabled", "incremental_strategy", "on_schema_change", "docs", "persist_docs":
			continue
		}
		text := fmt.Sprintf("%s=%v", k, m.cfg[k])
		if k == "pre_hook" || k == "post_hook" {
			for _, hook := range toList(m.cfg[k]) {
				report(Piece{File: m.rel, Line: line, Col: col, Text: k + ": " + hook, Reason: hookReason(k)})
			}
			notes = append(notes, "-- efmesh: not converted: dbt "+k+" "+oneLine(fmt.Sprint(m.cfg[k])))
			continue
		}
		report(Piece{File: m.rel, Line: line, Col: col, Text: text, Reason: "config key efmesh has no equivalent for"})
		notes = append(notes, "-- efmesh: not converted: dbt config "+oneLine(text))
	}

	var h strings.Builder
	fmt.Fprintf(&h, "-- Converted from dbt %s\n", filepath.ToSlash(m.rel))
	for _, n := range notes {
		h.WriteString(n + "\n")
	}
	fmt.Fprintf(&h, "MODEL (\n  name %s,\n  kind %s", name, kind)
	if strings.HasPrefix(kind, "INCREMENTAL_BY_TIME_RANGE") && len(keys) > 0 {
		fmt.Fprintf(&h, ",\n  grain (%s)", strings.Join(keys, ", "))
	}
	if tags := toList(m.cfg["tags"]); len(tags) > 0 {
		for i := range tags {
			tags[i] = ident(tags[i])
		}
		fmt.Fprintf(&h, ",\n  tags (%s)", strings.Join(tags, ", "))
	}
	if a := c.audits[name]; len(a) > 0 {
		fmt.Fprintf(&h, ",\n  audits (%s)", strings.Join(a, ", "))
	}
	if d := c.descr[m.name]; d != "" {
		fmt.Fprintf(&h, ",\n  description %s", sqlString(d))
	}
	h.WriteString("\n);\n\n" + b.sql + "\n")
	file := "models/" + filepath.ToSlash(m.under)
	c.out = append(c.out, output{path: file, text: h.String()})
	c.res.Models = append(c.res.Models, Model{Name: name, Kind: kindName(kind), File: file, From: filepath.ToSlash(m.rel), Converted: len(pieces) == 0})
	c.res.Unconverted = append(c.res.Unconverted, pieces...)
}

// readSources reads the sources, model descriptions and tests of one YAML
// file. The tests are rendered once every name is known (renderTests); a
// source's model is written then too, with its audits.
func (c *converter) readSources(rel string) error {
	var y yamlFile
	if err := readYAML(c.from, c.shown, rel, &y); err != nil {
		return err
	}
	var ast *yamlAST
	posOf := func(path string) (int, int) {
		if ast == nil {
			ast = parseYAMLAST(filepath.Join(c.from, rel))
		}
		return ast.pos(path)
	}
	use := func(path, model, source, column string, test any) {
		line, col := posOf(path)
		c.uses = append(c.uses, testUse{rel: rel, line: line, col: col, model: model, source: source, column: column, test: test})
	}
	for i, u := range y.UnitTests {
		line, col := posOf(fmt.Sprintf("$.unit_tests[%d]", i))
		c.res.Unconverted = append(c.res.Unconverted, Piece{File: rel, Line: line, Col: col, Text: "unit test " + u.Name + " of " + u.Model,
			Reason: "dbt unit test: not converted (efmesh's tests in tests/*.yaml take given rows and expected rows too: write it as one)"})
	}
	for i, m := range y.Models {
		if m.Description != "" {
			c.descr[m.Name] = m.Description
		}
		key, tests := "tests", m.Tests
		if len(tests) == 0 {
			key, tests = "data_tests", m.DataTests
		}
		for k, t := range tests {
			use(fmt.Sprintf("$.models[%d].%s[%d]", i, key, k), m.Name, "", "", t)
		}
		for j, col := range m.Columns {
			key, tests := "tests", col.Tests
			if len(tests) == 0 {
				key, tests = "data_tests", col.DataTests
			}
			for k, t := range tests {
				use(fmt.Sprintf("$.models[%d].columns[%d].%s[%d]", i, j, key, k), m.Name, "", col.Name, t)
			}
		}
	}
	for si, s := range y.Sources {
		for ti, t := range s.Tables {
			name := ident(s.Name) + "." + ident(t.Name)
			// Tests become audits of the EXTERNAL model (its audits read
			// the source in place).
			for j, col := range t.Columns {
				key, tests := "tests", col.Tests
				if len(tests) == 0 {
					key, tests = "data_tests", col.DataTests
				}
				for k, tt := range tests {
					use(fmt.Sprintf("$.sources[%d].tables[%d].columns[%d].%s[%d]", si, ti, j, key, k), "", s.Name+"."+t.Name, col.Name, tt)
				}
			}
			key, tests := "tests", t.Tests
			if len(tests) == 0 {
				key, tests = "data_tests", t.DataTests
			}
			for k, tt := range tests {
				use(fmt.Sprintf("$.sources[%d].tables[%d].%s[%d]", si, ti, key, k), "", s.Name+"."+t.Name, "", tt)
			}
			if err := c.claim(name, rel); err != nil {
				return err
			}
			c.sources[s.Name+"."+t.Name] = name
			ident0 := t.Identifier
			if ident0 == "" {
				ident0 = t.Name
			}
			loc := first(str(t.Config["external_location"]), str(t.Meta["external_location"]),
				str(s.Config["external_location"]), str(s.Meta["external_location"]))
			loc = strings.NewReplacer("{name}", t.Name, "{identifier}", ident0).Replace(loc)
			var kind string
			var pieces []Piece
			if loc != "" {
				path := loc
				if !filepath.IsAbs(path) && !strings.Contains(path, "://") {
					if r, err := filepath.Rel(c.to, filepath.Join(c.from, path)); err == nil {
						path = filepath.ToSlash(r)
					}
				}
				switch f := formatOf(loc); f {
				case "csv":
					kind = fmt.Sprintf("EXTERNAL (files %s, format csv, header true)", sqlString(path))
				case "":
					pieces = append(pieces, Piece{File: rel, Line: 1, Col: 1, Text: loc,
						Reason: "external_location whose format efmesh cannot tell (.csv, .parquet, .json): read as a table"})
				default:
					kind = fmt.Sprintf("EXTERNAL (files %s, format %s)", sqlString(path), f)
				}
			}
			if kind == "" {
				schema := s.Schema
				if schema == "" {
					schema = s.Name
				}
				kind = fmt.Sprintf("EXTERNAL (table %s.%s)", ident(schema), ident(ident0))
			}
			var cols []string
			for _, col := range t.Columns {
				if col.DataType == "" {
					cols = nil
					break
				}
				cols = append(cols, ident(col.Name)+" "+col.DataType)
			}
			c.srcModels = append(c.srcModels, &sourceModel{name: name, dbt: s.Name + "." + t.Name, rel: rel, kind: kind, cols: cols, descr: t.Description, pieces: pieces})
		}
	}
	return nil
}

// sourceModel is the EXTERNAL model of a source table, written once its
// tests are rendered.
type sourceModel struct {
	name, dbt, rel, kind, descr string
	cols                        []string
	pieces                      []Piece
}

func (c *converter) writeSource(s *sourceModel) {
	var h strings.Builder
	fmt.Fprintf(&h, "-- Converted from dbt source %s (%s)\nMODEL (\n  name %s,\n  kind %s", s.dbt, filepath.ToSlash(s.rel), s.name, s.kind)
	if len(s.cols) > 0 {
		fmt.Fprintf(&h, ",\n  columns (%s)", strings.Join(s.cols, ", "))
	}
	if a := c.audits[s.name]; len(a) > 0 {
		fmt.Fprintf(&h, ",\n  audits (%s)", strings.Join(a, ", "))
	}
	if s.descr != "" {
		fmt.Fprintf(&h, ",\n  description %s", sqlString(s.descr))
	}
	h.WriteString("\n);\n")
	_, table, _ := strings.Cut(s.name, ".")
	schema, _, _ := strings.Cut(s.name, ".")
	file := "models/_sources/" + schema + "/" + table + ".sql"
	c.out = append(c.out, output{path: file, text: h.String()})
	c.res.Models = append(c.res.Models, Model{Name: s.name, Kind: "EXTERNAL", File: file, From: filepath.ToSlash(s.rel), Converted: len(s.pieces) == 0})
	c.res.Unconverted = append(c.res.Unconverted, s.pieces...)
}

// seed writes a SEED model over a copy of the CSV file.
func (c *converter) seed(path, under string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	cfg := c.folderConfig(c.dp.Seeds, under)
	if err := c.evalConfig(cfg, resolver{
		model:  func(string) (string, bool) { return "", false },
		source: func(string, string) (string, bool) { return "", false },
	}); err != nil {
		return err
	}
	if en, ok := cfg["enabled"].(bool); ok && !en {
		return nil
	}
	schema := ident(str(cfg["schema"]))
	if schema == "" {
		schema = ident(filepath.Base(filepath.Dir(c.rel(path))))
	}
	schema, err = c.schemaName(str(cfg["schema"]), "seed", &dbtModel{rel: c.rel(path), name: strings.TrimSuffix(filepath.Base(path), ".csv"), cfg: cfg}, schema)
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(filepath.Base(path), ".csv")
	name := schema + "." + ident(base)
	c.names[base] = name
	if err := c.claim(name, c.rel(path)); err != nil {
		return err
	}
	csv := "seeds/" + filepath.ToSlash(under)
	file := "models/_seeds/" + strings.TrimSuffix(filepath.ToSlash(under), ".csv") + ".sql"
	c.out = append(c.out, output{path: csv, text: string(data)}, output{path: file, text: fmt.Sprintf("-- Converted from dbt seed %s\nMODEL (\n  name %s,\n  kind SEED (path %s)\n);\n", filepath.ToSlash(c.rel(path)), name, sqlString(csv))})
	c.res.Models = append(c.res.Models, Model{Name: name, Kind: "SEED", File: file, From: filepath.ToSlash(c.rel(path)), Converted: true})
	return nil
}

// vars gives efmesh.yaml the dbt project's vars and the defaults of
// var('x', default); a var with neither is reported.
func (c *converter) vars(used map[string]string, at map[string]Piece) {
	for k, v := range c.dp.Vars {
		if _, nested := v.(map[string]any); nested {
			c.res.Unconverted = append(c.res.Unconverted, Piece{File: "dbt_project.yml", Line: 1, Col: 1, Text: "vars: " + k,
				Reason: "package-scoped vars efmesh has no equivalent for"})
			continue
		}
		c.res.Vars[strings.ToLower(k)] = fmt.Sprint(v)
	}
	names := make([]string, 0, len(used))
	for k := range used {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if _, ok := c.res.Vars[k]; ok {
			continue
		}
		if used[k] != "" {
			c.res.Vars[k] = used[k]
			continue
		}
		p := at[k]
		p.Reason = "variable with no value in dbt_project.yml's vars and no default"
		c.res.Unconverted = append(c.res.Unconverted, p)
	}
}

func (c *converter) config(opt Options) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Converted from the dbt project %s by efmesh init --from-dbt.\nname: %s\nmodels: [\"models/**/*.sql\"]\ntests: [\"tests/**/*.yaml\"]\n", c.dp.Name, c.res.Name)
	if len(c.jinja.plain) > 0 {
		b.WriteString("macros: [\"macros/**/*.sql\"]\n")
	}
	if opt.Start != "" {
		fmt.Fprintf(&b, "start: %s\n", opt.Start)
	}
	b.WriteString("engine: {type: duckdb, path: efmesh.duckdb}\nstate: {type: sqlite, path: .efmesh/state.db}\n")
	if len(c.res.Vars) > 0 {
		keys := make([]string, 0, len(c.res.Vars))
		for k := range c.res.Vars {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("vars:\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %s\n", k, yamlString(c.res.Vars[k]))
		}
	}
	c.out = append(c.out, output{path: project.ConfigFile, text: b.String()}, output{path: ".gitignore", text: ".efmesh/\n*.duckdb\n*.duckdb.wal\n", optional: true})
}

// macros writes the project macros that are plain SQL templates of their
// arguments as efmesh macros, one file per dbt macro file.
func (c *converter) macros() {
	files := map[string]*strings.Builder{}
	var order []string
	for _, m := range c.jinja.sortedPlain() {
		rel := m.file
		for _, mp := range orDefault(c.dp.MacroPaths, "macros") {
			if r, ok := strings.CutPrefix(rel, strings.TrimSuffix(mp, "/")+"/"); ok {
				rel = r
			}
		}
		f := "macros/" + rel
		if files[f] == nil {
			files[f] = &strings.Builder{}
			order = append(order, f)
		} else {
			files[f].WriteString("\n")
		}
		files[f].WriteString(efmeshMacro(m))
	}
	for _, f := range order {
		c.out = append(c.out, output{path: f, text: files[f].String()})
	}
}

// needsJinja reports whether convertBody met Jinja it does not know.
func needsJinja(b body) bool {
	for _, p := range b.pieces {
		if strings.HasPrefix(p.Reason, "Jinja ") {
			return true
		}
	}
	return false
}

// write writes every output, after checking that none exists.
func (c *converter) write() error {
	var exist []string
	if _, err := os.Stat(filepath.Join(c.to, project.ConfigFile)); err == nil {
		return &ExistsError{Paths: []string{filepath.Join(c.to, project.ConfigFile) + " (an efmesh project is already there)"}}
	}
	sort.Slice(c.out, func(i, j int) bool { return c.out[i].path < c.out[j].path })
	var todo []output
	for _, o := range c.out {
		if _, err := os.Stat(filepath.Join(c.to, o.path)); err == nil {
			if !o.optional {
				exist = append(exist, filepath.Join(c.to, o.path))
			}
			continue
		}
		todo = append(todo, o)
	}
	if len(exist) > 0 {
		return &ExistsError{Paths: exist}
	}
	for _, o := range todo {
		p := filepath.Join(c.to, filepath.FromSlash(o.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(o.text), 0o644); err != nil {
			return err
		}
		c.res.Files = append(c.res.Files, o.path)
	}
	return nil
}

// schemaName is the schema of a model, seed or snapshot: def (efmesh's
// rule, the package doc says it), or what the project's
// generate_schema_name macro gives for its schema config (custom, "" for
// none), as dbt names it.
func (c *converter) schemaName(custom, resourceType string, m *dbtModel, def string) (string, error) {
	if c.jinja.byPkg[""]["generate_schema_name"] == nil {
		return def, nil
	}
	arg := "none"
	if custom != "" {
		arg = jinjaLiteral(custom)
	}
	node := map[string]any{"resource_type": resourceType, "name": m.name, "original_file_path": m.rel, "path": m.under,
		"config": m.cfg, "fqn": append([]string{c.dp.Name}, strings.Split(strings.TrimSuffix(filepath.ToSlash(m.under), ".sql"), "/")...)}
	b, err := c.jinja.renderWith(m.rel, "{{ generate_schema_name("+arg+", __efmesh_node) }}", resolver{
		model:  func(string) (string, bool) { return "", false },
		source: func(string, string) (string, bool) { return "", false },
	}, map[string]any{"__efmesh_node": node})
	if err != nil {
		return "", fmt.Errorf("generate_schema_name for %s: %w", m.rel, err)
	}
	if s := ident(strings.TrimSpace(b.sql)); s != "" {
		return s, nil
	}
	return def, nil
}

// hookReason says where dbt runs a hook, which efmesh has none of.
func hookReason(key string) string {
	switch key {
	case "pre_hook":
		return "dbt pre_hook, run before the model's build in its transaction: efmesh runs no statement around a build (run it by hand before efmesh apply, or fold it into the query)"
	case "post_hook":
		return "dbt post_hook, run after the model's build (grants, indexes, analyze, …): efmesh runs no statement around a build (run it by hand after efmesh apply)"
	case "on-run-start":
		return "dbt on-run-start, run once before every dbt run, build, seed and snapshot: efmesh has no such hook (run it by hand before efmesh apply or run)"
	}
	return "dbt on-run-end, run once after every dbt run, build, seed and snapshot: efmesh has no such hook (run it by hand after efmesh apply or run)"
}

// runHooks lists dbt_project.yml's on-run-start and on-run-end for a
// human, each at its line.
func (c *converter) runHooks() {
	src, _ := os.ReadFile(filepath.Join(c.from, "dbt_project.yml"))
	for _, h := range []struct {
		key   string
		hooks any
	}{{"on-run-start", c.dp.OnRunStart}, {"on-run-end", c.dp.OnRunEnd}} {
		line, col := 1, 1
		if at := strings.Index(string(src), h.key); at >= 0 {
			line, col = position(string(src), at)
		}
		for _, hook := range toList(h.hooks) {
			c.res.Unconverted = append(c.res.Unconverted, Piece{File: "dbt_project.yml", Line: line, Col: col, Text: h.key + ": " + hook, Reason: hookReason(h.key)})
		}
	}
}

// mergeConfig sets the keys of src in dst, as dbt does: tags add up, any
// other key is replaced; pre-hook is pre_hook. folders skips the keys of a
// dbt_project.yml level that are folders (no "+", a map).
func mergeConfig(dst, src map[string]any, folders bool) {
	for k, v := range src {
		if _, folder := v.(map[string]any); folders && folder && !strings.HasPrefix(k, "+") {
			continue
		}
		k = strings.ReplaceAll(strings.TrimPrefix(k, "+"), "-", "_")
		if k == "tags" {
			for _, t := range toList(v) {
				if !slices.Contains(toList(dst["tags"]), t) {
					dst["tags"] = append(toList(dst["tags"]), t)
				}
			}
			continue
		}
		dst[k] = v
	}
}

// evalConfig renders the config values of dbt_project.yml that are Jinja
// ("{{ var('load', false) }}"): enabled becomes a boolean.
func (c *converter) evalConfig(cfg map[string]any, r resolver) error {
	for k, v := range cfg {
		s, ok := v.(string)
		if !ok || !strings.Contains(s, "{{") || k == "pre_hook" || k == "post_hook" {
			continue // a hook is listed as written
		}
		b, err := c.jinja.renderBody("dbt_project.yml", s, r)
		if err != nil {
			return err
		}
		cfg[k] = b.sql
		if k == "enabled" {
			cfg[k] = !strings.EqualFold(b.sql, "false") && b.sql != "" && b.sql != "0" && !strings.EqualFold(b.sql, "none")
		}
	}
	return nil
}

// folderConfig is the dbt_project.yml config of a file under a model or
// seed path: the project's level, then each folder's, deeper winning.
func (c *converter) folderConfig(tree map[string]any, under string) map[string]any {
	cfg := map[string]any{}
	level, _ := tree[c.dp.Name].(map[string]any)
	dirs := strings.Split(filepath.ToSlash(filepath.Dir(under)), "/")
	for i := 0; level != nil; i++ {
		mergeConfig(cfg, level, true)
		if i >= len(dirs) || dirs[i] == "." {
			break
		}
		level, _ = level[dirs[i]].(map[string]any)
	}
	return cfg
}

func (c *converter) rel(path string) string {
	r, err := filepath.Rel(c.from, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// walk calls fn for every file under root, in lexical order, with its path
// relative to root; a missing root is no files.
func walk(root string, fn func(path, under string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		under, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		return fn(path, under)
	})
}

// readYAML decodes dir/rel; a syntax or type error names the file (under
// shown, the folder as the user wrote it) and its line:col.
func readYAML(dir, shown, rel string, v any) error {
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		var ye interface {
			GetToken() *token.Token
			GetMessage() string
		}
		if errors.As(err, &ye) && ye.GetToken() != nil {
			pos := ye.GetToken().Position
			return fmt.Errorf("%s:%d:%d: %s", filepath.ToSlash(filepath.Join(shown, rel)), pos.Line, pos.Column, ye.GetMessage())
		}
		return fmt.Errorf("%s: %v", filepath.ToSlash(filepath.Join(shown, rel)), err)
	}
	return nil
}

var nonIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_]+`) })

// ident makes s a valid efmesh name part: lower case, a-z0-9_, starting
// with a letter.
func ident(s string) string {
	s = nonIdent().ReplaceAllString(strings.ToLower(strings.TrimSpace(s)), "_")
	if s != "" && (s[0] < 'a' || s[0] > 'z') {
		s = "m_" + s
	}
	return s
}

func formatOf(loc string) string {
	l := strings.ToLower(loc)
	for _, suf := range []string{".gz", ".zst"} {
		l = strings.TrimSuffix(l, suf)
	}
	switch {
	case strings.HasSuffix(l, ".csv"), strings.HasSuffix(l, ".tsv"):
		return "csv"
	case strings.HasSuffix(l, ".parquet"):
		return "parquet"
	case strings.HasSuffix(l, ".json"), strings.HasSuffix(l, ".ndjson"), strings.HasSuffix(l, ".jsonl"):
		return "json"
	}
	return ""
}

// selects tells whether the select list of sql (the text between its first
// SELECT and the FROM after it) names col as a word, or is a star. A
// lexical look, not a parse: a false answer is reported, never acted on.
func selects(sql, col string) bool {
	lower := strings.ToLower(sql)
	at := regexp.MustCompile(`\bselect\b`).FindStringIndex(lower)
	if at == nil {
		return false
	}
	list := lower[at[1]:]
	if end := regexp.MustCompile(`\bfrom\b`).FindStringIndex(list); end != nil {
		list = list[:end[0]]
	}
	return strings.Contains(list, "*") || regexp.MustCompile(`\b`+regexp.QuoteMeta(col)+`\b`).MatchString(list)
}

func kindName(kind string) string {
	if i := strings.IndexByte(kind, ' '); i > 0 {
		return kind[:i]
	}
	return kind
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// toList reads a string or list-of-strings config value.
func toList(v any) []string {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil
		}
		return []string{v}
	case []string:
		return append([]string(nil), v...)
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

func orDefault(paths []string, def string) []string {
	if len(paths) == 0 {
		return []string{def}
	}
	return paths
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func yamlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
