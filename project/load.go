package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
)

// ErrNoConfig is matched (errors.Is) by the error of FindRoot and Load when
// there is no efmesh.yaml.
var ErrNoConfig = errors.New("project: no " + ConfigFile)

type noConfigError struct {
	dir     string
	parents bool
}

func (e *noConfigError) Error() string {
	if e.parents {
		return fmt.Sprintf("project: no %s in %s or any parent", ConfigFile, e.dir)
	}
	return fmt.Sprintf("project: no %s in %s", ConfigFile, e.dir)
}

func (e *noConfigError) Is(target error) bool { return target == ErrNoConfig }

// FindRoot walks up from dir to the folder holding efmesh.yaml and returns
// its absolute path.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("project: find root: %w", err)
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
// that exist only in the overlay are loaded too when a models glob matches.
func LoadWith(root string, overlay map[string][]byte) (*Project, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("project: load: %w", err)
	}
	ov := make(map[string][]byte, len(overlay))
	for k, v := range overlay {
		ov[filepath.Clean(k)] = v
	}
	read := func(rel string) ([]byte, error) {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if src, ok := ov[abs]; ok {
			return src, nil
		}
		return os.ReadFile(abs)
	}

	src, err := read(ConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &noConfigError{dir: root}
	}
	if err != nil {
		return nil, fmt.Errorf("project: load: %w", err)
	}
	cfg, diags := ParseConfig(ConfigFile, src)
	if cfg.Name == "" {
		cfg.Name = filepath.Base(root)
	}

	files, problems := expandGlobs(os.DirFS(root), cfg.Models)
	for _, pr := range problems {
		diags = append(diags, fileError(pr.name, fmt.Sprintf("cannot read: %v", pr.err)))
	}
	files = addOverlayFiles(root, files, ov, cfg.Models)

	// Reading and parsing are independent per file; spread them over the
	// cores, keeping results in file order so loading is deterministic.
	type result struct {
		model *Model
		diags []Diagnostic
	}
	results := make([]result, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(files), 1)) {
		wg.Go(func() {
			for i := range next {
				src, err := read(files[i])
				if err != nil {
					results[i].diags = []Diagnostic{fileError(files[i], fmt.Sprintf("cannot read the model file: %v", err))}
					continue
				}
				m, ds := ParseModel(files[i], src)
				results[i] = result{m, ds}
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()

	var models []*Model
	for _, r := range results {
		if r.model != nil {
			models = append(models, r.model)
		}
		diags = append(diags, r.diags...)
	}
	tests, later := loadTests(root, cfg, read, ov)
	audits, auditDiags := loadAudits(root, cfg, read, ov)
	return Assemble(root, cfg, models, diags, tests, audits, append(later, auditDiags...)), nil
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
	if len(later) > 0 {
		proj.Diagnostics = append(proj.Diagnostics, later...)
		SortDiagnostics(proj.Diagnostics)
	}
	return proj
}

// loadAudits reads and parses every custom audit file the audits globs
// match.
func loadAudits(root string, cfg Config, read func(string) ([]byte, error), ov map[string][]byte) ([]*CustomAudit, []Diagnostic) {
	files, problems := expandGlobs(os.DirFS(root), cfg.Audits)
	var diags []Diagnostic
	for _, pr := range problems {
		diags = append(diags, fileError(pr.name, fmt.Sprintf("cannot read: %v", pr.err)))
	}
	files = addOverlayFiles(root, files, ov, cfg.Audits)
	var audits []*CustomAudit
	for _, f := range files {
		src, err := read(f)
		if err != nil {
			diags = append(diags, fileError(f, fmt.Sprintf("cannot read the audit file: %v", err)))
			continue
		}
		a, ds := ParseAudit(f, src)
		audits = append(audits, a)
		diags = append(diags, ds...)
	}
	return audits, diags
}

// loadTests reads and parses every unit test file the tests globs match.
func loadTests(root string, cfg Config, read func(string) ([]byte, error), ov map[string][]byte) ([]*UnitTest, []Diagnostic) {
	files, problems := expandGlobs(os.DirFS(root), cfg.Tests)
	var diags []Diagnostic
	for _, pr := range problems {
		diags = append(diags, fileError(pr.name, fmt.Sprintf("cannot read: %v", pr.err)))
	}
	files = addOverlayFiles(root, files, ov, cfg.Tests)
	var tests []*UnitTest
	for _, f := range files {
		src, err := read(f)
		if err != nil {
			diags = append(diags, fileError(f, fmt.Sprintf("cannot read the test file: %v", err)))
			continue
		}
		ts, ds := ParseTests(f, src)
		tests = append(tests, ts...)
		diags = append(diags, ds...)
	}
	return tests, diags
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

// addOverlayFiles adds the overlay's files under root that a glob matches
// and the disk does not have yet.
func addOverlayFiles(root string, files []string, ov map[string][]byte, globs []string) []string {
	have := make(map[string]bool, len(files))
	for _, f := range files {
		have[f] = true
	}
	added := false
	for abs := range ov {
		rel, err := filepath.Rel(root, abs)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if have[rel] {
			continue
		}
		for _, g := range globs {
			if ValidateGlob(g) == nil && MatchGlob(g, rel) {
				files = append(files, rel)
				have[rel] = true
				added = true
				break
			}
		}
	}
	if added {
		slices.Sort(files)
	}
	return files
}

// fileError is a problem with a whole file, positioned at its start.
func fileError(file, msg string) Diagnostic {
	return NewDiagnostic(file, nil, 0, 0, SeverityError, CodeFile, msg)
}
