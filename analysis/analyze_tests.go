package analysis

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/project"
)

// checkTests positions fixture and expectation columns that the models do
// not have; it needs schemas, so it runs after the models are analyzed.
func checkTests(a *Analysis) []project.Diagnostic {
	var out []project.Diagnostic
	for _, t := range a.Project.Tests {
		check := func(model, what string, rows []project.TestRow) {
			info := a.Models[model]
			if info == nil || info.Columns == nil {
				return
			}
			known := map[string]bool{}
			for _, c := range info.Columns {
				known[strings.ToLower(c.Name)] = true
			}
			for _, r := range rows {
				for _, v := range r.Values {
					if !known[strings.ToLower(v.Column)] {
						out = append(out, project.Diagnostic{File: t.File, Range: v.Range, Severity: project.SeverityError, Code: project.CodeTestFile,
							Message: fmt.Sprintf("test %s, %s, row %d: %s has no column %q (it has %s)", t.Name, what, r.Index+1, model, v.Column, ColumnList(info.Columns))})
					}
				}
			}
		}
		for _, in := range t.Inputs {
			check(in.Model, "inputs of "+in.Model, in.Rows)
		}
		check(t.Model, "expect", t.Expect)
	}
	return out
}
