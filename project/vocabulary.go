package project

import (
	"maps"
	"slices"
)

// The vocabulary of the files efmesh reads, as lists: for completion and
// for the test that keeps docs/models.md and docs/config.md complete.

// KindOptions lists the options kind (a KindNames entry) names; EXTERNAL
// with files also passes any other option through to the file reader.
func KindOptions(kind string) []string { return slices.Clone(kindOptions[KindName(kind)]) }

// MacroNames lists the @-macros of a model body, without the @.
func MacroNames() []string { return slices.Clone(knownMacros) }

// RunVariableNames lists the run variables a body may read beside
// @start and @end (@start_ds, …, @env), without the @.
func RunVariableNames() []string { return slices.Clone(runVariables) }

// AuditNames lists the built-in audits and the wrappers of the audits
// property.
func AuditNames() []string {
	return append(slices.Sorted(maps.Keys(builtinAudits)), auditWrappers...)
}

// ConfigKeys lists the keys efmesh.yaml accepts, by where they are: ""
// for the top level, "engine", "state", "janitor", "defaults",
// "environments.<name>" and "attach.<name>".
func ConfigKeys() map[string][]string {
	return map[string][]string{
		"":                    slices.Clone(configKeys),
		"engine":              append(slices.Clone(backendKeys), engineKeys...),
		"state":               slices.Clone(backendKeys),
		"janitor":             slices.Clone(janitorKeys),
		"defaults":            slices.Clone(defaultsKeys),
		"environments.<name>": slices.Clone(envKeys),
		"attach.<name>":       slices.Clone(attachKeys),
		"lint":                slices.Clone(lintKeys),
	}
}
