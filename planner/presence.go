package planner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// The state store says which physical relations are built and which views
// an environment has; the warehouse can disagree behind efmesh's back (a
// DuckDB file deleted or replaced, a table or view dropped by hand, a lake
// folder removed). Plan, apply and status compare the two with one catalog
// query (engine.Catalog) over the physical schema and the environment's
// view schemas, so a relation that is gone is rebuilt (or reported)
// instead of being trusted. EXTERNAL and EMBEDDED models own no relation
// and are never missing.

// WithWarehouse makes MakePlan check the relations the store says exist
// against the warehouse wh: a built snapshot whose physical relation (or
// parquet files) is gone is planned as missing and rebuilt — an
// incremental one from an empty ledger — and an environment view that is
// gone is recreated by the promotion. A nil wh is a warehouse that does
// not exist (a DuckDB file never created or deleted): nothing is present.
func WithWarehouse(wh engine.Engine) PlanOption {
	return func(c *planConfig) {
		c.checkWarehouse = true
		c.warehouse = wh
	}
}

// CatalogReader is what the presence check reads of a warehouse: its
// dialect and its catalog. An engine is one; so is a cached listing that
// the editor refreshes on its own schedule (WithCatalog).
type CatalogReader interface {
	Dialect() engine.Dialect
	engine.Catalog
}

// ErrCatalogUnavailable, returned (wrapped) by a CatalogReader, says the
// catalog cannot be read now (the warehouse is busy): the check is
// skipped, as when no warehouse is asked for, instead of failing the plan.
var ErrCatalogUnavailable = errors.New("the warehouse's catalog cannot be read now")

// WithCatalog is WithWarehouse reading the relations from cat instead of
// a warehouse: the same check, the same plan, with a listing the caller
// keeps (the editor's, refreshed after an apply, a plan, a save or a
// while, never per keystroke). EXTERNAL sources' files are not described
// (no warehouse to read them with).
func WithCatalog(cat CatalogReader) PlanOption {
	return func(c *planConfig) {
		c.checkWarehouse = true
		c.catalog = cat
	}
}

// catalogOf is the CatalogReader of wh (nil for a warehouse that does not
// exist: it lists nothing).
func catalogOf(wh engine.Engine) (CatalogReader, error) {
	if wh == nil {
		return nil, nil
	}
	cat, ok := wh.(engine.Catalog)
	if !ok {
		return nil, fmt.Errorf("the %s engine cannot list its relations", wh.Dialect().Name())
	}
	return struct {
		engine.Engine
		engine.Catalog
	}{wh, cat}, nil
}

// MissingRelation is a relation the state store says exists that the
// warehouse lacks.
type MissingRelation struct {
	Model    string `json:"model"`
	Relation string `json:"relation"`
	// Physical is true for a snapshot's physical relation (or its files),
	// false for an environment's view.
	Physical bool `json:"physical"`
	// Differs is true for a relation that is there but whose columns are
	// not the snapshot's (replaced or altered by hand).
	Differs bool   `json:"differs,omitempty"`
	Reason  string `json:"reason"`
	// listedView says what the warehouse holds under the name of a
	// relation that Differs: a view or a table. Apply drops it as what it
	// is before making the relation again.
	listedView bool
}

// relKind is what an expected relation must be: a table or a view. One of
// the other kind under its name (a table made by hand where an
// environment's view was) was replaced behind efmesh's back.
type relKind uint8

const (
	anyKind relKind = iota
	tableKind
	viewKind
)

func (k relKind) String() string {
	if k == viewKind {
		return "view"
	}
	return "table"
}

func kindOf(view bool) relKind {
	if view {
		return viewKind
	}
	return tableKind
}

// physicalKind is what the physical relation of a model of kind k with
// target t is: a view for a VIEW model and for a parquet target (a view
// over its files), else a table.
func physicalKind(k project.KindName, t string) relKind {
	switch {
	case k == project.KindView || t == "parquet":
		return viewKind
	case t == "table":
		return tableKind
	}
	return anyKind
}

// shapeKnown reports whether the relations of a model of kind k with
// target t have exactly its output columns: an SCD_TYPE_2 table adds its
// validity columns, a seed's are the file's, a parquet relation reads
// its files.
func shapeKnown(k project.KindName, t string) bool {
	return t == "table" && k != project.KindSCDType2 && k != project.KindSeed
}

