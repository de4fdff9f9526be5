package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// MakePlan diffs an analyzed project against env in the store and lists the
// missing intervals of incremental models as of now (PlanAt; default the
// current time). A project with errors yields a *ProblemsError.
//
// It runs in phases, each a function of its own: the analysis the plan
// is made of (plannedAnalysis), the snapshots it is diffed against
// (storedSnapshots), the options checked against the project
// (checkOptions), then per model its line (modelLine: physics,
// categorize, redefinition, history and forward-only reuse), the removed
// models (removedLines), the presence of what EXTERNAL models read
// (checkSources), the ranges to backfill (resolvePreview, fillBackfill),
// the refills (fillRefills, refillCompleted), the limit on the backfill
// (checkBackfillLimit), the cron refreshes and reverts, and the warnings
// (annotate).
func MakePlan(ctx context.Context, a *analysis.Analysis, st state.Reader, env string, opts ...PlanOption) (*Plan, error) {
	cfg := planConfigOf(opts)
	a, err := plannedAnalysis(ctx, a, env, cfg)
	if err != nil {
		return nil, err
	}
	// A store of another fingerprint version is never compared with: an
	// older one would make everything look changed (efmesh migrate carries
	// it over), a newer one is another efmesh's.
	if err := analysis.CheckFingerprintVersions(ctx, st); err != nil {
		return nil, err
	}
	e, err := ReadEnvironment(ctx, st, env)
	if err != nil {
		return nil, err
	}
	snaps, err := storedSnapshots(ctx, st, a, e.Pointers)
	if err != nil {
		return nil, err
	}
	p := newPlan(env, a, e.Pointers, snaps)
	if p.restated, p.refills, err = checkOptions(a, cfg); err != nil {
		return nil, err
	}
	if err := p.modelLines(ctx, st, snaps, cfg); err != nil {
		return nil, err
	}
	p.removedLines(snaps)
	if err := p.checkSources(ctx, st, cfg); err != nil {
		return nil, err
	}
	if err := p.resolvePreview(ctx, st, cfg.preview); err != nil {
		return nil, err
	}
	if err := p.fillBackfill(ctx, st, cfg.now); err != nil {
		return nil, err
	}
	p.fillRefills()
	p.refillCompleted(p.previewChanged)
	if err := p.checkBackfillLimit(cfg.backfillLimit); err != nil {
		return nil, err
	}
	if cfg.dueRefreshes {
		if err := p.fillDueRefresh(ctx, st, cfg.now); err != nil {
			return nil, err
		}
	}
	if err := p.fillReverts(ctx, st, cfg.user); err != nil {
		return nil, err
	}
	p.annotate()
	return p, nil
}

// plannedAnalysis is the analysis a plan of env is made of: a's, or the
// variant of a redacted environment (checked on the workbench when there
// is one). A bad environment name, or a project with problems, stops the
// plan here.
func plannedAnalysis(ctx context.Context, a *analysis.Analysis, env string, cfg planConfig) (*analysis.Analysis, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	if a.Errors() {
		return nil, &ProblemsError{Diagnostics: a.Diagnostics}
	}
	base := a
	a, err := analysis.RedactedVariant(a, env)
	if err != nil {
		return nil, err
	}
	if a != base && cfg.workbench != nil {
		ds, err := analysis.CheckRedacted(ctx, a, base, cfg.workbench, env)
		if err != nil {
			return nil, err
		}
		if project.HasErrors(ds) {
			return nil, &ProblemsError{Diagnostics: ds}
		}
	}
	return a, nil
}

