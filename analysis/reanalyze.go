package analysis

import (
	"bytes"
	"container/heap"
	"context"
	"maps"

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
	a := &Analysis{Project: p, standIns: maps.Clone(prev.standIns), dialect: wb.Dialect(), outliner: wb}
	if a.standIns == nil {
		a.standIns = map[string]bool{}
	}
	a.standInTables = maps.Clone(prev.standInTables)
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
	for queue.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m := p.Models[heap.Pop(&queue).(int)]
		if p.ByName[m.Name] != m {
			continue
		}
		old := prev.Models[m.Name]
		recheck := old == nil || m.Kind.Name == project.KindSeed || old.Model.File != m.File ||
			old.Model != m && !bytes.Equal(old.Model.Source, m.Source) || old.loadBroken != broken[m.File]
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
	a.setOrder(a.index)
	// The diagnostics in Analyze's order: the loader's, each model's, the
	// tests', each model's audits'; then sorted (stably).
	diags := make([]project.Diagnostic, 0, len(p.Diagnostics)+len(a.Diagnostics))
	diags = append(diags, p.Diagnostics...)
	diags = append(diags, a.Diagnostics...) // the checker's on no model
	for _, info := range a.order {
		if info != nil {
			diags = append(diags, info.Diagnostics...)
		}
	}
	diags = append(diags, checkTests(a)...)
	diags = append(diags, checkAudits(a)...)
	project.SortDiagnostics(diags)
	a.Diagnostics = diags
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

