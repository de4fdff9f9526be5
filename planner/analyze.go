package planner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// Workbench is where models are checked; it never is the warehouse. For
// DuckDB projects it is an in-memory DuckDB (an engine.Engine): every model
// gets an empty stand-in table and bodies are bound by the real binder. An
// engine without an embedded database (Postgres) offers a Binder instead,
// which resolves columns over the parse tree against declared schemas.
type Workbench interface {
	engine.Parser
	Dialect() engine.Dialect
	Close() error
}

// Binder resolves a query's output columns against the given relations
// ("schema.table" → columns) without a server. A nil result with a nil
// error means the shape cannot be known statically. Errors are
// *engine.SQLError, several joined with errors.Join.
type Binder interface {
	Bind(sql string, relations map[string][]engine.Column) ([]engine.Column, error)
}

// CodeEngineFeature marks a model using what its engine cannot do.
const CodeEngineFeature = "engine-feature"

// standInCatalog holds one empty stand-in table per model while checking, so
// that a plain "med.moves" in a body does not silently bind to a model.
const standInCatalog = "__efmesh_refs"

// ModelInfo is what analysis learned about one model.
type ModelInfo struct {
	Model       *project.Model
	Fingerprint string            // "" when the model or a parent is broken
	OwnHash     string            // hash of the model alone
	Parents     map[string]string // parent name -> fingerprint
	Canonical   []byte
	// Columns is the schema children bind against: the declared columns
	// when there are any (the contract), else what the binder inferred;
	// nil when unknown.
	Columns []engine.Column
	// Inferred is what the binder (or the file reader) says the model
	// yields, whatever was declared; nil when the check did not get there.
	Inferred []engine.Column
	Broken   bool // the model has an error of its own
	// Diagnostics are the checker's findings for this model (the loader's
	// are in Project.Diagnostics).
	Diagnostics []project.Diagnostic

	loadBroken bool // the loader reported an error in the model's file
	// def memoizes the definition a snapshot records; Reanalyze's copy of
	// an unchanged model shares it (same source, same inferred schema).
	def *definitionMemo
}

type definitionMemo struct {
	once sync.Once
	json []byte
}

// definitionJSON is the definition a snapshot of info records, encoded.
func (info *ModelInfo) definitionJSON() []byte {
	if info.def == nil {
		b, _ := json.Marshal(definitionOfInfo(info))
		return b
	}
	info.def.once.Do(func() { info.def.json, _ = json.Marshal(definitionOfInfo(info)) })
	return info.def.json
}

// Analysis is a checked, fingerprinted project.
type Analysis struct {
	Project     *project.Project
	Models      map[string]*ModelInfo
	Diagnostics []project.Diagnostic // the project's and the checker's, sorted
	// Checked names the models this pass checked (all of them for
	// Analyze without a cache; the edited ones and their direct children
	// for Reanalyze).
	Checked []string

	// dialect is the workbench's: physical names fit its identifier limit.
	dialect engine.Dialect
	// outliner reads canonical forms (this analysis's and stored
	// snapshots') for lineage, categories and warnings.
	outliner engine.Outliner
	// standIns names the models whose stand-in exists in the workbench.
	standIns map[string]bool
	// boundInEngine: the bodies were bound by the engine itself, against
	// stand-ins with the parents' types, so what the analysis inferred is
	// what the warehouse says (not a static binder's approximation).
	boundInEngine bool
	// redacted: in the variant a redacted environment is planned from
	// (redact.go), the columns each model leaves out of its physics.
	redacted map[string][]string
}

// Dialect is the dialect of the workbench the analysis was made with.
func (a *Analysis) Dialect() engine.Dialect { return a.dialect }

// Errors reports whether the analysis found an error.
func (a *Analysis) Errors() bool { return project.HasErrors(a.Diagnostics) }

// Analyze fingerprints every model and checks every body against stand-ins
// of its parents in wb: syntax, unknown tables and columns, the schema
// contract. It is the check the language server shows and the gate in
// front of every plan. The error is for a failing workbench only.
func Analyze(ctx context.Context, p *project.Project, wb Workbench) (*Analysis, error) {
	return AnalyzeWith(ctx, p, wb, AnalyzeOptions{})
}

// AnalyzeOptions tune AnalyzeWith.
type AnalyzeOptions struct {
	// Cache, when set, answers checks done before with the same inputs;
	// only cache misses reach the workbench.
	Cache CheckCache
}

