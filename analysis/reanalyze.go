package analysis

import (
	"bytes"
	"container/heap"
	"context"
	"maps"
	"reflect"
	"slices"

	"github.com/efmesh/efmesh/project"
)

// Reanalyze analyzes p reusing prev: a model is checked again only when its
// file changed, it is a seed (its data file may have changed), or a direct
// parent's shape (columns, or whether it is usable) changed; every other
// model keeps its results, with its fingerprint recomputed from the cached
// own hash when a parent's fingerprint moved. An edit therefore costs the
// edited models and the descendants its change reaches, not the project:
// when p lists the same models in the same order as prev (an edit of a
// body), only the models whose *project.Model changed, and the children of
// a model whose shape or fingerprint changed, are visited at all; every
// other ModelInfo is prev's own, shared.
//
// Precondition: wb is the workbench prev was made with, and nothing else
// changed its stand-ins since; callers serialize analyses per workbench.
// On error the workbench is in an unknown state: use Analyze next time.
func Reanalyze(ctx context.Context, prev *Analysis, p *project.Project, wb Workbench) (*Analysis, error) {
	if prev == nil || prev.Project == nil || prev.Project.Root != p.Root {
		return Analyze(ctx, p, wb)
	}
	// The stand-in sets mirror the workbench, which this analysis goes on
	// changing: they are handed on, not copied (a copy per keystroke costs
	// the project's size).
	a := &Analysis{Project: p, standIns: prev.standIns, standInTables: prev.standInTables, dialect: wb.Dialect(), outliner: wb}
	if a.standIns == nil {
		a.standIns = map[string]bool{}
	}
	if a.standInTables == nil {
		a.standInTables = map[string]bool{}
	}
	broken := brokenFiles(p.Diagnostics)
	ck := newChecker(wb, p.Root, a)

	// The walk: a min-heap of positions in p.Models, so that parents are
	// settled before their children. With the same layout as prev it
	// starts from the models that changed; otherwise from every model.
	same := prev.order != nil && sameLayout(prev.Project, p) && maps.Equal(broken, brokenFiles(prev.Project.Diagnostics))
	var queue posHeap
	queued := map[int]bool{}
	push := func(i int) {
		if !queued[i] {
			queued[i] = true
			heap.Push(&queue, i)
		}
	}
	if same {
		a.Models = maps.Clone(prev.Models)
		a.index = prev.index
		a.order = slices.Clone(prev.order)
		for i, m := range p.Models {
			if prev.Project.Models[i] != m || m.Kind.Name == project.KindSeed {
				push(i)
			}
		}
	} else {
		a.Models = make(map[string]*ModelInfo, len(p.Models))
		a.index = make(map[string]int, len(p.Models))
		for i, m := range p.Models {
			a.index[m.Name] = i
			push(i)
		}
	}
	shapeChanged := map[string]bool{}
	var changed []int // positions whose ModelInfo is not prev's (same layout)
	visited := 0
	for queue.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pos := heap.Pop(&queue).(int)
		m := p.Models[pos]
		visited++
		if p.ByName[m.Name] != m {
			continue
		}
		old := prev.Models[m.Name]
		recheck := old == nil || m.Kind.Name == project.KindSeed || old.Model.File != m.File ||
			old.Model != m && !bytes.Equal(old.Model.Source, m.Source) || old.loadBroken != broken[m.File] ||
			auditsChanged(prev.Project, p, m)
		if !recheck {
			for _, r := range m.Refs() {
				pi, po := a.Models[r], prev.Models[r]
				if shapeChanged[r] || (pi == nil) != (po == nil) || pi != nil && (pi.Fingerprint == "") != (po.Fingerprint == "") {
					recheck = true
					break
				}
			}
		}
		var info *ModelInfo
		if !recheck {
			info = reuse(old, m, a)
		} else {
			info = &ModelInfo{Model: m, Parents: map[string]string{}, Broken: broken[m.File], loadBroken: broken[m.File], def: new(definitionMemo)}
			a.Models[m.Name] = info
			a.Checked = append(a.Checked, m.Name)
			if err := ck.ensureParents(ctx, m); err != nil {
				return nil, err
			}
			if err := ck.model(ctx, info); err != nil {
				return nil, err
			}
			// A check cut short (an edit supersedes it) says nothing of the
			// model: an engine error of a cancelled statement is no finding.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if old == nil || !SameColumns(old.Columns, info.Columns) || (old.Fingerprint == "") != (info.Fingerprint == "") {
				shapeChanged[m.Name] = true
			}
			if info.Columns == nil && old != nil && old.Columns != nil {
				if err := ck.dropStandIn(ctx, m.Name); err != nil {
					return nil, err
				}
			}
		}
		a.Models[m.Name] = info
		if same {
			a.order[pos] = info
			if prev.order[pos] != info {
				changed = append(changed, pos)
			}
		}
		if same && (shapeChanged[m.Name] || old == nil || old.Fingerprint != info.Fingerprint) {
			for _, c := range p.Children[m.Name] {
				if i, ok := a.index[c]; ok {
					push(i)
				}
			}
		}
	}
	if !same {
		for name, old := range prev.Models {
			if a.Models[name] == nil && old.Columns != nil {
				if err := ck.dropStandIn(ctx, name); err != nil {
					return nil, err
				}
			}
		}
	}
	extra := a.Diagnostics // the checker's on no model
	tests := checkTests(a)
	if !same {
		a.setOrder(a.index)
	}
	parts := &diagParts{tests: tests, extra: extra, visited: visited}
	if !same || !a.patchDiagnostics(prev, changed, parts) {
		a.Diagnostics = a.allDiagnostics(extra, tests)
		parts.rebuilt = -1
	}
	a.parts = parts
	return a, nil
}

