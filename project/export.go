package project

import (
	"fmt"
	"slices"
	"strings"
)

// checkExports reports exports naming an attach that efmesh.yaml does not
// configure, on the export property, with the closest name as a fix.
func checkExports(cfg Config, models []*Model) []Diagnostic {
	var out []Diagnostic
	known := make([]string, 0, len(cfg.Attach))
	for n := range cfg.Attach {
		known = append(known, n)
	}
	slices.Sort(known)
	for _, m := range models {
		if m.Export == nil {
			continue
		}
		if _, ok := cfg.Attach[m.Export.Attach]; ok {
			continue
		}
		pr, _ := m.Property("export")
		d := Diagnostic{File: m.File, Range: pr.ValueRange, Severity: SeverityError, Code: CodeBadValue,
			Message: fmt.Sprintf("export names attach %q, which %s does not configure", m.Export.Attach, ConfigFile)}
		if len(known) == 0 {
			d.Message += fmt.Sprintf(" (add attach: {%s: {type: %s, path: …}})", m.Export.Attach, DefaultAttachType)
		} else {
			d.Message += " (known: " + strings.Join(known, ", ") + ")"
			if s, ok := DidYouMean(m.Export.Attach, known); ok {
				d.Message += "; did you mean " + s + "?"
			}
		}
		out = append(out, d)
	}
	return out
}
