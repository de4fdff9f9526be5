package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/project"
)

// The checker is the one goroutine of a view that checks snapshots. It
// owns the view's workbench (connect.Workbench: an in-memory DuckDB holding
// a stand-in per model, analysis's business): nothing else touches it, so
// checks never race and the workbench's stand-ins always match the last
// completed analysis, which the next check (analysis.Reanalyze) builds on.
//
// It debounces: a check starts once no edit arrived for Options.Debounce
// (bounded, so a stream of edits still gets checked). A newer snapshot
// cancels a whole-project check in flight; an incremental check (one model
// and its direct children) is short and runs to completion, so the
// workbench never holds half of a check. Each completed check is
// published (publish.go) and then recorded in the view, in snapshot order.
type checker struct {
	v      *view
	kick   chan struct{} // buffered: a newer snapshot is waiting
	jobs   chan func()   // work that needs the workbench (render)
	repub  chan struct{} // buffered: the hints changed since the last publication
	hints  *hinter
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	// Owned by the checker goroutine.
	wb        analysis.Workbench
	wbEngine  engine.Kind        // the engine wb was opened for
	prev      *analysis.Analysis // last completed analysis, matching wb
	needFull  bool               // wb may not match prev: check everything
	cache     *analysis.FileCache
	wbErr     string // the last workbench failure logged
	published map[string]published
	// lastSnap and lastDiags are what publish last published from, when
	// it was the last to publish and its diagnostics were sorted by file:
	// the next publication of the same lineage sends only what moved.
	lastSnap  *snapshot
	lastDiags []project.Diagnostic
	// publishedFiles counts the files the last publication looked at.
	publishedFiles int
	lint           lintCache // each model's lint findings, by the ModelInfo linted

	mu       sync.Mutex
	inflight context.CancelFunc // cancels the running whole-project check
}

func newChecker(v *view) *checker {
	c := &checker{v: v, kick: make(chan struct{}, 1), jobs: make(chan func()), repub: make(chan struct{}, 1),
		done: make(chan struct{}), published: map[string]published{}}
	c.hints = newHinter(v)
	c.lint.configure = v.s.lintConfig
	c.ctx, c.cancel = context.WithCancel(v.s.ctx)
	return c
}

func (c *checker) start() {
	c.v.s.wg.Add(1)
	go func() {
		defer c.v.s.wg.Done()
		c.run()
	}()
	c.v.s.wg.Add(1)
	go func() {
		defer c.v.s.wg.Done()
		c.hints.run(c.ctx)
	}()
	c.supersede()
}

func (c *checker) stop() {
	c.cancel()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
	}
	c.v.store.close()
}

// republish asks the checker to publish the latest result again with the
// hints as they are now.
func (c *checker) republish() {
	select {
	case c.repub <- struct{}{}:
	default:
	}
}

// supersede tells the checker a newer snapshot exists.
func (c *checker) supersede() {
	c.mu.Lock()
	if c.inflight != nil {
		c.inflight()
	}
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checker) run() {
	defer close(c.done)
	defer func() {
		if c.wb != nil {
			c.wb.Close()
		}
	}()
	for {
		select {
		case <-c.ctx.Done():
			return
		case job := <-c.jobs:
			job()
			continue
		case <-c.repub:
			c.publishHints()
			continue
		case <-c.kick:
		}
		// Edits are debounced; the first check (of the loaded project, or
		// the open files' snapshot to prepare for it) has nothing to wait for.
		if snap, res := c.v.current(); res != nil && !snap.partial && !c.v.isLoading() && !c.debounce() {
			return
		}
		snap, res := c.v.current()
		if snap.partial {
			c.prepareSafely(snap)
			continue
		}
		if c.v.isLoading() {
			continue // the changes made during the load come next: check once, after them
		}
		if res != nil && res.snap.seq >= snap.seq {
			continue
		}
		c.checkSafely(snap)
	}
}

// debounce waits until no kick arrived for the debounce period, at most
// ten periods in all. It returns false when the checker stops.
func (c *checker) debounce() bool {
	d := c.v.s.opts.Debounce
	t := time.NewTimer(d)
	defer t.Stop()
	deadline := time.Now().Add(10 * d)
	for {
		select {
		case <-c.ctx.Done():
			return false
		case <-c.kick:
			if time.Now().Before(deadline) {
				t.Reset(d)
			}
		case <-t.C:
			return true
		}
	}
}

// checkSafely checks snap; a panic is logged and the next check starts
// from scratch.
func (c *checker) checkSafely(snap *snapshot) {
	defer func() {
		if r := recover(); r != nil {
			c.prev, c.needFull = nil, true
			c.v.s.recoverPanicValue(fmt.Sprintf("checking %s", c.v.root), r)
			res := &checkResult{snap: snap}
			if snap.proj != nil {
				res.checked = snap.proj.Diagnostics
			}
			c.hints.request(res)
			c.publishWith(res)
		}
	}()
	res, ok := c.check(snap)
	if !ok {
		return // superseded; the newer snapshot's kick is pending
	}
	// One publication per check, with its plan hints when the hinter
	// finds them in time (their own job: hints.go).
	c.hints.request(res)
	c.hints.wait(c.ctx, snap.seq, hintWait)
	c.publishWith(res)
}

