// Package project reads an efmesh project from disk: efmesh.yaml, the model
// files it names, their MODEL headers and @-macros, and the DAG they form.
//
// It owns every user-facing problem found while loading, as positioned
// Diagnostics, and knows nothing of engines, state stores or plans. The CLI
// and the language server load projects through this one package.
package project

import (
	"time"

	"github.com/efmesh/efmesh/macro"
)

// ConfigFile is the name of the project file; its folder is the project root.
const ConfigFile = "efmesh.yaml"

// Config is efmesh.yaml.
type Config struct {
	Name         string               `json:"name"`
	Models       []string             `json:"models"` // globs; default ["models/**/*.sql"]
	Tests        []string             `json:"tests"`  // globs; default ["tests/**/*.yaml"]
	Audits       []string             `json:"audits"` // globs; default ["audits/**/*.sql"]
	Macros       []string             `json:"macros"` // globs; default ["macros/**/*.sql"]
	Start        string               `json:"start,omitempty"`
	Engine       EngineConfig         `json:"engine"`
	State        StateConfig          `json:"state"`
	Lake         string               `json:"lake,omitempty"`
	Environments map[string]EnvConfig `json:"environments,omitempty"`
	// EnvironmentsTTL is environments.ttl: the janitor deletes an
	// environment other than prod idle (not applied) for longer; 0 never.
	EnvironmentsTTL time.Duration `json:"environmentsTtl,omitempty"`
	Janitor         JanitorConfig `json:"janitor"`
	// Attach names the databases exports write into.
	Attach map[string]AttachConfig `json:"attach,omitempty"`
	// Vars are the ${NAME} references of the settings that expand them
	// (engine url, state url), with their positions.
	Vars []VarRef `json:"-"`
	// Defaults are header properties a model takes when it declares none.
	Defaults ModelDefaults `json:"defaults,omitzero"`
	// Variables are vars: the values of @var(name), by lower-case name.
	// After WithVariables they are the effective ones of an environment
	// and the command line.
	Variables map[string]string `json:"vars,omitempty"`
	// Env is the environment WithVariables put in force ("" before): what
	// @env names. A model that reads it has a fingerprint per environment.
	Env string `json:"-"`
	// VariableRanges are where each top-level var is set in efmesh.yaml
	// (as parsed: WithVariables leaves them).
	VariableRanges map[string]Range `json:"-"`
	// Lint sets the severities of the linter's rules (lint: rules:).
	Lint LintConfig `json:"lint,omitzero"`
}

// ModelDefaults are the efmesh.yaml defaults of model header properties.
type ModelDefaults struct {
	// Cron is when a FULL model without its own cron is refreshed by
	// run (see Config.CronOf); empty means DefaultCron.
	Cron string `json:"cron,omitempty"`
}

// AttachConfig is one database an export can write into.
type AttachConfig struct {
	Type string `json:"type"` // duckdb (default) | sqlite | postgres | mysql
	Path string `json:"path"` // a file relative to the project root, or a connection string
}

// EngineConfig selects the warehouse.
type EngineConfig struct {
	Type string `json:"type"` // duckdb (default) | postgres
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`
	// MemoryLimit caps DuckDB's buffer memory ("512MB"); a file warehouse
	// evicts to disk beyond it. Empty: DuckDB's default (80% of RAM).
	MemoryLimit string `json:"memoryLimit,omitempty"`
	// Threads caps DuckDB's worker threads; 0: one per core.
	Threads int `json:"threads,omitempty"`
	// LockTimeout is how long to wait for a DuckDB file another process
	// is writing (lock_timeout: 30s); nil: the default of package connect.
	LockTimeout *time.Duration `json:"lockTimeout,omitempty"`
}

// StateConfig selects the state store.
type StateConfig struct {
	Type string `json:"type"` // sqlite (default) | postgres
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`
}

// EnvConfig holds per-environment settings.
type EnvConfig struct {
	Redacted bool `json:"redacted,omitempty"`
	// Variables override the top-level vars in this environment.
	Variables map[string]string `json:"vars,omitempty"`
	// VariableRanges are where each of Variables is set in efmesh.yaml.
	VariableRanges map[string]Range `json:"-"`
}

// JanitorConfig configures removal of orphaned physical storage.
type JanitorConfig struct {
	TTL time.Duration `json:"ttl"` // default 168h
}

// Project is a loaded project. It is immutable once built: the language
// server shares it between requests and builds a new one on each edit.
type Project struct {
	Root   string // absolute path of the folder holding efmesh.yaml
	Config Config

	// Models in topological order (parents before children; ties by name).
	// Models in a cycle (or below one) are appended at the end in name
	// order. Of models sharing a name only the first by file is here;
	// models without a valid name are left out. Their diagnostics are kept
	// all the same.
	Models []*Model
	ByName map[string]*Model
	// Children maps a model name to the names of models that ref it, sorted.
	Children map[string][]string

	// Tests are the unit tests of the tests globs, in file order.
	Tests []*UnitTest
	// Audits are the custom audits of the audits globs, in file order.
	Audits []*CustomAudit

	// Diagnostics of every file, sorted by file and position.
	Diagnostics []Diagnostic

	// Macros are the project macros by lower-case name (the first
	// definition of a name defined twice); MacroDefs every definition, in
	// file order.
	Macros    map[string]*macro.Def
	MacroDefs []*macro.Def
	assembly  *assembly
}

// Model returns the named model or nil.
func (p *Project) Model(name string) *Model { return p.ByName[name] }

// Descendants returns every model downstream of name, in topological order.
func (p *Project) Descendants(name string) []*Model {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		for _, c := range p.Children[n] {
			if !seen[c] {
				seen[c] = true
				walk(c)
			}
		}
	}
	walk(name)
	var out []*Model
	for _, m := range p.Models {
		if seen[m.Name] {
			out = append(out, m)
		}
	}
	return out
}
