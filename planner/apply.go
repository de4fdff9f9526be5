package planner

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// ApplyOptions tunes Apply.
type ApplyOptions struct {
	AppliedBy string
	Now       func() time.Time // default time.Now
	Logger    *slog.Logger     // progress; default discards
	// Progress is called after each model is built.
	Progress func(done, total int, model string)
	// BatchProgress is called after each committed batch of a backfill
	// (batch counts the batches settled so far, failed ones included).
	BatchProgress func(model string, batch, batches int, r Range)
	// BatchFailed is called for each batch of a backfill whose write or
	// blocking audit failed after every retry (its intervals are marked
	// failed in the ledger); BatchProgress is not called for it.
	BatchFailed func(model string, r Range, err error)
	// Jobs is how many models build at once (DAG order: a model starts when
	// the models it reads are done); 0 or 1 builds one at a time. Engines
	// with one connection (DuckDB) build one at a time whatever Jobs says.
	Jobs int
	// Retries is how many times a failed batch write is retried, waiting
	// RetryDelay (default 500ms), then twice as long each time. Only the
	// transactional write is retried: it is safe to repeat.
	Retries    int
	RetryDelay time.Duration
	// Lock is the environment's lock when the caller already holds it;
	// nil makes Apply take it (and release it) itself.
	Lock *Lock
}

// ApplyResult reports what Apply did.
type ApplyResult struct {
	PlanID   string
	Built    []string // models whose snapshot was built or had intervals computed
	Promoted []string
	Removed  []string // models gone from the project: their views dropped
	Exported []string // models copied into an attached database (export.go)
	// DroppedViews are the stale views of EXTERNAL models dropped
	// (ModelPlan.StaleView).
	DroppedViews []string
}

// BuildError is a failure while building one model.
type BuildError struct {
	Model string
	File  string // the model's file, relative to the project root
	Err   error
}

func (e *BuildError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("build %s: %v", e.Model, e.Err)
	}
	return fmt.Sprintf("build %s (%s): %v", e.Model, e.File, e.Err)
}
func (e *BuildError) Unwrap() error { return e.Err }

// ContractError is a schema contract violated in the warehouse itself (the
// editor's check passed against declared parents, but the data did not).
type ContractError struct {
	Diagnostics []project.Diagnostic
}

func (e *ContractError) Error() string {
	msgs := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		msgs[i] = d.String()
	}
	return "schema contract violated: " + strings.Join(msgs, "; ")
}

