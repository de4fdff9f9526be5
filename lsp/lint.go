package lsp

import (
	"maps"
	"runtime"
	"slices"
	"sync"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/project"
)

// lintSource is the source of the linter's diagnostics, so that a client
// can tell them (and filter them) from the checker's.
const lintSource = "efmesh-lint"

// withLint is what a check found: the analysis' diagnostics and the
// linter's findings (code = rule id, quick fixes as code actions), by
// file and position. Only the models whose ModelInfo is new since the
// last check are linted again (see lintCache).
//
// An edit's check (prev is the analysis a was made from by Reanalyze) on
// the same set of models as the last call (models) lints a.Checked only
// and, when their findings did not move, touches nothing else: a
// keystroke does not walk ten thousand models.
func (lc *lintCache) withLint(a, prev *analysis.Analysis, full bool, models *modelSet) []project.Diagnostic {
	lc.linted = 0
	found, ok := lc.lintChecked(a, prev, full, models)
	lc.walked = !ok
	if !ok {
		found = lc.lint(a, full)
		lc.lastA, lc.lastSet, lc.lastOut = a, models, found
	}
	if len(found) == 0 {
		return a.Diagnostics
	}
	out := slices.Concat(a.Diagnostics, found)
	project.SortDiagnostics(out)
	return out
}

// lintCache keeps each model's lint findings with the ModelInfo they were
// found on. A finding depends on the model's text, canonical form and
// inferred columns and on its parents' columns; analysis.Reanalyze gives a
// model a new ModelInfo whenever one of these moves (a parent's new shape
// re-checks the child) and shares the old one otherwise, so an unchanged
// pointer means unchanged findings. Checker goroutine only.
type lintCache struct {
	sev     lint.Severities
	byModel map[string]lintEntry
	disk    *lintDisk // findings of earlier sessions; nil when not opened
	linted  int       // the models the last call linted through the engine

	// What the last call linted and found: its analysis, the snapshot's
	// set of models, every finding.
	lastA   *analysis.Analysis
	lastSet *modelSet
	lastOut []project.Diagnostic
	walked  bool // the last call walked every model

	// configure applies the client's lint setting to a project's lint:
	// section (Server.lintConfig); nil: the project's alone.
	configure func(project.LintConfig) project.LintConfig
}

// config is cfg with the client's lint setting over it.
func (lc *lintCache) config(cfg project.LintConfig) project.LintConfig {
	if lc.configure == nil {
		return cfg
	}
	return lc.configure(cfg)
}

// lintChecked is lint for an edit's check when a's models are those of
// the last call's analysis (prev) and only the models a checked may have
// new findings: ok is false when it does not apply or a finding moved
// (then lint walks every model).
func (lc *lintCache) lintChecked(a, prev *analysis.Analysis, full bool, models *modelSet) (found []project.Diagnostic, ok bool) {
	if full || prev == nil || prev != lc.lastA || models == nil || models != lc.lastSet || lc.byModel == nil {
		return nil, false
	}
	if sev, _ := lint.Configure(lc.config(a.Project.Config.Lint)); !maps.Equal(sev, lc.sev) {
		return nil, false
	}
	var stale []string
	for _, name := range a.Checked {
		info := a.Models[name]
		if info == nil || info.Model == nil {
			return nil, false
		}
		if e, ok := lc.byModel[name]; !ok || e.info != info {
			stale = append(stale, name)
		}
	}
	lc.linted = len(stale) // lint adds what it lints when a finding moved
	moved := false
	if len(stale) > 0 {
		byFile := map[string][]project.Diagnostic{}
		for _, d := range lintParallel(a, lc.sev, stale) {
			byFile[d.File] = append(byFile[d.File], d)
		}
		for _, name := range stale {
			info := a.Models[name]
			e, had := lc.byModel[name]
			now := byFile[info.Model.File]
			if !had || !sameDiagnostics(e.found, now) {
				moved = true
			}
			lc.byModel[name] = lintEntry{info: info, found: now}
		}
	}
	if moved {
		return nil, false
	}
	lc.lastA = a
	return lc.lastOut, true
}

