package planner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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
		p.Models[i].Redacted = p.analysis.redacted[p.Models[i].Name]
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
		m := info.Model
		if m.Kind.Name != project.KindIncrementalByTimeRange || m.Kind.BatchSize == 1 {
			continue
		}
		fns := windowFunctions(info.Canonical)
		if len(fns) == 0 {
			continue
		}
		batch := fmt.Sprintf("batches of up to %d %ss (batch_size %d)", m.Kind.BatchSize, grainOf(m), m.Kind.BatchSize)
		if m.Kind.BatchSize <= 0 {
			batch = "one batch over the whole range due (no batch_size)"
		}
		mp.Warnings = append(mp.Warnings, Warning{Code: CodeWindowOverBatch, Message: fmt.Sprintf(
			"window function(s) %s run over %s: each interval's rows depend on how it was batched; set batch_size 1",
			strings.Join(fns, ", "), batch)})
	}
}

// windowFunctions names the window calls of a canonical tree, sorted,
// without repeats. The canonical tree is the engine's own: DuckDB marks a
// window expression with class WINDOW, pg_query a FuncCall with an over
// clause. Both shapes are recognized here because the tree is only
// walked, never interpreted further.
func windowFunctions(canonical []byte) []string {
	// Most bodies have no window: skip the decode (plan stays cheap).
	if !bytes.Contains(canonical, []byte(`"WINDOW"`)) && !bytes.Contains(canonical, []byte(`"over"`)) {
		return nil
	}
	var tree any
	if json.Unmarshal(canonical, &tree) != nil {
		return nil
	}
	var out []string
	add := func(name string) {
		if name == "" {
			name = "?"
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if t["class"] == "WINDOW" {
				name, _ := t["function_name"].(string)
				add(name)
			}
			if fc, ok := t["FuncCall"].(map[string]any); ok && fc["over"] != nil {
				add(pgFuncName(fc["funcname"]))
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(tree)
	slices.Sort(out)
	return out
}

// pgFuncName is the last part of a pg_query funcname list.
func pgFuncName(v any) string {
	parts, _ := v.([]any)
	if len(parts) == 0 {
		return ""
	}
	s, _ := parts[len(parts)-1].(map[string]any)["String"].(map[string]any)
	name, _ := s["sval"].(string)
	return name
}
