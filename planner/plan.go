package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// Change is the category of a model in a plan.
type Change string

const (
	Added        Change = "added"
	Breaking     Change = "breaking"
	NonBreaking  Change = "non-breaking"
	Indirect     Change = "indirect"
	ForwardOnly  Change = "forward-only"
	MetadataOnly Change = "metadata-only"
	Removed      Change = "removed"
	Unchanged    Change = "unchanged"
)

// ModelPlan is one model's line in a plan.
type ModelPlan struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Change      Change `json:"change"`
	Fingerprint string `json:"fingerprint"`
	// Previous is the fingerprint the environment points at now.
	Previous string `json:"previous,omitempty"`
	// Build is true when the snapshot's physical relation must be built;
	// false when an existing one is reused (promotion only).
	Build         bool       `json:"build"`
	PhysicalTable string     `json:"physicalTable,omitempty"`
	Backfill      [][]string `json:"backfill"`
	// Intervals counts the intervals of Backfill (day or hour each).
	Intervals int `json:"intervals,omitempty"`
	// Cause names the changed ancestors that moved an indirect change.
	Cause   []string `json:"cause,omitempty"`
	Explain []string `json:"explain"`
	// ReusedFrom is the snapshot whose physical relation and done
	// intervals this one takes over (physics reuse, forward-only).
	ReusedFrom string `json:"reusedFrom,omitempty"`
	// ReclassifiedFrom is the category the AST gave before the operator's
	// --reclassify verdict.
	ReclassifiedFrom Change `json:"reclassifiedFrom,omitempty"`
	// Warnings are findings that do not stop the plan (window-over-batch).
	Warnings []Warning `json:"warnings,omitempty"`
	// RebuildsHistory is set on an SCD_TYPE_2 model whose environment
	// moves to another history table: the versions accumulated so far are
	// not carried over. Apply needs the operator's --rebuild-history.
	RebuildsHistory bool `json:"rebuildsHistory,omitempty"`
	// CopiesHistoryFrom is set on an SCD_TYPE_2 model that keeps its
	// history while another environment serves the previous history table:
	// the new snapshot's table (Build) starts as a copy of that one, and
	// versions are merged there, never into the table the other reads.
	CopiesHistoryFrom string `json:"copiesHistoryFrom,omitempty"`
	// Refill lists the restated models (WithRestate) a FULL model reads
	// through its ancestors: apply refills its existing table after them.
	Refill []string `json:"refill,omitempty"`
	// Redacted lists the columns the environment's physics of the model
	// leaves out (a redacted environment; redact.go).
	Redacted []string `json:"redacted,omitempty"`
	// Missing is true when the store trusts a relation of the model that
	// the warehouse lacks (presence.go): its physical relation (then Build
	// is true) or the environment's view; Reason says which.
	Missing bool   `json:"missing,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// StaleView is the view an earlier efmesh made for this EXTERNAL model
	// in the environment (this one reads it in place), which apply drops
	// (presence.go finds it; promote.go drops it).
	StaleView string `json:"staleView,omitempty"`
}

// Plan is the difference between the project and an environment.
type Plan struct {
	Env        string      `json:"env"`
	HasChanges bool        `json:"hasChanges"`
	Models     []ModelPlan `json:"models"`

	analysis *Analysis
	current  map[string]state.Pointer
	stored   map[string]bool // fingerprints the store already holds
	// physFP maps a model to the fingerprint naming its physical relation
	// where that is not its own (an inherited table).
	physFP map[string]string
	// reuse maps a model to the previous snapshot it inherits from.
	reuse map[string]string
	// storedTable maps a model whose line uses a relation the store says
	// is built to that snapshot's physical table as stored: the name it
	// was built under, whatever naming (or identifier shortening) efmesh
	// uses now (presence.go checks it).
	storedTable map[string]string
	// unconfirmed lists the SCD_TYPE_2 models whose history the plan
	// rebuilds without WithRebuildHistory: Apply refuses it.
	unconfirmed []string
	// restated maps a model to the range the plan recomputes whatever its
	// ledger says (WithRestate).
	restated map[string]Range
	// refills maps a FULL descendant of a restated model to the restated
	// models it reads (ModelPlan.Refill).
	refills map[string][]string
	// newAudits lists, per metadata-only model, the audits (as written)
	// its stored definition lacks: apply runs them on the existing data.
	newAudits map[string][]string
	// removedExternal holds the definitions of the EXTERNAL models the
	// plan removes: their source must survive the removal (promote.go).
	removedExternal map[string]Definition
	// lost holds the fingerprints whose physical relation the store
	// trusts but the warehouse lacks: rebuilt from an empty ledger.
	lost map[string]bool
	// copyHistory maps an SCD_TYPE_2 model to the fingerprint naming the
	// history table its new table is initialised from (CopiesHistoryFrom).
	copyHistory map[string]string
	// elsewhere maps the physical tables the other environments serve to
	// those environments; loaded on first use (servedElsewhere).
	elsewhere map[string][]string
}

// physicalFP is the fingerprint naming a model's physical relation.
func (p *Plan) physicalFP(name, fp string) string {
	if f, ok := p.physFP[name]; ok {
		return f
	}
	return fp
}

// FingerprintPrefix reads the fingerprint prefix from a physical table name
// ("_efmesh.schema__table__1a2b3c4d").
func FingerprintPrefix(table string) string {
	if i := strings.LastIndex(table, "__"); i >= 0 && len(table)-i-2 == 8 {
		return table[i+2:]
	}
	return ""
}

// Analysis returns the analysis the plan was made from.
func (p *Plan) Analysis() *Analysis { return p.analysis }

// Counts tallies the models of each change.
func (p *Plan) Counts() map[Change]int {
	out := map[Change]int{}
	for _, m := range p.Models {
		out[m.Change]++
	}
	return out
}

// Promotes counts the models whose environment view the plan creates or
// repoints. Virtual models (EMBEDDED, EXTERNAL) have no view.
func (p *Plan) Promotes() int {
	n := 0
	for _, m := range p.Models {
		if m.Change != Removed && (m.Change != Unchanged || m.Missing) && !project.KindName(m.Kind).Virtual() {
			n++
		}
	}
	return n
}

// Builds counts the physical relations the plan builds.
func (p *Plan) Builds() int {
	n := 0
	for _, m := range p.Models {
		if m.Build {
			n++
		}
	}
	return n
}

// Intervals counts the intervals the plan computes, over all models.
func (p *Plan) Intervals() int {
	n := 0
	for _, m := range p.Models {
		n += m.Intervals
	}
	return n
}

// DefaultBackfillLimit is the largest backfill (in intervals, over all
// models) the CLI plans without a confirmation: more usually means a start
// that is wrong (0001-01-01 with hourly intervals is 17 million).
const DefaultBackfillLimit = 100_000

// LargeBackfillError is a plan that computes more intervals than its
// limit (WithBackfillLimit). Nothing was changed.
type LargeBackfillError struct {
	Intervals int
	Limit     int
	Models    []ModelPlan // the models with a backfill, the largest first
}

func (e *LargeBackfillError) Error() string {
	var parts []string
	for i, m := range e.Models {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more model(s)", len(e.Models)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s from %s", m.Name, Thousands(m.Intervals), m.Backfill[0][0]))
	}
	return fmt.Sprintf("the plan backfills %s intervals, more than %s (%s); check the start in efmesh.yaml or the MODEL header",
		Thousands(e.Intervals), Thousands(e.Limit), strings.Join(parts, ", "))
}

// Thousands writes n with thousands separators: 17,746,392.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// ProblemsError is returned when the project has errors; the plan cannot
// be made and nothing was changed.
type ProblemsError struct {
	Diagnostics []project.Diagnostic
}

func (e *ProblemsError) Error() string {
	n := 0
	for _, d := range e.Diagnostics {
		if d.Severity == project.SeverityError {
			n++
		}
	}
	return fmt.Sprintf("the project has %d error(s)", n)
}

// MakePlan diffs an analyzed project against env in the store and lists the
// missing intervals of incremental models as of now (PlanAt; default the
// current time). A project with errors yields a *ProblemsError.
func MakePlan(ctx context.Context, a *Analysis, st state.Reader, env string, opts ...PlanOption) (*Plan, error) {
	if err := ValidateEnv(env); err != nil {
		return nil, err
	}
	if a.Errors() {
		return nil, &ProblemsError{Diagnostics: a.Diagnostics}
	}
	base := a
	a, err := redactedVariant(a, env)
	if err != nil {
		return nil, err
	}
	cfg := planConfigOf(opts)
	if a != base && cfg.workbench != nil {
		ds, err := checkRedacted(ctx, a, base, cfg.workbench, env)
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
	if err := checkFingerprintVersions(ctx, st); err != nil {
		return nil, err
	}
	cur, err := st.Environment(ctx, env)
	if err != nil {
		return nil, err
	}
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
		if s.FingerprintVersion != FingerprintVersion {
			return nil, &FingerprintVersionError{Have: s.FingerprintVersion, Want: FingerprintVersion,
				What: s.Fingerprint[:min(8, len(s.Fingerprint))] + " of " + s.Name}
		}
	}

	p := &Plan{Env: env, analysis: a, current: cur, stored: map[string]bool{}, physFP: map[string]string{}, reuse: map[string]string{},
		copyHistory: map[string]string{}, storedTable: map[string]string{}, newAudits: map[string][]string{}, removedExternal: map[string]Definition{}}
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
			mp.PhysicalTable = PhysicalRelation(a.dialect, m, info.Fingerprint).String()
		}
		snap, known := snaps[info.Fingerprint]
		mp.Build = !virtual && (!known || !snap.Built())
		if known && !virtual {
			if snap.Built() {
				p.storedTable[m.Name] = snap.PhysicalTable
			}
			if f := FingerprintPrefix(snap.PhysicalTable); f != "" && f != info.Fingerprint[:8] {
				p.physFP[m.Name] = f
				mp.PhysicalTable = PhysicalRelation(a.dialect, m, f).String()
			}
		}
		ptr, inEnv := cur[m.Name]
		switch {
		case !inEnv:
			mp.Change = Added
		case ptr.Fingerprint == info.Fingerprint:
			mp.Change = Unchanged
			if known && !sameDefinition(snap.Definition, info) {
				var stored Definition
				_ = json.Unmarshal(snap.Definition, &stored)
				if what := metadataChanges(stored, definitionOf(m)); len(what) > 0 {
					mp.Change = MetadataOnly
					mp.Explain = append(mp.Explain, "changed outside the fingerprint: "+strings.Join(what, ", ")+"; nothing is rebuilt")
					if added := newAudits(stored.Audits, definitionOf(m).Audits); len(added) > 0 {
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
				var prevDef Definition
				_ = json.Unmarshal(prev.Definition, &prevDef)
				v := categorize(prevDef, definitionOf(m), prev.Canonical, info.Canonical, a.outliner)
				mp.Change = v.change
				mp.Explain = append(append(mp.Explain, v.paths...), v.reason)
				if verdict, ok := cfg.reclassify[m.Name]; ok && verdict != v.change {
					if verdict == NonBreaking && v.dropsColumns {
						return nil, &ReclassifyError{Model: m.Name, Reason: "the change drops or reorders existing columns (" + strings.Join(v.paths, ", ") + ")"}
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
				if err := p.inheritance(&mp, info, prev, ok, changed, keeps, cfg.forwardOnly); err != nil {
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
				var def Definition
				_ = json.Unmarshal(prev.Definition, &def)
				p.removedExternal[name] = def
			}
		}
		p.Models = append(p.Models, mp)
	}
	// What EXTERNAL models read must be there: files always, tables when
	// the warehouse is checked.
	sourceProblems := p.checkSourceFiles()
	if cfg.checkWarehouse {
		ds, err := p.checkWarehouse(ctx, st, cfg.warehouse)
		if err != nil {
			return nil, err
		}
		sourceProblems = append(ds, sourceProblems...)
	}
	if len(sourceProblems) > 0 {
		project.SortDiagnostics(sourceProblems)
		return nil, &ProblemsError{Diagnostics: sourceProblems}
	}
	if err := p.fillBackfill(ctx, st, cfg.now); err != nil {
		return nil, err
	}
	p.fillRefills()
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
	p.annotate()
	return p, nil
}

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
func (p *Plan) inheritance(mp *ModelPlan, info *ModelInfo, prev state.Snapshot, havePrev bool, changed, keeps, forwardOnly map[string]bool) error {
	m := info.Model
	if !havePrev || !prev.Built() {
		return nil
	}
	var prevDef Definition
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
			if mp.ReclassifiedFrom == "" {
				mp.ReclassifiedFrom = mp.Change
			}
			mp.Change = ForwardOnly
			p.adopt(mp, m, prev, prevPhys)
			mp.Explain = append(mp.Explain, "forward-only: inherits "+mp.PhysicalTable+" and its done intervals; new columns are added, history is not recomputed")
			return nil
		}
	}
	if mp.Change != Indirect || !m.Kind.Name.Materialized() || m.Kind.Name == project.KindSeed {
		return nil
	}
	if fingerprint(info.OwnHash, prev.Parents) != prev.Fingerprint {
		return nil
	}
	if prevDef.Schema != nil && info.Inferred != nil && !sameColumns(prevDef.Schema, info.Inferred) {
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
		mp.Refill = via
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
	mp.PhysicalTable = PhysicalRelation(p.analysis.dialect, m, prevPhys).String()
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
func droppedColumns(prev Definition, info *ModelInfo) []string {
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
func (p *Plan) history(ctx context.Context, st state.Reader, mp *ModelPlan, info *ModelInfo, snap state.Snapshot, known bool, prev state.Snapshot, havePrev bool, cfg planConfig) (bool, error) {
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
	var prevDef Definition
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
		mp.PhysicalTable = PhysicalRelation(p.analysis.dialect, m, info.Fingerprint).String()
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