// Apply executes p under the environment's lock: builds every snapshot
// marked Build and computes every backfill range in dependency order,
// checking each model against its contract first, then points the
// environment's views at the plan's snapshots in one engine transaction and
// records the promotion. Nothing is promoted unless every build and every
// interval succeeded (a failed interval is an *IntervalsError). A plan made
// before another apply moved the environment is refused.
func Apply(ctx context.Context, p *Plan, wh engine.Engine, st state.Store, opt ApplyOptions) (*ApplyResult, error) {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := p.analysis
	res := &ApplyResult{PlanID: newID(now())}
	summary, _ := json.Marshal(p)
	if opt.Lock == nil {
		lk, err := AcquireLock(ctx, st, EnvLock(p.Env), 0)
		if err != nil {
			return res, err
		}
		defer lk.Release()
	}
	if err := p.checkCurrent(ctx, st); err != nil {
		return res, err
	}
	if len(p.unconfirmed) > 0 {
		return res, &HistoryRebuildError{Models: p.unconfirmed}
	}

	fail := func(err error) (*ApplyResult, error) {
		if rerr := rollback(context.WithoutCancel(ctx), p, wh, st, res); rerr != nil {
			log.Warn("a failed apply could not take back all its snapshot records", "error", rerr)
		}
		status := state.PlanFailed
		if ctx.Err() != nil { // a signal or the caller stopped it
			status = state.PlanInterrupted
		}
		_ = st.RecordPlan(context.WithoutCancel(ctx), state.PlanRecord{ID: res.PlanID, Env: p.Env, AppliedBy: opt.AppliedBy,
			CreatedAt: now().UTC(), Status: status, Summary: summary, Error: err.Error()})
		return res, err
	}

	b := &builder{a: a, d: wh.Dialect(), wh: wh, root: a.Project.Root, now: now(), phys: p.physFP, copyHistory: p.copyHistory}
	if err := p.forgetLost(ctx, st); err != nil {
		return fail(err)
	}
	if err := inherit(ctx, p, b, st, now()); err != nil {
		return fail(err)
	}
	if err := execute(ctx, p, b, st, opt, res, log, p.refilled()); err != nil {
		return fail(err)
	}
	// New or changed audits of a metadata-only change guard the data the
	// environment is about to serve, which nothing rebuilt.
	if err := auditMetadataOnly(ctx, p, b, st, log); err != nil {
		return fail(err)
	}
	// Every pointer names a stored snapshot, built or not (EMBEDDED).
	var unstored []state.Snapshot
	for _, mp := range p.Models {
		if mp.Change == Removed || mp.Build || p.stored[mp.Fingerprint] {
			continue
		}
		unstored = append(unstored, b.snapshot(a.Models[mp.Name]))
	}
	if err := st.PutSnapshots(ctx, unstored); err != nil {
		return fail(err)
	}
	if err := beforePromotion(ctx, p, b, st, res, log); err != nil {
		return fail(err)
	}
	if err := promote(ctx, p, wh, st, res, opt.AppliedBy, now()); err != nil {
		return fail(err)
	}
	// The environment serves the new versions: what follows is recorded
	// even when a signal arrives now, so the store says what the warehouse
	// holds. Metadata is recorded only after the promotion, so a failed
	// apply leaves the stored definitions as they were.
	ctx = context.WithoutCancel(ctx)
	for _, mp := range p.Models {
		if mp.Change != MetadataOnly {
			continue
		}
		def, _ := json.Marshal(definitionOfInfo(a.Models[mp.Name]))
		if err := st.UpdateDefinition(ctx, mp.Fingerprint, def); err != nil {
			// Nothing to take back: the next plan shows the change again.
			return res, fmt.Errorf("%s is promoted, but its new metadata was not recorded: %w", mp.Name, err)
		}
	}
	if err := st.RecordPlan(ctx, state.PlanRecord{ID: res.PlanID, Env: p.Env, AppliedBy: opt.AppliedBy,
		CreatedAt: now().UTC(), Status: state.PlanApplied, Summary: summary}); err != nil {
		return res, err
	}
	var err error
	res.Exported, err = exportModels(ctx, a, wh, p.Env, append(slices.Clone(res.Built), res.Promoted...))
	return res, err
}

type builder struct {
	a    *Analysis
	d    engine.Dialect
	wh   engine.Engine
	root string
	now  time.Time
	env  string // render refs as this environment's views; "" = physical
	// phys maps a model to the fingerprint naming its physical relation
	// when the plan reuses an older snapshot's (physics reuse,
	// forward-only); absent models use their own fingerprint.
	phys map[string]string
	// copyHistory maps an SCD_TYPE_2 model whose new table starts as a
	// copy of an older history table to the fingerprint naming that table
	// (Plan.copyHistory).
	copyHistory map[string]string
	// interval, when set, is what @start/@end render to (one batch of a
	// backfill); else the model is computed whole, from start to now.
	interval *Range
}

func (b *builder) snapshot(info *ModelInfo) state.Snapshot {
	m := info.Model
	def := info.definitionJSON()
	return state.Snapshot{
		Fingerprint:        info.Fingerprint,
		FingerprintVersion: FingerprintVersion,
		Name:               m.Name,
		Kind:               string(m.Kind.Name),
		PhysicalTable:      PhysicalRelation(b.d, m, b.physFP(info)).String(),
		OwnHash:            info.OwnHash,
		Parents:            info.Parents,
		Canonical:          info.Canonical,
		Definition:         def,
		CreatedAt:          b.now.UTC(),
	}
}