// storedSnapshots reads the snapshots a plan is diffed against: the heads
// (no canonical form) of every model's snapshot and of every snapshot the
// environment (cur) points at; the full snapshot only of what a moved
// model was, to categorize its change. A snapshot of another fingerprint
// version stops the plan, for a store that cannot list its versions.
func storedSnapshots(ctx context.Context, st state.Reader, a *analysis.Analysis, cur map[string]state.Pointer) (map[string]state.Snapshot, error) {
	fps := make([]string, 0, len(a.Models)+len(cur))
	var moved []string
	for _, info := range a.Models {
		fps = append(fps, info.Fingerprint)
		if ptr, ok := cur[info.Model.Name]; ok && ptr.Fingerprint != info.Fingerprint {
			moved = append(moved, ptr.Fingerprint)
		}
	}
	for _, ptr := range cur {
		fps = append(fps, ptr.Fingerprint)
	}
	snaps, err := st.SnapshotHeads(ctx, fps)
	if err != nil {
		return nil, err
	}
	if len(moved) > 0 {
		full, err := st.Snapshots(ctx, moved)
		if err != nil {
			return nil, err
		}
		maps.Copy(snaps, full)
	}
	for _, s := range snaps {
		if s.FingerprintVersion != analysis.FingerprintVersion {
			return nil, &analysis.FingerprintVersionError{Have: s.FingerprintVersion, Want: analysis.FingerprintVersion,
				What: s.Fingerprint[:min(8, len(s.Fingerprint))] + " of " + s.Name}
		}
	}
	return snaps, nil
}

// newPlan is the empty plan of env, before its lines.
func newPlan(env string, a *analysis.Analysis, cur map[string]state.Pointer, snaps map[string]state.Snapshot) *Plan {
	p := &Plan{Env: env, analysis: a, current: cur, stored: make(map[string]bool, len(snaps)), physFP: map[string]string{}, reuse: map[string]string{},
		copyHistory: map[string]string{}, storedTable: map[string]string{}, newAudits: map[string][]string{}, redefined: map[string]bool{}, removedExternal: map[string]analysis.Definition{}}
	for fp := range snaps {
		p.stored[fp] = true
	}
	return p
}

// checkOptions refuses the options that name no model of the project, or a
// model they cannot apply to (--rebuild-history on a model without a
// history), and resolves the restate requests (restateRanges).
func checkOptions(a *analysis.Analysis, cfg planConfig) (map[string]analysis.Range, map[string][]string, error) {
	for name := range cfg.forwardOnly {
		if a.Models[name] == nil {
			return nil, nil, &UnknownModelError{Option: OptionForwardOnly, Name: name, Suggestion: nearModel(name, a.Models)}
		}
	}
	restated, refills, err := restateRanges(a, cfg.restate)
	if err != nil {
		return nil, nil, err
	}
	for name := range cfg.rebuild {
		if a.Models[name] == nil {
			return nil, nil, &UnknownModelError{Option: OptionRebuildHistory, Name: name, Suggestion: nearModel(name, a.Models)}
		}
		if k := a.Models[name].Model.Kind.Name; k != project.KindSCDType2 {
			return nil, nil, &OptionError{Option: OptionRebuildHistory, Model: name, Reason: fmt.Sprintf("only SCD_TYPE_2 models keep a history (it is %s)", k)}
		}
	}
	for name := range cfg.reclassify {
		if a.Models[name] == nil {
			return nil, nil, &UnknownModelError{Option: OptionReclassify, Name: name, Suggestion: nearModel(name, a.Models)}
		}
	}
	return restated, refills, nil
}

// lineage is what the lines made so far tell the next ones (in the
// project's order, parents first).
type lineage struct {
	// changed: the models whose line is not unchanged.
	changed map[string]bool
	// keeps: the model's data in its existing columns is what the
	// environment serves now (unchanged, non-breaking, forward-only or
	// reusing): children moved only by such parents can keep their tables.
	keeps map[string]bool
}

// modelLines makes the line of every model of the project, parents first.
func (p *Plan) modelLines(ctx context.Context, st state.Reader, snaps map[string]state.Snapshot, cfg planConfig) error {
	a := p.analysis
	seen := lineage{changed: map[string]bool{}, keeps: map[string]bool{}}
	// One line per model (and a few removed ones): sized once, not grown
	// by doubling a slice of wide lines.
	if n := len(a.Project.Models); n > 0 {
		p.Models = make([]ModelPlan, 0, n)
	}
	for _, m := range a.Project.Models {
		info := a.Models[m.Name]
		if info == nil {
			continue
		}
		mp, err := p.modelLine(ctx, st, info, snaps, cfg, seen)
		if err != nil {
			return err
		}
		if mp.Change != Unchanged || mp.Build {
			p.HasChanges = true
		}
		p.Models = append(p.Models, mp)
	}
	return nil
}

