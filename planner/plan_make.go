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
func MakePlan(ctx context.Context, a *analysis.Analysis, st state.Reader, env string, opts ...PlanOption) (*Plan, error) {
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
	cfg := planConfigOf(opts)
	if a != base && cfg.workbench != nil {
		ds, err := analysis.CheckRedacted(ctx, a, base, cfg.workbench, env)
		if err != nil {
			return nil, err
		}
		if project.HasErrors(ds) {
			return nil, &ProblemsError{Diagnostics: ds}
		}
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
	cur := e.Pointers
	// Heads (no canonical form) of every snapshot concerned; the full
	// snapshot only of what a moved model was, to categorize its change.
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
	// The same refusal for a store that cannot list its versions.
	for _, s := range snaps {
		if s.FingerprintVersion != analysis.FingerprintVersion {
			return nil, &analysis.FingerprintVersionError{Have: s.FingerprintVersion, Want: analysis.FingerprintVersion,
				What: s.Fingerprint[:min(8, len(s.Fingerprint))] + " of " + s.Name}
		}
	}

	p := &Plan{Env: env, analysis: a, current: cur, stored: map[string]bool{}, physFP: map[string]string{}, reuse: map[string]string{},
		copyHistory: map[string]string{}, storedTable: map[string]string{}, newAudits: map[string][]string{}, redefined: map[string]bool{}, removedExternal: map[string]analysis.Definition{}}
	for fp := range snaps {
		p.stored[fp] = true
	}
	for name := range cfg.forwardOnly {
		if a.Models[name] == nil {
			return nil, &UnknownModelError{Option: OptionForwardOnly, Name: name, Suggestion: nearModel(name, a.Models)}
		}
	}
	if p.restated, p.refills, err = restateRanges(a, cfg.restate); err != nil {
		return nil, err
	}
	for name := range cfg.rebuild {
		if a.Models[name] == nil {
			return nil, &UnknownModelError{Option: OptionRebuildHistory, Name: name, Suggestion: nearModel(name, a.Models)}
		}
		if k := a.Models[name].Model.Kind.Name; k != project.KindSCDType2 {
			return nil, &OptionError{Option: OptionRebuildHistory, Model: name, Reason: fmt.Sprintf("only SCD_TYPE_2 models keep a history (it is %s)", k)}
		}
	}
	for name := range cfg.reclassify {
		if a.Models[name] == nil {
			return nil, &UnknownModelError{Option: OptionReclassify, Name: name, Suggestion: nearModel(name, a.Models)}
		}
	}
	changed := map[string]bool{}
	// keeps: the model's data in its existing columns is what the
	// environment serves now (unchanged, non-breaking, forward-only or
	// reusing): children moved only by such parents can keep their tables.
	keeps := map[string]bool{}
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
		m := info.Model // a redacted environment's variant (redact.go)
		if len(info.Fingerprint) < 8 {
			// The checker marks such a model broken and reports why; a
			// plan must never get here, but says so instead of failing worse.
			return nil, fmt.Errorf("%s has no fingerprint although the check reported no problem; this is a bug in efmesh, please report it with the model", m.Name)
		}
		mp := ModelPlan{Name: m.Name, Kind: string(m.Kind.Name), Fingerprint: info.Fingerprint, Backfill: [][]string{}, Explain: []string{}}
		virtual := m.Kind.Name.Virtual()
		if !virtual {
			mp.PhysicalTable = analysis.PhysicalRelation(a.Dialect(), m, info.Fingerprint).String()
		}
		snap, known := snaps[info.Fingerprint]
		mp.Build = !virtual && (!known || !snap.Built())
		if known && !virtual {
			if snap.Built() {
				p.storedTable[m.Name] = snap.PhysicalTable
			}
			if f := FingerprintPrefix(snap.PhysicalTable); f != "" && f != info.Fingerprint[:8] {
				p.physFP[m.Name] = f
				mp.PhysicalTable = analysis.PhysicalRelation(a.Dialect(), m, f).String()
			}
		}
		ptr, inEnv := cur[m.Name]
		switch {
		case !inEnv:
			mp.Change = Added
		case ptr.Fingerprint == info.Fingerprint:
			mp.Change = Unchanged
			if known && !analysis.SameDefinition(snap.Definition, a.Project, info) {
				var stored analysis.Definition
				_ = json.Unmarshal(snap.Definition, &stored)
				now := analysis.DefinitionIn(a.Project, m)
				if stored.AuditSources == nil && now.AuditSources != nil {
					p.unrecorded = append(p.unrecorded, m.Name)
				}
				if what := analysis.MetadataChanges(stored, now); len(what) > 0 {
					mp.Change = MetadataOnly
					mp.Explain = append(mp.Explain, "changed outside the fingerprint: "+strings.Join(what, ", ")+"; nothing is rebuilt")
					if added := changedAudits(a.Project, m, stored); len(added) > 0 {
						p.newAudits[m.Name] = added
						mp.Explain = append(mp.Explain, "new or changed audit(s) "+strings.Join(added, ", ")+" run on the existing data before promotion")
					}
				}
			}
		default:
			mp.Previous = ptr.Fingerprint
			prev, ok := snaps[ptr.Fingerprint]
			if ok && prev.OwnHash == info.OwnHash {
				mp.Change = Indirect
				for parent := range info.Parents {
					if changed[parent] {
						mp.Cause = append(mp.Cause, parent)
					}
				}
				sort.Strings(mp.Cause)
				mp.Explain = append(mp.Explain, "own definition unchanged; moved by changed parent(s)")
			} else if ok {
				var prevDef analysis.Definition
				_ = json.Unmarshal(prev.Definition, &prevDef)
				v := judge(a, info, prevDef, prev.Canonical)
				mp.Change = v.change
				mp.Explain = append(append(append(mp.Explain, v.paths...), v.reason), v.children...)
				mp.Paths = v.paths
				mp.Rebinds = v.children
				mp.Diff = analysis.ClauseDiff(prevDef.Body, m.Body)
				mp.Explain = append(mp.Explain, changedMacros(m, prevDef.Body)...)
				if verdict, ok := cfg.reclassify[m.Name]; ok && verdict != v.change {
					if verdict == NonBreaking && v.dropsColumns {
						return nil, &ReclassifyError{Model: m.Name, Reason: "the change drops or reorders existing columns (" + strings.Join(v.paths, ", ") + ")"}
					}
					if verdict == NonBreaking && len(v.children) > 0 {
						// Inherited children would keep serving what their
						// queries no longer return.
						return nil, &ReclassifyError{Model: m.Name, Reason: "children would read it differently (" + strings.Join(v.children, "; ") + ")"}
					}
					mp.ReclassifiedFrom = v.change
					mp.Change = verdict
					mp.Explain = append(mp.Explain, fmt.Sprintf("reclassified %s by the operator (the AST said %s)", verdict, v.change))
				}
			} else {
				mp.Change = Breaking
				mp.Explain = append(mp.Explain, "the previous snapshot is not in the state store")
			}
		}
		if known && mp.Change != Unchanged && mp.Change != MetadataOnly && !analysis.SameDefinition(snap.Definition, a.Project, info) {
			// The store holds this version already (another environment
			// promoted it, or a failed apply kept its computed intervals),
			// recorded with other metadata than the project's now: apply
			// records the project's, else the next plan shows a
			// metadata-only change nothing made.
			p.redefined[m.Name] = true
			if !mp.Build && !virtual && snap.Built() {
				// Nothing builds it: new or changed audits run on the data
				// it holds, as for a metadata-only change.
				var stored analysis.Definition
				_ = json.Unmarshal(snap.Definition, &stored)
				if added := changedAudits(a.Project, m, stored); len(added) > 0 {
					p.newAudits[m.Name] = added
					mp.Explain = append(mp.Explain, "new or changed audit(s) "+strings.Join(added, ", ")+" run on the existing data before promotion")
				}
			}
		}
		scdKept := false // an SCD_TYPE_2 history kept through an upstream change
		if inEnv && ptr.Fingerprint != info.Fingerprint {
			prev, ok := snaps[ptr.Fingerprint]
			if m.Kind.Name == project.KindSCDType2 {
				var err error
				if scdKept, err = p.history(ctx, st, &mp, info, snap, known, prev, ok, cfg); err != nil {
					return nil, err
				}
			}
			if !scdKept {
				if err := p.inheritance(ctx, st, &mp, info, prev, ok, changed, keeps, cfg.forwardOnly); err != nil {
					return nil, err
				}
			}
			if ok && m.Kind.Name == project.KindSCDType2 && prev.Built() && mp.PhysicalTable != prev.PhysicalTable && mp.CopiesHistoryFrom == "" {
				mp.RebuildsHistory = true
				if cfg.rebuild[m.Name] {
					mp.Explain = append(mp.Explain, "rebuilds its history (--rebuild-history): the versions in "+prev.PhysicalTable+" are not carried over")
				} else if known && snap.Built() {
					// Another environment built (and merged into) the new
					// version's own table already; --forward-only cannot
					// take this environment's table there.
					p.unconfirmed = append(p.unconfirmed, m.Name)
					mp.Explain = append(mp.Explain, "would move to the history "+snap.PhysicalTable+" another environment built: what "+prev.PhysicalTable+" gained since that was made is not carried over; apply needs --rebuild-history "+m.Name)
				} else {
					p.unconfirmed = append(p.unconfirmed, m.Name)
					mp.Explain = append(mp.Explain, "would rebuild its history: the versions in "+prev.PhysicalTable+" are not carried over; apply needs --rebuild-history "+m.Name+" (or --forward-only "+m.Name+" to keep the history)")
				}
			}
		}
		if cfg.rebuild[m.Name] && !mp.RebuildsHistory {
			return nil, &OptionError{Option: OptionRebuildHistory, Model: m.Name, Reason: fmt.Sprintf("the plan keeps no history of it to rebuild (it is %s in %s)", mp.Change, env)}
		}
		if mp.Change == Unchanged || mp.Change == MetadataOnly || mp.Change == NonBreaking || mp.Change == ForwardOnly && !scdKept || mp.ReusedFrom != "" && !scdKept {
			keeps[m.Name] = true
		}
		if scdKept {
			// The merge at apply changes the kept table when a parent's
			// data changed: its children keep their tables only if every
			// changed parent does.
			all := true
			for _, c := range mp.Cause {
				all = all && keeps[c]
			}
			keeps[m.Name] = all
		}
		if mp.Change != Unchanged {
			changed[m.Name] = true
		}
		if mp.Change != Unchanged || mp.Build {
			p.HasChanges = true
		}
		p.Models = append(p.Models, mp)
	}
	var removed []string
	for name := range cur {
		if a.Models[name] == nil {
			removed = append(removed, name)
		}
	}
	sort.Strings(removed)
	for _, name := range removed {
		p.HasChanges = true
		mp := ModelPlan{Name: name, Change: Removed, Previous: cur[name].Fingerprint, Backfill: [][]string{}, Explain: []string{}}
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
	// What EXTERNAL models read must be there: files always, tables when
	// the warehouse is checked.
	// The files are described where the build reads them: the warehouse,
	// else (none yet) the workbench.
	var reader any = cfg.workbench
	if _, ok := cfg.warehouse.(engine.FileReader); ok && cfg.warehouse != nil {
		reader = cfg.warehouse
	}
	sourceProblems := p.checkSourceFiles(ctx, reader)
	if cfg.checkWarehouse {
		cat := cfg.catalog
		if cat == nil {
			var err error
			if cat, err = catalogOf(cfg.warehouse); err != nil {
				return nil, err
			}
		}
		ds, err := p.checkWarehouse(ctx, st, cat)
		if err != nil {
			return nil, err
		}
		sourceProblems = append(ds, sourceProblems...)
		// An environment the store does not know: is the warehouse
		// serving it all the same (a state store deleted)?
		if cfg.warehouse != nil && len(cur) == 0 {
			u, err := findUnrecorded(ctx, cfg.warehouse, st, a)
			if err != nil {
				return nil, err
			}
			if u != nil {
				p.Unrecorded = u
				p.Warnings = append(p.Warnings, Warning{Code: CodeUnrecorded, Message: u.text()})
			}
		}
	}
	if len(sourceProblems) > 0 {
		project.SortDiagnostics(sourceProblems)
		return nil, &ProblemsError{Diagnostics: sourceProblems}
	}
	if err := p.resolvePreview(ctx, st, cfg.preview); err != nil {
		return nil, err
	}
	if err := p.fillBackfill(ctx, st, cfg.now); err != nil {
		return nil, err
	}
	p.fillRefills()
	p.refillCompleted(p.previewChanged)
	if cfg.backfillLimit > 0 && p.Intervals() > cfg.backfillLimit {
		e := &LargeBackfillError{Intervals: p.Intervals(), Limit: cfg.backfillLimit}
		for _, m := range p.Models {
			if m.Intervals > 0 {
				e.Models = append(e.Models, m)
			}
		}
		sort.SliceStable(e.Models, func(i, j int) bool { return e.Models[i].Intervals > e.Models[j].Intervals })
		return nil, e
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
