package lsp

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
)

// A view is one project of the workspace: the folder holding efmesh.yaml.
// It owns the latest snapshot, the latest check result and the checker
// that turns one into the other.
//
// Snapshots are replaced from the connection's reading goroutine
// (notifications run there in order) and, once, by the background load
// that replaces the open files' snapshot with the whole project's (changes
// that arrive during it wait for it, in order); readers take the current
// one under mu and then use it without locks, since it never changes.
type view struct {
	s    *Server
	root string

	updateMu sync.Mutex // serializes building snapshots

	mu    sync.Mutex
	seq   uint64
	snap  *snapshot    // never nil once the view exists
	res   *checkResult // latest completed check; nil before the first
	resCh chan struct{}

	ck *checker

	// While the project loads in the background (load), the changes that
	// arrive are recorded here and taken in after it.
	loading       bool
	pending       []string // absolute paths of changed files, in order
	pendingReload bool
	loadDone      chan struct{} // closed when the load is over

	store storeReader // the state store, read-only
	plans planCache   // code lens plans
}

// checkResult is a check of one snapshot.
type checkResult struct {
	snap     *snapshot
	analysis *analysis.Analysis   // nil when the check could not run
	checked  []project.Diagnostic // what the check found
	diags    []project.Diagnostic // what was published (with plan hints), by file and position
	hintGen  uint64               // the generation of the hints in diags
}

// info returns the analysis of a model, or nil.
func (r *checkResult) info(name string) *analysis.ModelInfo {
	if r == nil || r.analysis == nil {
		return nil
	}
	return r.analysis.Models[name]
}

// newView makes the view of root with its open files only (openSnapshot);
// start loads the rest in the background.
func newView(s *Server, root string) *view {
	v := &view{s: s, root: root, resCh: make(chan struct{}), loading: true, loadDone: make(chan struct{})}
	v.seq = 1
	v.snap = openSnapshot(v.seq, root, s.environment(), s.read, s.openUnder(root))
	v.ck = newChecker(v)
	return v
}

// start starts the checker and loads the whole project off the
// connection's reading goroutine, so that requests are answered while ten
// thousand files are read and parsed: until the load ends they see the
// open files' snapshot, and the changes that arrive meanwhile are taken
// in after it.
func (v *view) start() {
	v.ck.start()
	v.s.goSafe("loading "+v.root, v.load)
}

func (v *view) load() {
	defer v.loaded()
	if h := v.s.beforeLoad; h != nil {
		h(v.root)
	}
	if v.s.ctx.Err() != nil {
		return
	}
	v.updateMu.Lock()
	defer v.updateMu.Unlock()
	v.installLoad(false)
}

// loaded ends the load: the changes that arrived during it are taken in,
// in order, until none is left.
func (v *view) loaded() {
	defer func() {
		v.mu.Lock()
		v.loading, v.pending, v.pendingReload = false, nil, false
		v.mu.Unlock()
		close(v.loadDone)
		v.ck.supersede() // the first check
	}()
	for v.s.ctx.Err() == nil {
		v.mu.Lock()
		pending, reload := v.pending, v.pendingReload
		v.pending, v.pendingReload = nil, false
		if len(pending) == 0 && !reload {
			v.loading = false
			v.mu.Unlock()
			return
		}
		v.mu.Unlock()
		if reload {
			v.updateMu.Lock()
			v.installLoad(true)
			v.updateMu.Unlock()
			continue // the reload read every file
		}
		for _, abs := range pending {
			v.applyChange(abs)
		}
	}
}

// awaitLoad waits until the whole project is loaded (or ctx ends): what
// must see every model (commands) waits, what answers on an open file does
// not.
func (v *view) awaitLoad(ctx context.Context) {
	select {
	case <-v.loadDone:
	case <-ctx.Done():
	}
}

// isLoading reports whether the project is still loading.
func (v *view) isLoading() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.loading
}