// publishWith publishes res's diagnostics with the latest plan hints and
// records res in the view.
func (c *checker) publishWith(res *checkResult) {
	res.diags, res.hintGen = c.hints.place(res)
	c.publish(res)
	c.v.setResult(res)
}

// publishHints publishes the latest result again when the hints changed
// since it was published.
func (c *checker) publishHints() {
	_, res := c.v.current()
	if res == nil || c.hints.settled(res) {
		return
	}
	again := *res
	c.publishWith(&again)
}

// check analyzes one snapshot. ok is false when a newer snapshot cancelled
// the check.
func (c *checker) check(snap *snapshot) (res *checkResult, ok bool) {
	res = &checkResult{snap: snap}
	if snap.proj == nil {
		return res, true
	}
	res.checked = snap.proj.Diagnostics
	if c.workbench(snap.proj) == nil {
		return res, true
	}

	prev := c.prev
	if c.needFull || snap.full {
		prev = nil
	}
	ctx := c.ctx
	full := prev == nil
	if full {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(c.ctx)
		defer cancel()
		c.mu.Lock()
		c.inflight = cancel
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			c.inflight = nil
			c.mu.Unlock()
		}()
	}
	var a *analysis.Analysis
	var err error
	if full {
		// A whole-project check answers what it can from the check cache
		// the CLI shares, so opening a project checked before is cheap.
		if c.cache == nil {
			c.cache = analysis.OpenFileCache(connect.CachePath(snap.proj))
		}
		c.checkOpenFirst(ctx, snap)
		if h := c.v.s.beforeWholeCheck; h != nil {
			h(snap.open)
		}
		a, err = analysis.AnalyzeWith(ctx, snap.proj, c.wb, analysis.AnalyzeOptions{Cache: c.cache})
		if err == nil {
			if serr := c.cache.Save(); serr != nil {
				c.v.s.log.Debug("could not save the check cache", "err", serr)
			}
		}
	} else {
		a, err = analysis.Reanalyze(ctx, prev, snap.proj, c.wb)
	}
	if err != nil {
		// Cancelled (a newer snapshot is waiting) or a failing workbench:
		// either way the workbench no longer matches prev.
		c.prev, c.needFull = nil, true
		if ctx.Err() != nil {
			return nil, false
		}
		c.v.s.logf(protocol.MessageTypeError, "checking %s: %v", c.v.root, err)
		return res, true
	}
	c.prev, c.needFull = a, false
	res.analysis = a
	if full {
		c.openLintDisk(snap.proj)
		// Linting a project checked for the first time costs about as
		// much as checking it: what the check found goes out first.
		c.publishFirst(snap, a.Diagnostics)
		if h := c.v.s.beforeLint; h != nil {
			h()
		}
	}
	res.checked = c.lint.withLint(a, prev, full, snap.models)
	if full {
		if serr := c.lint.disk.save(); serr != nil {
			c.v.s.log.Debug("could not save the lint cache", "err", serr)
		}
	}
	return res, true
}

// prepareSafely opens what a whole check needs and depends on efmesh.yaml
// only (the workbench, the check cache, the lint cache) while the project
// loads, so the load and the opening overlap: snap is the open files'
// snapshot. A panic is logged; the check opens them again.
func (c *checker) prepareSafely(snap *snapshot) {
	defer func() {
		if r := recover(); r != nil {
			c.v.s.recoverPanicValue("preparing the check of "+c.v.root, r)
		}
	}()
	if snap.proj == nil || c.workbench(snap.proj) == nil {
		return
	}
	if c.cache == nil {
		c.cache = analysis.OpenFileCache(connect.CachePath(snap.proj))
	}
	c.openLintDisk(snap.proj)
}