// Definition is the stored form of a model in a snapshot.
type Definition struct {
	Name        string           `json:"name"`
	File        string           `json:"file"`
	Kind        project.Kind     `json:"kind"`
	Interval    string           `json:"interval,omitempty"` // incremental models: day | hour
	Start       string           `json:"start,omitempty"`    // the model's own start, as written
	Columns     []project.Column `json:"columns,omitempty"`
	Grain       []string         `json:"grain,omitempty"`
	Description string           `json:"description,omitempty"`
	Owner       string           `json:"owner,omitempty"`
	Tags        []string         `json:"tags,omitempty"`
	Body        string           `json:"body,omitempty"`
	// Schema is what the model yields as the checker inferred it; physics
	// reuse requires it unchanged.
	Schema []engine.Column `json:"schema,omitempty"`
	Audits []string        `json:"audits,omitempty"` // as written
	Cron   string          `json:"cron,omitempty"`
	// The declared passport (outside the fingerprint).
	Answerable string   `json:"answerable,omitempty"`
	Caveats    []string `json:"caveats,omitempty"`
	// Export (outside the fingerprint: the data does not change).
	Export *project.Export `json:"export,omitempty"`
	// Target is where the data lives when not in a table (parquet): what
	// status checks in the lake.
	Target string `json:"target,omitempty"`
}

// metadataChanges names the metadata (outside the fingerprint) that
// differs between two definitions of one snapshot.
func metadataChanges(a, b Definition) []string {
	var out []string
	if a.Description != b.Description {
		out = append(out, "description")
	}
	if a.Owner != b.Owner {
		out = append(out, "owner")
	}
	if strings.Join(a.Tags, "\x00") != strings.Join(b.Tags, "\x00") {
		out = append(out, "tags")
	}
	if strings.Join(a.Audits, "\x00") != strings.Join(b.Audits, "\x00") {
		out = append(out, "audits")
	}
	if a.Cron != b.Cron {
		out = append(out, "cron")
	}
	if a.Answerable != b.Answerable || strings.Join(a.Caveats, "\x00") != strings.Join(b.Caveats, "\x00") {
		out = append(out, "passport")
	}
	if fmt.Sprint(a.Export) != fmt.Sprint(b.Export) {
		out = append(out, "export")
	}
	return out
}

func definitionOf(m *project.Model) Definition {
	d := Definition{Name: m.Name, File: m.File, Kind: m.Kind, Interval: m.Interval, Start: m.Start, Columns: m.Columns, Grain: m.Grain,
		Description: m.Description, Owner: m.Owner, Tags: m.Tags, Body: m.Body, Cron: m.Cron,
		Answerable: m.Answerable, Caveats: m.Caveats, Export: m.Export}
	if m.Target != "table" {
		d.Target = m.Target
	}
	for _, au := range m.Audits {
		d.Audits = append(d.Audits, au.Text)
	}
	return d
}

// sameDefinition reports whether stored is byte for byte the definition a
// snapshot of info would record: then nothing outside the fingerprint
// changed, and the stored one need not be decoded.
func sameDefinition(stored []byte, info *ModelInfo) bool {
	return bytes.Equal(info.definitionJSON(), stored)
}

func definitionOfInfo(info *ModelInfo) Definition {
	d := definitionOf(info.Model)
	d.Schema = info.Inferred
	return d
}

// build creates the physical relation of one snapshot.
func (b *builder) build(ctx context.Context, info *ModelInfo) error {
	m := info.Model
	rel := PhysicalRelation(b.d, m, b.physFP(info))
	q, err := b.Query(info)
	if err != nil {
		return err
	}
	switch m.Kind.Name {
	case project.KindView:
		if err := b.checkContract(ctx, info, q); err != nil {
			return err
		}
		return b.wh.Exec(ctx, b.d.ReplaceView(rel, b.typed(info, q)))
	case project.KindFull, project.KindSeed:
		// The contract's families are checked on the query (unless the
		// checker already proved them against the parents' real types);
		// the table then gets exactly the declared types.
		if m.Kind.Name == project.KindFull && !b.provenContract(info) {
			if err := b.checkContract(ctx, info, q); err != nil {
				return err
			}
		}
		stmts := b.d.ReplaceTableAs(rel, b.typed(info, q))
		if len(stmts) == 1 {
			return b.wh.Exec(ctx, stmts[0]) // one statement is one transaction
		}
		return b.wh.Tx(ctx, stmts)
	}
	return &engine.FeatureError{Engine: b.d.Name(), Feature: fmt.Sprintf("building %s models", m.Kind.Name)}
}