// sameShape reports whether a relation's listed columns are the recorded
// ones: the same names in the same order, each type of the same family
// (engine.TypeFamily: the catalog and DESCRIBE may spell a type apart).
func sameShape(want, got []engine.Column) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if !strings.EqualFold(want[i].Name, got[i].Name) || engine.TypeFamily(want[i].Type) != engine.TypeFamily(got[i].Type) {
			return false
		}
	}
	return true
}

func columnsText(cols []engine.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type
	}
	return strings.Join(parts, ", ")
}

// expectation is one relation the store says the warehouse holds.
type expectation struct {
	model    string
	rel      engine.Relation
	physical bool
	// files, for a parquet target, is the file or folder the relation
	// reads; "" when there is none to check. ledgerFP, when set, says the
	// folder only has to exist once the snapshot has a done interval.
	files    string
	ledgerFP string
	// columns, for the table an EXTERNAL model reads, asks the catalog
	// for its columns: the model declares some.
	columns bool
	// want, when set, are the columns the snapshot recorded (names, and
	// types compared by family): the catalog lists the relation's, and a
	// relation whose columns differ (a view replaced, a column added by
	// hand) does not meet the expectation (status --check).
	want []engine.Column
	// kind, when set, is what the relation must be (a view or a table):
	// one of the other kind under its name does not meet the expectation.
	kind relKind
	// reads, for a view, are what its definition names (without case):
	// the physical relation an environment's view reads, the files a
	// view over files reads by absolute path. A view whose definition the
	// catalog lists without one of them was replaced by hand, or was made
	// in another folder (a project moved: it reads the old one's files).
	reads []string
	// globs, for a VIEW over an EXTERNAL model's files, are their
	// patterns (absolute): a CSV glob is rendered file by file, so the
	// view names the files that matched when it was built; one added or
	// removed since makes it differ (viewFilesProblem).
	globs []string
}

// physicalName is the table part of a stored physical relation's name
// ("" for none): an environment's view names it, whatever quoting the
// catalog prints.
func physicalName(table string) string {
	if table == "" {
		return ""
	}
	_, n := analysis.SplitName(table)
	return n
}

// filesRead are the local files a VIEW model's definition reads by
// absolute path: those of the EXTERNAL models it refs (through EMBEDDED
// ones, which are inlined).
func filesRead(a *analysis.Analysis, m *project.Model) (reads, globs []string) {
	return filesReadVia(a.Project.Root, m.Refs(), func(name string) (project.Kind, []string, bool) {
		info := a.Models[name]
		if info == nil {
			return project.Kind{}, nil, false
		}
		return info.Model.Kind, info.Model.Refs(), true
	})
}

// filesReadVia is filesRead over refs, with lookup telling each model's
// kind and refs (an analysis, or the definitions an environment stored).
func filesReadVia(root string, refs []string, lookup func(string) (project.Kind, []string, bool)) (out, globs []string) {
	seen := map[string]bool{}
	var walk func(refs []string)
	walk = func(refs []string) {
		for _, r := range refs {
			if seen[r] {
				continue
			}
			seen[r] = true
			kind, more, ok := lookup(r)
			switch {
			case !ok:
			case kind.Name == project.KindExternal && kind.Files != "" && !strings.Contains(kind.Files, "://"):
				abs := analysis.AbsPath(root, kind.Files)
				out = append(out, literalPrefix(abs))
				globs = append(globs, abs)
			case kind.Name == project.KindEmbedded:
				walk(more)
			}
		}
	}
	walk(refs)
	return out, globs
}

// viewFilesProblem says what is wrong with the files the view definition
// def names for the patterns globs ("" when nothing is): a pattern it
// does not name whole (a reader expands that one when read) was rendered
// as the files it matched then, and must name each file it matches now
// and no file that is gone.
func viewFilesProblem(def string, globs []string) string {
	for _, g := range globs {
		if strings.Contains(g, "**") || readsAll(def, []string{g}) {
			continue
		}
		files, err := filepath.Glob(g)
		if err != nil {
			continue
		}
		for _, f := range files {
			if !readsAll(def, []string{f}) {
				return fmt.Sprintf("it does not read %s, which %s matches since it was made", f, g)
			}
		}
		for _, f := range namedFiles(def, literalPrefix(g)) {
			if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
				return fmt.Sprintf("it reads %s, which is gone", f)
			}
		}
	}
	return ""
}