// modelLine makes one model's line: where its relation is, its category,
// and what it takes over from its previous version; seen learns whether
// it changed and whether it keeps its data.
func (p *Plan) modelLine(ctx context.Context, st state.Reader, info *analysis.ModelInfo, snaps map[string]state.Snapshot, cfg planConfig, seen lineage) (ModelPlan, error) {
	m := info.Model // a redacted environment's variant (redact.go)
	if len(info.Fingerprint) < 8 {
		// The checker marks such a model broken and reports why; a
		// plan must never get here, but says so instead of failing worse.
		return ModelPlan{}, fmt.Errorf("%s has no fingerprint although the check reported no problem; this is a bug in efmesh, please report it with the model", m.Name)
	}
	snap, known := snaps[info.Fingerprint]
	mp := p.physicalLine(info, snap, known)
	ptr, inEnv := p.current[m.Name]
	if err := p.categorize(&mp, info, ptr, inEnv, snaps, seen.changed, cfg.reclassify); err != nil {
		return ModelPlan{}, err
	}
	p.noteRedefined(&mp, info, snap, known)
	scdKept := false // an SCD_TYPE_2 history kept through an upstream change
	if inEnv && ptr.Fingerprint != info.Fingerprint {
		var err error
		prev, havePrev := snaps[ptr.Fingerprint]
		if scdKept, err = p.takeOver(ctx, st, &mp, info, snap, known, prev, havePrev, cfg, seen); err != nil {
			return ModelPlan{}, err
		}
	}
	if cfg.rebuild[m.Name] && !mp.RebuildsHistory {
		return ModelPlan{}, &OptionError{Option: OptionRebuildHistory, Model: m.Name, Reason: fmt.Sprintf("the plan keeps no history of it to rebuild (it is %s in %s)", mp.Change, p.Env)}
	}
	seen.keeps[m.Name] = keepsData(mp, scdKept, seen.keeps)
	if mp.Change != Unchanged {
		seen.changed[m.Name] = true
	}
	return mp, nil
}

// keepsData reports whether a line's model keeps serving the data of its
// existing columns (lineage.keeps), given its parents' (keeps).
func keepsData(mp ModelPlan, scdKept bool, keeps map[string]bool) bool {
	if scdKept {
		// The merge at apply changes the kept table when a parent's
		// data changed: its children keep their tables only if every
		// changed parent does.
		all := true
		for _, c := range mp.Cause {
			all = all && keeps[c]
		}
		return all
	}
	return mp.Change == Unchanged || mp.Change == MetadataOnly || mp.Change == NonBreaking || mp.Change == ForwardOnly || mp.ReusedFrom != ""
}

// physicalLine starts a model's line: its physical relation (none for a
// virtual model), whether it must be built (its snapshot is not stored
// built), and the relation a stored snapshot was built under.
func (p *Plan) physicalLine(info *analysis.ModelInfo, snap state.Snapshot, known bool) ModelPlan {
	m := info.Model
	mp := ModelPlan{Name: m.Name, Kind: string(m.Kind.Name), Fingerprint: info.Fingerprint,
		Incremental: Incremental{Backfill: []analysis.Range{}}, Explain: []string{}}
	virtual := m.Kind.Name.Virtual()
	if !virtual {
		mp.PhysicalTable = analysis.PhysicalRelation(p.analysis.Dialect(), m, info.Fingerprint).String()
	}
	mp.Build = !virtual && (!known || !snap.Built())
	if known && !virtual {
		if snap.Built() {
			p.storedTable[m.Name] = snap.PhysicalTable
		}
		if f := FingerprintPrefix(snap.PhysicalTable); f != "" && f != info.Fingerprint[:8] {
			p.physFP[m.Name] = f
			mp.PhysicalTable = analysis.PhysicalRelation(p.analysis.Dialect(), m, f).String()
		}
	}
	return mp
}

