package lsp

import (
	"slices"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

// lintSource is the source of the linter's diagnostics, so that a client
// can tell them (and filter them) from the checker's.
const lintSource = "efmesh-lint"

// withLint is what a check found: the analysis' diagnostics and the
// linter's findings (code = rule id, quick fixes as code actions), by
// file and position.
func withLint(a *analysis.Analysis) []project.Diagnostic {
	found := workspace.Lint(a, nil)
	if len(found) == 0 {
		return a.Diagnostics
	}
	out := slices.Concat(a.Diagnostics, found)
	project.SortDiagnostics(out)
	return out
}

// diagnosticSource names who found d.
func diagnosticSource(d project.Diagnostic) string {
	if lint.IsRule(d.Code) {
		return lintSource
	}
	return "efmesh"
}
