package analysis

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
)

// dropStandIn forgets name's stand-in. The table stays: stand-ins are
// named by their columns (standInKey), and another model may share it.
func (c *checker) dropStandIn(_ context.Context, name string) error {
	delete(c.a.standIns, name)
	return nil
}

// newChecker picks the checking strategy the workbench supports.
func newChecker(wb Workbench, root string, a *Analysis) *checker {
	c := &checker{wb: wb, d: wb.Dialect(), root: root, a: a, catalog: standInCatalog}
	if b, ok := wb.(ServerBinder); ok {
		c.binder, c.server = b, b
	} else if b, ok := wb.(Binder); ok {
		c.binder = b
	} else if e, ok := wb.(engine.Engine); ok {
		if sc, ok := c.d.(engine.Scratch); ok {
			c.eng, c.scratch = e, sc
		}
	}
	a.boundInEngine = c.eng != nil || c.server != nil
	return c
}

type checker struct {
	// types memoizes typeOK: whether the engine takes a column type.
	types map[string]bool
	// precanon holds canonical forms parsed ahead in one batch.
	precanon map[*project.Model]precanonical
	// predesc holds bodies bound ahead in one batch (predescribe).
	predesc map[*project.Model]predescribed
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
	// server, when set, is binder binding in the engine's server.
	server ServerBinder
	wb     Workbench
	d      engine.Dialect
	root   string
	a      *Analysis
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
	c.add(m, m.Diagnostic(start, end, project.SeverityError, code, msg))
}

func (c *checker) warn(m *project.Model, start, end int, code, msg string) {
	c.add(m, m.Diagnostic(start, end, project.SeverityWarning, code, msg))
}

func (c *checker) add(m *project.Model, d project.Diagnostic) {
	d = m.MapDiagnostic(d)
	if info := c.a.Models[m.Name]; info != nil && info.Model == m {
		info.Diagnostics = append(info.Diagnostics, d)
		return
	}
	c.a.Diagnostics = append(c.a.Diagnostics, d)
}

// standIn is the relation model name's refs bind against: the stand-in
// table of its columns. Bodies reach a ref only through its alias (the one
// they write or the implicit one), so models of one shape share a table and
// a project of N models costs as many tables as it has distinct shapes.
func (c *checker) standIn(name string) string {
	return c.scratch.ScratchRelation(c.catalog, standInTable(c.a.Models[name].Columns))
}

// standInTable names the stand-in of a column list by its content.
func standInTable(cols []engine.Column) engine.Relation {
	h := sha256.New()
	for _, col := range cols {
		h.Write([]byte(col.Name))
		h.Write([]byte{0})
		h.Write([]byte(col.Type))
		h.Write([]byte{0})
	}
	return engine.Relation{Schema: "main", Name: "standin_" + hex.EncodeToString(h.Sum(nil)[:12])}
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
			c.propDiag(m, prop, CodeEngineFeature, fmt.Sprintf("%s uses %s, which the %s engine does not support (%s only)", m.Name, feature, c.d.Name(), fileReaders()))
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
			if empty, _ := emptyFile(AbsPath(c.root, m.Kind.Path)); empty {
				// The reader would invent a column0 VARCHAR. A seed of no
				// rows is a header alone: an empty file is a mistake, with
				// declared columns too (checkSeed).
				c.propDiag(m, "kind", project.CodeFile, fmt.Sprintf("seed file %s is empty: write a header line naming its columns (a header alone is a seed of no rows)", m.Kind.Path))
				info.Broken = true
				break
			}
		}
		if err == nil && !c.checkSeed(ctx, m, h) {
			info.Broken = true
			break
		}
		if err == nil && m.Columns == nil && c.eng != nil {
			inferred, inferredOK = c.describeFiles(ctx, m, []string{m.Kind.Path}, SeedFormat(m.Kind.Path), nil)
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
		info.Fingerprint = FingerprintOf(info.OwnHash, info.Parents)
	}

	// The stand-in: declared columns win (they are the contract children
	// may rely on); otherwise what the binder inferred.
	cols := Declared(m)
	if cols == nil && inferredOK {
		cols = inferred
	}
	if cols != nil {
		if dup := duplicateColumn(c.d, cols); dup != "" {
			start, end, ok := repeatedItem(c.d, m, dup)
			if !ok {
				start, end = m.BodyStart, tokenEnd(m.Source, m.BodyStart)
			}
			c.diag(m, start, end, project.CodeBinder,
				fmt.Sprintf("the query yields column %s twice; give each column its own name (AS …)", engine.QuoteIdent(dup)))
			info.Broken = true
			info.Fingerprint = ""
			return nil
		}
		if sc, ok := c.d.(engine.SystemColumner); ok && m.Kind.Name.Materialized() {
			for i, col := range cols {
				if !sc.SystemColumn(col.Name) {
					continue
				}
				// The build's CREATE TABLE refuses the name.
				start, end := c.columnPlace(m, cols, i)
				c.diag(m, start, end, project.CodeBinder,
					fmt.Sprintf("column name %s conflicts with a system column name: every table of the engine has one; name it otherwise (AS …)", engine.QuoteIdent(col.Name)))
				info.Broken = true
				info.Fingerprint = ""
				return nil
			}
		}
		if pt, ok := c.d.(engine.PseudoTyper); ok && inferredOK && m.Kind.Name != project.KindEmbedded && m.Kind.Name.HasBody() {
			for i, col := range inferred {
				if !pt.PseudoType(col.Type) {
					continue
				}
				// The build's CREATE TABLE or VIEW refuses the column.
				start, end := c.columnPlace(m, inferred, i)
				c.diag(m, start, end, project.CodeBinder,
					fmt.Sprintf("column %s has pseudo-type %s, which no table or view column can have: cast it, or take its fields apart", engine.QuoteIdent(col.Name), col.Type))
				info.Broken = true
				info.Fingerprint = ""
				return nil
			}
		}
		c.propertyColumns(m, cols)
	}
	cols = WithValidity(m, cols)
	info.Columns = cols
	if cols == nil {
		return nil
	}
	if err := c.deferStandIn(ctx, m, cols); err != nil {
		return err
	}
	return c.bindAudits(ctx, info)
}

