package planner

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
)

// CodeWindowOverBatch marks an incremental model whose window functions
// see a batch of several intervals at once.
const CodeWindowOverBatch = "window-over-batch"

// Warning is a plan-time finding that does not stop the plan.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// annotate adds what the plan's lines say beyond their category: warnings
// and redacted columns.
func (p *Plan) annotate() {
	p.addWarnings()
	for i := range p.Models {
		p.Models[i].Redacted = p.analysis.RedactedColumns()[p.Models[i].Name]
	}
}

// addWarnings attaches plan-time warnings to the plan's lines.
//
// window-over-batch: an INCREMENTAL_BY_TIME_RANGE model computes a batch
// of intervals in one query. A window function (a running sum, a rank,
// lag) then sees the rows of the whole batch, so what an interval holds
// depends on how it was batched: a backfill in batches of 30 and a daily
// tick give different answers. Batches of one interval are safe.
func (p *Plan) addWarnings() {
	for i := range p.Models {
		mp := &p.Models[i]
		info := p.analysis.Models[mp.Name]
		if mp.Change == Removed || info == nil {
			continue
		}
		// The check's warnings (a narrowing contract, a type the engine
		// does not keep) on what this plan builds or computes, positioned.
		if mp.Build || len(mp.Backfill) > 0 {
			for _, d := range info.Diagnostics {
				if d.Severity == project.SeverityWarning {
					mp.Warnings = append(mp.Warnings, Warning{Code: d.Code, Message: d.String()})
				}
			}
		}
		m := info.Model
		if m.Kind.Name != project.KindIncrementalByTimeRange || m.Kind.BatchSize == 1 {
			continue
		}
		fns := p.analysis.WindowFunctions(info.Canonical)
		if len(fns) == 0 {
			continue
		}
		batch := fmt.Sprintf("batches of up to %d %ss (batch_size %d)", m.Kind.BatchSize, analysis.GrainOf(m), m.Kind.BatchSize)
		if m.Kind.BatchSize <= 0 {
			batch = "one batch over the whole range due (no batch_size)"
		}
		mp.Warnings = append(mp.Warnings, Warning{Code: CodeWindowOverBatch, Message: fmt.Sprintf(
			"window function(s) %s run over %s: each interval's rows depend on how it was batched; set batch_size 1",
			strings.Join(fns, ", "), batch)})
	}
}