// categorize decides a line's category against the environment's pointer
// (ptr; inEnv false: none): added; unchanged, or metadata-only when the
// stored definition differs outside the fingerprint; indirect when only
// parents moved (Cause names the changed ones); else the AST's verdict
// (judge), possibly reclassified by the operator (reclassify), with the
// edit (Edit) behind it.
func (p *Plan) categorize(mp *ModelPlan, info *analysis.ModelInfo, ptr state.Pointer, inEnv bool, snaps map[string]state.Snapshot, changed map[string]bool, reclassify map[string]Change) error {
	switch {
	case !inEnv:
		mp.Change = Added
	case ptr.Fingerprint == info.Fingerprint:
		mp.Change = Unchanged
		if snap, known := snaps[info.Fingerprint]; known {
			p.metadataChange(mp, info, snap)
		}
	default:
		mp.Previous = ptr.Fingerprint
		prev, ok := snaps[ptr.Fingerprint]
		switch {
		case ok && prev.OwnHash == info.OwnHash:
			mp.Change = Indirect
			for parent := range info.Parents {
				if changed[parent] {
					mp.Cause = append(mp.Cause, parent)
				}
			}
			sort.Strings(mp.Cause)
			mp.Explain = append(mp.Explain, "own definition unchanged; moved by changed parent(s)")
		case ok:
			return p.directChange(mp, info, prev, reclassify)
		default:
			mp.Change = Breaking
			mp.Explain = append(mp.Explain, "the previous snapshot is not in the state store")
		}
	}
	return nil
}

// metadataChange makes an unchanged line metadata-only when the stored
// snapshot's definition differs from the project's outside the
// fingerprint (description, audits, …): nothing is rebuilt, new or changed
// audits run on the existing data.
func (p *Plan) metadataChange(mp *ModelPlan, info *analysis.ModelInfo, snap state.Snapshot) {
	m := info.Model
	if analysis.SameDefinition(snap.Definition, p.analysis.Project, info) {
		return
	}
	var stored analysis.Definition
	_ = json.Unmarshal(snap.Definition, &stored)
	now := analysis.DefinitionIn(p.analysis.Project, m)
	if stored.AuditSources == nil && now.AuditSources != nil {
		p.unrecorded = append(p.unrecorded, m.Name)
	}
	if what := analysis.MetadataChanges(stored, now); len(what) > 0 {
		mp.Change = MetadataOnly
		mp.Explain = append(mp.Explain, "changed outside the fingerprint: "+strings.Join(what, ", ")+"; nothing is rebuilt")
		if added := changedAudits(p.analysis.Project, m, stored); len(added) > 0 {
			p.newAudits[m.Name] = added
			mp.Explain = append(mp.Explain, "new or changed audit(s) "+strings.Join(added, ", ")+" run on the existing data before promotion")
		}
	}
}

// directChange categorizes a model whose own definition changed against
// its previous snapshot prev (judge), and applies the operator's verdict
// (reclassify) where the guard rail lets it.
func (p *Plan) directChange(mp *ModelPlan, info *analysis.ModelInfo, prev state.Snapshot, reclassify map[string]Change) error {
	m := info.Model
	var prevDef analysis.Definition
	_ = json.Unmarshal(prev.Definition, &prevDef)
	v := judge(p.analysis, info, prevDef, prev.Canonical)
	mp.Change = v.change
	mp.Explain = append(append(append(mp.Explain, v.paths...), v.reason), v.children...)
	mp.Paths = v.paths
	mp.Rebinds = v.children
	mp.Diff = analysis.ClauseDiff(prevDef.Body, m.Body)
	mp.Explain = append(mp.Explain, changedMacros(m, prevDef.Body)...)
	verdict, ok := reclassify[m.Name]
	if !ok || verdict == v.change {
		return nil
	}
	if verdict == NonBreaking && v.dropsColumns {
		return &ReclassifyError{Model: m.Name, Reason: "the change drops or reorders existing columns (" + strings.Join(v.paths, ", ") + ")"}
	}
	if verdict == NonBreaking && len(v.children) > 0 {
		// Inherited children would keep serving what their
		// queries no longer return.
		return &ReclassifyError{Model: m.Name, Reason: "children would read it differently (" + strings.Join(v.children, "; ") + ")"}
	}
	mp.ReclassifiedFrom = v.change
	mp.Change = verdict
	mp.Explain = append(mp.Explain, fmt.Sprintf("reclassified %s by the operator (the AST said %s)", verdict, v.change))
	return nil
}