// namedFiles are the string literals of def that start with prefix, as
// the files they name (a doubled quote read as one).
func namedFiles(def, prefix string) []string {
	var out []string
	lit := "'" + strings.ReplaceAll(prefix, "'", "''")
	for rest := def; ; {
		i := strings.Index(rest, lit)
		if i < 0 {
			return out
		}
		rest = rest[i+1:]
		j := 0
		for j < len(rest) && (rest[j] != '\'' || (j+1 < len(rest) && rest[j+1] == '\'')) {
			if rest[j] == '\'' {
				j++
			}
			j++
		}
		out = append(out, strings.ReplaceAll(rest[:j], "''", "'"))
		rest = rest[j:]
	}
}

// awaitsFiles reports whether def, a view of the engine d phrases
// statements for, is the view of an incremental parquet target before its
// first interval: an empty relation of its columns, reading no file yet
// (lakeView).
func awaitsFiles(d engine.Dialect, e expectation, def string) bool {
	return e.ledgerFP != "" && !engine.CapabilitiesOf(d).ReadsParquet(def)
}

// literalPrefix is the part of a file pattern before its first wildcard,
// cut at a folder: what a view over its files names whichever files match
// (a CSV glob is read file by file, each named).
func literalPrefix(pattern string) string {
	i := strings.IndexAny(pattern, "*?[{")
	if i < 0 {
		return pattern
	}
	return pattern[:strings.LastIndexAny(pattern[:i], `/\`)+1]
}

// readsAll reports whether the view definition def names each of reads,
// as written, as a SQL string literal spells it or as a quoted identifier
// does (their quotes doubled).
func readsAll(def string, reads []string) bool {
	def = strings.ToLower(def)
	for _, r := range reads {
		r = strings.ToLower(r)
		if !strings.Contains(def, r) && !strings.Contains(def, strings.ReplaceAll(r, "'", "''")) && !strings.Contains(def, strings.ReplaceAll(r, `"`, `""`)) {
			return false
		}
	}
	return true
}

// missingIn returns the expectations the warehouse does not meet, in
// their order. The warehouse's relations are listed with one catalog query
// over the schemas of exp; a nil wh holds nothing.
func missingIn(ctx context.Context, wh engine.Engine, st state.Reader, exp []expectation) ([]MissingRelation, error) {
	cat, err := catalogOf(wh)
	if err != nil {
		return nil, err
	}
	missing, _, _, err := inspect(ctx, cat, st, exp, nil, nil)
	return missing, err
}

// sourceListing is what the catalog says of a source: listed is nil when
// the warehouse does not have it.
type sourceListing struct {
	expectation
	listed *engine.Listed
}