// checkOpenFirst checks the models of the open files, with their
// ancestors and nothing else, and publishes the open files' diagnostics:
// the files the user looks at are answered before the rest of a large
// project is checked. The whole-project check that follows publishes
// again what differs (a plain table name that is a model elsewhere in the
// project, plan hints). Nothing is cached from this partial check: its
// keys would name a smaller project.
func (c *checker) checkOpenFirst(ctx context.Context, snap *snapshot) {
	p := snap.proj
	keep := map[string]bool{}
	var files, names []string
	var walk func(name string)
	walk = func(name string) {
		m := p.ByName[name]
		if m == nil || keep[name] {
			return
		}
		keep[name] = true
		for _, r := range m.Refs() {
			walk(r)
		}
	}
	for rel := range snap.open {
		f := snap.files[rel]
		if f == nil || f.model == nil {
			continue
		}
		if m := p.ByName[f.model.Name]; m != nil && m.File == rel {
			files = append(files, rel)
			names = append(names, m.Name)
			walk(m.Name)
		}
	}
	if len(files) == 0 || len(keep) >= len(p.Models) {
		return // nothing open, or the whole project anyway
	}
	inFile := map[string]bool{}
	models := make([]*project.Model, 0, len(keep))
	for _, m := range p.Models {
		if keep[m.Name] && p.ByName[m.Name] == m {
			models = append(models, m)
			inFile[m.File] = true
		}
	}
	var loadDiags []project.Diagnostic
	for _, d := range p.Diagnostics {
		if inFile[d.File] {
			loadDiags = append(loadDiags, d)
		}
	}
	sub := project.Build(p.Root, p.Config, models, loadDiags)
	a, err := analysis.AnalyzeWith(ctx, sub, c.wb, analysis.AnalyzeOptions{})
	if err != nil {
		return // cancelled, or the whole check reports it
	}
	sev, _ := lint.Configure(c.v.s.lintConfig(p.Config.Lint))
	found := slices.Concat(a.Diagnostics, lint.Check(a, sev, names))
	byFile := map[string][]project.Diagnostic{}
	for _, d := range found {
		byFile[d.File] = append(byFile[d.File], d)
	}
	slices.Sort(files)
	c.lastSnap, c.lastDiags = nil, nil
	for _, rel := range files {
		ds := byFile[rel]
		project.SortDiagnostics(ds)
		c.publishFile(snap, rel, ds)
	}
}

// openLintDisk opens the lint cache beside p's check cache, again when
// the engine changed.
func (c *checker) openLintDisk(p *project.Project) {
	version := ""
	if vw, ok := c.wb.(interface {
		Version(context.Context) (string, error)
	}); ok {
		version, _ = vw.Version(c.ctx)
	}
	version = c.wbEngine.String() + " " + version
	if c.lint.disk == nil || c.lint.disk.engine != version {
		c.lint.disk = openLintDisk(filepath.Join(filepath.Dir(connect.CachePath(p)), "lint.gob"), version)
	}
}

// workbench returns the checker's workbench for p's engine (connect opens
// an in-memory DuckDB, or the server-less Postgres binder), opening it on
// first use and again when efmesh.yaml switches engines; nil when it
// cannot start. Checker goroutine only.
func (c *checker) workbench(p *project.Project) analysis.Workbench {
	kind := connect.EngineKind(p)
	if c.wb != nil && c.wbEngine != kind {
		c.wb.Close()
		c.wb, c.prev, c.needFull = nil, nil, true
	}
	if c.wb == nil {
		wb, err := c.openWorkbench(p)
		if err != nil {
			if c.wbErr != err.Error() {
				c.wbErr = err.Error()
				c.v.s.logf(protocol.MessageTypeError, "%s: cannot start the checker's workbench: %v", c.v.root, err)
			}
			return nil
		}
		c.wb, c.wbEngine, c.wbErr = wb, kind, ""
	}
	return c.wb
}

// serverTimeout bounds the editor's wait for a Postgres server to answer
// before it checks without one.
const serverTimeout = 3 * time.Second

// openWorkbench opens p's workbench: bound by the engine's server when
// the client asked for it (initializationOptions.bindInServer) and the
// server answers; else connect.Workbench, saying why in the log.
func (c *checker) openWorkbench(p *project.Project) (analysis.Workbench, error) {
	c.v.s.mu.Lock()
	inServer := c.v.s.bindInServer
	c.v.s.mu.Unlock()
	if caps := connect.EngineKind(p).Capabilities(); inServer && !caps.InProcess {
		ctx, cancel := context.WithTimeout(c.v.s.ctx, serverTimeout)
		wb, err := connect.ServerWorkbench(ctx, p)
		cancel()
		if err == nil {
			return wb, nil
		}
		c.v.s.logf(protocol.MessageTypeWarning, "%s: checking without the %s server, which did not answer: %v", c.v.root, caps.Title, err)
	}
	return connect.Workbench(p)
}

// do runs f on the checker goroutine with the workbench, between checks.
func (c *checker) do(ctx context.Context, f func(wb analysis.Workbench) error) error {
	done := make(chan error, 1)
	job := func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("internal error: %v", r)
			}
		}()
		snap := c.v.snapshot()
		if snap.proj == nil {
			done <- fmt.Errorf("the project has no %s", "efmesh.yaml")
			return
		}
		wb := c.workbench(snap.proj)
		if wb == nil {
			done <- fmt.Errorf("the workbench is not available")
			return
		}
		done <- f(wb)
	}
	select {
	case c.jobs <- job:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.done:
		return fmt.Errorf("the project was closed")
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
