package planner

import (
	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
)

// Settled is the plan MakePlan makes of p's environment right after Apply
// carried p out in full, under the same lock, against the same analysis:
// every model the plan keeps is unchanged at the fingerprint p promoted,
// nothing left to build, the removed models gone. ok is false when that
// plan cannot be told from p alone (then plan again): a model with
// intervals (its ledger decides what is still due), a preview or a
// selection, a restatement, physics reuse or an SCD_TYPE_2 history move,
// a warning, a redacted model, a line the warehouse check marked (a missing relation, a
// stale view), a model another environment built only in part, or FULL
// models due for their cron (the plan names them).
//
// It spares an apply the plan it would make again to leave the no-op
// digest behind (workspace.Apply): at 2,000 models that plan reads every
// snapshot row and the warehouse's catalog once more.
func Settled(p *Plan) (*Plan, bool) {
	if p == nil || p.analysis == nil || p.Preview != nil || len(p.LeftOut) > 0 || p.previewChanged ||
		len(p.restated) > 0 || len(p.refills) > 0 || len(p.unconfirmed) > 0 || len(p.copyHistory) > 0 || len(p.lost) > 0 ||
		len(p.DueRefresh) > 0 { // the FULL models due for their cron: plan again to name them
		return nil, false
	}
	out := &Plan{Env: p.Env, Models: make([]ModelPlan, 0, len(p.Models)), analysis: p.analysis}
	for _, mp := range p.Models {
		if mp.Change == Removed {
			continue
		}
		info := p.analysis.Models[mp.Name]
		if info == nil || info.Fingerprint != mp.Fingerprint {
			return nil, false
		}
		switch project.KindName(mp.Kind) {
		case project.KindFull, project.KindView, project.KindSeed, project.KindEmbedded:
		case project.KindExternal:
			if info.Model.Columns == nil {
				return nil, false // its columns come from the warehouse
			}
		default:
			return nil, false // intervals, a history: the ledger decides
		}
		if len(mp.Backfill) > 0 || mp.Intervals > 0 || len(mp.Warnings) > 0 || mp.ReusedFrom != "" || mp.RebuildsHistory ||
			mp.CopiesHistoryFrom != "" || len(mp.Refill) > 0 || mp.Missing || mp.StaleView != "" || len(mp.Covered) > 0 || len(mp.Redacted) > 0 {
			return nil, false
		}
		out.Models = append(out.Models, ModelPlan{
			Name:          mp.Name,
			Kind:          mp.Kind,
			Change:        Unchanged,
			Fingerprint:   mp.Fingerprint,
			PhysicalTable: mp.PhysicalTable,
			Incremental:   Incremental{Backfill: []analysis.Range{}},
			Explain:       []string{},
		})
	}
	return out, true
}