// inspect lists the warehouse's relations of the schemas of exp, unwanted
// and sources with one catalog query, which also lists the columns of the
// sources that ask for them, and returns the expectations it does not
// meet, the unwanted relations it holds as views and what it lists of
// each source (relations EXTERNAL models read), in their order.
func inspect(ctx context.Context, wh CatalogReader, st state.Reader, exp, unwanted, sources []expectation) ([]MissingRelation, []expectation, []sourceListing, error) {
	if len(exp) == 0 && len(unwanted) == 0 && len(sources) == 0 {
		return nil, nil, nil, nil
	}
	listed := map[engine.Relation]engine.Listed{}
	var d engine.Dialect
	if wh != nil {
		d = wh.Dialect()
		seen := map[string]bool{}
		var schemas []string
		for _, e := range append(append(exp[:len(exp):len(exp)], unwanted...), sources...) {
			if s := strings.ToLower(e.rel.Schema); !seen[s] {
				seen[s] = true
				schemas = append(schemas, e.rel.Schema)
			}
		}
		sort.Strings(schemas)
		var withColumns []engine.Relation
		for _, s := range sources {
			if s.columns {
				withColumns = append(withColumns, catalogKey(d, s.rel))
			}
		}
		for _, e := range exp {
			if e.want != nil {
				withColumns = append(withColumns, catalogKey(d, e.rel))
			}
		}
		rels, err := wh.Relations(ctx, schemas, withColumns)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w", err)
		}
		for _, r := range rels {
			listed[catalogKey(d, r.Relation)] = r
		}
	}
	var views []expectation
	for _, u := range unwanted {
		if r, ok := listed[catalogKey(d, u.rel)]; ok && r.View {
			u.rel = r.Relation // as the catalog spells it
			views = append(views, u)
		}
	}
	var srcs []sourceListing
	for _, s := range sources {
		sl := sourceListing{expectation: s}
		if r, ok := listed[catalogKey(d, s.rel)]; ok {
			sl.listed = &r
		}
		srcs = append(srcs, sl)
	}
	var out []MissingRelation
	for _, e := range exp {
		what := "view"
		if e.physical {
			what = "physical relation"
		}
		mr := MissingRelation{Model: e.model, Relation: e.rel.String(), Physical: e.physical}
		got, present := listed[catalogKey(d, e.rel)]
		switch {
		case !present:
			mr.Reason = fmt.Sprintf("the %s %s is missing from the warehouse", what, e.rel)
		case e.kind != anyKind && kindOf(got.View) != e.kind:
			mr.Differs = true
			mr.listedView = got.View
			mr.Reason = fmt.Sprintf("the %s %s is a %s, not the %s efmesh made: replaced behind efmesh's back",
				what, e.rel, kindOf(got.View), e.kind)
		case e.want != nil && !sameShape(e.want, got.Columns):
			mr.Differs = true
			mr.listedView = got.View
			mr.Reason = fmt.Sprintf("the %s %s has columns (%s), not the (%s) its snapshot recorded: changed behind efmesh's back",
				what, e.rel, columnsText(got.Columns), columnsText(e.want))
		case len(e.reads) > 0 && got.View && got.Definition != "" && !readsAll(got.Definition, e.reads) && !awaitsFiles(d, e, got.Definition):
			mr.Differs = true
			mr.listedView = true
			mr.Reason = fmt.Sprintf("the %s %s does not read %s: changed behind efmesh's back, or made in another folder",
				what, e.rel, strings.Join(e.reads, ", "))
		case len(e.globs) > 0 && got.View && got.Definition != "" && viewFilesProblem(got.Definition, e.globs) != "":
			mr.Differs = true
			mr.listedView = true
			mr.Reason = fmt.Sprintf("the %s %s reads files as they were when it was made: %s", what, e.rel, viewFilesProblem(got.Definition, e.globs))
		case e.files != "":
			gone, err := filesGone(ctx, st, e)
			if err != nil {
				return nil, nil, nil, err
			}
			switch {
			case gone:
				mr.Reason = fmt.Sprintf("the parquet files of %s (%s) are missing", e.rel, e.files)
			case e.ledgerFP == "" && !isParquet(e.files):
				mr.Reason = fmt.Sprintf("the parquet file of %s (%s) is not a parquet file (truncated or replaced)", e.rel, e.files)
			default:
				continue
			}
		default:
			continue
		}
		out = append(out, mr)
	}
	return out, views, srcs, nil
}

// filesGone reports whether the files a parquet relation reads are gone:
// a stat, and the ledger only when the folder of an incremental model is
// absent (it has none until its first interval is written).
func filesGone(ctx context.Context, st state.Reader, e expectation) (bool, error) {
	_, err := os.Stat(e.files)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if e.ledgerFP == "" {
		return true, nil
	}
	ivs, err := st.Intervals(ctx, e.ledgerFP)
	if err != nil {
		return false, err
	}
	for _, iv := range ivs {
		if iv.Status == state.IntervalDone {
			return true, nil
		}
	}
	return false, nil
}

// isParquet reports whether the file at path ends as every parquet file
// does (its footer's length, then the magic PAR1; the file starts with
// PAR1 too): one read of its last bytes, so a file truncated or replaced
// by hand, which the relation's view cannot read, is rebuilt.
func isParquet(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist) // unreadable now: not judged
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		return true
	}
	if fi.Size() < 12 {
		return false
	}
	var tail [4]byte
	if _, err := f.ReadAt(tail[:], fi.Size()-4); err != nil {
		return true
	}
	return string(tail[:]) == "PAR1"
}

// catalogKey is how the catalog of an engine of dialect d lists the
// relation r: each name cut to the engine's identifier limit, as the
// engine cuts a longer one it is given (Postgres keeps 63 bytes: a name
// stored before efmesh shortened names itself is found under its cut
// form), compared without case.
func catalogKey(d engine.Dialect, r engine.Relation) engine.Relation {
	return engine.Relation{Schema: strings.ToLower(clipIdent(d, r.Schema)), Name: strings.ToLower(clipIdent(d, r.Name))}
}

