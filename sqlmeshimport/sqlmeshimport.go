// Package sqlmeshimport converts a sqlmesh project into an efmesh project
// (`efmesh init --from-sqlmesh`): config.yaml, SQL models and their
// MODEL headers, seeds, audits (built-in calls and audit files), external
// models and unit tests.
//
// It reads and writes files only; it knows no engine, state or plan. What
// it cannot convert is never guessed: it stays in the model as a SQL
// comment (or is left out, for a file efmesh cannot read at all) and is
// listed, with its file:line:col, in the Result.
//
// Choices where sqlmesh and efmesh differ:
//   - sqlmesh's macros (@DEF, @EACH, @IF, @STAR, …) stay as written: efmesh
//     expands them itself. Its time variables become efmesh's (@start_date
//     is CAST(@start AS DATE); the end variables, inclusive in sqlmesh,
//     step back one microsecond from efmesh's exclusive @end).
//   - A table named in a body that is a model of the project becomes
//     @ref(…); one declared in external_models.yaml (or schema.yaml)
//     becomes an EXTERNAL model with its columns; any other is reported.
//   - SEED paths are relative to the model file in sqlmesh and to the
//     project root in efmesh: the CSV is copied under seeds/.
//   - Python models and macros, Jinja, CUSTOM kinds, blueprints and pre- or
//     post-statements have no efmesh equivalent: they await a human.
package sqlmeshimport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// Result is what a conversion wrote.
type Result struct {
	From   string  `json:"from"`   // the sqlmesh project folder
	Root   string  `json:"root"`   // the efmesh project folder
	Name   string  `json:"name"`   // the project's name
	Models []Model `json:"models"` // every efmesh model written, by name
	// Unconverted lists every piece left as a comment, left out or
	// reported, in file order; empty when everything converted.
	Unconverted []Piece  `json:"unconverted"`
	Files       []string `json:"files"` // written, relative to Root
}

// Model is one efmesh model written.
type Model struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	File      string `json:"file"` // relative to Root
	From      string `json:"from"` // the sqlmesh file, relative to From
	Converted bool   `json:"converted"`
}