// AnalyzeWith is Analyze with options.
func AnalyzeWith(ctx context.Context, p *project.Project, wb Workbench, opt AnalyzeOptions) (*Analysis, error) {
	a := &Analysis{Project: p, Models: make(map[string]*ModelInfo, len(p.Models)), standIns: map[string]bool{}, dialect: wb.Dialect(), outliner: wb}
	a.Diagnostics = append(a.Diagnostics, p.Diagnostics...)
	broken := map[string]bool{}
	for _, d := range p.Diagnostics {
		if d.Severity == project.SeverityError {
			broken[d.File] = true
		}
	}
	ck := newChecker(wb, p.Root, a)
	if err := ck.reset(ctx); err != nil {
		return nil, err
	}
	names := ""
	if opt.Cache != nil {
		names = modelNames(p)
	}
	ck.precanonicalize(p, opt.Cache)
	for _, m := range p.Models {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.ByName[m.Name] != m {
			continue // a duplicate: reported by the loader
		}
		info := &ModelInfo{Model: m, Parents: map[string]string{}, Broken: broken[m.File], loadBroken: broken[m.File], def: new(definitionMemo)}
		a.Models[m.Name] = info
		key := ""
		if opt.Cache != nil {
			key = ck.cacheKey(info, names)
		}
		if key != "" {
			if cc, ok := opt.Cache.Get(key); ok {
				cc.fill(info, a)
				a.Diagnostics = append(a.Diagnostics, info.Diagnostics...)
				continue
			}
		}
		if err := ck.ensureParents(ctx, m); err != nil {
			return nil, err
		}
		a.Checked = append(a.Checked, m.Name)
		if err := ck.model(ctx, info); err != nil {
			return nil, err
		}
		if key != "" {
			opt.Cache.Put(key, cachedOf(info))
		}
		a.Diagnostics = append(a.Diagnostics, info.Diagnostics...)
	}
	a.Diagnostics = append(a.Diagnostics, checkTests(a)...)
	a.Diagnostics = append(a.Diagnostics, checkAudits(a)...)
	project.SortDiagnostics(a.Diagnostics)
	return a, nil
}

// Reanalyze analyzes p reusing prev: a model is checked again only when its
// file changed, it is a seed (its data file may have changed), or a direct
// parent's shape (columns, or whether it is usable) changed; every other
// model keeps its results, with its fingerprint recomputed from the cached
// own hash when a parent's fingerprint moved. An edit therefore costs the
// edited models and their direct children, not the project.
//
// Precondition: wb is the workbench prev was made with, and nothing else
// changed its stand-ins since; callers serialize analyses per workbench.
// On error the workbench is in an unknown state: use Analyze next time.
func Reanalyze(ctx context.Context, prev *Analysis, p *project.Project, wb Workbench) (*Analysis, error) {
	if prev == nil || prev.Project == nil || prev.Project.Root != p.Root {
		return Analyze(ctx, p, wb)
	}
	a := &Analysis{Project: p, Models: make(map[string]*ModelInfo, len(p.Models)), standIns: make(map[string]bool, len(prev.standIns)), dialect: wb.Dialect(), outliner: wb}
	for k, v := range prev.standIns {
		a.standIns[k] = v
	}
	a.Diagnostics = append(a.Diagnostics, p.Diagnostics...)
	broken := map[string]bool{}
	for _, d := range p.Diagnostics {
		if d.Severity == project.SeverityError {
			broken[d.File] = true
		}
	}
	ck := newChecker(wb, p.Root, a)
	shapeChanged := map[string]bool{}
	for _, m := range p.Models {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.ByName[m.Name] != m {
			continue
		}
		old := prev.Models[m.Name]
		recheck := old == nil || m.Kind.Name == project.KindSeed || old.Model.File != m.File ||
			!bytes.Equal(old.Model.Source, m.Source) || old.loadBroken != broken[m.File]
		if !recheck {
			for _, r := range m.Refs() {
				pi, po := a.Models[r], prev.Models[r]
				if shapeChanged[r] || (pi == nil) != (po == nil) || pi != nil && (pi.Fingerprint == "") != (po.Fingerprint == "") {
					recheck = true
					break
				}
			}
		}
		if !recheck {
			info := *old
			info.Model = m
			// Parents' fingerprints as they are now; the map and the
			// fingerprint are kept (shared, never written) when none moved.
			same := true
			n := 0
			for _, r := range m.Refs() {
				if pi := a.Models[r]; pi != nil && pi.Fingerprint != "" {
					n++
					same = same && old.Parents[r] == pi.Fingerprint
				}
			}
			if !same || n != len(old.Parents) {
				info.Parents = make(map[string]string, n)
				for _, r := range m.Refs() {
					if pi := a.Models[r]; pi != nil && pi.Fingerprint != "" {
						info.Parents[r] = pi.Fingerprint
					}
				}
				if info.Fingerprint != "" {
					info.Fingerprint = fingerprint(info.OwnHash, info.Parents)
				}
			}
			a.Models[m.Name] = &info
			a.Diagnostics = append(a.Diagnostics, info.Diagnostics...)
			continue
		}
		info := &ModelInfo{Model: m, Parents: map[string]string{}, Broken: broken[m.File], loadBroken: broken[m.File], def: new(definitionMemo)}
		a.Models[m.Name] = info
		a.Checked = append(a.Checked, m.Name)
		if err := ck.ensureParents(ctx, m); err != nil {
			return nil, err
		}
		if err := ck.model(ctx, info); err != nil {
			return nil, err
		}
		a.Diagnostics = append(a.Diagnostics, info.Diagnostics...)
		if old == nil || !sameColumns(old.Columns, info.Columns) || (old.Fingerprint == "") != (info.Fingerprint == "") {
			shapeChanged[m.Name] = true
		}
		if info.Columns == nil && old != nil && old.Columns != nil {
			if err := ck.dropStandIn(ctx, m.Name); err != nil {
				return nil, err
			}
		}
	}
	for name, old := range prev.Models {
		if a.Models[name] == nil && old.Columns != nil {
			if err := ck.dropStandIn(ctx, name); err != nil {
				return nil, err
			}
		}
	}
	a.Diagnostics = append(a.Diagnostics, checkTests(a)...)
	a.Diagnostics = append(a.Diagnostics, checkAudits(a)...)
	project.SortDiagnostics(a.Diagnostics)
	return a, nil
}

