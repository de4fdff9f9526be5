package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) lintCmd() *cobra.Command {
	var sel selection
	var rules bool
	cmd := &cobra.Command{
		Use: "lint [--select …]",
		Example: `  efmesh lint
  efmesh lint --select 'core.*' --json
  efmesh lint --rules`,
		Short: "Check models against the linter's rules",
		Long: `Lint runs the linter's rules over the selected models (every model by
default) and prints each finding as file:line:col: severity rule-id: message.
Severities come from lint: rules: in efmesh.yaml (error, warn, info, off).
It exits 1 when a finding is an error, 0 otherwise. The editor shows the
same findings (source efmesh-lint) with their quick fixes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rules {
				return a.lintRules()
			}
			w, names, err := a.loadSelected(&sel)
			var pe *planner.ProblemsError
			if err != nil && a.json && errors.As(err, &pe) {
				// The project does not load: no findings, its
				// diagnostics in the same shape as a lint's.
				errs := 0
				for _, d := range pe.Diagnostics {
					if d.Severity == project.SeverityError {
						errs++
					}
				}
				a.writeJSON(jsonapi.Lint{APIVersion: APIVersion, Findings: []jsonapi.Finding{}, Errors: errs,
					Diagnostics: a.diagnosticsJSON(pe.Diagnostics)})
				return &exitError{code: ExitError}
			}
			if err != nil {
				return err
			}
			defer w.Close()
			if !sel.active() {
				names = nil
			}
			ds := workspace.Lint(w.Analysis, names)
			errs := 0
			for _, d := range ds {
				if d.Severity == project.SeverityError {
					errs++
				}
			}
			if a.json {
				out := make([]jsonapi.Finding, 0, len(ds))
				for _, d := range ds {
					fixes := a.fixesJSON(w.Project.Root, d.Fixes)
					if fixes == nil {
						fixes = []jsonapi.Fix{}
					}
					out = append(out, jsonapi.Finding{File: d.File, Line: d.Range.Start.Line, Column: d.Range.Start.Column,
						EndLine: d.Range.End.Line, EndColumn: d.Range.End.Column, Severity: d.Severity.String(), Code: d.Code, Message: d.Message,
						Fixes: fixes})
				}
				a.writeJSON(jsonapi.Lint{APIVersion: APIVersion, Findings: out, Errors: errs, Diagnostics: []jsonapi.Diagnostic{}})
			} else {
				for _, d := range ds {
					fmt.Fprintf(a.stdout, "%s:%d:%d: %s %s: %s\n", d.File, d.Range.Start.Line, d.Range.Start.Column, d.Severity, d.Code, d.Message)
				}
				if len(ds) > 0 {
					fmt.Fprintf(a.stdout, "%d finding(s), %d error(s)\n", len(ds), errs)
				}
			}
			if errs > 0 {
				return &exitError{code: ExitError}
			}
			return nil
		},
	}
	sel.register(cmd)
	cmd.Flags().BoolVar(&rules, "rules", false, "list the rules with their default severities")
	return cmd
}

// lintRules lists the linter's rules.
func (a *app) lintRules() error {
	if a.json {
		out := []jsonapi.LintRule{}
		for _, r := range lint.Rules {
			out = append(out, jsonapi.LintRule{ID: r.ID, Severity: lint.SeverityName(r.Default), Doc: r.Doc})
		}
		a.writeJSON(jsonapi.LintRules{APIVersion: APIVersion, Rules: out})
		return nil
	}
	for _, r := range lint.Rules {
		fmt.Fprintf(a.stdout, "%-29s %-6s %s\n", r.ID, lint.SeverityName(r.Default), r.Doc)
	}
	return nil
}
