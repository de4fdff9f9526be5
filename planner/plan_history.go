package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// inheritance decides whether a changed model takes over its previous
// snapshot's physical relation and done intervals instead of rebuilding:
//
//   - forward-only (asked for, or every changed parent is forward-only and
//     the model's own definition is unchanged): incremental-by-time-range
//     models only; new columns are added to the old table, history is not
//     recomputed;
//   - indirect physics reuse: the model's own definition is unchanged, its
//     fingerprint recomputed with its parents' old fingerprints reproduces
//     the old one, its inferred schema is unchanged, and every changed
//     parent keeps the data of its existing columns.
func (p *Plan) inheritance(ctx context.Context, st state.Reader, mp *ModelPlan, info *analysis.ModelInfo, prev state.Snapshot, havePrev bool, changed, keeps, forwardOnly map[string]bool) error {
	m := info.Model
	if !havePrev || !prev.Built() {
		return nil
	}
	var prevDef analysis.Definition
	_ = json.Unmarshal(prev.Definition, &prevDef)
	prevPhys := FingerprintPrefix(prev.PhysicalTable)
	if prevPhys == "" {
		return nil
	}
	cascade := mp.Change == Indirect && len(mp.Cause) > 0
	for _, c := range mp.Cause {
		pc := p.changeOf(c)
		cascade = cascade && pc == ForwardOnly
	}
	if forwardOnly[m.Name] || cascade {
		if m.Kind.Name != project.KindIncrementalByTimeRange {
			if forwardOnly[m.Name] {
				return &OptionError{Option: OptionForwardOnly, Model: m.Name, Reason: fmt.Sprintf("only INCREMENTAL_BY_TIME_RANGE models can change without recomputing history (it is %s)", m.Kind.Name)}
			}
		} else {
			if dropped := droppedColumns(prevDef, info); len(dropped) > 0 {
				return &OptionError{Option: OptionForwardOnly, Model: m.Name,
					Reason: fmt.Sprintf("column(s) %s would be dropped, which an inherited table cannot express; make a breaking change instead", strings.Join(dropped, ", "))}
			}
			added, retyped, refused := p.columnMigration(prevDef, info)
			if len(refused) > 0 {
				return &OptionError{Option: OptionForwardOnly, Model: m.Name,
					Reason: fmt.Sprintf("column(s) %s change type, which the inherited table cannot take without converting its history (%s widens none of them losslessly); "+
						"make a breaking change instead: plan without --forward-only %s, and the table is rebuilt with the new types",
						strings.Join(refused, ", "), p.analysis.Dialect().Name(), m.Name)}
			}
			mp.AddsColumns, mp.Retyped = added, retyped
			if mp.ReclassifiedFrom == "" {
				mp.ReclassifiedFrom = mp.Change
			}
			mp.Change = ForwardOnly
			p.adopt(mp, m, prev, prevPhys)
			mp.Explain = append(mp.Explain, "forward-only: inherits "+mp.PhysicalTable+" and its done intervals; new columns are added, history is not recomputed")
			if len(added) > 0 {
				mp.Explain = append(mp.Explain, "forward-only: adds column(s) "+strings.Join(added, ", ")+" (NULL in history)")
			}
			for _, r := range retyped {
				mp.Explain = append(mp.Explain, "forward-only: widens column "+r.String()+" in place; history keeps its values")
			}
			// The table stays shared: every other environment serving it
			// sees what this apply writes there (rows, columns, types).
			elsewhere, err := p.servedElsewhere(ctx, st)
			if err != nil {
				return err
			}
			if envs := elsewhere[prev.PhysicalTable]; len(envs) > 0 {
				mp.SharedWith = slices.Clone(envs)
				mp.Explain = append(mp.Explain, "forward-only: "+SharedText(*mp))
			}
			return nil
		}
	}
	if mp.Change != Indirect || !m.Kind.Name.Materialized() || m.Kind.Name == project.KindSeed {
		return nil
	}
	if analysis.FingerprintOf(info.OwnHash, prev.Parents) != prev.Fingerprint {
		return nil
	}
	if prevDef.Schema != nil && info.Inferred != nil && !analysis.SameColumns(prevDef.Schema, info.Inferred) {
		mp.Explain = append(mp.Explain, "rebuilt: its output columns changed")
		return nil
	}
	for _, c := range mp.Cause {
		if !keeps[c] {
			return nil
		}
	}
	p.adopt(mp, m, prev, prevPhys)
	mp.Explain = append(mp.Explain, "reuses "+mp.PhysicalTable+": every changed parent keeps the data of its existing columns")
	return nil
}