// deferStandIn records that m's stand-in is due without creating it: a
// stand-in costs the engine a table (most of a model's check), and only a
// model some other model reads needs one, which ensureParents creates when
// the first child is checked. Each column type is tried once per checker
// (a one-column table per distinct type): a model with a type the engine
// refuses gets its stand-in at once, so its diagnostics are the eager
// creation's, in the same place.
func (c *checker) deferStandIn(ctx context.Context, m *project.Model, cols []engine.Column) error {
	if c.eng == nil {
		return c.createStandIn(ctx, m, cols)
	}
	// A stand-in of an earlier analysis (Reanalyze) has the old columns:
	// forget it, so ensureParents replaces it before a child binds.
	delete(c.a.standIns, m.Name)
	if c.a.standInTables[standInTable(cols).Name] && c.a.standIns != nil {
		c.a.standIns[m.Name] = true // a model of the same shape made it
		return nil
	}
	for _, col := range cols {
		ok, err := c.typeOK(ctx, col.Type)
		if err != nil {
			return err
		}
		if !ok {
			return c.createStandIn(ctx, m, cols)
		}
	}
	return nil
}

// typeProbe is the scratch table typeOK creates to try a column type.
var typeProbe = engine.Relation{Schema: "main", Name: "__efmesh_type_probe"}

// typeOK reports whether the engine accepts typ as a stand-in column's
// type, trying each distinct spelling once.
func (c *checker) typeOK(ctx context.Context, typ string) (bool, error) {
	if ok, seen := c.types[typ]; seen {
		return ok, nil
	}
	err := c.eng.Exec(ctx, c.scratch.ReplaceScratchTable(c.catalog, typeProbe, []engine.Column{{Name: "c", Type: typ}}))
	var se *engine.SQLError
	if err != nil && !errors.As(err, &se) {
		return false, fmt.Errorf("workbench: column type %s: %w", typ, err)
	}
	if c.types == nil {
		c.types = map[string]bool{}
	}
	c.types[typ] = err == nil
	return err == nil, nil
}

// emptyFile reports whether the file at path holds nothing but blanks.
func emptyFile(path string) (bool, error) {
	b, err := os.ReadFile(path)
	return err == nil && len(bytes.TrimSpace(b)) == 0, err
}

// duplicateColumn returns a name cols hold twice as d keeps names
// (ignoring case, as the engines do; cut as d cuts them), or "".
func duplicateColumn(d engine.Dialect, cols []engine.Column) string {
	seen := make(map[string]bool, len(cols))
	for _, col := range cols {
		k := engine.IdentKey(d, col.Name)
		if seen[k] {
			return col.Name
		}
		seen[k] = true
	}
	return ""
}