// deferWhileLoading records a change that arrives while the project
// loads, to be taken in after it (loaded); it reports false, recording
// nothing, once the load is over.
func (v *view) deferWhileLoading(abs string, reload bool) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.loading {
		return false
	}
	if reload {
		v.pendingReload = true
	} else if abs != "" && !slices.Contains(v.pending, abs) {
		v.pending = append(v.pending, abs)
	}
	return true
}

// installLoad reads and parses the whole project into a snapshot and
// installs it, numbered once it is read (the open files' snapshot may have
// moved on meanwhile). The caller holds updateMu.
func (v *view) installLoad(full bool) {
	open := v.s.openUnder(v.root)
	snap, err := loadSnapshot(0, v.root, v.s.environment(), v.s.read, open)
	if err != nil {
		if err != errNoConfig {
			v.s.logf(protocol.MessageTypeWarning, "loading %s: %v", v.root, err)
		}
		snap = emptySnapshot(0, v.root, open)
	}
	snap.seq = v.nextSeq()
	snap.full = full
	v.install(snap)
}

// emptySnapshot stands for a root whose efmesh.yaml is gone: no files, so
// the checker clears what it published.
func emptySnapshot(seq uint64, root string, open map[string]openDoc) *snapshot {
	cfg := project.DefaultConfig()
	return &snapshot{seq: seq, root: root, cfg: cfg, files: map[string]*file{}, open: open}
}

// current returns the latest snapshot and the latest check result (which
// may be of an older snapshot).
func (v *view) current() (*snapshot, *checkResult) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.snap, v.res
}

func (v *view) snapshot() *snapshot {
	s, _ := v.current()
	return s
}

// fileChanged takes the current contents of one file (buffer or disk)
// into a new snapshot. A data file a model reads (a seed, external files)
// asks for a whole check instead; any other file changes nothing.
func (v *view) fileChanged(abs string) {
	if _, ok := relPath(v.root, abs); !ok {
		return
	}
	if v.deferWhileLoading(abs, false) {
		v.applyPartialChange(abs)
		return
	}
	v.applyChange(abs)
}

// applyPartialChange takes a file that changed (or opened) while the
// project loads into the open files' snapshot, so requests on it are
// answered from its current text; the load's snapshot replaces it later.
func (v *view) applyPartialChange(abs string) {
	cur := v.snapshot()
	rel, ok := relPath(v.root, abs)
	if !ok || !cur.partial || cur.config == nil || rel == project.ConfigFile || !cur.isProjectFile(rel) {
		return
	}
	src, err := v.s.read(abs)
	n := cur.withFile(0, rel, src, err == nil, v.s.openUnder(v.root))
	n.partial = true
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.snap == cur {
		v.seq++
		n.seq = v.seq
		v.snap = n
	}
}

// applyChange is fileChanged once the project is loaded: a new snapshot
// with the file's current contents, a reload for efmesh.yaml, a whole
// check for a data file a model reads.
func (v *view) applyChange(abs string) {
	rel, ok := relPath(v.root, abs)
	if !ok {
		return
	}
	if rel == project.ConfigFile {
		v.reload()
		return
	}
	if cur := v.snapshot(); cur.files[rel] == nil && !cur.isProjectFile(rel) {
		if cur.readsData(rel) {
			v.touch()
		}
		return
	}
	v.updateMu.Lock()
	defer v.updateMu.Unlock()
	cur := v.snapshot()
	if cur.config == nil {
		return
	}
	src, err := v.s.read(abs)
	v.install(cur.withFile(v.nextSeq(), rel, src, err == nil, v.s.openUnder(v.root)))
}

// reload rebuilds the snapshot from scratch: efmesh.yaml changed, or files
// appeared or vanished in bulk.
func (v *view) reload() {
	if v.deferWhileLoading("", true) {
		return
	}
	v.updateMu.Lock()
	defer v.updateMu.Unlock()
	v.installLoad(true)
}