// clipIdent cuts name to the dialect's identifier limit, on a character
// boundary.
func clipIdent(d engine.Dialect, name string) string {
	if analysis.IdentFits(d, name) {
		return name
	}
	cut := d.MaxIdentifierLength()
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut]
}

// builtExpectation is what the store says a built snapshot of model
// holds: the relation named by the snapshot's stored physical table (the
// name it was built under: efmesh's naming may have changed since, and
// the stored name is the truth) and, for a parquet target under a local
// lake folder, its files; ledgerFP is the snapshot whose ledger says
// whether an incremental model's folder must exist yet. Plan and status
// both expect through it.
func builtExpectation(model string, kind project.KindName, target, table, lake, ledgerFP string) expectation {
	ps, pn := analysis.SplitName(table)
	e := expectation{model: model, rel: engine.Relation{Schema: ps, Name: pn}, physical: true, kind: physicalKind(kind, target)}
	if fp8 := FingerprintPrefix(table); target == "parquet" && fp8 != "" && !strings.Contains(lake, "://") {
		schema, name := analysis.SplitName(model)
		var incremental bool
		prefix := lakePrefixOf(lake, schema, name, fp8)
		e.files, incremental = lakeFiles(kind, prefix)
		if incremental {
			e.ledgerFP = ledgerFP
		}
		e.reads = []string{prefix}
	}
	return e
}

// owned reports whether a model of kind k with target t has a physical
// relation efmesh builds in the warehouse (a ducklake target lives in
// another catalog).
func owned(k project.KindName, target string) bool {
	return k != project.KindExternal && k != project.KindEmbedded && (target == "table" || target == "parquet")
}

// lakeFiles is what a parquet relation of a model of kind k reads under
// the snapshot's folder prefix, and whether that folder may lack files
// until an interval is done.
func lakeFiles(k project.KindName, prefix string) (string, bool) {
	if k == project.KindIncrementalByTimeRange {
		return prefix, true
	}
	return filepath.Join(prefix, "data.parquet"), false
}

// lakeRootOf is the project's lake folder.
func lakeRootOf(p *project.Project) string { return lakeRootAt(p.Root, p.Config.Lake) }

// lakeRootAt is the lake folder lake (efmesh.yaml's lake:) of the project
// folder root.
func lakeRootAt(root, lake string) string {
	if lake == "" {
		lake = "lake"
	}
	return analysis.AbsPath(root, lake)
}

// lakePrefixOf is the folder of one snapshot's files.
func lakePrefixOf(root, schema, table, fp8 string) string {
	return filepath.Join(root, schema, table, "fp="+fp8)
}

