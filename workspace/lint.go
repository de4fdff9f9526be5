package workspace

import (
	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/project"
)

// Lint runs the linter over the named models (nil: every model) with the
// severities of efmesh.yaml's lint: rules:. An unknown rule id there is an
// error finding of efmesh.yaml. The CLI (efmesh lint) and the editor both
// call it.
func Lint(a *analysis.Analysis, names []string) []project.Diagnostic {
	sev, diags := lint.Configure(a.Project.Config.Lint)
	return append(diags, lint.Check(a, sev, names)...)
}