// typed casts each column of q to its declared type, so the relation built
// from it has exactly the contract's types (SUM of an integer is HUGEINT in
// DuckDB, NUMERIC in PostgreSQL; a column declared BIGINT stays BIGINT).
// The contract check has vouched for the families, so a cast only changes
// the width or precision. A model without columns keeps q as is, and so
// does one whose proven query already yields exactly the declared types.
func (b *builder) typed(info *ModelInfo, q string) string {
	m := info.Model
	if m.Columns == nil || m.Kind.Name == project.KindExternal || m.Kind.Name == project.KindSeed {
		return q // externals and seeds are read with their declared types
	}
	if len(info.Inferred) == len(m.Columns) && b.provenContract(info) {
		same := true
		for i, c := range m.Columns {
			g := info.Inferred[i]
			same = same && strings.EqualFold(c.Name, g.Name) && b.sameType(c.Type, g.Type)
		}
		if same {
			return q
		}
	}
	sel := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		n := b.d.Quote(c.Name)
		sel[i] = "CAST(" + n + " AS " + c.Type + ") AS " + n
	}
	return "SELECT " + strings.Join(sel, ", ") + " FROM (\n" + q + "\n) AS _efmesh_typed"
}

// refill replaces the rows of a built FULL table with what its query
// yields now, in one engine transaction (DELETE, then INSERT): readers see
// the old rows until the commit, never a half table, and the table the
// environments' views read stays in place (PostgreSQL refuses to drop a
// table a view depends on). The insert casts to the table's types.
func (b *builder) refill(ctx context.Context, info *ModelInfo) error {
	m := info.Model
	q, err := b.Query(info)
	if err != nil {
		return err
	}
	if !b.provenContract(info) {
		if err := b.checkContract(ctx, info, q); err != nil {
			return err
		}
	}
	rel := PhysicalRelation(b.d, m, b.physFP(info))
	cols := declared(m)
	if cols == nil {
		if cols, err = b.wh.Describe(ctx, "SELECT * FROM "+b.d.QuoteRelation(rel)); err != nil {
			return err
		}
	}
	return b.wh.Tx(ctx, b.d.ReplaceRows(rel, namesOf(cols), q))
}

// Query renders the query that computes a model's data in the warehouse:
// refs resolve to the parents' physical relations, embedded models inline.
// In a redacted environment's plan it leaves out the redacted columns.
func (b *builder) Query(info *ModelInfo) (string, error) {
	if len(b.a.redacted[info.Model.Name]) == 0 {
		return b.query(info)
	}
	full := *info
	full.def = nil
	full.Model = b.a.Project.ByName[info.Model.Name]
	q, err := b.query(&full)
	if err != nil {
		return "", err
	}
	return b.redactQuery(info, q)
}

func (b *builder) query(info *ModelInfo) (string, error) {
	m := info.Model
	switch m.Kind.Name {
	case project.KindSeed:
		return b.readFiles(m, []string{m.Kind.Path}, seedFormat(m.Kind.Path), nil)
	case project.KindExternal:
		if m.Kind.Files != "" {
			return b.readFiles(m, []string{m.Kind.Files}, m.Kind.Format, m.Kind.Options)
		}
		s, t := SplitName(m.Kind.Table)
		src := b.d.QuoteRelation(engine.Relation{Schema: s, Name: t})
		if m.Columns == nil {
			return "SELECT * FROM " + src, nil
		}
		sel := make([]string, len(m.Columns))
		for i, c := range m.Columns {
			sel[i] = "CAST(" + b.d.Quote(c.Name) + " AS " + c.Type + ") AS " + b.d.Quote(c.Name)
		}
		return "SELECT " + strings.Join(sel, ", ") + " FROM " + src, nil
	}
	r, err := b.render(info, map[string]bool{})
	if err != nil {
		return "", err
	}
	return r.SQL, nil
}

