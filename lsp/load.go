package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/efmesh/efmesh/project"
)

// source reads a file of the project: the editor's buffer when it has one,
// else the disk.
type reader func(abs string) ([]byte, error)

// errNoConfig means the root holds no efmesh.yaml (any more).
var errNoConfig = errors.New("lsp: no " + project.ConfigFile)

// loadSnapshot reads a whole project as project.LoadWith does (models,
// unit tests, custom audits), keeping each file's parse so later edits
// reparse one file only.
func loadSnapshot(seq uint64, root string, read reader, open map[string]openDoc) (*snapshot, error) {
	src, err := read(filepath.Join(root, project.ConfigFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errNoConfig
		}
		return nil, fmt.Errorf("lsp: read %s: %w", project.ConfigFile, err)
	}
	cfg, cdiags := project.ParseConfig(project.ConfigFile, src)
	if cfg.Name == "" {
		cfg.Name = filepath.Base(root)
	}
	s := &snapshot{
		seq:    seq,
		root:   root,
		config: &file{rel: project.ConfigFile, src: src, diags: cdiags},
		cfg:    cfg,
		files:  map[string]*file{},
		open:   open,
	}
	var rels []string
	seen := map[string]bool{}
	for _, globs := range [][]string{cfg.Models, cfg.Tests, cfg.Audits} {
		for _, rel := range project.ExpandGlobs(root, globs) {
			if !seen[rel] {
				seen[rel] = true
				rels = append(rels, rel)
			}
		}
	}
	for rel := range open {
		if !seen[rel] && s.isProjectFile(rel) {
			seen[rel] = true
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)

	// Parsing is independent per file: spread it over the cores.
	parsed := make([]*file, len(rels))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(rels), 1)) {
		wg.Go(func() {
			for i := range next {
				rel := rels[i]
				src, err := read(s.abs(rel))
				parsed[i] = parseFile(s.classify(rel), rel, src, err)
			}
		})
	}
	for i := range rels {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, f := range parsed {
		s.files[f.rel] = f
	}
	s.build()
	return s, nil
}

// parseFile parses one file of the project as what it is. An unreadable
// file is a diagnostic, as in project.LoadWith.
func parseFile(kind fileKind, rel string, src []byte, readErr error) *file {
	f := &file{rel: rel, kind: kind, src: src}
	if readErr != nil {
		what := map[fileKind]string{modelFile: "model", testFile: "test", auditFile: "audit"}[kind]
		f.src = nil
		f.diags = []project.Diagnostic{project.NewDiagnostic(rel, nil, 0, 0, project.SeverityError, project.CodeFile,
			fmt.Sprintf("cannot read the %s file: %v", what, readErr))}
		return f
	}
	switch kind {
	case modelFile:
		f.model, f.diags = project.ParseModel(rel, src)
	case testFile:
		f.tests, f.diags = project.ParseTests(rel, src)
	case auditFile:
		f.audit, f.diags = project.ParseAudit(rel, src)
	}
	return f
}

// build assembles the Project from the parsed files with the loader's own
// assembly (project.Assemble).
func (s *snapshot) build() {
	rels := slices.Sorted(maps.Keys(s.files))
	diags := slices.Clone(s.config.diags)
	var models []*project.Model
	var tests []*project.UnitTest
	var audits []*project.CustomAudit
	var later []project.Diagnostic // tests' and audits' own
	for _, rel := range rels {
		f := s.files[rel]
		switch f.kind {
		case modelFile:
			diags = append(diags, f.diags...)
			if f.model != nil {
				models = append(models, f.model)
			}
		case testFile:
			tests = append(tests, f.tests...)
			later = append(later, f.diags...)
		case auditFile:
			if f.audit != nil {
				audits = append(audits, f.audit)
			}
			later = append(later, f.diags...)
		}
	}
	p := project.Assemble(s.root, s.cfg, models, diags, tests, audits, later)
	s.proj = p
}

// withFile returns a snapshot in which the project file rel has contents
// src (or is gone when !present), reparsing that file only. A file the
// globs do not match leaves the project as it is, but the new snapshot
// still records open documents.
func (s *snapshot) withFile(seq uint64, rel string, src []byte, present bool, open map[string]openDoc) *snapshot {
	n := &snapshot{seq: seq, root: s.root, config: s.config, cfg: s.cfg, files: s.files, proj: s.proj, open: open}
	_, had := s.files[rel]
	kind := s.classify(rel)
	switch {
	case present && kind != notProject:
		n.files = maps.Clone(s.files)
		f := parseFile(kind, rel, src, nil)
		n.files[rel] = f
		// Typing in a model's body leaves the DAG as it was: swap the
		// model in instead of building the whole project again.
		if old := s.files[rel]; kind == modelFile && old != nil && f.model != nil && s.proj != nil {
			if p := s.proj.WithBody(f.model, old.diags, f.diags); p != nil {
				n.proj = p
				return n
			}
		}
		n.build()
	case !present && had:
		n.files = maps.Clone(s.files)
		delete(n.files, rel)
		n.build()
	}
	return n
}
