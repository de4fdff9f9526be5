package analysis

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
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

// ServerBinder is a Binder that binds in the engine's own server, in a
// session of its own: the relations stand in as session-local tables that
// StandIn names, and its findings and inferred types are the server's, so
// a plan predicts what apply meets. A check bound by it is cached apart
// from a static Binder's.
type ServerBinder interface {
	Binder
	// StandIn is how a body handed to BindContext names the relation of
	// columns cols (the relations value of its ref).
	StandIn(cols []engine.Column) string
	BindContext(ctx context.Context, sql string, relations map[string][]engine.Column) ([]engine.Column, error)
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
	// Files are the files and globs the body reads by name (read_csv('x'),
	// FROM 'x.parquet'), resolved against the project root: inputs of the
	// model like its parents (see StampFiles).
	Files []string
	// Diagnostics are the checker's findings for this model (the loader's
	// are in Project.Diagnostics).
	Diagnostics []project.Diagnostic

	loadBroken bool // the loader reported an error in the model's file
	// def memoizes the definition a snapshot records; Reanalyze's copy of
	// an unchanged model shares it (same source, same inferred schema).
	def *definitionMemo
	// auditDiags are checkAudits' findings on this model, computed once
	// (audited): a later analysis sharing this info shares them.
	auditDiags []project.Diagnostic
	audited    bool
}

type definitionMemo struct {
	once sync.Once
	json []byte
}

// DefinitionJSON is the definition a snapshot of info records, encoded.
func (info *ModelInfo) DefinitionJSON() []byte {
	if info.def == nil {
		b, _ := json.Marshal(DefinitionOfInfo(info))
		return b
	}
	info.def.once.Do(func() { info.def.json, _ = json.Marshal(DefinitionOfInfo(info)) })
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
	// standIns names the models whose stand-in exists in the workbench,
	// with the model's current columns.
	standIns map[string]bool
	// standInTables names the stand-in tables the workbench's catalog
	// holds (standInTable), shared by the models of one shape.
	standInTables map[string]bool
	// boundInEngine: the bodies were bound by the engine itself, against
	// stand-ins with the parents' types, so what the analysis inferred is
	// what the warehouse says (not a static binder's approximation).
	boundInEngine bool
	// redacted: in the variant a redacted environment is planned from
	// (redact.go), the columns each model leaves out of its physics.
	redacted map[string][]string
	// order is Models along Project.Models (nil where a model is left
	// out: a duplicate), and index the position of each name there; they
	// let Reanalyze visit only what an edit reaches, in DAG order.
	order []*ModelInfo
	index map[string]int
	// parts is how Reanalyze made Diagnostics, so the next edit rebuilds
	// only the files it touches (reanalyze.go); nil after Analyze.
	parts *diagParts
}

// Dialect is the dialect of the workbench the analysis was made with.
func (a *Analysis) Dialect() engine.Dialect { return a.dialect }

// RedactedColumns names, in the variant a redacted environment is planned
// from, the columns each model leaves out of its physics (nil otherwise).
func (a *Analysis) RedactedColumns() map[string][]string { return a.redacted }

// Outliner reads canonical forms (this analysis's and stored snapshots')
// into the engine's outline.
func (a *Analysis) Outliner() engine.Outliner { return a.outliner }

// BoundInEngine reports whether the bodies were bound by the engine itself,
// against stand-ins with the parents' types, so that what the analysis
// inferred is what the warehouse says.
func (a *Analysis) BoundInEngine() bool { return a.boundInEngine }

// WithModel returns a copy of info for m (the same model in another form,
// e.g. unredacted), without info's memoized definition.
func (info *ModelInfo) WithModel(m *project.Model) *ModelInfo {
	c := *info
	c.def = nil
	c.auditDiags, c.audited = nil, false
	c.Model = m
	return &c
}

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
	// Along the DAG's levels, so that the bodies of a level whose parents
	// are all known are bound in one batch (predescribe); each model's
	// diagnostics are gathered in the project's order, as they stood
	// right after its check.
	diags := make([][]project.Diagnostic, len(p.Models))
	checked := make([]bool, len(p.Models))
	waves := ck.waves(p)
	// On a check from nothing, bodies are bound along the DAG's frontier
	// while the models before them are checked; else by level.
	fr, err := ck.newFrontier(ctx, p, waves, broken)
	if err != nil {
		return nil, err
	}
	defer fr.close()
	for _, wave := range waves {
		var misses []int
		keys := map[int]string{}
		for _, i := range wave {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			m := p.Models[i]
			info := &ModelInfo{Model: m, Parents: map[string]string{}, Broken: broken[m.File], loadBroken: broken[m.File], def: new(definitionMemo)}
			a.Models[m.Name] = info
			key := ""
			if opt.Cache != nil {
				key = ck.cacheKey(info, names)
			}
			if key != "" {
				if cc, ok := opt.Cache.Get(key); ok && cc.fresh() {
					cc.fill(info, a)
					diags[i] = info.Diagnostics
					if err := fr.checked(ctx, m); err != nil {
						return nil, err
					}
					continue
				}
			}
			keys[i] = key
			misses = append(misses, i)
		}
		if fr == nil {
			if err := ck.predescribe(ctx, p, misses); err != nil {
				return nil, err
			}
		}
		for _, i := range misses {
			m := p.Models[i]
			info := a.Models[m.Name]
			if err := ck.ensureParents(ctx, m); err != nil {
				return nil, err
			}
			checked[i] = true
			fr.await(m)
			if err := ck.model(ctx, info); err != nil {
				return nil, err
			}
			// The files the body reads are inputs like its parents: their
			// stamps go with the cached check, and a check whose files
			// cannot be watched (a URL) is not cached.
			info.Files = a.bodyFiles(info.Canonical)
			stamps, stampable := StampFiles(info.Files)
			// A check cut short (an edit supersedes it) says nothing of the
			// model: an engine error of a cancelled statement is no finding.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if key := keys[i]; key != "" && stampable {
				opt.Cache.Put(key, cachedOf(info, stamps))
			}
			diags[i] = info.Diagnostics
			if err := fr.checked(ctx, m); err != nil {
				return nil, err
			}
		}
	}
	fr.close()
	for i, m := range p.Models {
		if checked[i] {
			a.Checked = append(a.Checked, m.Name)
		}
		a.Diagnostics = append(a.Diagnostics, diags[i]...)
	}
	a.setOrder(nil)
	a.Diagnostics = append(a.Diagnostics, checkTests(a)...)
	a.Diagnostics = append(a.Diagnostics, checkAudits(a)...)
	project.SortDiagnostics(a.Diagnostics)
	return a, nil
}

// setOrder lays Models out along Project.Models; index, when not nil, is
// already the positions of the names there.
func (a *Analysis) setOrder(index map[string]int) {
	ms := a.Project.Models
	a.order = make([]*ModelInfo, len(ms))
	if index == nil {
		index = make(map[string]int, len(ms))
		for i, m := range ms {
			index[m.Name] = i
		}
	}
	a.index = index
	for i, m := range ms {
		if info := a.Models[m.Name]; info != nil && info.Model == m {
			a.order[i] = info
		}
	}
}

// SameColumns reports whether a and b are the same column list (names,
// types and order; nil differs from empty).
func SameColumns(a, b []engine.Column) bool {
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
