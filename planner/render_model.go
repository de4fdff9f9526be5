package planner

import (
	"fmt"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
)

// Render returns the SQL that computes a model. With env empty, refs
// resolve to the physical relations of the analyzed project's snapshots
// (what apply runs); with env set, to that environment's views.
func Render(a *analysis.Analysis, wb analysis.Workbench, name, env string, now time.Time) (string, error) {
	info := a.Models[name]
	if info == nil {
		return "", fmt.Errorf("unknown model %q%s", name, analysis.DidYouMean(name, a.Models))
	}
	if info.Fingerprint == "" {
		return "", fmt.Errorf("%s has errors; fix them first (they are listed as diagnostics, or by efmesh plan)", name)
	}
	eng, _ := wb.(engine.Engine) // for reading seed and external files
	b := &builder{a: a, d: wb.Dialect(), wh: eng, root: a.Project.Root, now: now, env: env}
	return b.Query(info)
}