// SharedText says what the other environments serving a forward-only
// model's inherited table (ModelPlan.SharedWith) will see after apply.
func SharedText(mp ModelPlan) string {
	envs := mp.SharedWith
	verb := "serves"
	if len(envs) > 1 {
		verb = "serve"
	}
	list := strings.Join(envs, ", ")
	if n := len(envs); n > 1 {
		list = strings.Join(envs[:n-1], ", ") + " and " + envs[n-1]
	}
	if mp.Differs {
		return fmt.Sprintf("%s %s the same snapshot: the table is rebuilt for %s too", list, verb, list)
	}
	see := []string{"the rows of the intervals computed from now on"}
	if len(mp.AddsColumns) > 0 {
		see = append(see, "the new column(s) "+strings.Join(mp.AddsColumns, ", "))
	}
	if len(mp.Retyped) > 0 {
		var rs []string
		for _, r := range mp.Retyped {
			rs = append(rs, r.String())
		}
		see = append(see, "the widened column(s) "+strings.Join(rs, ", "))
	}
	return fmt.Sprintf("%s %s %s too: they will see %s", list, verb, mp.PhysicalTable, strings.Join(see, ", "))
}

// fillRefills marks the FULL descendants of the restated models that the
// plan does not build anyway: apply refills them after the recomputed
// ranges, so they stop serving sums of the rows the restate replaced.
func (p *Plan) fillRefills() {
	for i := range p.Models {
		mp := &p.Models[i]
		via, ok := p.refills[mp.Name]
		if !ok || mp.Change == Removed || mp.Build {
			continue
		}
		mp.Refill, mp.RefillWhy = via, RefillRestated
		mp.Explain = append(mp.Explain, "restated: refilled after "+strings.Join(via, ", ")+", whose recomputed range(s) it reads")
		p.HasChanges = true
	}
}

// refilled is the set of models the plan refills (ModelPlan.Refill).
func (p *Plan) refilled() map[string]bool {
	out := map[string]bool{}
	for _, mp := range p.Models {
		if len(mp.Refill) > 0 {
			out[mp.Name] = true
		}
	}
	return out
}

// adopt points the plan line at the previous snapshot's physical relation.
func (p *Plan) adopt(mp *ModelPlan, m *project.Model, prev state.Snapshot, prevPhys string) {
	mp.ReusedFrom = prev.Fingerprint
	mp.Build = false
	mp.PhysicalTable = analysis.PhysicalRelation(p.analysis.Dialect(), m, prevPhys).String()
	p.physFP[m.Name] = prevPhys
	p.reuse[m.Name] = prev.Fingerprint
	p.storedTable[m.Name] = prev.PhysicalTable
}

func (p *Plan) changeOf(name string) Change {
	for _, mp := range p.Models {
		if mp.Name == name {
			return mp.Change
		}
	}
	return Unchanged
}

// droppedColumns lists the previous version's columns the new one lacks.
func droppedColumns(prev analysis.Definition, info *analysis.ModelInfo) []string {
	old := prev.Schema
	if prev.Columns != nil {
		old = old[:0:0]
		for _, c := range prev.Columns {
			old = append(old, engine.Column{Name: c.Name, Type: c.Type})
		}
	}
	now := info.Columns
	if now == nil {
		now = info.Inferred
	}
	if old == nil || now == nil {
		return nil
	}
	have := map[string]bool{}
	for _, c := range now {
		have[strings.ToLower(c.Name)] = true
	}
	var out []string
	for _, c := range old {
		if !have[strings.ToLower(c.Name)] {
			out = append(out, c.Name)
		}
	}
	return out
}