// reuse is old's result for m, which is not checked again: old itself when
// m is old's model and no parent's fingerprint moved, else a copy with the
// parents' fingerprints as they are now.
func reuse(old *ModelInfo, m *project.Model, a *Analysis) *ModelInfo {
	same := old.Model == m
	n := 0
	for _, r := range m.Refs() {
		if pi := a.Models[r]; pi != nil && pi.Fingerprint != "" {
			n++
			same = same && old.Parents[r] == pi.Fingerprint
		}
	}
	if same && n == len(old.Parents) {
		return old
	}
	info := *old
	info.Model = m
	// The parents map and the fingerprint are kept (shared, never
	// written) when no parent's fingerprint moved.
	if !mapsSameParents(old, m, a, n) {
		info.Parents = make(map[string]string, n)
		for _, r := range m.Refs() {
			if pi := a.Models[r]; pi != nil && pi.Fingerprint != "" {
				info.Parents[r] = pi.Fingerprint
			}
		}
		if info.Fingerprint != "" {
			info.Fingerprint = FingerprintOf(info.OwnHash, info.Parents)
		}
	}
	return &info
}

// mapsSameParents reports whether old.Parents holds exactly the n usable
// parents of m with their fingerprints as they are now.
func mapsSameParents(old *ModelInfo, m *project.Model, a *Analysis, n int) bool {
	if n != len(old.Parents) {
		return false
	}
	for _, r := range m.Refs() {
		if pi := a.Models[r]; pi != nil && pi.Fingerprint != "" && old.Parents[r] != pi.Fingerprint {
			return false
		}
	}
	return true
}

// brokenFiles are the files with a loader error.
func brokenFiles(ds []project.Diagnostic) map[string]bool {
	out := map[string]bool{}
	for _, d := range ds {
		if d.Severity == project.SeverityError {
			out[d.File] = true
		}
	}
	return out
}