func sameColumns(a, b []engine.Column) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (c *checker) dropStandIn(ctx context.Context, name string) error {
	delete(c.a.standIns, name)
	if c.eng == nil {
		return nil
	}
	if err := c.eng.Exec(ctx, c.scratch.DropScratchTable(c.catalog, standInRelation(name))); err != nil {
		return fmt.Errorf("drop stand-in %s: %w", name, err)
	}
	return nil
}

// newChecker picks the checking strategy the workbench supports.
func newChecker(wb Workbench, root string, a *Analysis) *checker {
	c := &checker{wb: wb, d: wb.Dialect(), root: root, a: a, catalog: standInCatalog}
	if b, ok := wb.(Binder); ok {
		c.binder = b
	} else if e, ok := wb.(engine.Engine); ok {
		if sc, ok := c.d.(engine.Scratch); ok {
			c.eng, c.scratch = e, sc
		}
	}
	a.boundInEngine = c.eng != nil
	return c
}

type checker struct {
	// schemas holds the stand-in schemas created by this checker.
	schemas map[string]bool
	// precanon holds canonical forms parsed ahead in one batch.
	precanon map[*project.Model]precanonical
	// catalog is the workbench catalog holding this checker's stand-ins
	// (standInCatalog; another one for a redacted environment's variant,
	// whose parents have other columns).
	catalog string
	// Exactly one of eng (stand-ins + DESCRIBE) and binder is set; with
	// neither, bodies are only parsed. scratch, set with eng, writes the
	// stand-ins' statements.
	eng     engine.Engine
	scratch engine.Scratch
	binder  Binder
	wb      Workbench
	d       engine.Dialect
	root    string
	a       *Analysis
}

func (c *checker) reset(ctx context.Context) error {
	if c.eng == nil {
		return nil
	}
	_ = c.eng.Exec(ctx, c.scratch.DropScratch(c.catalog))
	if err := c.eng.Exec(ctx, c.scratch.AttachScratch(c.catalog)); err != nil {
		return fmt.Errorf("workbench: %w", err)
	}
	return nil
}

// diag records a finding on the model being checked.
func (c *checker) diag(m *project.Model, start, end int, code, msg string) {
	c.add(m, project.NewDiagnostic(m.File, m.Source, start, end, project.SeverityError, code, msg))
}

func (c *checker) add(m *project.Model, d project.Diagnostic) {
	if info := c.a.Models[m.Name]; info != nil && info.Model == m {
		info.Diagnostics = append(info.Diagnostics, d)
		return
	}
	c.a.Diagnostics = append(c.a.Diagnostics, d)
}

func (c *checker) standIn(name string) string {
	return c.scratch.ScratchRelation(c.catalog, standInRelation(name))
}

// standInRelation is the relation of a model's stand-in in the checker's
// catalog (checkRelation).
func standInRelation(name string) engine.Relation {
	s, t := checkRelation(name)
	return engine.Relation{Schema: s, Name: t}
}

// checkRelation is the schema and table a model is checked under: the
// stand-in's, and the relation a Binder binds. Like the physical table
// apply reads (<schema>__<table>__<fp8>), it is reachable by neither the
// model's table name nor schema.table, so a body binds in the checker
// exactly as it does at apply: through an alias only, the one it writes or
// the implicit one renderBody gives it.
func checkRelation(name string) (schema, table string) {
	s, t := SplitName(name)
	return s, s + "__" + t
}