type lintEntry struct {
	info  *analysis.ModelInfo
	found []project.Diagnostic
}

// lint returns the findings of every model of a (and of the lint
// configuration), sorted, linting only the models it has no findings for.
// A whole-project check (full) takes findings from the disk and leaves
// its own there; an edit's check lints its few models and keeps them in
// memory only.
func (lc *lintCache) lint(a *analysis.Analysis, full bool) []project.Diagnostic {
	sev, out := lint.Configure(lc.config(a.Project.Config.Lint))
	if lc.byModel == nil || !maps.Equal(sev, lc.sev) {
		lc.sev, lc.byModel = sev, map[string]lintEntry{}
	}
	// One walk: the findings still valid, and the models to lint. Their
	// order does not matter: each model's findings are in its own file,
	// and the sort below is by file.
	n := len(out)
	var stale []string
	for _, m := range a.Project.Models {
		if e, ok := lc.byModel[m.Name]; ok && e.info == a.Models[m.Name] {
			out = append(out, e.found...)
		} else {
			stale = append(stale, m.Name)
		}
	}
	if len(lc.byModel) > 2*len(a.Project.Models)+64 {
		lc.byModel = map[string]lintEntry{} // forget removed models now and then
		out, stale = out[:n], stale[:0]
		for _, m := range a.Project.Models {
			stale = append(stale, m.Name)
		}
	}
	disk := lc.disk
	if !full {
		disk = nil
	}
	if len(stale) > 0 && disk != nil {
		// Findings of an earlier session on the same inputs.
		live := stale[:0]
		for _, name := range stale {
			info := a.Models[name]
			key := disk.key(a, info, sev)
			if found, ok := disk.get(key); ok {
				lc.byModel[name] = lintEntry{info: info, found: found}
				out = append(out, found...)
				continue
			}
			live = append(live, name)
		}
		stale = live
	}
	lc.linted += len(stale)
	if len(stale) > 0 {
		// A model's findings are all in its own file.
		byFile := map[string][]project.Diagnostic{}
		for _, d := range lintParallel(a, sev, stale) {
			byFile[d.File] = append(byFile[d.File], d)
		}
		for _, name := range stale {
			if info := a.Models[name]; info != nil && info.Model != nil {
				lc.byModel[name] = lintEntry{info: info, found: byFile[info.Model.File]}
				if disk != nil {
					disk.put(disk.key(a, info, sev), byFile[info.Model.File])
				}
				out = append(out, byFile[info.Model.File]...)
			}
		}
	}
	project.SortDiagnostics(out[n:])
	return out
}

// lintChunk is the fewest models worth a goroutine of their own.
const lintChunk = 256

// lintParallel is lint.Check of names spread over the cores: linting a
// model reads only the analysis (its outline is decoded from the
// canonical form, no database), so the models of a whole-project check
// from a fresh clone are linted side by side.
func lintParallel(a *analysis.Analysis, sev lint.Severities, names []string) []project.Diagnostic {
	workers := min(runtime.GOMAXPROCS(0), (len(names)+lintChunk-1)/lintChunk)
	if workers <= 1 {
		return lint.Check(a, sev, names)
	}
	found := make([][]project.Diagnostic, workers)
	panics := make([]any, workers)
	var wg sync.WaitGroup
	for i := range workers {
		part := names[i*len(names)/workers : (i+1)*len(names)/workers]
		wg.Go(func() {
			// A panic goes back to the checker's goroutine, whose
			// recovery logs it and checks from scratch next time.
			defer func() { panics[i] = recover() }()
			found[i] = lint.Check(a, sev, part)
		})
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	return slices.Concat(found...)
}

// diagnosticSource names who found d.
func diagnosticSource(d project.Diagnostic) string {
	if lint.IsRule(d.Code) {
		return lintSource
	}
	return "efmesh"
}
