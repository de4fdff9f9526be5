package lsp

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"sync/atomic"

	"github.com/efmesh/efmesh/project"
)

// reader reads a file of the project: the editor's buffer when it has one,
// else the disk.
type reader func(abs string) ([]byte, error)

// errNoConfig means the root holds no efmesh.yaml (any more).
var errNoConfig = errors.New("no " + project.ConfigFile)

// loadSnapshot reads a whole project with the project's loader
// (project.ReadFiles), keeping each file's parse so later edits reparse
// one file only. env is the editor's environment: its vars are in force.
func loadSnapshot(seq uint64, root, env string, read reader, open map[string]openDoc) (*snapshot, error) {
	extra := make([]string, 0, len(open))
	for rel := range open {
		extra = append(extra, rel)
	}
	pf, err := project.ReadFiles(root, project.ReadFunc(read), extra)
	if err != nil {
		if errors.Is(err, project.ErrNoConfig) {
			return nil, errNoConfig
		}
		return nil, fmt.Errorf("read %s: %w", project.ConfigFile, err)
	}
	s := &snapshot{
		seq:    seq,
		root:   root,
		env:    env,
		config: &file{rel: project.ConfigFile, src: pf.ConfigSrc, diags: pf.ConfigDiagnostics},
		cfg:    pf.Config,
		files:  make(map[string]*file, len(pf.ByRel)),
		open:   open,
	}
	for rel, p := range pf.ByRel {
		if b := boundParse(p); b != p {
			pf.ByRel[rel] = b
		}
		s.files[rel] = fileOf(pf.ByRel[rel])
	}
	s.proj = project.WithVariables(pf.Project(), env, nil)
	s.models = new(modelSet)
	s.lineage = lineages.Add(1)
	return s, nil
}

// lineages numbers the loads of snapshots.
var lineages atomic.Uint64

// editedWith is the edited set of a snapshot of one lineage with rel
// replaced too (copied: snapshots are immutable).
func editedWith(edited map[string]bool, rel string) map[string]bool {
	if edited[rel] {
		return edited
	}
	n := make(map[string]bool, len(edited)+1)
	maps.Copy(n, edited)
	n[rel] = true
	return n
}

// openSnapshot is the snapshot a view starts with while the whole project
// loads in the background: efmesh.yaml and the open files only, parsed
// and assembled, so requests on an open file are answered from what is
// there instead of waiting for ten thousand files. It is partial: the
// checker never checks it.
func openSnapshot(seq uint64, root, env string, read reader, open map[string]openDoc) *snapshot {
	src, err := read(filepath.Join(root, project.ConfigFile))
	if err != nil {
		s := emptySnapshot(seq, root, open)
		s.partial = true
		return s
	}
	cfg, diags := project.ParseConfig(project.ConfigFile, src)
	if cfg.Name == "" {
		cfg.Name = filepath.Base(root)
	}
	s := &snapshot{
		seq:     seq,
		root:    root,
		env:     env,
		config:  &file{rel: project.ConfigFile, src: src, diags: diags},
		cfg:     cfg,
		files:   make(map[string]*file, len(open)),
		open:    open,
		partial: true,
		lineage: lineages.Add(1),
	}
	for rel := range open {
		kind := cfg.KindOf(rel)
		if kind == notProject {
			continue
		}
		if src, err := read(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			s.files[rel] = fileOf(boundParse(project.ParseFile(kind, rel, src)))
		}
	}
	s.build()
	return s
}

// fileOf is the editor's file of a parse.
func fileOf(p *project.FileParse) *file {
	return &file{rel: p.Rel, kind: p.Kind, src: p.Src, model: p.Model, tests: p.Tests, audit: p.Audit, defs: p.Macros, diags: p.Diagnostics}
}

// parseOf is the parse an editor's file was made of.
func parseOf(f *file) *project.FileParse {
	return &project.FileParse{Rel: f.rel, Kind: f.kind, Src: f.src, Model: f.model, Tests: f.tests, Audit: f.audit, Macros: f.defs, Diagnostics: f.diags}
}

// build assembles the Project from the parsed files with the loader's own
// assembly. The project s had (the previous snapshot's) lends it the
// expansions of the models whose parse, macros and variables are the same.
func (s *snapshot) build() {
	pf := &project.Files{Root: s.root, Config: s.cfg, ConfigSrc: s.config.src, ConfigDiagnostics: s.config.diags,
		ByRel: make(map[string]*project.FileParse, len(s.files)), Reuse: s.proj}
	for rel, f := range s.files {
		pf.ByRel[rel] = parseOf(f)
	}
	s.proj = project.WithVariables(pf.Project(), s.env, nil)
	s.models = new(modelSet)
}

// withFile returns a snapshot in which the project file rel has contents
// src (or is gone when !present), reparsing that file only. A file the
// globs do not match leaves the project as it is, but the new snapshot
// still records open documents.
func (s *snapshot) withFile(seq uint64, rel string, src []byte, present bool, open map[string]openDoc) *snapshot {
	n := s.clone(seq)
	n.open = open
	_, had := s.files[rel]
	kind := s.classify(rel)
	switch {
	case present && kind != notProject:
		p := boundParse(project.ParseFile(kind, rel, src))
		f := fileOf(p)
		n.files = maps.Clone(s.files)
		n.files[rel] = f
		n.edited = editedWith(s.edited, rel)
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
		n.edited = editedWith(s.edited, rel)
		n.build()
	}
	return n
}