// checkWarehouse marks the plan's lines whose relations the store trusts
// but the warehouse lacks, and the EXTERNAL lines whose environment
// relation is a view an earlier efmesh made (StaleView: apply drops it),
// with one catalog query, which also looks for the tables EXTERNAL models
// read and lists the columns of those whose model declares columns: each
// table missing, and the declared columns a table lacks, are error
// diagnostics returned. A missing
// physical relation is rebuilt (an inherited one is not inherited: the
// model builds its own); its ledger counts for nothing (fillBackfill, and
// Apply clears it). A missing view is recreated by the promotion.
func (p *Plan) checkWarehouse(ctx context.Context, st state.Reader, wh CatalogReader) ([]project.Diagnostic, error) {
	a := p.analysis
	var exp, sources []expectation
	for _, mp := range p.Models {
		info := a.Models[mp.Name]
		if mp.Change == Removed || info == nil {
			continue
		}
		m := info.Model
		if src, ok := sourceExpectation(a.Dialect(), a.Project, m); ok {
			sources = append(sources, src)
		}
		if !owned(m.Kind.Name, TargetOf(m)) {
			continue
		}
		if !mp.Build {
			table, ok := p.storedTable[m.Name]
			if !ok { // not reached: a line that builds nothing uses a stored relation
				table = analysis.PhysicalRelation(a.Dialect(), m, p.physicalFP(m.Name, mp.Fingerprint)).String()
			}
			ledger := mp.Fingerprint
			if old, ok := p.reuse[m.Name]; ok {
				ledger = old
			}
			be := builtExpectation(m.Name, m.Kind.Name, TargetOf(m), table, lakeRootOf(a.Project), ledger)
			if m.Kind.Name == project.KindView {
				be.reads, be.globs = filesRead(a, m)
			}
			if mp.ReusedFrom == "" && info.Inferred != nil && shapeKnown(m.Kind.Name, TargetOf(m)) {
				// Its own snapshot's table has the columns the snapshot
				// recorded (analysis.Definition: the inferred ones); one
				// altered by hand is rebuilt, as a missing one is.
				be.want = info.Inferred
			}
			exp = append(exp, be)
		}
		if _, inEnv := p.current[m.Name]; inEnv {
			e := expectation{model: m.Name, rel: analysis.EnvRelation(a.Dialect(), p.Env, m), kind: viewKind}
			if mp.Change == Unchanged && !mp.Build && info.Inferred != nil && shapeKnown(m.Kind.Name, TargetOf(m)) {
				// A view replaced by hand is re-pointed by the promotion.
				e.want = info.Inferred
			}
			if mp.Change == Unchanged && !mp.Build {
				// It reads the physical relation it was pointed at.
				e.reads = []string{physicalName(p.storedTable[m.Name])}
			}
			exp = append(exp, e)
		}
	}
	missing, stale, srcs, err := inspect(ctx, wh, st, exp, p.staleCandidates(), sources)
	if errors.Is(err, ErrCatalogUnavailable) {
		return nil, nil // not checked now: as a plan that asks for no check
	}
	if err != nil {
		return nil, err
	}
	var ds []project.Diagnostic
	for _, s := range srcs {
		m := a.Models[s.model].Model
		if s.listed == nil {
			ds = append(ds, missingSourceDiag(m))
		} else if s.columns {
			ds = append(ds, sourceColumnDiags(m, s.listed.Columns)...)
		}
	}
	at := make(map[string]int, len(p.Models))
	for i, mp := range p.Models {
		at[mp.Name] = i
	}
	for _, v := range stale {
		mp := &p.Models[at[v.model]]
		mp.StaleView = v.rel.String()
		p.HasChanges = true
	}
	var shared map[string][]string
	for _, mr := range missing {
		mp := &p.Models[at[mr.Model]]
		mp.Missing = true
		mp.Reason = joinReason(mp.Reason, mr.Reason)
		p.HasChanges = true
		if !mr.Physical {
			if mr.Differs && !mr.listedView {
				// A table where the environment's view was: the
				// promotion drops it before making the view again.
				if p.envTables == nil {
					p.envTables = map[string]bool{}
				}
				p.envTables[mp.Name] = true
			}
			continue
		}
		m := a.Models[mp.Name].Model
		if mr.Differs {
			// The table is there with other columns: apply drops it
			// before building it again (builds create only what does not
			// exist). It is this snapshot's, so every environment that
			// points at the snapshot reads the rebuilt table.
			if shared == nil {
				if shared, err = envsByFingerprint(ctx, st, p.Env); err != nil {
					return nil, err
				}
			}
			mp.Differs = true
			mp.SharedWith = shared[mp.Fingerprint]
			if p.differs == nil {
				p.differs = map[string]string{}
			}
			p.differs[m.Name] = mr.Relation
			if mr.listedView {
				if p.differsView == nil {
					p.differsView = map[string]bool{}
				}
				p.differsView[m.Name] = true
			}
		}
		delete(p.storedTable, m.Name)
		if mp.ReusedFrom != "" { // build its own instead of adopting a lost one
			delete(p.reuse, m.Name)
			delete(p.physFP, m.Name)
			mp.ReusedFrom = ""
			mp.PhysicalTable = analysis.PhysicalRelation(a.Dialect(), m, mp.Fingerprint).String()
		}
		mp.Build = true
		if p.lost == nil {
			p.lost = map[string]bool{}
		}
		p.lost[mp.Fingerprint] = true
	}
	return ds, nil
}

