package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoConfig is matched (errors.Is) by the error of FindRoot and Load when
// there is no efmesh.yaml.
var ErrNoConfig = errors.New("no " + ConfigFile)

type noConfigError struct {
	dir     string
	parents bool
}

func (e *noConfigError) Error() string {
	if e.parents {
		return fmt.Sprintf("no %s in %s or any parent", ConfigFile, e.dir)
	}
	return fmt.Sprintf("no %s in %s", ConfigFile, e.dir)
}

func (e *noConfigError) Is(target error) bool { return target == ErrNoConfig }

// FindRoot walks up from dir to the folder holding efmesh.yaml and returns
// its absolute path.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find root: %w", err)
	}
	for d := abs; ; {
		if fi, err := os.Stat(filepath.Join(d, ConfigFile)); err == nil && !fi.IsDir() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", &noConfigError{dir: abs, parents: true}
		}
		d = parent
	}
}

// Load reads the project whose efmesh.yaml is in root.
func Load(root string) (*Project, error) { return LoadWith(root, nil) }

// LoadWith is Load with overlay: file contents by absolute path that take
// precedence over the disk (the editor's unsaved buffers). Overlay files
// that exist only in the overlay are loaded too when a glob matches.
func LoadWith(root string, overlay map[string][]byte) (*Project, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	ov := make(map[string][]byte, len(overlay))
	var extra []string
	for k, v := range overlay {
		k = filepath.Clean(k)
		ov[k] = v
		if rel, err := filepath.Rel(root, k); err == nil && filepath.IsLocal(rel) {
			extra = append(extra, filepath.ToSlash(rel))
		}
	}
	read := func(abs string) ([]byte, error) {
		if src, ok := ov[abs]; ok {
			return src, nil
		}
		return ReadFile(abs)
	}
	f, err := ReadFiles(root, read, extra)
	if err != nil {
		return nil, err
	}
	return f.Project(), nil
}

// Assemble builds the Project of parsed files as LoadWith does: Build of
// the models with diags (efmesh.yaml's and the model files' own), then the
// unit tests and custom audits with later (their files' own) and the
// checks across them. The editor assembles its snapshots, parsed file by
// file, with it: the project it checks is the one LoadWith reads.
func Assemble(root string, cfg Config, models []*Model, diags []Diagnostic, tests []*UnitTest, audits []*CustomAudit, later []Diagnostic) *Project {
	proj := Build(root, cfg, models, diags)
	proj.Tests, proj.Audits = tests, audits
	later = append(later, CheckTests(proj)...)
	later = append(later, CheckAudits(proj)...)
	later = append(later, auditVarDiagnostics(proj)...)
	if len(later) > 0 {
		proj.Diagnostics = append(proj.Diagnostics, later...)
		SortDiagnostics(proj.Diagnostics)
	}
	return proj
}

// CheckTests reports unit tests naming models the project lacks. Column
// checks need schemas and live in the planner.
func CheckTests(p *Project) []Diagnostic {
	var diags []Diagnostic
	names := make([]string, 0, len(p.ByName))
	for n := range p.ByName {
		names = append(names, n)
	}
	seen := map[string]string{}
	for _, t := range p.Tests {
		if prev, dup := seen[t.Name]; dup {
			diags = append(diags, Diagnostic{File: t.File, Range: t.NameRange, Severity: SeverityError, Code: CodeTestFile,
				Message: fmt.Sprintf("test %s is defined twice (also in %s)", t.Name, prev)})
		}
		seen[t.Name] = t.File
		unknown := func(name string, r Range, what string) {
			msg := fmt.Sprintf("test %s: %s %q is not a model", t.Name, what, name)
			if s, ok := DidYouMean(name, names); ok {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			diags = append(diags, Diagnostic{File: t.File, Range: r, Severity: SeverityError, Code: CodeTestFile, Message: msg})
		}
		if t.Model != "" && p.ByName[t.Model] == nil {
			unknown(t.Model, t.ModelRange, "model")
		}
		for _, in := range t.Inputs {
			if p.ByName[in.Model] == nil {
				unknown(in.Model, in.Range, "input")
			}
		}
	}
	return diags
}

// fileError is a problem with a whole file, positioned at its start.
func fileError(file, msg string) Diagnostic {
	return NewDiagnostic(file, nil, 0, 0, SeverityError, CodeFile, msg)
}
