package lsp

import (
	"testing"

	"github.com/efmesh/efmesh/project"
)

// TestLintSource: the linter's findings carry their own source, so that a
// client can tell them from the checker's.
func TestLintSource(t *testing.T) {
	m := NewMapper([]byte("SELECT * FROM x\n"))
	for code, want := range map[string]string{"no_select_star": "efmesh-lint", "implicit_cross_join": "efmesh-lint", project.CodeUnknownColumn: "efmesh"} {
		d := project.Diagnostic{Code: code, Severity: project.SeverityWarning, Range: project.Range{Start: project.Pos{Offset: 7}, End: project.Pos{Offset: 8}}}
		if got := protocolDiagnostic(m, d); got.Source != want || got.Code != code {
			t.Errorf("%s: source %q code %v, want %q", code, got.Source, got.Code, want)
		}
	}
}