// sameLayout reports whether p lists the models of prev under the same
// names in the same order (an edit of a model's body, or of nothing the
// DAG depends on).
func sameLayout(prev, p *project.Project) bool {
	if len(prev.Models) != len(p.Models) || len(prev.ByName) != len(p.ByName) {
		return false
	}
	for i, m := range p.Models {
		if o := prev.Models[i]; o != m && o.Name != m.Name {
			return false
		}
	}
	return true
}

// posHeap is a min-heap of positions in Project.Models.
type posHeap []int

func (h posHeap) Len() int           { return len(h) }
func (h posHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h posHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *posHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *posHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// diagParts is what an analysis made by Reanalyze keeps of how its
// Diagnostics were assembled, so that the next edit rebuilds only the
// files it touches.
type diagParts struct {
	tests []project.Diagnostic // checkTests'
	extra []project.Diagnostic // the checker's on no model
	// files holds the positions in Project.Models of the models defined
	// in each file, built on the first patch and shared along the edits
	// that keep the layout.
	files map[string][]int
	// visited counts the models the walk looked at; rebuilt the files
	// whose diagnostics were assembled again (-1: all of them).
	visited, rebuilt int
}

// EditCost reports the work of the Reanalyze that made a: the models its
// walk visited and the files whose diagnostics it assembled again (-1 when
// it assembled every file's). Both are zero for Analyze. An edit of one
// body costs the edited model, the children its new shape reaches and
// their files, whatever the project's size.
func (a *Analysis) EditCost() (visited, files int) {
	if a.parts == nil {
		return 0, 0
	}
	return a.parts.visited, a.parts.rebuilt
}

// allDiagnostics assembles the diagnostics in Analyze's order (the
// loader's, the checker's on no model, each model's, the tests', each
// model's audits'), then sorted (stably), visiting every model.
func (a *Analysis) allDiagnostics(extra, tests []project.Diagnostic) []project.Diagnostic {
	p := a.Project
	diags := make([]project.Diagnostic, 0, len(p.Diagnostics)+len(extra))
	diags = append(diags, p.Diagnostics...)
	diags = append(diags, extra...)
	for _, info := range a.order {
		if info != nil {
			diags = append(diags, info.Diagnostics...)
		}
	}
	diags = append(diags, tests...)
	diags = append(diags, checkAudits(a)...)
	project.SortDiagnostics(diags)
	return diags
}

// auditsOf returns checkAudits' findings on one model, computing them once.
func auditsOf(info *ModelInfo) []project.Diagnostic {
	if !info.audited {
		info.auditDiags = auditDiagnostics(info)
		info.audited = true
	}
	return info.auditDiags
}

// patchDiagnostics sets a.Diagnostics to what allDiagnostics would make,
// from prev's: the files the changed models' findings (before and after),
// the tests' findings and the loader's changed findings fall in are
// assembled again in allDiagnostics' order; every other file keeps prev's
// diagnostics. changed are the positions (same layout as prev) whose
// ModelInfo is new; parts holds this pass's tests' and no-model findings,
// and gets the files index and the count of files rebuilt. It reports false, doing nothing, when prev does not
// say how its diagnostics were made or the edit moved what it relies on
// (a model to another file, findings of the checker on no model).
func (a *Analysis) patchDiagnostics(prev *Analysis, changed []int, parts *diagParts) bool {
	tests := parts.tests
	if prev.parts == nil || len(prev.parts.extra) > 0 || len(parts.extra) > 0 {
		return false
	}
	touched := map[string]bool{}
	for _, i := range changed {
		o, n := prev.order[i], a.order[i]
		if o == nil || n == nil || o.Model.File != n.Model.File {
			return false
		}
		touched[n.Model.File] = true
		for _, ds := range [][]project.Diagnostic{o.Diagnostics, auditsOf(o), n.Diagnostics, auditsOf(n)} {
			for _, d := range ds {
				touched[d.File] = true
			}
		}
	}
	for _, ds := range [][]project.Diagnostic{prev.parts.tests, tests} {
		for _, d := range ds {
			touched[d.File] = true
		}
	}
	// The loader's findings outside the touched files must be prev's.
	p := a.Project
	var loader []project.Diagnostic
	was := prev.Project.Diagnostics
	k := 0
	for _, d := range p.Diagnostics {
		if touched[d.File] {
			loader = append(loader, d)
			continue
		}
		for k < len(was) && touched[was[k].File] {
			k++
		}
		if k == len(was) || !sameDiagnostic(&was[k], &d) {
			return false
		}
		k++
	}
	for ; k < len(was); k++ {
		if !touched[was[k].File] {
			return false
		}
	}

	files := prev.parts.files
	if files == nil {
		files = make(map[string][]int, len(p.Models))
		for i, m := range p.Models {
			files[m.File] = append(files[m.File], i)
		}
	}
	parts.files = files
	// Seeds' findings on their data files come from models not defined
	// there: a changed model's, as every seed is checked again.
	names := slices.Sorted(maps.Keys(touched))
	rebuilt := make([]project.Diagnostic, 0, len(loader))
	for _, file := range names {
		start := len(rebuilt)
		pos := slices.Clone(files[file])
		for _, i := range changed {
			if n := a.order[i]; n.Model.File != file && (onFile(n.Diagnostics, file) || onFile(auditsOf(n), file)) {
				pos = append(pos, i)
			}
		}
		slices.Sort(pos)
		pos = slices.Compact(pos)
		rebuilt = appendOn(rebuilt, loader, file)
		for _, i := range pos {
			if info := a.order[i]; info != nil {
				rebuilt = appendOn(rebuilt, info.Diagnostics, file)
			}
		}
		rebuilt = appendOn(rebuilt, tests, file)
		for _, i := range pos {
			if info := a.order[i]; info != nil {
				rebuilt = appendOn(rebuilt, auditsOf(info), file)
			}
		}
		project.SortDiagnostics(rebuilt[start:])
	}
	// Merge by file: prev's diagnostics are sorted by file, and a touched
	// file's are all in rebuilt.
	out := make([]project.Diagnostic, 0, len(prev.Diagnostics)+len(rebuilt))
	r := 0
	for _, d := range prev.Diagnostics {
		if touched[d.File] {
			continue
		}
		for r < len(rebuilt) && rebuilt[r].File < d.File {
			out = append(out, rebuilt[r])
			r++
		}
		out = append(out, d)
	}
	out = append(out, rebuilt[r:]...)
	a.Diagnostics = out
	parts.rebuilt = len(names)
	return true
}

// onFile reports whether one of ds is on file.
func onFile(ds []project.Diagnostic, file string) bool {
	for _, d := range ds {
		if d.File == file {
			return true
		}
	}
	return false
}

// appendOn appends the diagnostics of ds that are on file.
func appendOn(out, ds []project.Diagnostic, file string) []project.Diagnostic {
	for _, d := range ds {
		if d.File == file {
			out = append(out, d)
		}
	}
	return out
}

// sameDiagnostic reports whether a and b are equal.
func sameDiagnostic(a, b *project.Diagnostic) bool {
	return a.File == b.File && a.Range == b.Range && a.Severity == b.Severity && a.Code == b.Code && a.Message == b.Message &&
		reflect.DeepEqual(a.Fixes, b.Fixes)
}

// auditsChanged reports whether a custom audit m calls reads otherwise in
// p than in prev (its file's text, or which file defines it): the audit is
// bound with m's check, so m is checked again.
func auditsChanged(prev, p *project.Project, m *project.Model) bool {
	if len(m.Audits) == 0 {
		return false
	}
	now, before := p.AuditsOf(m), prev.AuditsOf(m)
	if len(now) != len(before) {
		return true
	}
	for i := range now {
		if now[i] != before[i] && (now[i].File != before[i].File || !bytes.Equal(now[i].Source, before[i].Source)) {
			return true
		}
	}
	return false
}