// noteRedefined marks a changed line whose snapshot the store holds
// already (another environment promoted it, or a failed apply kept its
// computed intervals), recorded with other metadata than the project's
// now: apply records the project's, else the next plan shows a
// metadata-only change nothing made.
func (p *Plan) noteRedefined(mp *ModelPlan, info *analysis.ModelInfo, snap state.Snapshot, known bool) {
	if !known || mp.Change == Unchanged || mp.Change == MetadataOnly || analysis.SameDefinition(snap.Definition, p.analysis.Project, info) {
		return
	}
	m := info.Model
	p.redefined[m.Name] = true
	if !mp.Build && !m.Kind.Name.Virtual() && snap.Built() {
		// Nothing builds it: new or changed audits run on the data
		// it holds, as for a metadata-only change.
		var stored analysis.Definition
		_ = json.Unmarshal(snap.Definition, &stored)
		if added := changedAudits(p.analysis.Project, m, stored); len(added) > 0 {
			p.newAudits[m.Name] = added
			mp.Explain = append(mp.Explain, "new or changed audit(s) "+strings.Join(added, ", ")+" run on the existing data before promotion")
		}
	}
}

// takeOver decides what a moved model (the environment points at prev,
// another version; havePrev false: the store lacks it) takes over from its previous version: an SCD_TYPE_2
// model keeps its history (history), any other the previous table where
// forward-only or physics reuse allows (inheritance); an SCD_TYPE_2 model
// that moves to another history table rebuilds its history (noteRebuild).
// It reports whether an SCD_TYPE_2 history is kept.
func (p *Plan) takeOver(ctx context.Context, st state.Reader, mp *ModelPlan, info *analysis.ModelInfo, snap state.Snapshot, known bool, prev state.Snapshot, havePrev bool, cfg planConfig, seen lineage) (bool, error) {
	m := info.Model
	scdKept := false
	if m.Kind.Name == project.KindSCDType2 {
		var err error
		if scdKept, err = p.history(ctx, st, mp, info, snap, known, prev, havePrev, cfg); err != nil {
			return false, err
		}
	}
	if !scdKept {
		if err := p.inheritance(ctx, st, mp, info, prev, havePrev, seen.changed, seen.keeps, cfg.forwardOnly); err != nil {
			return false, err
		}
	}
	if havePrev && m.Kind.Name == project.KindSCDType2 && prev.Built() && mp.PhysicalTable != prev.PhysicalTable && mp.CopiesHistoryFrom == "" {
		mp.History = p.rebuildHistory(m.Name, snap, known, prev, cfg.rebuild[m.Name], &mp.Explain)
	}
	return scdKept, nil
}

// rebuildHistory is the History of an SCD_TYPE_2 line that moves to
// another history table than prev's: the versions there are not carried
// over. Without the operator's confirmation (confirmed:
// --rebuild-history) Apply refuses it (p.unconfirmed); explain says why.
func (p *Plan) rebuildHistory(name string, snap state.Snapshot, known bool, prev state.Snapshot, confirmed bool, explain *[]string) History {
	switch {
	case confirmed:
		*explain = append(*explain, "rebuilds its history (--rebuild-history): the versions in "+prev.PhysicalTable+" are not carried over")
	case known && snap.Built():
		// Another environment built (and merged into) the new
		// version's own table already; --forward-only cannot
		// take this environment's table there.
		p.unconfirmed = append(p.unconfirmed, name)
		*explain = append(*explain, "would move to the history "+snap.PhysicalTable+" another environment built: what "+prev.PhysicalTable+" gained since that was made is not carried over; apply needs --rebuild-history "+name)
	default:
		p.unconfirmed = append(p.unconfirmed, name)
		*explain = append(*explain, "would rebuild its history: the versions in "+prev.PhysicalTable+" are not carried over; apply needs --rebuild-history "+name+" (or --forward-only "+name+" to keep the history)")
	}
	return History{RebuildsHistory: true}
}