// columnMigration compares a forward-only model's previous columns (as
// declared, or as inferred) with its new ones: the columns to add, those
// whose type the engine widens in place (engine.Widener), and those whose
// type changes any other way ("mx INTEGER → TEXT"), which the inherited
// table cannot take.
func (p *Plan) columnMigration(prev analysis.Definition, info *analysis.ModelInfo) (added []string, retyped []Retype, refused []string) {
	old, now := previousColumns(prev), info.Columns
	if now == nil {
		now = info.Inferred
	}
	if old == nil || now == nil {
		return nil, nil, nil
	}
	d := p.analysis.Dialect()
	w, _ := d.(engine.Widener)
	had := map[string]engine.Column{}
	for _, c := range old {
		had[strings.ToLower(c.Name)] = c
	}
	for _, c := range now {
		o, ok := had[strings.ToLower(c.Name)]
		switch {
		case !ok:
			added = append(added, c.Name)
		case sameTypeName(d, o.Type, c.Type):
		case w != nil && w.Widens(o.Type, c.Type):
			retyped = append(retyped, Retype{Column: c.Name, From: o.Type, To: c.Type})
		default:
			refused = append(refused, c.Name+" "+o.Type+" → "+c.Type)
		}
	}
	return added, retyped, refused
}

// previousColumns are the columns a previous snapshot's table holds: the
// declared ones, or else the inferred ones.
func previousColumns(prev analysis.Definition) []engine.Column {
	if prev.Columns == nil {
		return prev.Schema
	}
	out := make([]engine.Column, 0, len(prev.Columns))
	for _, c := range prev.Columns {
		out = append(out, engine.Column{Name: c.Name, Type: c.Type})
	}
	return out
}

