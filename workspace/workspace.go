// Package workspace is the use-case layer under both front ends, the
// command line (cmd/efmesh/cli) and the language server (lsp): a project
// opened on its root with what efmesh.yaml names (the workbench, the state
// store, the warehouse, opened through connect), and the use cases both
// need: load, analyze, plan, apply, render, lineage, test, and the one text
// of a plan.
//
// The front ends keep flags, protocol decoding, confirmation and printing;
// every decision about order (the environment's lock before the warehouse)
// and every result (what an apply built, promoted, removed, exported) is
// made here once. It knows no flag and no LSP type: errors come back as the
// planner made them, for each front end to phrase.
package workspace

import (
	"context"
	"log/slog"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/workspace/digest"
)

// Options tune a Workspace. The zero value is ready to use.
type Options struct {
	// Now is the clock of plans and renders; default analysis.Now, which
	// honours $EFMESH_NOW.
	Now func() time.Time
	// Logger receives progress and warnings; default discards.
	Logger *slog.Logger
	// Warehouse tunes how the warehouse is opened: how long to wait for a
	// DuckDB file another process writes, and what to say meanwhile.
	Warehouse []connect.WarehouseOption
	// Presence, when set, makes Preview check the store against the
	// warehouse's catalog through this cached listing, as Plan checks it
	// (the editor's); Apply and Plan invalidate it. Nil: Preview reads the
	// store only.
	Presence *Presence
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	t, _ := analysis.Now()
	return t
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// A Workspace is one analyzed project with the connections its use cases
// open. It is used by one request at a time (a command, an editor command)
// and closed after it.
type Workspace struct {
	Project  *project.Project
	Analysis *analysis.Analysis
	// Workbench is where models were bound for the analysis; render and
	// test run there. Nil until a use case needs one (then opened and
	// owned by the workspace).
	Workbench analysis.Workbench
	// Store is the state store once OpenStore opened it.
	Store state.Store
	// Reader, when set, is what Plan reads of the state store instead of
	// the store OpenStore opens (and creates when missing): the editor's
	// read-only reader, which never creates a store by reading.
	Reader state.Reader
	// LeftAside are the problems of the files outside the scope Open was
	// asked for: they did not stop it.
	LeftAside []project.Diagnostic
	// UnusedVars are the --var overrides Open was given that nothing
	// reads (LoadFor).
	UnusedVars []project.UnusedVar
	// Selection is the part of the project Plan, Apply and Run act on
	// (select.go); zero: all of it.
	Selection Selection

	opts    Options
	ownWB   bool
	ownStor bool
	// loaded stamps the files Open read, and before what the last plan saw
	// of the store and the warehouse, for the no-op digest (package digest).
	loaded *digest.Loaded
	before *digest.Before
	// saved is closed once Open's save of the check cache, which runs
	// while the use case goes on, is done; Close waits for it.
	saved chan struct{}
}

// Load reads the project at root with the project's own loader; overlay
// holds file contents by absolute path that win over the disk (the
// editor's unsaved buffers).
func Load(root string, overlay map[string][]byte) (*project.Project, error) {
	return project.LoadWith(root, overlay)
}

// Analyze checks p on wb, through the check cache next to the state store:
// a check is a pure function of the files, so only what changed reaches
// the workbench. A cache that cannot be saved is logged, not an error.
func Analyze(ctx context.Context, p *project.Project, wb analysis.Workbench, log *slog.Logger) (*analysis.Analysis, error) {
	a, save, err := analyzeCached(ctx, p, wb, log)
	if err != nil {
		return nil, err
	}
	save()
	return a, nil
}

// analyzeCached is Analyze without the save of the check cache: save
// writes it (logging a failure).
func analyzeCached(ctx context.Context, p *project.Project, wb analysis.Workbench, log *slog.Logger) (a *analysis.Analysis, save func(), err error) {
	cache := analysis.OpenFileCache(connect.CachePath(p))
	a, err = analysis.AnalyzeWith(ctx, p, wb, analysis.AnalyzeOptions{Cache: cache})
	if err != nil {
		return nil, nil, err
	}
	return a, func() {
		if err := cache.Save(); err != nil && log != nil {
			log.Warn("could not save the check cache", "err", err)
		}
	}, nil
}

// LoadFor finds the project holding dir and loads it with the variables in
// force for env: efmesh.yaml's vars, then the environment's, then vars
// (--var). It is the one place a front end resolves them, so that every
// request about env (plan, status, show, audit, the editor) renders, checks
// and fingerprints the models alike. unused are the overrides in vars that
// no model or audit reads and efmesh.yaml does not define (typos, most
// likely), for the front end to warn about.
func LoadFor(dir, env string, vars map[string]string) (p *project.Project, unused []project.UnusedVar, err error) {
	return loadFor(dir, env, vars, nil)
}

// loadFor is LoadFor, reading through rec when it is not nil.
func loadFor(dir, env string, vars map[string]string, rec *digest.Recorder) (p *project.Project, unused []project.UnusedVar, err error) {
	root, err := project.FindRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	if rec == nil {
		p, err = Load(root, nil)
	} else {
		var f *project.Files
		if f, err = project.ReadFiles(root, rec.Read, nil); err == nil {
			p = f.Project()
		}
	}
	if err != nil {
		return nil, nil, err
	}
	unused = project.UnusedOverrides(p, vars)
	return project.WithVariables(p, env, vars), unused, nil
}

// OpenOptions say what Open reads of a project.
type OpenOptions struct {
	Options
	// Scope is the part of the project the request reads: problems outside
	// it do not stop Open (as in the editor) and are kept in
	// Workspace.LeftAside. Nil: the whole project.
	Scope func(p *project.Project) project.Scope
	// Env and Vars choose the values of @var: the environment's vars of
	// efmesh.yaml, then Vars (--var) over them.
	Env  string
	Vars map[string]string
	// InServer binds the bodies with the warehouse's server where the
	// engine has one (connect.ServerWorkbench): for the use cases that
	// reach the warehouse anyway (plan, apply, run).
	InServer bool
}

// Open finds the project holding dir, loads and analyzes it. Problems in
// the files the request reads come back as a *planner.ProblemsError.
func Open(ctx context.Context, dir string, o OpenOptions) (*Workspace, error) {
	rec := &digest.Recorder{}
	p, unused, err := loadFor(dir, o.Env, o.Vars, rec)
	if err != nil {
		return nil, err
	}
	loaded := rec.Stamped(p)
	sc := project.AllFiles()
	if o.Scope != nil {
		sc = o.Scope(p)
	}
	if in, _ := sc.Split(p.Diagnostics); project.HasErrors(in) {
		return nil, &planner.ProblemsError{Diagnostics: in}
	}
	var wb analysis.Workbench
	if o.InServer {
		wb, err = connect.ServerWorkbench(ctx, p)
	} else {
		wb, err = connect.Workbench(p)
	}
	if err != nil {
		return nil, err
	}
	w := &Workspace{Project: p, Workbench: wb, UnusedVars: unused, opts: o.Options, ownWB: true, loaded: loaded}
	a, save, err := analyzeCached(ctx, p, wb, o.logger())
	if err != nil {
		w.Close()
		return nil, err
	}
	// Writing the check cache (a cold check's every model) is no input of
	// the use case: it runs meanwhile, and Close waits for it.
	w.Analysis, w.saved = a, make(chan struct{})
	go func() {
		defer close(w.saved)
		save()
	}()
	in, out := sc.Split(w.Analysis.Diagnostics)
	if project.HasErrors(in) {
		w.Close()
		return nil, &planner.ProblemsError{Diagnostics: in}
	}
	w.LeftAside = out
	return w, nil
}

// New is a workspace on an analysis made elsewhere (the editor's checker).
// wb is the workbench the analysis was bound in, or nil: a use case that
// needs one then opens its own.
func New(a *analysis.Analysis, wb analysis.Workbench, o Options) *Workspace {
	return &Workspace{Project: a.Project, Analysis: a, Workbench: wb, opts: o}
}

// OpenStore opens the project's state store (creating it when missing),
// once; Close closes it.
func (w *Workspace) OpenStore(ctx context.Context) (state.Store, error) {
	if w.Store != nil {
		return w.Store, nil
	}
	st, err := connect.Store(ctx, w.Project)
	if err != nil {
		return nil, err
	}
	w.Store, w.ownStor = st, true
	return st, nil
}

// workbench returns the workspace's workbench, opening one when it has
// none.
func (w *Workspace) workbench() (analysis.Workbench, error) {
	if w.Workbench != nil {
		return w.Workbench, nil
	}
	wb, err := connect.Workbench(w.Project)
	if err != nil {
		return nil, err
	}
	w.Workbench, w.ownWB = wb, true
	return wb, nil
}

// Close closes what the workspace opened, once the check cache Open
// analyzed through is saved.
func (w *Workspace) Close() {
	if w.saved != nil {
		<-w.saved
	}
	if w.Store != nil && w.ownStor {
		w.Store.Close()
		w.Store = nil
	}
	if w.Workbench != nil && w.ownWB {
		w.Workbench.Close()
		w.Workbench = nil
	}
}