// touch makes a new snapshot with the same files, so the checker runs
// again (a seed or external file changed on disk).
func (v *view) touch() {
	if v.deferWhileLoading("", false) {
		return // the first check, after the load, reads the data anyway
	}
	v.updateMu.Lock()
	defer v.updateMu.Unlock()
	cur := v.snapshot()
	n := cur.clone(v.nextSeq())
	n.full = true
	v.install(n)
}

func (v *view) nextSeq() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.seq++
	return v.seq
}

// install makes snap current and tells the checker.
func (v *view) install(snap *snapshot) {
	v.mu.Lock()
	if snap.seq < v.snap.seq {
		v.mu.Unlock()
		return
	}
	v.snap = snap
	v.mu.Unlock()
	v.ck.supersede()
}

// setResult records a finished check unless a newer one is already there.
func (v *view) setResult(r *checkResult) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.res != nil && v.res.snap.seq > r.snap.seq {
		return
	}
	v.res = r
	close(v.resCh)
	v.resCh = make(chan struct{})
}

// await returns the first check result of a snapshot at least as new as
// seq, or the latest one when ctx ends first.
func (v *view) await(ctx context.Context, seq uint64) *checkResult {
	for {
		v.mu.Lock()
		res, ch := v.res, v.resCh
		v.mu.Unlock()
		if res != nil && res.snap.seq >= seq {
			return res
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return res
		}
	}
}

// idle reports whether the latest snapshot has been checked and published.
func (v *view) idle() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.res != nil && v.res.snap.seq == v.snap.seq && v.ck.hints.settled(v.res)
}

func (v *view) stop() { v.ck.stop() }

// viewContaining returns the view whose root holds path (the innermost
// one), or nil; it never makes one (ensureViewContaining does).
func (s *Server) viewContaining(path string) *view {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best *view
	for root, v := range s.views {
		if _, ok := relPath(root, path); ok && (best == nil || len(root) > len(best.root)) {
			best = v
		}
	}
	return best
}

// ensureViewContaining is viewContaining, else the view of the project of
// a file outside the known ones, found by walking up to its efmesh.yaml,
// made and started (ensureView); nil when no efmesh.yaml is above it.
func (s *Server) ensureViewContaining(path string) *view {
	if v := s.viewContaining(path); v != nil {
		return v
	}
	root, err := project.FindRoot(filepath.Dir(path))
	if err != nil {
		return nil
	}
	return s.ensureView(root)
}

// ensureView returns the view of root, creating and starting it.
func (s *Server) ensureView(root string) *view {
	root = filepath.Clean(root)
	s.mu.Lock()
	if v := s.views[root]; v != nil {
		s.mu.Unlock()
		return v
	}
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	v := newView(s, root)
	s.mu.Lock()
	if old := s.views[root]; old != nil {
		s.mu.Unlock()
		return old
	}
	s.views[root] = v
	s.mu.Unlock()
	v.start()
	return v
}

// allViews returns the views sorted by root.
func (s *Server) allViews() []*view {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*view, 0, len(s.views))
	for _, v := range s.views {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b *view) int { return strings.Compare(a.root, b.root) })
	return out
}

// discoverRoots finds the projects of a workspace folder: the one holding
// it (efmesh.yaml in the folder or above), else every efmesh.yaml a few
// levels below it.
func discoverRoots(folder string) []string {
	if root, err := project.FindRoot(folder); err == nil {
		return []string{root}
	}
	var roots []string
	const maxDepth = 4
	_ = filepath.WalkDir(folder, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			name := d.Name()
			if path != folder && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
				return fs.SkipDir
			}
			if rel, _ := filepath.Rel(folder, path); strings.Count(rel, string(os.PathSeparator)) >= maxDepth {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() == project.ConfigFile {
			roots = append(roots, filepath.Dir(path))
		}
		return nil
	})
	return roots
}