// sameTypeName reports whether two type texts name one type by the
// engine's naming (INT is INTEGER on DuckDB); without the engine's
// naming, whether they are spelled alike.
func sameTypeName(d engine.Dialect, a, b string) bool {
	if sc, ok := d.(engine.Scratch); ok {
		return sc.ReportedType(a) == sc.ReportedType(b)
	}
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// changedAudits lists the audits of m (as written) that its stored
// definition lacks, or whose custom audit file's SQL differs from the one
// stored: apply runs them on the data the snapshot already holds.
func changedAudits(p *project.Project, m *project.Model, stored analysis.Definition) []string {
	now := analysis.DefinitionIn(p, m)
	out := newAudits(stored.Audits, now.Audits)
	if stored.AuditSources == nil {
		return out // recorded before efmesh kept audit files: unknown
	}
	edited := map[string]bool{}
	for _, nb := range now.AuditSources {
		for _, na := range stored.AuditSources {
			if na.Name == nb.Name && na.SQL != nb.SQL {
				edited[nb.Name] = true
			}
		}
	}
	for _, au := range ModelAudits(p, m) {
		if au.custom != nil && edited[au.custom.Name] && !slices.Contains(out, au.Text) {
			out = append(out, au.Text)
		}
	}
	return out
}

// newAudits lists the audits of now (as written) that were not among old.
func newAudits(old, now []string) []string {
	had := make(map[string]bool, len(old))
	for _, a := range old {
		had[a] = true
	}
	var out []string
	for _, a := range now {
		if !had[a] {
			out = append(out, a)
		}
	}
	return out
}

// history decides how an SCD_TYPE_2 model whose version moved keeps its
// history. Its table is the record of every version seen so far, which no
// rebuild can recompute: unless the operator asks for a rebuild
// (WithRebuildHistory), the new version keeps the previous history —
// forward-only: new columns are added, versions are merged from now on —
// when its own definition is unchanged (an upstream change) or when
// --forward-only names it. It reports whether the history is kept; when
// not, the model builds a new table and the plan says it rebuilds history.
//
// An apply never changes what another environment serves: the new version
// takes over the previous table only when no other environment reads it;
// otherwise its own table starts as a copy of the previous history
// (CopiesHistoryFrom) and the merges go there. A new version already built
// (by another environment's apply) keeps its own table: taking over the
// previous one would move that environment's history too.
func (p *Plan) history(ctx context.Context, st state.Reader, mp *ModelPlan, info *analysis.ModelInfo, snap state.Snapshot, known bool, prev state.Snapshot, havePrev bool, cfg planConfig) (bool, error) {
	m := info.Model
	if cfg.rebuild[m.Name] || !havePrev || !prev.Built() {
		return false, nil
	}
	prevPhys := FingerprintPrefix(prev.PhysicalTable)
	if prevPhys == "" || mp.Change != Indirect && !cfg.forwardOnly[m.Name] {
		return false, nil
	}
	if known && snap.Built() && snap.PhysicalTable != prev.PhysicalTable {
		mp.Explain = append(mp.Explain, "its new version is already built in "+snap.PhysicalTable+" (another environment's apply), which the environment moves to")
		return false, nil
	}
	var prevDef analysis.Definition
	_ = json.Unmarshal(prev.Definition, &prevDef)
	if dropped := droppedColumns(prevDef, info); len(dropped) > 0 {
		if cfg.forwardOnly[m.Name] {
			return false, &OptionError{Option: OptionForwardOnly, Model: m.Name,
				Reason:  fmt.Sprintf("column(s) %s would be dropped, which the history table cannot express", strings.Join(dropped, ", ")),
				Instead: "rebuild its history instead", InsteadOption: OptionRebuildHistory}
		}
		mp.Explain = append(mp.Explain, "its output drops column(s) "+strings.Join(dropped, ", ")+", which the history table cannot express")
		return false, nil
	}
	elsewhere, err := p.servedElsewhere(ctx, st)
	if err != nil {
		return false, err
	}
	if mp.ReclassifiedFrom == "" {
		mp.ReclassifiedFrom = mp.Change
	}
	mp.Change = ForwardOnly
	if envs := elsewhere[prev.PhysicalTable]; len(envs) > 0 && !(known && snap.Built()) {
		mp.CopiesHistoryFrom = prev.PhysicalTable
		p.copyHistory[m.Name] = prevPhys
		delete(p.physFP, m.Name)
		mp.PhysicalTable = analysis.PhysicalRelation(p.analysis.Dialect(), m, info.Fingerprint).String()
		mp.Build = true
		mp.Explain = append(mp.Explain, "forward-only: SCD_TYPE_2 keeps its history: "+mp.PhysicalTable+" starts as a copy of "+prev.PhysicalTable+
			", which "+strings.Join(envs, ", ")+" also serve(s) and which stays as it is; new columns are added, versions are merged from now on")
		return true, nil
	}
	p.adopt(mp, m, prev, prevPhys)
	mp.Explain = append(mp.Explain, "forward-only: SCD_TYPE_2 keeps its history in "+mp.PhysicalTable+"; new columns are added, versions are merged from now on")
	return true, nil
}

// servedElsewhere maps every physical table an environment other than the
// plan's serves to those environments (sorted), read once per plan.
func (p *Plan) servedElsewhere(ctx context.Context, st state.Reader) (map[string][]string, error) {
	if p.elsewhere != nil {
		return p.elsewhere, nil
	}
	envs, err := st.Environments(ctx)
	if err != nil {
		return nil, err
	}
	byFP := map[string][]string{}
	for _, env := range envs {
		if env == p.Env {
			continue
		}
		ptrs, err := st.Environment(ctx, env)
		if err != nil {
			return nil, err
		}
		for _, ptr := range ptrs {
			byFP[ptr.Fingerprint] = append(byFP[ptr.Fingerprint], env)
		}
	}
	heads, err := st.SnapshotHeads(ctx, slices.Collect(maps.Keys(byFP)))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for fp, s := range heads {
		if s.PhysicalTable != "" {
			out[s.PhysicalTable] = append(out[s.PhysicalTable], byFP[fp]...)
		}
	}
	for t, envs := range out {
		slices.Sort(envs)
		out[t] = slices.Compact(envs)
	}
	p.elsewhere = out
	return out, nil
}