// columnPlace is where m yields its column cols[i]: a declared column's
// name in the header, else the select-list item that names it, else the
// item in its place (when the list has no *), else the body's start.
func (c *checker) columnPlace(m *project.Model, cols []engine.Column, i int) (start, end int) {
	if m.Columns != nil {
		for _, dc := range m.Columns {
			if dc.Name == cols[i].Name && dc.Range.End.Offset > dc.Range.Start.Offset {
				return dc.Range.Start.Offset, dc.Range.End.Offset
			}
		}
	}
	if start, end, ok := itemNamed(c.d, m, cols[i].Name, 1); ok {
		return start, end
	}
	if items := selectItems(m); len(items) == len(cols) {
		return items[i][0], items[i][1]
	}
	return m.BodyStart, tokenEnd(m.Source, m.BodyStart)
}

// repeatedItem finds, in the top-level select list of m's body (the first
// SELECT outside parentheses: the query's, or its first branch's), the
// second item whose name is name as d keeps names, and returns the range
// of that name (its alias, or the column's last part). ok is false when
// the items do not spell it out (a * expands to it).
func repeatedItem(d engine.Dialect, m *project.Model, name string) (start, end int, ok bool) {
	return itemNamed(d, m, name, 2)
}

// itemNamed finds the nth top-level select-list item (from 1) that ends
// with a name spelling name: the range of that name.
func itemNamed(d engine.Dialect, m *project.Model, name string, nth int) (start, end int, ok bool) {
	key := engine.IdentKey(d, name)
	seen := 0
	for _, it := range topItems(m) {
		toks := sqlread.Scan(m.Source, it.Start, it.End)
		if len(toks) == 0 {
			continue
		}
		last := toks[len(toks)-1]
		if last.IsIdent() && engine.IdentKey(d, unquoted(string(m.Source[last.Start:last.End]))) == key {
			if seen++; seen == nth {
				return last.Start, last.End, true
			}
		}
	}
	return 0, 0, false
}

// selectItems are the ranges of the items of m's top-level select list;
// nil when one is a star, whose columns are not its own to place.
func selectItems(m *project.Model) [][2]int {
	var items [][2]int
	for _, it := range topItems(m) {
		if text := string(m.Source[it.Start:it.End]); text == "*" || strings.HasSuffix(text, ".*") {
			return nil
		}
		items = append(items, [2]int{it.Start, it.End})
	}
	return items
}

// topItems are the items of m's top-level select list, as sqlread reads
// the body: the first written outside parentheses (the query's, or a
// later branch's when the first is in parentheses).
func topItems(m *project.Model) []*sqlread.SelectItem {
	q := sqlread.Parse(m.Source, m.BodyStart)
	for _, b := range append([]*sqlread.Query{q}, q.Branches...) {
		if b.Select != (sqlread.Span{}) {
			return b.Items
		}
	}
	return nil
}

func (c *checker) createStandIn(ctx context.Context, m *project.Model, cols []engine.Column) error {
	if c.a.standIns == nil {
		c.a.standIns = map[string]bool{}
	}
	if c.eng == nil {
		c.a.standIns[m.Name] = true
		return nil // a binder reads parents' columns from the analysis
	}
	rel := standInTable(cols)
	if c.a.standInTables[rel.Name] {
		c.a.standIns[m.Name] = true
		return nil
	}
	err := c.eng.Exec(ctx, c.scratch.ReplaceScratchTable(c.catalog, rel, cols))
	if err == nil {
		if c.a.standInTables == nil {
			c.a.standInTables = map[string]bool{}
		}
		c.a.standInTables[rel.Name] = true
		c.a.standIns[m.Name] = true
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err() // cancelled, not refused
	}
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

// canonicalRender renders a body for its canonical form: refs by name,
// interval bounds as parameters, so the fingerprint never depends on dates
// or physical names.
func (c *checker) canonicalRender(m *project.Model) engine.Rendered {
	r, _ := RenderBody(m, MacroText{
		Ref: func(n string) (string, bool) {
			s, t := SplitName(n)
			return engine.QuoteIdent(s) + "." + engine.QuoteIdent(t), true
		},
		Start: c.d.Placeholder("start"), End: c.d.Placeholder("end"), This: c.d.Placeholder("this"),
		Vars: c.a.Project.Config.Variables, Literal: c.d.Literal, Columns: c.a.ColumnsOf, Env: c.a.Project.Config.Env,
		canonical: true,
	})
	return r
}

// readsParentColumns reports whether m's body renders with its parents'
// columns (@STAR, @UNION): before they are known it renders otherwise, so
// it is left out of the batch made before any model is checked.
func readsParentColumns(m *project.Model) bool {
	for _, mc := range m.Macros {
		if mc.Kind == project.MacroStar || mc.Kind == project.MacroUnion {
			return true
		}
	}
	return false
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
		if !m.Kind.Name.HasBody() || p.ByName[m.Name] != m || readsParentColumns(m) {
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