// staleCandidates lists where an earlier efmesh made views for the
// EXTERNAL models the environment held before the plan (this one reads
// them in place): each model's environment relation, except the model's
// source itself (raw.orders over table raw.orders is, in prod, that very
// table). Only a view found there is stale (inspect).
func (p *Plan) staleCandidates() []expectation {
	d := p.analysis.Dialect()
	var out []expectation
	add := func(name string, kind project.Kind) {
		s, t := analysis.SplitName(name)
		rel := engine.Relation{Schema: analysis.EnvSchema(d, p.Env, s), Name: t}
		if kind.Table != "" {
			ss, st := analysis.SplitName(kind.Table)
			if strings.EqualFold(ss, rel.Schema) && strings.EqualFold(st, rel.Name) {
				return
			}
		}
		out = append(out, expectation{model: name, rel: rel})
	}
	for _, mp := range p.Models {
		if _, was := p.current[mp.Name]; !was {
			continue
		}
		if mp.Change == Removed {
			if def, ok := p.removedExternal[mp.Name]; ok {
				add(mp.Name, def.Kind)
			}
			continue
		}
		if m := p.analysis.Models[mp.Name].Model; m.Kind.Name == project.KindExternal {
			add(m.Name, m.Kind)
		}
	}
	return out
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// rebuildAround is what apply does around the build of each physical table
// whose columns are not its snapshot's (altered by hand, Plan.differs):
// the build's own transaction first drops the views that read the table
// (the view of every environment pointing at the snapshot: PostgreSQL
// refuses to drop a table a view depends on, and CASCADE would drop other
// environments' views silently) and the table, and after the build
// creates those views again over the new table. One transaction on every
// engine: a build that fails rolls back to the table and views as they
// were, and no environment ever serves a missing view.
type rebuildAround struct {
	table engine.Relation // the differing table, as the store names it
	view  bool            // the warehouse holds a view under its name
	envs  []string        // the environments whose pointer is its snapshot
}

// rebuilds maps each model whose table differs to what its build drops
// and creates again (rebuildAround): the environments, this one
// included, whose pointer names the model's planned snapshot.
func (p *Plan) rebuilds(ctx context.Context, st state.Reader) (map[string]rebuildAround, error) {
	if len(p.differs) == 0 {
		return nil, nil
	}
	envs, err := st.Environments(ctx)
	if err != nil {
		return nil, err
	}
	fps := map[string]string{}
	for _, mp := range p.Models {
		if _, ok := p.differs[mp.Name]; ok {
			fps[mp.Name] = mp.Fingerprint
		}
	}
	out := make(map[string]rebuildAround, len(p.differs))
	for n, table := range p.differs {
		s, t := analysis.SplitName(table)
		out[n] = rebuildAround{table: engine.Relation{Schema: s, Name: t}, view: p.differsView[n]}
	}
	sort.Strings(envs)
	for _, e := range envs {
		ptrs, err := st.Environment(ctx, e)
		if err != nil {
			return nil, err
		}
		for _, ptr := range ptrs {
			if fp, ok := fps[ptr.Model]; ok && ptr.Fingerprint == fp {
				r := out[ptr.Model]
				r.envs = append(r.envs, e)
				out[ptr.Model] = r
			}
		}
	}
	return out, nil
}

// aroundRebuild returns stmts, the statements that create (and fill) the
// physical table rel of m, wrapped as rebuildAround says when m's table
// differs from its snapshot; else stmts as they are.
func (b *builder) aroundRebuild(m *project.Model, rel engine.Relation, stmts []string) []string {
	r, ok := b.rebuild[m.Name]
	if !ok {
		return stmts
	}
	var before, after []string
	for _, env := range r.envs {
		v := analysis.EnvRelation(b.d, env, m)
		before = append(before, b.d.DropView(v))
		after = append(after, b.d.CreateSchema(v.Schema), b.d.ReplaceView(v, "SELECT * FROM "+b.d.QuoteRelation(rel)))
	}
	if r.view {
		before = append(before, b.d.DropView(r.table))
	} else {
		before = append(before, b.d.DropTable(r.table))
	}
	return slices.Concat(before, stmts, after)
}

// forgetLost clears the ledgers of the stored snapshots whose physical
// relation was lost, before they are rebuilt: their done intervals
// describe data that no longer exists.
func (p *Plan) forgetLost(ctx context.Context, st state.Store) error {
	for fp := range p.lost {
		if !p.stored[fp] {
			continue
		}
		if _, err := st.ClearIntervals(ctx, fp, time.Time{}, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			return err
		}
	}
	return nil
}