func (b *builder) render(info *ModelInfo, seen map[string]bool) (engine.Rendered, error) {
	m := info.Model
	if seen[m.Name] {
		return engine.Rendered{}, fmt.Errorf("cycle through %s", m.Name)
	}
	seen[m.Name] = true
	defer delete(seen, m.Name)
	var refErr error
	start, end := b.fullRange()
	r, _ := renderBody(m, macroText{
		ref: func(name string) (string, bool) {
			pi := b.a.Models[name]
			if pi == nil {
				refErr = fmt.Errorf("unknown model %s", name)
				return "", false
			}
			if pi.Model.Kind.Name.Virtual() {
				sub, err := b.inline(pi, seen)
				if err != nil {
					refErr = err
					return "", false
				}
				return sub, true
			}
			if b.env != "" {
				return b.d.QuoteRelation(EnvRelation(b.d, b.env, pi.Model)), true
			}
			return b.d.QuoteRelation(PhysicalRelation(b.d, pi.Model, b.physFP(pi))), true
		},
		start: start, end: end, this: "NULL",
	})
	return r, refErr
}

// inline renders a ref to a virtual model as the subquery its consumers
// read in place: an EMBEDDED model's body, an EXTERNAL model's source read
// with the declared columns enforced (renderBody adds an alias where the
// consumer wrote none).
func (b *builder) inline(info *ModelInfo, seen map[string]bool) (string, error) {
	var q string
	if info.Model.Kind.Name == project.KindEmbedded {
		r, err := b.render(info, seen)
		if err != nil {
			return "", err
		}
		q = r.SQL
	} else {
		var err error
		if q, err = b.Query(info); err != nil {
			return "", err
		}
	}
	return "(\n" + q + "\n)", nil
}

// fullRange is the interval of a model computed whole: from the project's
// start to now.
func (b *builder) fullRange() (string, string) {
	if b.interval != nil {
		return b.d.TimestampLiteral(b.interval.Start.UTC().Format(time.RFC3339)), b.d.TimestampLiteral(b.interval.End.UTC().Format(time.RFC3339))
	}
	start := "1970-01-01T00:00:00Z"
	if s := b.a.Project.Config.Start; s != "" {
		if t, err := time.Parse("2006-01-02", s); err == nil {
			start = t.UTC().Format(time.RFC3339)
		}
	}
	return b.d.TimestampLiteral(start), b.d.TimestampLiteral(b.now.UTC().Format(time.RFC3339Nano))
}

func (b *builder) readFiles(m *project.Model, paths []string, format string, opts []project.Option) (string, error) {
	fr, ok := b.wh.(engine.FileReader)
	if !ok {
		return "", &engine.FeatureError{Engine: b.d.Name(), Feature: "reading files (" + m.Name + ")"}
	}
	spec := engine.FileSpec{Format: format, Columns: declared(m), Options: fileOptions(opts)}
	for _, p := range paths {
		spec.Paths = append(spec.Paths, absPath(b.root, p))
	}
	return fr.ReadFiles(spec)
}

// checkContract describes the model's query in the warehouse and compares
// it with the declared columns.
func (b *builder) checkContract(ctx context.Context, info *ModelInfo, q string) error {
	m := info.Model
	if m.Columns == nil {
		return nil
	}
	got, err := b.wh.Describe(ctx, q)
	if err != nil {
		return err
	}
	c := &checker{a: &Analysis{Project: b.a.Project}}
	c.contract(m, got)
	if len(c.a.Diagnostics) > 0 {
		return &ContractError{Diagnostics: c.a.Diagnostics}
	}
	return nil
}

// Render returns the SQL that computes a model. With env empty, refs
// resolve to the physical relations of the analyzed project's snapshots
// (what apply runs); with env set, to that environment's views.
func Render(a *Analysis, wb Workbench, name, env string, now time.Time) (string, error) {
	info := a.Models[name]
	if info == nil {
		return "", fmt.Errorf("unknown model %q%s", name, didYouMean(name, a.Models))
	}
	if info.Fingerprint == "" {
		return "", fmt.Errorf("%s has errors; fix them first (they are listed as diagnostics, or by efmesh plan)", name)
	}
	eng, _ := wb.(engine.Engine) // for reading seed and external files
	b := &builder{a: a, d: wb.Dialect(), wh: eng, root: a.Project.Root, now: now, env: env}
	return b.Query(info)
}