// model analyzes one model; its parents were analyzed before it.
func (c *checker) model(ctx context.Context, info *ModelInfo) error {
	m := info.Model
	parentsOK := true
	for _, r := range m.Refs() {
		pi, ok := c.a.Models[r]
		if !ok || pi.Fingerprint == "" {
			parentsOK = false
			continue
		}
		info.Parents[r] = pi.Fingerprint
	}

	// The model's own name is its prod view's: the engine must keep it
	// whole (Postgres truncates past 63 bytes, so two names could meet).
	if limit := c.d.MaxIdentifierLength(); limit > 0 && !m.Kind.Name.Virtual() {
		for _, part := range []string{m.Schema, m.Table} {
			if len(part) > limit {
				c.diag(m, m.NameRange.Start.Offset, m.NameRange.End.Offset, project.CodeReservedName,
					fmt.Sprintf("%s is %d bytes long; the %s engine keeps identifiers of at most %d bytes", part, len(part), c.d.Name(), limit))
				info.Broken = true
			}
		}
	}

	var content string
	var inferred []engine.Column
	inferredOK := false
	if c.eng == nil {
		// Without an embedded DuckDB: seeds, file externals and lake
		// targets cannot run; say so before any action.
		feature := ""
		switch {
		case m.Kind.Name == project.KindSeed:
			feature = "SEED files"
		case m.Kind.Name == project.KindExternal && m.Kind.Files != "":
			feature = "EXTERNAL files"
		case m.Target == "parquet" || m.Target == "ducklake":
			feature = "target " + m.Target
		}
		if feature != "" {
			prop := "kind"
			if strings.HasPrefix(feature, "target") {
				prop = "target"
			}
			c.propDiag(m, prop, CodeEngineFeature, fmt.Sprintf("%s uses %s, which the %s engine does not support (DuckDB only)", m.Name, feature, c.d.Name()))
			info.Broken = true
		}
	}
	switch m.Kind.Name {
	case project.KindSeed:
		h, err := c.fileHash(m.Kind.Path)
		if err != nil {
			c.propDiag(m, "kind", project.CodeFile, fmt.Sprintf("seed file %s: %v", m.Kind.Path, unwrapPathErr(err)))
			info.Broken = true
		}
		content = h
		if err == nil && m.Columns == nil && c.eng != nil {
			if empty, _ := emptyFile(absPath(c.root, m.Kind.Path)); empty {
				// The reader would invent a column0 VARCHAR.
				c.propDiag(m, "kind", project.CodeFile, fmt.Sprintf("seed file %s is empty: declare its columns (columns (…)) for an empty table", m.Kind.Path))
				info.Broken = true
				break
			}
		}
		if err == nil && !c.checkSeed(ctx, m, h) {
			info.Broken = true
			break
		}
		if err == nil && m.Columns == nil && c.eng != nil {
			inferred, inferredOK = c.describeFiles(ctx, m, []string{m.Kind.Path}, seedFormat(m.Kind.Path), nil)
		}
	case project.KindExternal:
		if m.Kind.Files != "" && m.Columns == nil && c.eng != nil {
			inferred, inferredOK = c.describeFiles(ctx, m, []string{m.Kind.Files}, m.Kind.Format, m.Kind.Options)
		}
	default:
		c.body(ctx, info, parentsOK)
		inferred, inferredOK = info.Columns, info.Columns != nil
	}
	if inferredOK {
		info.Inferred = inferred
	}

	if !info.Broken && parentsOK && m.Kind.Name.HasBody() == (info.Canonical != nil) {
		info.OwnHash = ownHash(m, info.Canonical, content)
		info.Fingerprint = fingerprint(info.OwnHash, info.Parents)
	}

	// The stand-in: declared columns win (they are the contract children
	// may rely on); otherwise what the binder inferred.
	cols := declared(m)
	if cols == nil && inferredOK {
		cols = inferred
	}
	if cols != nil {
		if dup := duplicateColumn(cols); dup != "" {
			c.diag(m, m.BodyStart, tokenEnd(m.Source, m.BodyStart), project.CodeBinder,
				fmt.Sprintf("the query yields column %s twice; give each column its own name (AS …)", dup))
			info.Broken = true
			info.Fingerprint = ""
			return nil
		}
		c.propertyColumns(m, cols)
	}
	cols = withValidity(m, cols)
	info.Columns = cols
	if cols == nil {
		return nil
	}
	return c.createStandIn(ctx, m, cols)
}

// emptyFile reports whether the file at path holds nothing but blanks.
func emptyFile(path string) (bool, error) {
	b, err := os.ReadFile(path)
	return err == nil && len(bytes.TrimSpace(b)) == 0, err
}

// duplicateColumn returns a name cols hold twice (ignoring case, as the
// engines do), or "".
func duplicateColumn(cols []engine.Column) string {
	seen := make(map[string]bool, len(cols))
	for _, col := range cols {
		k := strings.ToLower(col.Name)
		if seen[k] {
			return col.Name
		}
		seen[k] = true
	}
	return ""
}

