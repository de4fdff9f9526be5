package lint_test

import (
	"context"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/project"
)

// TestPublishedSQLIsClean lints the TPC-H and TPC-DS queries of testdata —
// published SQL, all of which builds and gives the right rows — with the
// default rules: a default that fires on them is noise a user turns off.
// The opt-in style rule still finds what it checks there.
func TestPublishedSQLIsClean(t *testing.T) {
	for _, suite := range []string{"tpch", "tpcds"} {
		t.Run(suite, func(t *testing.T) {
			dir := testkit.WriteProject(t, realdb.TPCSchemaProject(t, "..", suite))
			p, err := project.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			wb, err := duckdb.Open("")
			if err != nil {
				t.Fatal(err)
			}
			defer wb.Close()
			a, err := analysis.Analyze(context.Background(), p, wb)
			if err != nil {
				t.Fatal(err)
			}
			if a.Errors() {
				t.Fatalf("the check reports errors: %v", a.Diagnostics)
			}
			sev, cds := lint.Configure(p.Config.Lint)
			if len(cds) > 0 {
				t.Fatal(cds)
			}
			ds := lint.Check(a, sev, nil)
			for _, d := range ds {
				t.Errorf("%s", d)
			}
			if len(ds) > 0 {
				t.Fatalf("%d findings by default over %d models", len(ds), len(p.Models))
			}
			// Turned on, the style rule reports the corpus' unqualified
			// columns: the rule is opt-in, not broken.
			sev[lint.UnqualifiedColumn] = project.SeverityWarning
			n := 0
			for _, d := range lint.Check(a, sev, nil) {
				if d.Code != lint.UnqualifiedColumn {
					t.Errorf("with %s on: %s", lint.UnqualifiedColumn, d)
				}
				n++
			}
			if n == 0 {
				t.Errorf("%s finds nothing in %s", lint.UnqualifiedColumn, suite)
			}
			t.Logf("%s: %d models, 0 findings by default, %d with %s on", suite, len(p.Models), n, lint.UnqualifiedColumn)
		})
	}
}
