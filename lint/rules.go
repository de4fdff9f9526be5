package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/project"
)

// A Rule is one check of the linter.
type Rule struct {
	ID string
	// Default is the severity the rule has unless efmesh.yaml sets one.
	Default project.Severity
	// Doc says in one line what the rule finds.
	Doc string
}

// Rule ids. They are stable: efmesh.yaml, editors and CI name them.
const (
	NoSelectStar                = "no_select_star"
	UnqualifiedColumn           = "unqualified_column"
	UnusedCTE                   = "unused_cte"
	MissingColumnsContract      = "missing_columns_contract"
	NondeterministicIncremental = "nondeterministic_incremental"
	ImplicitCrossJoin           = "implicit_cross_join"
	FileInBody                  = "file_in_body"
)

// Rules are the linter's rules, in the order findings of one place are
// reported.
var Rules = []Rule{
	{NoSelectStar, project.SeverityWarning, "SELECT * (or t.*) over a model that is not EXTERNAL: the output changes whenever the parent's does"},
	// Off unless efmesh.yaml turns it on: a style, not a hazard. A column
	// several relations have is an error of the check (the binder's), so
	// an unqualified one is never ambiguous when this rule sees it.
	{UnqualifiedColumn, 0, "an unqualified column in a query that reads several relations (style)"},
	{UnusedCTE, project.SeverityWarning, "a CTE no later part of the query reads"},
	// Off unless efmesh.yaml turns it on: a project without contracts
	// would otherwise see it on every model.
	{MissingColumnsContract, 0, "a FULL or incremental model without a columns (…) contract"},
	{NondeterministicIncremental, project.SeverityError, "now(), random(), uuid() … in an incremental model: a re-run of an interval gives other rows"},
	{ImplicitCrossJoin, project.SeverityError, "a comma join with no WHERE predicate linking the relations, where neither side yields one row"},
	{FileInBody, project.SeverityWarning, "a body that reads a file by name (read_csv('x.csv'), FROM 'x.parquet'): declare an EXTERNAL (files …) model and @ref it"},
}

// renamed maps the id of a rule that was renamed to its id now: a project
// that still names the old one gets a warning and keeps its setting.
var renamedRules = map[string]struct{ to, why string }{
	// It reported columns that were merely unqualified, not ambiguous: a
	// truly ambiguous column is an error of the check.
	"ambiguous_column": {UnqualifiedColumn, "it reports columns that are merely unqualified (an ambiguous column is an error of the check) and is off by default"},
}

// IDs are the rule ids, in Rules' order.
func IDs() []string {
	out := make([]string, len(Rules))
	for i, r := range Rules {
		out[i] = r.ID
	}
	return out
}

// Severities are the effective severities of the rules under a project's
// lint: settings; 0 means off.
type Severities map[string]project.Severity

// Configure applies efmesh.yaml's lint: rules: to the defaults. An unknown
// rule id is an error diagnostic at its key in efmesh.yaml, with the
// closest id as a fix.
func Configure(cfg project.LintConfig) (Severities, []project.Diagnostic) {
	sev := Severities{}
	for _, r := range Rules {
		sev[r.ID] = r.Default
	}
	var diags []project.Diagnostic
	ids := IDs()
	for _, s := range cfg.Rules {
		if r, ok := renamedRules[s.ID]; ok {
			diags = append(diags, project.Diagnostic{File: project.ConfigFile, Range: s.Range, Severity: project.SeverityWarning, Code: project.CodeConfig,
				Message: fmt.Sprintf("lint rule %s is now %s: %s; rename the key (its setting applies to %s meanwhile)", s.ID, r.to, r.why, r.to),
				Fixes:   []project.Fix{{Title: "Rename to " + r.to, Edits: []project.TextEdit{{File: project.ConfigFile, Start: s.Start, End: s.End, NewText: r.to}}}}})
			s.ID = r.to
		}
		if !slices.Contains(ids, s.ID) {
			d := project.Diagnostic{File: project.ConfigFile, Range: s.Range, Severity: project.SeverityError, Code: project.CodeConfigUnknown,
				Message: fmt.Sprintf("unknown lint rule %q (known: %s)", s.ID, strings.Join(ids, ", "))}
			if best, ok := project.DidYouMean(s.ID, ids); ok {
				d.Message += fmt.Sprintf("; did you mean %s?", best)
				d.Fixes = []project.Fix{{Title: "Change to " + best, Edits: []project.TextEdit{{File: project.ConfigFile, Start: s.Start, End: s.End, NewText: best}}}}
			}
			diags = append(diags, d)
			continue
		}
		switch s.Severity {
		case "error":
			sev[s.ID] = project.SeverityError
		case "warn":
			sev[s.ID] = project.SeverityWarning
		case "info":
			sev[s.ID] = project.SeverityInfo
		case "off":
			sev[s.ID] = 0
		}
	}
	return sev, diags
}

// IsRule reports whether id is a rule's id.
func IsRule(id string) bool {
	return slices.ContainsFunc(Rules, func(r Rule) bool { return r.ID == id })
}

// SeverityName spells a rule's severity as efmesh.yaml does: error, warn,
// info or off.
func SeverityName(s project.Severity) string {
	switch s {
	case 0:
		return "off"
	case project.SeverityWarning:
		return "warn"
	}
	return s.String()
}