// Piece is something of the sqlmesh project that awaits a human.
type Piece struct {
	File   string `json:"file"` // relative to the sqlmesh project
	Line   int    `json:"line"`
	Col    int    `json:"col"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
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

// Options tune a conversion.
type Options struct {
	// Start is efmesh.yaml's start (YYYY-MM-DD); empty takes
	// model_defaults.start of config.yaml.
	Start string
}

// output is one file to write.
type output struct {
	path, text string
	optional   bool // kept as it is when it exists (a .gitignore)
}

// smModel is one sqlmesh SQL model file.
type smModel struct {
	rel  string
	src  []byte
	r    *reader
	hdr  *block
	name string // lower case
}

type converter struct {
	from, to string
	shown    string // from as the user wrote it, for messages
	res      *Result
	out      []output
	cfg      smConfig
	models   map[string]*smModel // by lower-case name
	ext      map[string]external // declared external tables, by lower-case name
	extUsed  map[string]bool
	audits   map[string]*smAudit // audit files, by lower-case name
	written  map[string]bool     // paths in out
	reported map[string]bool     // external candidates already reported
	python   map[string]string   // Python models: name → file
}

// Convert reads the sqlmesh project in from and writes the efmesh project
// into to. It writes nothing when to already holds efmesh.yaml or any file
// it would write (*ExistsError). Bad input (no config.yaml, config.yml or
// config.py; YAML that does not parse; two files of one model) is an error
// naming the file, line and column.
func Convert(from, to string, opt Options) (*Result, error) {
	shown := from
	from, err := filepath.Abs(from)
	if err != nil {
		return nil, err
	}
	if to, err = filepath.Abs(to); err != nil {
		return nil, err
	}
	c := &converter{from: from, shown: shown, to: to,
		res:    &Result{From: from, Root: to, Name: ident(filepath.Base(from)), Unconverted: []Piece{}},
		models: map[string]*smModel{}, ext: map[string]external{}, extUsed: map[string]bool{},
		audits: map[string]*smAudit{}, written: map[string]bool{}, reported: map[string]bool{}, python: map[string]string{}}
	if c.res.Name == "" {
		c.res.Name = "project"
	}
	if err := c.readConfig(); err != nil {
		return nil, err
	}
	if err := c.run(opt); err != nil {
		return nil, err
	}
	return c.res, nil
}

func (c *converter) report(file string, src []byte, off int, text, reason string) {
	line, col := 1, 1
	if src != nil {
		line, col = position(src, off)
	}
	c.res.Unconverted = append(c.res.Unconverted, Piece{File: file, Line: line, Col: col, Text: text, Reason: reason})
}

func (c *converter) emit(path, text string) {
	c.out = append(c.out, output{path: path, text: text})
	c.written[path] = true
}

func (c *converter) run(opt Options) error {
	if err := c.readExternals(); err != nil {
		return err
	}
	// Models first: their names make the refs of every body.
	var pyFiles []string
	err := walk(filepath.Join(c.from, "models"), func(path string) error {
		rel := c.rel(path)
		switch {
		case strings.HasSuffix(path, ".py"):
			if filepath.Base(path) != "__init__.py" {
				pyFiles = append(pyFiles, rel)
			}
		case strings.HasSuffix(path, ".sql"):
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return c.readModel(rel, src)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, rel := range pyFiles {
		src, _ := os.ReadFile(filepath.Join(c.from, rel))
		name, at := pythonModelName(src)
		text := filepath.Base(rel)
		if name != "" {
			c.python[name] = rel
			text = name
		}
		c.report(rel, src, at, text, "Python model: efmesh models are SQL (rewrite it as a SQL model, or load its rows as a SEED)")
	}
	c.metrics()
	if err := c.readAudits(); err != nil {
		return err
	}
	c.pythonMacros()

	names := make([]string, 0, len(c.models))
	for n := range c.models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.model(c.models[n])
	}
	c.writeAudits()
	if err := c.tests(); err != nil {
		return err
	}
	c.externals()
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

// readModel reads one model file's header and name.
func (c *converter) readModel(rel string, src []byte) error {
	r := newReader(src)
	i := 0
	for i < len(r.toks) && !(r.toks[i].Kind == sqlscan.Ident && strings.EqualFold(r.text(i), "model") && i+1 < len(r.toks) && r.text(i+1) == "(") {
		i++
	}
	if i == len(r.toks) {
		c.report(rel, src, 0, filepath.Base(rel), "no MODEL (…) header: not a sqlmesh model, left out")
		return nil
	}
	hdr, _ := r.headerAt(i, "model")
	if !hdr.closed {
		return fmt.Errorf("%s:%d:%d: the MODEL header's '(' is never closed", filepath.ToSlash(filepath.Join(c.shown, rel)), lineOf(src, hdr.start), colOf(src, hdr.start))
	}
	if v, p := hdr.value(src, "enabled"); p != nil && strings.EqualFold(strings.TrimSpace(v), "false") {
		return nil // a disabled model is no model
	}
	_, np := hdr.value(src, "name")
	name := ""
	if np != nil {
		name = strings.ToLower(scalar(src, *np))
	}
	if np == nil || name == "" {
		// sqlmesh names a model without name after its file.
		name = ident(filepath.Base(filepath.Dir(rel))) + "." + ident(strings.TrimSuffix(filepath.Base(rel), ".sql"))
	}
	if name == "" || strings.HasPrefix(name, "@") {
		c.report(rel, src, np.start, "name "+name, "model name written as a macro (a blueprint): efmesh has no blueprints; write one model per blueprint")
		return nil
	}
	parts := strings.Split(name, ".")
	if len(parts) == 3 {
		name = parts[1] + "." + parts[2] // the catalog is the engine's database
	}
	if prev, dup := c.models[name]; dup {
		return fmt.Errorf("%s and %s both define the model %s", prev.rel, rel, name)
	}
	c.models[name] = &smModel{rel: rel, src: src, r: r, hdr: hdr, name: name}
	// Audits defined after the query are known before any model's
	// audits are read.
	stmts := statements(src, hdr.end)
	for i := 0; i+1 < len(stmts); i++ {
		if stmts[i].kind == stmtAudit && stmts[i+1].kind == stmtQuery {
			c.addAudit(rel, src, stmts[i], stmts[i+1])
			i++
		}
	}
	return nil
}

// pythonModelName is the name a Python model's @model("schema.table", …)
// decorator gives, and where it is written.
func pythonModelName(src []byte) (string, int) {
	at := strings.Index(string(src), "@model(")
	if at < 0 {
		return "", 0
	}
	toks := sqlscan.Tokens(src, at+len("@model("))
	if len(toks) > 0 && (toks[0].Kind == sqlscan.String || toks[0].Kind == sqlscan.QuotedIdent) {
		return strings.Join(lastParts(strings.ToLower(toks[0].Value(src))), "."), toks[0].Start
	}
	return "", at
}

// metrics reports sqlmesh's METRIC definitions: efmesh has no metrics.
func (c *converter) metrics() {
	_ = walk(filepath.Join(c.from, "metrics"), func(path string) error {
		if !strings.HasSuffix(path, ".sql") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		r := newReader(src)
		for i := 0; i+1 < len(r.toks); i++ {
			if r.toks[i].Kind == sqlscan.Ident && strings.EqualFold(r.text(i), "metric") && r.text(i+1) == "(" {
				b, next := r.headerAt(i, "metric")
				name, _ := b.value(src, "name")
				c.report(c.rel(path), src, b.start, "METRIC "+strings.TrimSpace(name), "metric: efmesh has no metrics (write the expression into a model)")
				i = next - 1
			}
		}
		return nil
	})
}

// resolve is the efmesh relation text of a table named in a body: @ref(…)
// of a model or declared external table, else the name as written (ok is
// false).
func (c *converter) resolve(name string) (string, bool) {
	parts := strings.Split(name, ".")
	if len(parts) == 3 {
		parts = parts[1:]
	}
	n := strings.Join(parts, ".")
	if _, ok := c.models[n]; ok {
		return "@ref(" + n + ")", true
	}
	if _, ok := c.ext[n]; ok {
		c.extUsed[n] = true
		return "@ref(" + n + ")", true
	}
	return "", false
}

// config writes efmesh.yaml.
func (c *converter) config(opt Options) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Converted from the sqlmesh project %s by efmesh init --from-sqlmesh.\nname: %s\nmodels: [\"models/**/*.sql\"]\ntests: [\"tests/**/*.yaml\"]\naudits: [\"audits/**/*.sql\"]\n", filepath.Base(c.from), c.res.Name)
	start := opt.Start
	if start == "" {
		start = c.cfg.start
	}
	if start != "" {
		fmt.Fprintf(&b, "start: %s\n", start)
	}
	b.WriteString(c.cfg.engine + "\n")
	b.WriteString("state: {type: sqlite, path: .efmesh/state.db}\n")
	if c.cfg.cron != "" {
		fmt.Fprintf(&b, "defaults: {cron: %s}\n", yamlString(c.cfg.cron))
	}
	if len(c.cfg.vars) > 0 {
		keys := make([]string, 0, len(c.cfg.vars))
		for k := range c.cfg.vars {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("vars:\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %s\n", k, yamlString(c.cfg.vars[k]))
		}
	}
	c.out = append(c.out, output{path: project.ConfigFile, text: b.String()}, output{path: ".gitignore", text: ".efmesh/\n*.duckdb\n*.duckdb.wal\n", optional: true})
}

// write writes every output, after checking that none exists; a write that
// fails removes what was written before it.
func (c *converter) write() (err error) {
	if _, err := os.Stat(filepath.Join(c.to, project.ConfigFile)); err == nil {
		return &ExistsError{Paths: []string{filepath.Join(c.to, project.ConfigFile) + " (an efmesh project is already there)"}}
	}
	sort.Slice(c.out, func(i, j int) bool { return c.out[i].path < c.out[j].path })
	var todo []output
	var exist []string
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
	// done are the files and folders made, in order: a failure removes
	// them again, newest first.
	var done []string
	defer func() {
		if err != nil {
			for i := len(done) - 1; i >= 0; i-- {
				os.Remove(done[i])
			}
		}
	}()
	for _, o := range todo {
		p := filepath.Join(c.to, filepath.FromSlash(o.path))
		if err := mkdirParent(filepath.Dir(p), &done); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(o.text), 0o644); err != nil {
			return err
		}
		done = append(done, p)
		c.res.Files = append(c.res.Files, o.path)
	}
	return nil
}

// mkdirParent makes dir and the folders above it that are missing,
// appending each to made.
func mkdirParent(dir string, made *[]string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirParent(parent, made); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	*made = append(*made, dir)
	return nil
}

func (c *converter) rel(path string) string {
	r, err := filepath.Rel(c.from, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// walk calls fn for every file under root, in lexical order; a missing
// root is no files.
func walk(root string, fn func(path string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "__pycache__") {
				return filepath.SkipDir
			}
			return nil
		}
		return fn(path)
	})
}

// ident makes s a valid efmesh name part: lower case, a-z0-9_, starting
// with a letter.
func ident(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	under := false
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	s = b.String()
	if s != "" && (s[0] < 'a' || s[0] > 'z') {
		s = "m_" + s
	}
	return s
}

// position is the 1-based line and column (in bytes) of offset off.
func position(src []byte, off int) (int, int) { return lineOf(src, off), colOf(src, off) }

func lineOf(src []byte, off int) int {
	off = min(off, len(src))
	return strings.Count(string(src[:off]), "\n") + 1
}

func colOf(src []byte, off int) int {
	off = min(off, len(src))
	return off - strings.LastIndexByte(string(src[:off]), '\n')
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

// comment turns text into SQL line comments, each line prefixed.
func comment(prefix, text string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("-- " + prefix + l + "\n")
	}
	return b.String()
}
