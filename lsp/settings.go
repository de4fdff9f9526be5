package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/project"
)

// lintSettings is the editor's lint setting (initializationOptions.lint,
// and settings.efmesh.lint of workspace/didChangeConfiguration): lint off
// altogether, or rules turned on or off by id, over efmesh.yaml's
// lint: rules:. A personal preference of the editor, never written to the
// project: the CLI keeps reading efmesh.yaml alone.
type lintSettings struct {
	Enabled *bool             `json:"enabled"` // nil: on
	Rules   map[string]string `json:"rules"`   // rule id -> error, warn, info or off
}

// lintOverrides turns l into rule settings that follow efmesh.yaml's (the
// later setting of a rule wins in lint.Configure). What it cannot use (an
// unknown rule id or severity) is left out and described in bad.
func lintOverrides(l lintSettings) (rules []project.LintRuleSetting, bad []string) {
	if l.Enabled != nil && !*l.Enabled {
		for _, id := range lint.IDs() {
			rules = append(rules, project.LintRuleSetting{ID: id, Severity: "off"})
		}
		return rules, nil
	}
	ids := make([]string, 0, len(l.Rules))
	for id := range l.Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		sev := strings.ToLower(strings.TrimSpace(l.Rules[id]))
		switch {
		case !lint.IsRule(id):
			msg := fmt.Sprintf("unknown lint rule %q", id)
			if best, ok := project.DidYouMean(id, lint.IDs()); ok {
				msg += fmt.Sprintf(" (did you mean %s?)", best)
			}
			bad = append(bad, msg)
		case !slices.Contains(project.LintSeverities, sev):
			bad = append(bad, fmt.Sprintf("lint rule %s: severity %q must be one of %s", id, l.Rules[id], strings.Join(project.LintSeverities, ", ")))
		default:
			rules = append(rules, project.LintRuleSetting{ID: id, Severity: sev})
		}
	}
	return rules, bad
}

// setLintSettings takes the client's lint setting (raw JSON; absent or
// null leaves the current one) and tells whether it changed what is
// linted.
func (s *Server) setLintSettings(raw json.RawMessage) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return false
	}
	var l lintSettings
	lenient(raw, &l)
	rules, bad := lintOverrides(l)
	for _, b := range bad {
		s.logf(protocol.MessageTypeWarning, "efmesh.lint.rules: %s; ignored", b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.EqualFunc(rules, s.lintRules, func(a, b project.LintRuleSetting) bool { return a.ID == b.ID && a.Severity == b.Severity }) {
		return false
	}
	s.lintRules = rules
	return true
}

// lintConfig is cfg (a project's lint: section) with the client's lint
// setting applied over it.
func (s *Server) lintConfig(cfg project.LintConfig) project.LintConfig {
	s.mu.Lock()
	rules := s.lintRules
	s.mu.Unlock()
	if len(rules) == 0 {
		return cfg
	}
	return project.LintConfig{Rules: slices.Concat(cfg.Rules, rules)}
}
