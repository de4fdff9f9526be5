package project

import (
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// LintConfig is efmesh.yaml's lint: section: the severity each linter rule
// is given instead of its default. Which rule ids exist is the linter's
// business (package lint); the loader keeps each id with the position of
// its key so the linter can report an unknown one where it is written.
type LintConfig struct {
	Rules []LintRuleSetting `json:"rules,omitempty"`
}

// LintRuleSetting is one entry of lint.rules.
type LintRuleSetting struct {
	ID       string `json:"id"`
	Severity string `json:"severity"` // one of LintSeverities
	Range    Range  `json:"-"`        // the key in efmesh.yaml
	// Start and End are the key's byte offsets, for a fix that renames it.
	Start int `json:"-"`
	End   int `json:"-"`
}

// LintSeverities are the values a lint rule may be set to.
var LintSeverities = []string{"error", "warn", "info", "off"}

var lintKeys = []string{"rules"}

// lint reads the lint: section.
func (p *configParser) lint(n ast.Node) LintConfig {
	var cfg LintConfig
	p.fields(n, "lint", lintKeys, func(_ string, v ast.Node) {
		es, ok := entries(unwrap(v))
		if !ok {
			p.errorf(v, CodeConfig, "lint rules must be a mapping of rule id to %s, found %s", strings.Join(LintSeverities, ", "), describeNode(v))
			return
		}
		for _, e := range es {
			id := keyString(e.Key)
			s, ok := p.str(e.Value, "lint rule "+id)
			if !ok {
				continue
			}
			sev := strings.ToLower(strings.TrimSpace(s))
			if sev == "warning" {
				sev = "warn"
			}
			if !slices.Contains(LintSeverities, sev) {
				d := p.errorf(e.Value, CodeConfig, "lint rule %s: severity %q must be one of %s", id, s, strings.Join(LintSeverities, ", "))
				if best, ok := DidYouMean(sev, LintSeverities); ok {
					start, end := p.nodeRange(e.Value)
					d.Fixes = []Fix{{Title: "Change to " + best, Edits: []TextEdit{{File: p.file, Start: start, End: end, NewText: best}}}}
				}
				continue
			}
			start, end := p.nodeRange(e.Key)
			cfg.Rules = append(cfg.Rules, LintRuleSetting{ID: id, Severity: sev, Range: p.li.rng(start, end), Start: start, End: end})
		}
	})
	return cfg
}
