package project

import (
	"slices"
	"strings"
)

// A Scope is the set of files a request reads: a command about some models
// needs their files and their ancestors', never the rest of the project.
// The editor shows every file's problems where they are; the CLI refuses a
// request only for problems inside its scope (efmesh.yaml is in every
// scope) and may warn about the others.
type Scope struct {
	all   bool
	files map[string]bool
	// exclude, for a scope of all files, are the globs left out of it.
	exclude []string
	// include are globs whose every file is in the scope.
	include []string
}

// AllFiles is the scope of a request that reads the whole project (plan,
// apply): every problem counts.
func AllFiles() Scope { return Scope{all: true} }

// ModelFiles is the scope of a request that reads every model but no unit
// test or custom audit file (the DAG).
func (p *Project) ModelFiles() Scope {
	return Scope{all: true, exclude: append(append([]string{}, p.Config.Tests...), p.Config.Audits...)}
}

// ScopeOf is the scope of a request that reads the named models and test
// files: those files, the models' files and their ancestors' (through
// refs, embedded models included) and the seed files they read. It is
// false when a name is no model of the project: then a problem anywhere
// may be why, and nothing is left out.
func (p *Project) ScopeOf(models []string, testFiles []string) (Scope, bool) {
	s := Scope{files: map[string]bool{ConfigFile: true}}
	for _, f := range testFiles {
		s.files[f] = true
	}
	seen := map[string]bool{}
	var walk func(name string) bool
	walk = func(name string) bool {
		if seen[name] {
			return true
		}
		seen[name] = true
		m := p.ByName[name]
		if m == nil {
			m = p.ByName[strings.ToLower(name)]
		}
		if m == nil {
			return false
		}
		s.files[m.File] = true
		if m.Kind.Name == KindSeed && m.Kind.Path != "" {
			s.files[m.Kind.Path] = true // its problems are the seed file's
		}
		for _, r := range m.Refs() {
			walk(r) // an unknown ref is a problem of m's file, in scope
		}
		return true
	}
	for _, n := range models {
		if !walk(n) {
			return AllFiles(), false
		}
	}
	return s, true
}

// TestScope is the scope of running the named unit tests, or all of them
// when none is named: the tests' files and the scopes of the models they
// test. Without names every file of the tests globs is in it (a test file
// that does not load is a test that cannot run). It is false when a name is
// no test of the project.
func (p *Project) TestScope(names []string) (Scope, bool) {
	var files, models []string
	found := map[string]bool{}
	for _, t := range p.Tests {
		if len(names) > 0 && !slices.Contains(names, t.Name) {
			continue
		}
		found[t.Name] = true
		files = append(files, t.File)
		models = append(models, t.Model)
	}
	for _, n := range names {
		if !found[n] {
			return AllFiles(), false
		}
	}
	s, ok := p.ScopeOf(models, files)
	if ok && len(names) == 0 {
		s.include = p.Config.Tests
	}
	return s, ok
}

// Has reports whether the scope holds file (relative to the root).
func (s Scope) Has(file string) bool {
	if file == "" || file == ConfigFile {
		return true // a problem of no file, or of the configuration, is everyone's
	}
	for _, g := range s.include {
		if MatchGlob(g, file) {
			return true
		}
	}
	if !s.all {
		return s.files[file]
	}
	for _, g := range s.exclude {
		if MatchGlob(g, file) {
			return false
		}
	}
	return true
}

// Split parts diags into those of the scope's files and the others.
func (s Scope) Split(diags []Diagnostic) (in, out []Diagnostic) {
	for _, d := range diags {
		if s.Has(d.File) {
			in = append(in, d)
		} else {
			out = append(out, d)
		}
	}
	return in, out
}
