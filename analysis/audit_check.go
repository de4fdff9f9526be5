package analysis

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// checkAudits positions audit arguments that name no column of their
// model, and coverage audits over a column of the wrong type; it needs
// schemas, so it runs after the models are analyzed. Each model's findings
// are kept with its ModelInfo (auditDiags), which an incremental analysis
// shares while the model and its columns stay as they were, so only the
// models a pass touched are audited again.
func checkAudits(a *Analysis) []project.Diagnostic {
	var out []project.Diagnostic
	for _, info := range a.order {
		if info == nil {
			continue
		}
		if !info.audited {
			info.auditDiags = auditDiagnostics(info)
			info.audited = true
		}
		out = append(out, info.auditDiags...)
	}
	return out
}

// auditDiagnostics checks the built-in audits of one model against its
// columns.
func auditDiagnostics(info *ModelInfo) []project.Diagnostic {
	m := info.Model
	if m == nil || info.Columns == nil {
		return nil
	}
	var out []project.Diagnostic
	types := map[string]string{}
	for _, c := range info.Columns {
		types[strings.ToLower(c.Name)] = c.Type
	}
	for i := range m.Audits {
		call := &m.Audits[i]
		for call.Inner != nil {
			call = call.Inner
		}
		if !project.IsBuiltinAudit(call.Name) {
			continue
		}
		cols := call.Args
		if call.Name != "not_null" && call.Name != "unique" && len(cols) > 0 {
			cols = cols[:1]
		}
		for _, col := range cols {
			typ, ok := types[strings.ToLower(col)]
			msg := ""
			switch fam := engine.TypeFamily(typ); {
			case !ok:
				msg = fmt.Sprintf("audit %s: %s has no column %q (it has %s)", call.Name, m.Name, col, ColumnList(info.Columns))
			case call.Name == "assert_contiguous" && fam != "integer":
				msg = fmt.Sprintf("assert_contiguous needs an integer column; %s is %s", col, typ)
			case call.Name == "assert_no_gaps" && fam != "date" && fam != "timestamp":
				msg = fmt.Sprintf("assert_no_gaps needs a date or timestamp column; %s is %s", col, typ)
			}
			if msg != "" {
				out = append(out, project.Diagnostic{File: m.File, Range: call.Range, Severity: project.SeverityError, Code: project.CodeAudit, Message: msg})
			}
		}
	}
	return out
}

// DidYouMeanName suggests the project model whose name is closest to name
// ("" when none is close).
func DidYouMeanName(name string, p *project.Project) string {
	names := make([]string, 0, len(p.ByName))
	for n := range p.ByName {
		names = append(names, n)
	}
	return suggestModel(name, names)
}
