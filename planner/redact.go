package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
)

// WithWorkbench gives MakePlan the workbench the analysis was made with.
// The plan of a redacted environment then binds the models that read a
// redacted model (directly or through others) again, against the columns
// that environment has, so a child selecting a redacted column is refused
// by plan, positioned in its file, instead of failing at apply. Without a
// workbench that check is left to apply.
func WithWorkbench(wb analysis.Workbench) PlanOption {
	return func(c *planConfig) { c.workbench = wb }
}

// Redacted names the columns the plan's environment leaves out of each
// model's physics (empty unless the environment is redacted).
func (p *Plan) Redacted() map[string][]string { return p.analysis.RedactedColumns() }

// redactQuery projects a model's query onto the columns a redacted
// environment keeps. The columns come from the variant's contract (or
// what the checker inferred), which no longer holds the redacted ones.
func (b *builder) redactQuery(info *analysis.ModelInfo, q string) (string, error) {
	keep := info.Columns
	if keep == nil {
		keep = info.Inferred
	}
	if keep == nil {
		return "", fmt.Errorf("%s cannot be redacted: its columns are unknown; declare columns (…)", info.Model.Name)
	}
	names := make([]string, len(keep))
	for i, c := range keep {
		names[i] = b.d.Quote(c.Name)
	}
	return "SELECT " + strings.Join(names, ", ") + " FROM (\n" + q + "\n) AS _efmesh_redacted", nil
}

// redactedArg returns the redacted column a built-in audit of m names in
// env ("" when none): a redacted environment has no such column to check.
func redactedArg(p *project.Project, env string, m *project.Model, au Audit) string {
	if !p.Config.Environments[env].Redacted || len(m.Redact) == 0 || au.custom != nil || !analysis.BuiltinAuditNames[au.Name] {
		return ""
	}
	for _, a := range au.Args {
		if slices.Contains(m.Redact, strings.ToLower(a)) {
			return strings.ToLower(a)
		}
	}
	return ""
}
