package project

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/efmesh/efmesh/macro"
)

// The loader works file by file: ReadFiles reads efmesh.yaml and parses
// every file its globs match on its own (ParseFile), and Files.Project
// assembles them. Load and LoadWith do both at once; the language server
// keeps the parses and, after an edit, parses that one file again
// (of the file) before assembling.

// FileKind says which globs of efmesh.yaml a file matches.
type FileKind uint8

const (
	NotProjectFile FileKind = iota
	ModelFile
	TestFile
	AuditFile
	MacroFile
)

func (k FileKind) String() string {
	switch k {
	case ModelFile:
		return "model"
	case TestFile:
		return "test"
	case AuditFile:
		return "audit"
	case MacroFile:
		return "macro"
	}
	return "other"
}

// KindOf tells what the slash path rel (relative to the root) is to the
// project: a model, a unit test or a custom audit file, in that order of
// precedence, or none.
func (c Config) KindOf(rel string) FileKind { return c.kindMatcher().kindOf(rel) }

// kindMatcher holds the config's valid globs, split once, by kind in order
// of precedence: a loader asks for the kind of every file.
type kindMatcher []struct {
	segs [][]string
	kind FileKind
}

func (c Config) kindMatcher() kindMatcher {
	km := make(kindMatcher, 0, 4)
	for _, k := range []struct {
		globs []string
		kind  FileKind
	}{{c.Models, ModelFile}, {c.Tests, TestFile}, {c.Audits, AuditFile}, {c.Macros, MacroFile}} {
		var segs [][]string
		for _, g := range k.globs {
			if ValidateGlob(g) == nil {
				segs = append(segs, globSegments(g))
			}
		}
		km = append(km, struct {
			segs [][]string
			kind FileKind
		}{segs, k.kind})
	}
	return km
}

func (km kindMatcher) kindOf(rel string) FileKind {
	name := strings.Split(rel, "/")
	for _, k := range km {
		for _, segs := range k.segs {
			if matchSegments(segs, name) {
				return k.kind
			}
		}
	}
	return NotProjectFile
}

// A FileParse is one model, test or audit file parsed on its own.
type FileParse struct {
	Rel  string // slash path relative to the root
	Kind FileKind
	Src  []byte // nil when the file could not be read

	Model *Model       // a model file's model; nil when unreadable
	Tests []*UnitTest  // a test file's tests
	Audit *CustomAudit // an audit file's audit
	// Macros are a macro file's definitions.
	Macros []*macro.Def

	// Diagnostics are the problems found in this file alone.
	Diagnostics []Diagnostic
}

// ParseFile parses src, the contents of the project file rel, as a file
// of the kind.
func ParseFile(kind FileKind, rel string, src []byte) *FileParse {
	f := &FileParse{Rel: rel, Kind: kind, Src: src}
	switch kind {
	case ModelFile:
		f.Model, f.Diagnostics = ParseModel(rel, src)
	case TestFile:
		f.Tests, f.Diagnostics = ParseTests(rel, src)
	case AuditFile:
		f.Audit, f.Diagnostics = ParseAudit(rel, src)
	case MacroFile:
		f.Macros, f.Diagnostics = ParseMacros(rel, src)
	}
	return f
}

// UnreadableFile is the parse of a project file that could not be read:
// its one diagnostic says why.
func UnreadableFile(kind FileKind, rel string, err error) *FileParse {
	return &FileParse{Rel: rel, Kind: kind, Diagnostics: []Diagnostic{
		fileError(rel, fmt.Sprintf("cannot read the %s file: %v", kind, err)),
	}}
}

// Files is a project read and parsed file by file, not yet assembled.
type Files struct {
	Root   string // absolute
	Config Config
	// ConfigSrc is efmesh.yaml's text and ConfigDiagnostics its problems,
	// with the folders its globs could not read.
	ConfigSrc         []byte
	ConfigDiagnostics []Diagnostic
	// ByRel holds the parse of every model, test and audit file.
	ByRel map[string]*FileParse
	// Reuse, when set, is a project assembled earlier from some of the
	// same parses (the editor's previous snapshot): Project keeps its
	// expansions of the parsed models whose macros and variables are
	// unchanged instead of expanding them again.
	Reuse *Project
}

// ReadFunc returns the contents of a project file by absolute path.
type ReadFunc func(abs string) ([]byte, error)

// ReadFiles reads efmesh.yaml in root and every file its globs match
// through read, and parses each. extra are slash paths relative to root
// that read knows but the disk may not (unsaved buffers): they are read
// too when a glob matches them. The error is only for I/O that makes
// loading impossible (it matches ErrNoConfig when there is no
// efmesh.yaml); every other problem is a diagnostic.
func ReadFiles(root string, read ReadFunc, extra []string) (*Files, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	src, err := read(filepath.Join(root, ConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &noConfigError{dir: root}
	}
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	cfg, diags := ParseConfig(ConfigFile, src)
	if cfg.Name == "" {
		cfg.Name = filepath.Base(root)
	}
	rels, problems := listFiles(root, cfg)
	for _, pr := range problems {
		diags = append(diags, fileError(pr.name, fmt.Sprintf("cannot read: %v", pr.err)))
	}
	seen := make(map[string]bool, len(rels))
	for _, rel := range rels {
		seen[rel] = true
	}
	km := cfg.kindMatcher()
	for _, rel := range extra {
		if !seen[rel] && km.kindOf(rel) != NotProjectFile {
			seen[rel] = true
			rels = append(rels, rel)
		}
	}
	slices.Sort(rels)

	// Reading and parsing are independent per file: spread them over the
	// cores.
	parsed := make([]*FileParse, len(rels))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(rels), 1)) {
		wg.Go(func() {
			for i := range next {
				rel := rels[i]
				kind := km.kindOf(rel)
				src, err := read(filepath.Join(root, filepath.FromSlash(rel)))
				if err != nil {
					parsed[i] = UnreadableFile(kind, rel, err)
				} else {
					parsed[i] = ParseFile(kind, rel, src)
				}
			}
		})
	}
	for i := range rels {
		next <- i
	}
	close(next)
	wg.Wait()
	f := &Files{Root: root, Config: cfg, ConfigSrc: src, ConfigDiagnostics: diags, ByRel: make(map[string]*FileParse, len(rels))}
	for _, p := range parsed {
		f.ByRel[p.Rel] = p
	}
	return f, nil
}

// Project assembles the parsed files (Assemble), in file order.
func (f *Files) Project() *Project {
	rels := make([]string, 0, len(f.ByRel))
	for rel := range f.ByRel {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	diags := slices.Clone(f.ConfigDiagnostics)
	var models []*Model
	var tests []*UnitTest
	var audits []*CustomAudit
	var later []Diagnostic // the tests' and audits' own
	var defs []*macro.Def
	for _, rel := range rels {
		p := f.ByRel[rel]
		switch p.Kind {
		case ModelFile:
			diags = append(diags, p.Diagnostics...)
			if p.Model != nil {
				models = append(models, p.Model)
			}
		case TestFile:
			tests = append(tests, p.Tests...)
			later = append(later, p.Diagnostics...)
		case AuditFile:
			if p.Audit != nil {
				audits = append(audits, p.Audit)
			}
			later = append(later, p.Diagnostics...)
		case MacroFile:
			defs = append(defs, p.Macros...)
			diags = append(diags, p.Diagnostics...)
		}
	}
	return assembleWith(f.Root, f.Config, models, diags, tests, audits, later, defs, f.Reuse)
}