// removedLines adds a line for every model the environment points at that
// the project no longer has, sorted by name.
func (p *Plan) removedLines(snaps map[string]state.Snapshot) {
	var removed []string
	for name := range p.current {
		if p.analysis.Models[name] == nil {
			removed = append(removed, name)
		}
	}
	sort.Strings(removed)
	for _, name := range removed {
		p.HasChanges = true
		mp := ModelPlan{Name: name, Change: Removed, Previous: p.current[name].Fingerprint,
			Incremental: Incremental{Backfill: []analysis.Range{}}, Explain: []string{}}
		if prev, ok := snaps[mp.Previous]; ok {
			mp.Kind = prev.Kind
			if project.KindName(prev.Kind) == project.KindExternal {
				var def analysis.Definition
				_ = json.Unmarshal(prev.Definition, &def)
				p.removedExternal[name] = def
			}
		}
		p.Models = append(p.Models, mp)
	}
}

// checkSources checks that what EXTERNAL models read is there: files
// always, tables when the warehouse is checked (WithWarehouse), with the
// store's relations against the warehouse's (presence.go). Problems stop
// the plan, sorted.
func (p *Plan) checkSources(ctx context.Context, st state.Reader, cfg planConfig) error {
	// The files are described where the build reads them: the warehouse,
	// else (none yet) the workbench.
	var reader any = cfg.workbench
	if _, ok := cfg.warehouse.(engine.FileReader); ok && cfg.warehouse != nil {
		reader = cfg.warehouse
	}
	problems := p.checkSourceFiles(ctx, reader)
	if cfg.checkWarehouse {
		cat := cfg.catalog
		if cat == nil {
			var err error
			if cat, err = catalogOf(cfg.warehouse); err != nil {
				return err
			}
		}
		ds, err := p.checkWarehouse(ctx, st, cat)
		if err != nil {
			return err
		}
		problems = append(ds, problems...)
		// An environment the store does not know: is the warehouse
		// serving it all the same (a state store deleted)?
		if cfg.warehouse != nil && len(p.current) == 0 {
			u, err := findUnrecorded(ctx, cfg.warehouse, st, p.analysis)
			if err != nil {
				return err
			}
			if u != nil {
				p.Unrecorded = u
				p.Warnings = append(p.Warnings, Warning{Code: CodeUnrecorded, Message: u.text()})
			}
		}
	}
	if len(problems) > 0 {
		project.SortDiagnostics(problems)
		return &ProblemsError{Diagnostics: problems}
	}
	return nil
}

// checkBackfillLimit refuses a plan that computes more intervals than
// limit (0: no limit), naming the models with a backfill, the largest
// first.
func (p *Plan) checkBackfillLimit(limit int) error {
	if limit <= 0 || p.Intervals() <= limit {
		return nil
	}
	e := &LargeBackfillError{Intervals: p.Intervals(), Limit: limit}
	for _, m := range p.Models {
		if m.Intervals > 0 {
			e.Models = append(e.Models, m)
		}
	}
	sort.SliceStable(e.Models, func(i, j int) bool { return e.Models[i].Intervals > e.Models[j].Intervals })
	return e
}

// changedMacros names the macro calls of m whose expansion is not in the
// body it had before (prev, expanded): the macros whose change moved it.
func changedMacros(m *project.Model, prev string) []string {
	if m.Expansion == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range m.Expansion.Calls {
		if c.Def == nil || seen[c.Name] || c.OutEnd <= c.OutStart || c.OutEnd > len(m.Source) {
			continue
		}
		if !strings.Contains(prev, strings.TrimSpace(string(m.Source[c.OutStart:c.OutEnd]))) {
			seen[c.Name] = true
			out = append(out, fmt.Sprintf("the expansion of @%s (%s:%d) changed", c.Def.Name, c.Def.File,
				project.RangeAt(c.Def.Src, c.Def.NameStart, c.Def.NameEnd).Start.Line))
		}
	}
	return out
}