// propertyColumns checks the columns the header names against what the
// model yields: the time column of an incremental model (and that it holds
// dates or timestamps), unique keys, the grain. Apply relies on each.
func (c *checker) propertyColumns(m *project.Model, cols []engine.Column) {
	byName := make(map[string]engine.Column, len(cols))
	names := make([]string, len(cols))
	for i, col := range cols {
		byName[strings.ToLower(col.Name)] = col
		names[i] = col.Name
	}
	check := func(prop, what, name string) (engine.Column, bool) {
		col, ok := byName[strings.ToLower(name)]
		if !ok {
			msg := fmt.Sprintf("%s %s is not a column of the query", what, name)
			if s, ok := project.DidYouMean(name, names); ok {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else if len(names) <= 12 {
				msg += "; it yields " + strings.Join(names, ", ")
			}
			c.wordDiag(m, prop, name, project.CodeUnknownColumn, msg)
		}
		return col, ok
	}
	switch k := m.Kind; k.Name {
	case project.KindIncrementalByTimeRange:
		if col, ok := check("kind", "time_column", k.TimeColumn); ok && col.Type != "" {
			if f := engine.TypeFamily(col.Type); f != "date" && f != "timestamp" {
				c.wordDiag(m, "kind", k.TimeColumn, project.CodeBadValue,
					fmt.Sprintf("time_column %s is %s; it must hold dates or timestamps", k.TimeColumn, col.Type))
			}
		}
	case project.KindIncrementalByUniqueKey, project.KindSCDType2:
		for _, key := range k.Key {
			check("kind", "key", key)
		}
	}
	// The grain is of the table, validity columns (SCD_TYPE_2) included.
	for _, col := range withValidity(m, cols)[len(cols):] {
		byName[strings.ToLower(col.Name)] = col
		names = append(names, col.Name)
	}
	for _, g := range m.Grain {
		check("grain", "grain column", g)
	}
}

// wordDiag reports msg on word where the header property prop names it,
// else on the property.
func (c *checker) wordDiag(m *project.Model, prop, word, code, msg string) {
	p, ok := m.Property(prop)
	if !ok {
		c.diag(m, m.Header.Start.Offset, m.Header.Start.Offset, code, msg)
		return
	}
	start, end := p.ValueRange.Start.Offset, p.ValueRange.End.Offset
	if i := wordIndex(m.Source[start:end], word); i >= 0 {
		start, end = start+i, start+i+len(word)
	}
	c.diag(m, start, end, code, msg)
}

// wordIndex finds word in b as a whole identifier, ignoring case; -1 when
// it is not there.
func wordIndex(b []byte, word string) int {
	lw := strings.ToLower(word)
	lb := strings.ToLower(string(b))
	for i := 0; ; {
		j := strings.Index(lb[i:], lw)
		if j < 0 || lw == "" {
			return -1
		}
		j += i
		before := j == 0 || !isIdentByte(lb[j-1])
		after := j+len(lw) >= len(lb) || !isIdentByte(lb[j+len(lw)])
		if before && after && len(lb) == len(b) {
			return j
		}
		i = j + 1
	}
}

func (c *checker) createStandIn(ctx context.Context, m *project.Model, cols []engine.Column) error {
	if c.a.standIns == nil {
		c.a.standIns = map[string]bool{}
	}
	c.a.standIns[m.Name] = true
	if c.eng == nil {
		return nil // a binder reads parents' columns from the analysis
	}
	stmt := c.scratch.ReplaceScratchTable(c.catalog, standInRelation(m.Name), cols)
	if !c.schemas[m.Schema] {
		stmt = c.scratch.CreateScratchSchema(c.catalog, m.Schema) + "; " + stmt
	}
	err := c.eng.Exec(ctx, stmt)
	if err == nil {
		if c.schemas == nil {
			c.schemas = map[string]bool{}
		}
		c.schemas[m.Schema] = true
	}
	if err != nil {
		// A declared type the engine does not know: point at the column.
		var se *engine.SQLError
		if errors.As(err, &se) {
			for _, col := range m.Columns {
				if strings.Contains(se.Message, col.Type) || strings.Contains(strings.ToLower(se.Message), strings.ToLower(strings.Fields(col.Type)[0])) {
					c.diag(m, col.Range.Start.Offset, col.Range.End.Offset, project.CodeBadValue, "unknown column type: "+se.Message)
					c.a.Models[m.Name].Broken = true
					c.a.Models[m.Name].Fingerprint = ""
					return nil
				}
			}
			c.propDiag(m, "columns", project.CodeBadValue, "bad columns: "+se.Message)
			c.a.Models[m.Name].Broken = true
			c.a.Models[m.Name].Fingerprint = ""
			return nil
		}
		return fmt.Errorf("stand-in for %s: %w", m.Name, err)
	}
	return nil
}

// body canonicalizes and binds a SELECT body.
func (c *checker) body(ctx context.Context, info *ModelInfo, parentsOK bool) {
	m := info.Model
	if m.BodyStart <= len(m.Source) && !utf8.Valid(m.Source[m.BodyStart:]) {
		off := m.BodyStart
		for off < len(m.Source) {
			r, n := utf8.DecodeRune(m.Source[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		c.diag(m, off, min(off+1, len(m.Source)), project.CodeSyntax, "the body is not valid UTF-8 here: save the file as UTF-8")
		info.Broken = true
		return
	}
	this := false
	for _, mc := range m.Macros {
		if mc.Kind == project.MacroThis {
			c.diag(m, mc.Start, mc.End, project.CodeBadMacro, "@this is only valid in audits")
			info.Broken, this = true, true
		}
	}
	if this {
		return // the engine would only add a syntax error for what @this renders to
	}
	// Canonical form: refs by name, interval bounds as parameters, so the
	// fingerprint never depends on dates or physical names.
	canonR := c.canonicalRender(m)
	if strings.TrimSpace(canonR.SQL) == "" {
		return // the loader reported the missing body
	}
	var canon []byte
	var err error
	if pre, ok := c.precanon[m]; ok {
		canon, err = pre.canon, pre.err
	} else {
		canon, err = c.wb.Canonicalize(canonR.SQL)
	}
	if err != nil {
		c.sqlDiag(m, canonR, err)
		info.Broken = true
		return
	}
	info.Canonical = canon
	if !parentsOK {
		return
	}
	for _, r := range m.Refs() {
		if pi := c.a.Models[r]; pi == nil || pi.Columns == nil {
			return // a parent of unknown shape: nothing to bind against
		}
	}
	if c.binder != nil {
		rels := map[string][]engine.Column{}
		for _, r := range m.Refs() {
			s, t := checkRelation(r)
			rels[s+"."+t] = c.a.Models[r].Columns
		}
		bindR, _ := renderBody(m, macroText{
			ref: func(n string) (string, bool) {
				s, t := checkRelation(n)
				return engine.QuoteIdent(s) + "." + engine.QuoteIdent(t), true
			},
			start: c.d.Placeholder("start"), end: c.d.Placeholder("end"), this: c.d.Placeholder("this"),
		})
		cols, err := c.binder.Bind(bindR.SQL, rels)
		if err != nil {
			if many, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range many.Unwrap() {
					c.sqlDiag(m, bindR, e)
				}
			} else {
				c.sqlDiag(m, bindR, err)
			}
			info.Broken = true
			return
		}
		info.Columns = cols // nil: the shape is not known statically
		if cols != nil {
			c.contract(m, cols)
		}
		return
	}
	if c.eng == nil {
		return
	}
	r, _ := renderBody(m, macroText{
		ref:   func(n string) (string, bool) { return c.standIn(n), true },
		start: c.d.TimestampLiteral("2000-01-01T00:00:00Z"),
		end:   c.d.TimestampLiteral("2000-01-02T00:00:00Z"),
		this:  "NULL",
	})
	cols, err := c.eng.Describe(ctx, r.SQL)
	if err != nil {
		c.sqlDiag(m, r, err)
		info.Broken = true
		return
	}
	info.Columns = cols
	c.contract(m, cols)
}

// contract compares declared columns with the binder's, in order.
func (c *checker) contract(m *project.Model, got []engine.Column) {
	if m.Columns == nil {
		return
	}
	gotBy := map[string]engine.Column{}
	for _, g := range got {
		gotBy[strings.ToLower(g.Name)] = g
	}
	declBy := map[string]bool{}
	bad := false
	for _, d := range m.Columns {
		declBy[strings.ToLower(d.Name)] = true
		g, ok := gotBy[strings.ToLower(d.Name)]
		if !ok {
			c.diag(m, d.Range.Start.Offset, d.Range.End.Offset, project.CodeContract,
				fmt.Sprintf("column %q is declared but the query does not produce it (it produces %s)", d.Name, columnList(got)))
			bad = true
			continue
		}
		df, gf := engine.TypeFamily(d.Type), engine.TypeFamily(g.Type)
		if g.Type != "" && !engine.Compatible(df, gf) {
			c.diag(m, d.Range.Start.Offset, d.Range.End.Offset, project.CodeContract,
				fmt.Sprintf("column %q is declared %s (%s) but the query yields %s (%s)", d.Name, d.Type, df, g.Type, gf))
			bad = true
		}
	}
	var extra []string
	for _, g := range got {
		if !declBy[strings.ToLower(g.Name)] {
			extra = append(extra, g.Name+" "+g.Type)
		}
	}
	if len(extra) > 0 {
		c.propDiag(m, "columns", project.CodeContract,
			fmt.Sprintf("the query produces undeclared column(s): %s", strings.Join(extra, ", ")))
		bad = true
	}
	if !bad {
		for i, d := range m.Columns {
			if i < len(got) && !strings.EqualFold(d.Name, got[i].Name) {
				c.diag(m, d.Range.Start.Offset, d.Range.End.Offset, project.CodeContract,
					fmt.Sprintf("column %q is declared at position %d but the query yields %q there", d.Name, i+1, got[i].Name))
				break
			}
		}
	}
}

func columnList(cols []engine.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// sqlDiag positions an engine error in the model's file.
func (c *checker) sqlDiag(m *project.Model, r engine.Rendered, err error) {
	// A /* that never ends swallows the rest of the body: whatever the
	// engine says next is about what is left, so say this instead.
	if off := m.OpenComment; off > 0 {
		c.diag(m, off, off+2, project.CodeSyntax, "unterminated /* comment: the rest of the body is ignored")
		return
	}
	var se *engine.SQLError
	if !errors.As(err, &se) {
		c.diag(m, m.BodyStart, m.BodyStart, project.CodeSyntax, err.Error())
		return
	}
	if se.Subtype == engine.SubtypeNotAQuery {
		c.diag(m, m.BodyStart, tokenEnd(m.Source, m.BodyStart), project.CodeSyntax, firstLine(se.Message))
		return
	}
	start := m.BodyStart
	if se.Position >= 0 {
		start = r.SourceOffset(se.Position)
	}
	end := tokenEnd(m.Source, start)
	msg := firstLine(se.Message)
	code := project.CodeBinder
	switch {
	case se.Type == "Parser":
		code = project.CodeSyntax
		if !strings.HasPrefix(msg, "syntax error") {
			msg = "syntax error: " + msg
		}
	case se.Subtype == engine.SubtypeColumnNotFound:
		code = project.CodeUnknownColumn
		if se.Name != "" { // t.x: the engine points at t; point at x
			start, end = lastPartAt(m.Source, start)
		}
		name := se.Name
		if name == "" {
			name = string(m.Source[start:end])
		}
		msg = fmt.Sprintf("unknown column %q", name)
		if len(se.Candidates) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", quoteList(se.Candidates))
		}
	case se.Subtype == engine.SubtypeAmbiguousColumn && se.Name != "":
		start, end = lastPartAt(m.Source, start)
	case se.Type == "Catalog":
		code = project.CodeUnknownTable
		name := strings.ToLower(qualifiedNameAt(m.Source, start))
		if target := c.a.Project.ByName[name]; target != nil {
			code = project.CodePlainModelName
			msg = fmt.Sprintf("%s is a model: reference it as @ref(%s) so the DAG knows about it", name, name)
			end = start + len(qualifiedNameAt(m.Source, start))
			d := project.NewDiagnostic(m.File, m.Source, start, end, project.SeverityError, code, msg)
			d.Fixes = []project.Fix{{Title: "Wrap in @ref(" + name + ")", Edits: []project.TextEdit{{File: m.File, Start: start, End: end, NewText: "@ref(" + name + ")"}}}}
			c.add(m, d)
			return
		}
		msg = strings.ReplaceAll(msg, c.catalog+".", "")
	}
	c.diag(m, start, end, code, msg)
}

func (c *checker) propDiag(m *project.Model, prop, code, msg string) {
	if p, ok := m.Property(prop); ok {
		c.diag(m, p.Range.Start.Offset, p.Range.End.Offset, code, msg)
		return
	}
	c.diag(m, m.Header.Start.Offset, m.Header.Start.Offset, code, msg)
}

func (c *checker) fileHash(rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// describeFiles infers the schema of files a model reads.
func (c *checker) describeFiles(ctx context.Context, m *project.Model, paths []string, format string, opts []project.Option) ([]engine.Column, bool) {
	fr, ok := c.wb.(engine.FileReader)
	if !ok || c.eng == nil {
		c.propDiag(m, "kind", CodeEngineFeature, fmt.Sprintf("%s reads files, which only the DuckDB engine can do; use EXTERNAL (table …) on %s", m.Name, c.d.Name()))
		c.a.Models[m.Name].Broken = true
		return nil, false
	}
	spec := engine.FileSpec{Format: format, Options: fileOptions(opts)}
	for _, p := range paths {
		spec.Paths = append(spec.Paths, absPath(c.root, p))
	}
	q, err := fr.ReadFiles(spec)
	if err != nil {
		c.propDiag(m, "kind", project.CodeBadValue, err.Error())
		return nil, false
	}
	cols, err := c.eng.Describe(ctx, q)
	if err != nil {
		c.propDiag(m, "kind", project.CodeFile, "cannot read "+strings.Join(paths, ", ")+": "+firstLine(errMessage(err)))
		c.a.Models[m.Name].Broken = true
		return nil, false
	}
	return cols, true
}

func declared(m *project.Model) []engine.Column {
	if m.Columns == nil {
		return nil
	}
	out := make([]engine.Column, len(m.Columns))
	for i, c := range m.Columns {
		out[i] = engine.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

func fileOptions(opts []project.Option) []engine.FileOption {
	out := make([]engine.FileOption, len(opts))
	for i, o := range opts {
		out[i] = engine.FileOption{Name: o.Name, Value: o.Value, IsString: o.IsString}
	}
	return out
}

func seedFormat(path string) string {
	if strings.HasSuffix(strings.ToLower(path), ".json") || strings.HasSuffix(strings.ToLower(path), ".ndjson") {
		return "json"
	}
	return "csv"
}

// absPath resolves a project-relative path; URLs pass through.
func absPath(root, p string) string {
	if strings.Contains(p, "://") || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func errMessage(err error) string {
	var se *engine.SQLError
	if errors.As(err, &se) {
		return se.Message
	}
	return err.Error()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", strings.Trim(s, `"`))
	}
	return strings.Join(q, ", ")
}

// tokenEnd returns the end of the identifier, quoted name or single
// character at off.
func tokenEnd(src []byte, off int) int {
	if off >= len(src) {
		return off
	}
	if src[off] == '"' {
		end, _ := sqlscan.QuotedEnd(src, off)
		return end
	}
	i := off
	for i < len(src) && isIdentByte(src[i]) {
		i++
	}
	if i == off {
		return off + 1
	}
	return i
}

// lastPartAt reads a dotted name at off (s.t.x; parts may be quoted, dots
// surrounded by spaces) and returns the range of its last part.
func lastPartAt(src []byte, off int) (start, end int) {
	start, end = off, tokenEnd(src, off)
	for i := off; i < len(src); {
		s := i
		if src[i] == '"' {
			e, ok := sqlscan.QuotedEnd(src, i)
			if !ok {
				return
			}
			i = e
		} else {
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
			if i == s {
				return
			}
		}
		start, end = s, i
		j := sqlscan.SkipSpace(src, i)
		if j >= len(src) || src[j] != '.' {
			return
		}
		i = sqlscan.SkipSpace(src, j+1)
	}
	return
}

// qualifiedNameAt reads a dotted name (a.b.c) starting at off.
func qualifiedNameAt(src []byte, off int) string {
	i := off
	for i < len(src) && (isIdentByte(src[i]) || src[i] == '.') {
		i++
	}
	return strings.Trim(string(src[off:i]), ".")
}

func isIdentByte(c byte) bool { return sqlscan.IsIdentByte(c) }

// between returns the text of s between the first open and the next close.
func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	rest := s[i+len(open):]
	if j := strings.Index(rest, close); j >= 0 {
		return rest[:j]
	}
	return rest
}

// canonicalRender renders a body for its canonical form: refs by name,
// interval bounds as parameters, so the fingerprint never depends on dates
// or physical names.
func (c *checker) canonicalRender(m *project.Model) engine.Rendered {
	r, _ := renderBody(m, macroText{
		ref: func(n string) (string, bool) {
			s, t := SplitName(n)
			return engine.QuoteIdent(s) + "." + engine.QuoteIdent(t), true
		},
		start: c.d.Placeholder("start"), end: c.d.Placeholder("end"), this: c.d.Placeholder("this"),
		canonical: true,
	})
	return r
}

// batchCanonicalizer is an optional Workbench capability: many canonical
// forms in one round trip.
type batchCanonicalizer interface {
	CanonicalizeAll(sqls []string) ([][]byte, []error)
}

type precanonical struct {
	canon []byte
	err   error
}

// precanonicalize parses every body in one batch when most models will be
// checked (no cache, or an empty one): a statement's fixed cost dominates
// a model's parse.
func (c *checker) precanonicalize(p *project.Project, cache CheckCache) {
	bc, ok := c.wb.(batchCanonicalizer)
	if !ok {
		return
	}
	if cache != nil {
		if l, ok := cache.(interface{ Len() int }); !ok || l.Len() > 0 {
			return
		}
	}
	var models []*project.Model
	var sqls []string
	for _, m := range p.Models {
		if !m.Kind.Name.HasBody() || p.ByName[m.Name] != m {
			continue
		}
		r := c.canonicalRender(m)
		if strings.TrimSpace(r.SQL) == "" {
			continue
		}
		models = append(models, m)
		sqls = append(sqls, r.SQL)
	}
	canons, errs := bc.CanonicalizeAll(sqls)
	c.precanon = make(map[*project.Model]precanonical, len(models))
	for i, m := range models {
		c.precanon[m] = precanonical{canons[i], errs[i]}
	}
}
