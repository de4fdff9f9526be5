package lsp

import (
	"github.com/efmesh/efmesh/macro"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
)

// A snapshot is one immutable state of a project as the editor sees it:
// efmesh.yaml and every model file (buffer contents winning over disk),
// parsed, and the Project built from them. An edit makes a new snapshot
// that shares every unchanged file with its predecessor; only the edited
// file is parsed again. Snapshots are numbered by seq, increasing within a
// view, and every check result and publication is tagged with the seq it
// was computed from.
type snapshot struct {
	seq    uint64
	root   string
	env    string // the editor's environment, whose vars proj has in force
	config *file  // efmesh.yaml
	cfg    project.Config
	files  map[string]*file // model, test and audit files by slash path relative to root
	proj   *project.Project
	// models stands for proj's set of models (names, files and order):
	// a snapshot whose edit swapped one model's body in shares its
	// predecessor's; any other change makes a new one. nil: unknown.
	models *modelSet
	open   map[string]openDoc // open documents by relative path
	// full asks for a whole-project check: files the check reads but the
	// snapshot does not hold (seeds, external files) may have changed.
	full bool
	// lineage names the load the snapshot's files come from (0: none):
	// two snapshots of one lineage share every file object but those
	// edited lists, the files replaced since the load (a small set).
	lineage uint64
	edited  map[string]bool
	// partial marks the snapshot a view answers from while its project
	// loads (openSnapshot): efmesh.yaml and the open files only. It is
	// never checked.
	partial bool
}

// clone is the next snapshot after s, numbered seq: every field carried
// (a copy of the struct, so a field added to snapshot is carried without
// a word here) but those that say how one snapshot was made, which start
// over: full (set by the maker that wants a whole check) and partial (set
// by the maker of a load-time snapshot). The maker then changes what its
// change changes; maps are shared, so it replaces them, never writes
// into them (snapshots are immutable).
func (s *snapshot) clone(seq uint64) *snapshot {
	n := *s
	n.seq = seq
	n.full = false
	n.partial = false
	return &n
}

// modelSet is the identity of a snapshot's set of models.
type modelSet struct{ _ byte }

// openDoc is what a snapshot remembers of an editor buffer it includes.
type openDoc struct {
	uri     protocol.DocumentURI
	version int32
}

// variable says where the value of @var(name) comes from in the
// snapshot's environment.
func (s *snapshot) variable(name string) (project.VariableOrigin, bool) {
	return project.VariableSource(s.cfg, s.env, name, nil)
}

// file is one parsed file of a snapshot; immutable but for its lazily
// built Mapper.
type file struct {
	rel   string
	kind  fileKind
	src   []byte
	model *project.Model       // a model file's model; nil when unreadable
	tests []*project.UnitTest  // a test file's tests
	audit *project.CustomAudit // an audit file's audit
	defs  []*macro.Def         // a macro file's definitions
	diags []project.Diagnostic // found parsing this file alone

	once   sync.Once
	mapper *Mapper
	qOnce  sync.Once
	q      *sqlread.Query
}

// query returns the parsed body of a model file, or nil.
func (f *file) query() *sqlread.Query {
	if f == nil || f.model == nil || tooBig(f) {
		return nil
	}
	f.qOnce.Do(func() { f.q = sqlread.Parse(f.src, f.model.BodyStart) })
	return f.q
}

// Mapper returns the position mapper of the file's text.
func (f *file) Mapper() *Mapper {
	f.once.Do(func() { f.mapper = NewMapper(f.src) })
	return f.mapper
}

// file returns the snapshot's file at a relative path (efmesh.yaml
// included), or nil.
func (s *snapshot) file(rel string) *file {
	if rel == project.ConfigFile {
		return s.config
	}
	return s.files[rel]
}

// rel returns the slash path of abs relative to the root, and whether abs
// is inside the root.
func (s *snapshot) rel(abs string) (string, bool) { return relPath(s.root, abs) }

func relPath(root, abs string) (string, bool) {
	r, err := filepath.Rel(root, abs)
	if err != nil || !filepath.IsLocal(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// abs returns the absolute path of a relative one.
func (s *snapshot) abs(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }

// uri returns the URI of a file: the client's own spelling when the file
// is open, so publications land on the buffer the client knows.
func (s *snapshot) uri(rel string) protocol.DocumentURI {
	if d, ok := s.open[rel]; ok {
		return d.uri
	}
	return uriOf(s.abs(rel))
}

// version returns the version of the open buffer of rel that the snapshot
// holds, or 0 when the file is not open.
func (s *snapshot) version(rel string) uint32 {
	if d, ok := s.open[rel]; ok && d.version > 0 {
		return uint32(d.version)
	}
	return 0
}

// modelAt returns the model defined in the file, or nil.
func (s *snapshot) modelAt(rel string) *project.Model {
	if f := s.files[rel]; f != nil {
		return f.model
	}
	return nil
}

// fileKind says which globs of efmesh.yaml a file matches.
type fileKind = project.FileKind

const (
	notProject = project.NotProjectFile
	modelFile  = project.ModelFile
	testFile   = project.TestFile
	auditFile  = project.AuditFile
)

// classify tells what rel is to the project: a model, a unit test or a
// custom audit file (in that order of precedence), or none.
func (s *snapshot) classify(rel string) fileKind { return s.cfg.KindOf(rel) }

// readsData reports whether a model reads the file rel as data: a seed's
// path or an EXTERNAL model's files. Its content is not in the snapshot,
// so a change to it calls for a whole-project check.
func (s *snapshot) readsData(rel string) bool {
	if s.proj == nil {
		return false
	}
	for _, m := range s.proj.Models {
		k := m.Kind
		switch {
		case k.Name == project.KindSeed && path.Clean(k.Path) == rel:
			return true
		case k.Name == project.KindExternal && k.Files != "" && !strings.Contains(k.Files, "://") &&
			project.ValidateGlob(k.Files) == nil && project.MatchGlob(k.Files, rel):
			return true
		}
	}
	return false
}

// isProjectFile reports whether rel is a model, test or audit file.
func (s *snapshot) isProjectFile(rel string) bool { return s.classify(rel) != notProject }