// didYouMean is the "; did you mean …?" suffix for an unknown model name,
// by project.DidYouMean, the one rule of every suggestion.
func didYouMean(name string, models map[string]*ModelInfo) string {
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	return suggestModel(name, names)
}

// suggestModel words the suggestion of a model name among names.
func suggestModel(name string, names []string) string {
	if s, ok := project.DidYouMean(name, names); ok {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

func newID(t time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(r[:])
}

// physFP is the fingerprint naming info's physical relation.
func (b *builder) physFP(info *ModelInfo) string {
	if fp, ok := b.phys[info.Model.Name]; ok {
		return fp
	}
	return info.Fingerprint
}

// inherit records the snapshots that take over an older snapshot's
// physical relation (indirect physics reuse, forward-only) before anything
// is built: the new snapshot points at the old table, inherits its done
// intervals, and — forward-only — gains the new columns with ALTER, so
// history reads NULL in them.
func inherit(ctx context.Context, p *Plan, b *builder, st state.Store, now time.Time) error {
	for _, mp := range p.Models {
		old, ok := p.reuse[mp.Name]
		if !ok {
			continue
		}
		info := p.analysis.Models[mp.Name]
		if mp.Change == ForwardOnly {
			if err := b.addColumns(ctx, info); err != nil {
				return &BuildError{Model: mp.Name, File: info.Model.File, Err: err}
			}
		}
		if err := st.PutSnapshot(ctx, b.snapshot(info)); err != nil {
			return err
		}
		done, err := st.Intervals(ctx, old)
		if err != nil {
			return err
		}
		var marks []state.Interval
		for _, iv := range done {
			if iv.Status == state.IntervalDone {
				marks = append(marks, iv)
			}
		}
		if len(marks) > 0 {
			if err := st.MarkIntervals(ctx, info.Fingerprint, marks, state.IntervalDone, now.UTC()); err != nil {
				return err
			}
		}
		if err := st.MarkBuilt(ctx, info.Fingerprint, now.UTC()); err != nil {
			return err
		}
	}
	return nil
}

// addColumns brings an inherited table to the new version's columns: new
// ones are added (NULL in history); a dropped one is an error.
func (b *builder) addColumns(ctx context.Context, info *ModelInfo) error {
	rel := PhysicalRelation(b.d, info.Model, b.physFP(info))
	have, err := b.wh.Describe(ctx, "SELECT * FROM "+b.d.QuoteRelation(rel))
	if err != nil {
		return err
	}
	want := info.Columns
	if want == nil {
		want = info.Inferred
	}
	wantBy := map[string]bool{}
	for _, c := range want {
		wantBy[strings.ToLower(c.Name)] = true
	}
	haveBy := map[string]bool{}
	for _, c := range have {
		haveBy[strings.ToLower(c.Name)] = true
		if !wantBy[strings.ToLower(c.Name)] {
			return fmt.Errorf("forward-only cannot drop column %q: the existing table keeps it; make a breaking change instead", c.Name)
		}
	}
	for _, c := range want {
		if haveBy[strings.ToLower(c.Name)] {
			continue
		}
		if err := b.wh.Exec(ctx, b.d.AddColumn(rel, c)); err != nil {
			return err
		}
	}
	return nil
}

// provenContract reports whether the checker already bound the model's
// query, in the engine itself, against exactly what its parents' physical
// relations hold, so the contract it verified is the warehouse's: every
// parent's stand-in had the parent's real column types (declared types
// equal to the inferred ones, or no declaration; seeds and externals are
// cast to their declaration). Then describing the new table again would
// only repeat that answer. A static binder's types (Binder) prove nothing.
func (b *builder) provenContract(info *ModelInfo) bool {
	if info.Inferred == nil || !b.a.boundInEngine {
		return false
	}
	for _, r := range info.Model.Refs() {
		pi := b.a.Models[r]
		if pi == nil {
			return false
		}
		switch pi.Model.Kind.Name {
		case project.KindSeed, project.KindExternal:
			if pi.Model.Columns == nil {
				return false
			}
			continue
		}
		if pi.Model.Columns == nil {
			continue // the stand-in was the inferred schema itself
		}
		if len(pi.Inferred) != len(pi.Model.Columns) {
			return false
		}
		for i, c := range pi.Model.Columns {
			if !strings.EqualFold(c.Name, pi.Inferred[i].Name) || !b.sameType(c.Type, pi.Inferred[i].Type) {
				return false
			}
		}
	}
	return true
}

// sameType reports whether a declared type and the one the engine
// reported are the same type by the engine's naming (provenContract: only
// an engine that binds the bodies itself proves anything).
func (b *builder) sameType(declared, reported string) bool {
	sc, ok := b.d.(engine.Scratch)
	return ok && sc.ReportedType(declared) == sc.ReportedType(reported)
}

// rollback takes back what a failed apply recorded of snapshots it did not
// finish, so that the store says what the warehouse holds and nothing more:
// a snapshot this apply recorded (the store did not hold it when the plan
// was made) is removed, with its ledger, unless
//
//   - it was built and passed its audits (res.Built): its relation is
//     complete, and a new plan reuses it instead of building it again; or
//   - it is an INCREMENTAL_BY_TIME_RANGE snapshot whose ledger holds
//     intervals this apply computed: the backfill resumes from them (and
//     restate can recompute them), as after an interrupted apply.
//
// A removed snapshot's relation, if the apply created it, is dropped too
// (never an inherited one, nor that of a record the store keeps). Snapshots the store held before keep their
// records: their ledger tells the truth of the batches that ran.
func rollback(ctx context.Context, p *Plan, wh engine.Engine, st state.Store, res *ApplyResult) error {
	built := map[string]bool{}
	for _, n := range res.Built {
		built[n] = true
	}
	var fps []string
	drop := map[string]string{} // fingerprint -> the statement dropping its relation
	d := wh.Dialect()
	for _, mp := range p.Models {
		info := p.analysis.Models[mp.Name]
		if mp.Change == Removed || info == nil || p.stored[mp.Fingerprint] || built[mp.Name] {
			continue
		}
		m := info.Model
		if m.Kind.Name == project.KindIncrementalByTimeRange {
			computed, err := computedHere(ctx, st, mp.Fingerprint, p.reuse[mp.Name])
			if err != nil {
				return err
			}
			if computed {
				continue
			}
		}
		fps = append(fps, mp.Fingerprint)
		if mp.Build && mp.ReusedFrom == "" && m.Kind.Name.Materialized() && TargetOf(m) == "table" {
			drop[mp.Fingerprint] = d.DropTable(PhysicalRelation(d, m, p.physicalFP(mp.Name, mp.Fingerprint)))
		} else if mp.Build && m.Kind.Name == project.KindView {
			drop[mp.Fingerprint] = d.DropView(PhysicalRelation(d, m, p.physicalFP(mp.Name, mp.Fingerprint)))
		}
	}
	if len(fps) == 0 {
		return nil
	}
	// The far cutoff removes them whatever their orphan mark says (a
	// reservation moves it ahead); a pointer to one keeps it. Only the
	// relations of the records removed go: a snapshot another
	// environment's apply promoted meanwhile keeps its record and so its
	// relation.
	removed, err := st.RemoveSnapshots(ctx, fps, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		return err
	}
	gone := map[string]bool{}
	for _, fp := range removed {
		gone[fp] = true
	}
	var errs []error
	for _, fp := range fps { // the plan's order
		stmt, ok := drop[fp]
		if !ok || !gone[fp] {
			continue
		}
		if err := wh.Exec(ctx, stmt); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// computedHere reports whether the ledger of fp holds done intervals that
// were not inherited from the snapshot it reuses (if any).
func computedHere(ctx context.Context, st state.Reader, fp, reusedFrom string) (bool, error) {
	ivs, err := st.Intervals(ctx, fp)
	if err != nil {
		return false, err
	}
	inherited := map[int64]bool{}
	if reusedFrom != "" {
		old, err := st.Intervals(ctx, reusedFrom)
		if err != nil {
			return false, err
		}
		for _, iv := range old {
			if iv.Status == state.IntervalDone {
				inherited[iv.Start.Unix()] = true
			}
		}
	}
	for _, iv := range ivs {
		if iv.Status == state.IntervalDone && !inherited[iv.Start.Unix()] {
			return true, nil
		}
	}
	return false, nil
}
