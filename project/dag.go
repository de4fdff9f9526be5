package project

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Build assembles a Project from parsed models: it reports duplicate model
// names, unknown refs and cycles, and orders the DAG. diags are the problems
// found so far (config, headers); Build adds its own and sorts them all.
//
// Models are considered in file order, so results do not depend on the
// order of models. Of models sharing a name, the first by file is the one in
// ByName, Models and the DAG; models without a valid name are in neither.
// Both are still checked for unknown refs, and their diagnostics kept.
func Build(root string, cfg Config, models []*Model, diags []Diagnostic) *Project {
	p := &Project{
		Root:     root,
		Config:   cfg,
		ByName:   make(map[string]*Model, len(models)),
		Children: make(map[string][]string, len(models)),
	}
	all := slices.Clone(diags)

	files := slices.DeleteFunc(slices.Clone(models), func(m *Model) bool { return m == nil })
	slices.SortStableFunc(files, func(a, b *Model) int { return strings.Compare(a.File, b.File) })

	// Duplicate names: every copy is flagged, naming the other files, since
	// the user may mean to fix either one.
	groups := make(map[string][]*Model, len(files))
	names := make([]string, 0, len(files))
	for _, m := range files {
		if m.Name == "" {
			continue
		}
		if _, ok := groups[m.Name]; !ok {
			names = append(names, m.Name)
		}
		groups[m.Name] = append(groups[m.Name], m)
	}
	slices.Sort(names)
	for _, name := range names {
		g := groups[name]
		p.ByName[name] = g[0]
		if len(g) == 1 {
			continue
		}
		for _, m := range g {
			var others []string
			for _, o := range g {
				if o != m {
					others = append(others, o.File)
				}
			}
			all = append(all, Diagnostic{
				File:     m.File,
				Range:    m.NameRange,
				Severity: SeverityError,
				Code:     CodeDuplicateModel,
				Message:  fmt.Sprintf("model %q is also defined in %s", name, strings.Join(others, ", ")),
			})
		}
	}

	// Refs: unknown ones are diagnostics; known ones are edges of the DAG
	// (deps: model → the models it refs, sorted, self refs included so
	// they surface as cycles).
	deps := make(map[string][]string, len(names))
	for _, m := range files {
		kept := m.Name != "" && p.ByName[m.Name] == m
		for _, mc := range m.Macros {
			if mc.Kind != MacroRef {
				continue
			}
			if _, ok := p.ByName[mc.Arg]; !ok {
				all = append(all, unknownRef(m, mc, names))
				continue
			}
			if kept && !slices.Contains(deps[m.Name], mc.Arg) {
				deps[m.Name] = append(deps[m.Name], mc.Arg)
			}
		}
	}
	for name, ds := range deps {
		slices.Sort(ds)
		for _, d := range ds {
			if d != name {
				p.Children[d] = append(p.Children[d], name)
			}
		}
	}
	for _, cs := range p.Children {
		slices.Sort(cs)
	}

	all = append(all, cycles(p.ByName, names, deps)...)
	all = append(all, checkExports(cfg, files)...)
	p.Models = topoOrder(p.ByName, names, deps)

	all = append(all, varDiagnostics(p)...)
	SortDiagnostics(all)
	p.Diagnostics = all
	return p
}

// unknownRef reports a ref to a model that does not exist, suggesting the
// closest name: by edit distance, or the model whose table is the name when
// the schema was left out.
func unknownRef(m *Model, mc Macro, names []string) Diagnostic {
	d := Diagnostic{
		File:     m.File,
		Range:    RangeAt(m.Source, mc.ArgStart, mc.ArgEnd),
		Severity: SeverityError,
		Code:     CodeUnknownRef,
		Message:  fmt.Sprintf("unknown model %q in @ref", mc.Arg),
	}
	sug, ok := DidYouMean(mc.Arg, names)
	if !ok && !strings.Contains(mc.Arg, ".") {
		var same []string
		for _, n := range names {
			if strings.HasSuffix(n, "."+mc.Arg) {
				same = append(same, n)
			}
		}
		if len(same) == 1 {
			sug, ok = same[0], true
		}
	}
	if ok {
		d.Message += fmt.Sprintf("; did you mean %q?", sug)
		d.Fixes = []Fix{{
			Title: "Change to " + sug,
			Edits: []TextEdit{{File: m.File, Start: mc.ArgStart, End: mc.ArgEnd, NewText: sug}},
		}}
	}
	return d
}

// cycles reports every model that takes part in a dependency cycle, on its
// ref that leads around a cycle back to it.
func cycles(byName map[string]*Model, names []string, deps map[string][]string) []Diagnostic {
	var out []Diagnostic
	for _, scc := range stronglyConnected(names, deps) {
		if len(scc) == 1 && !slices.Contains(deps[scc[0]], scc[0]) {
			continue
		}
		in := map[string]bool{}
		for _, n := range scc {
			in[n] = true
		}
		// Each search yields a cycle for every model on it (the same ring,
		// entered there), so a ring of n models costs one search, not n.
		cycleOf := map[string]ring{}
		for _, n := range scc {
			if _, ok := cycleOf[n]; ok {
				continue
			}
			path := shortestCycle(n, deps, in)
			nodes := path[:len(path)-1]
			for i, x := range nodes {
				if _, ok := cycleOf[x]; !ok {
					cycleOf[x] = ring{nodes: nodes, at: i}
				}
			}
		}
		for _, n := range scc {
			r := cycleOf[n]
			m := byName[n]
			d := Diagnostic{
				File:     m.File,
				Range:    m.NameRange,
				Severity: SeverityError,
				Code:     CodeCycle,
				Message:  "dependency cycle: " + r.String(),
			}
			for _, mc := range m.Macros {
				if mc.Kind == MacroRef && mc.Arg == r.step(1) {
					d.Range = RangeAt(m.Source, mc.Start, mc.End)
					break
				}
			}
			out = append(out, d)
		}
	}
	return out
}

// ring is a dependency cycle entered at nodes[at].
type ring struct {
	nodes []string
	at    int
}

// step returns the model i hops along the cycle from where it is entered.
func (r ring) step(i int) string { return r.nodes[(r.at+i)%len(r.nodes)] }

// String renders the cycle as "a -> b -> a", eliding the middle of a long
// one so messages stay readable (and small).
func (r ring) String() string {
	const keep = 4
	n := len(r.nodes) + 1 // the entry model ends the path again
	var parts []string
	long := n > 2*keep+1
	for i := range n {
		switch {
		case long && i == keep:
			parts = append(parts, fmt.Sprintf("… %d more …", n-2*keep))
		case long && i > keep && i < n-keep:
		default:
			parts = append(parts, r.step(i))
		}
	}
	return strings.Join(parts, " -> ")
}

// shortestCycle finds the shortest path start → … → start through models
// of the same component, visiting deps in name order so the answer is
// stable.
func shortestCycle(start string, deps map[string][]string, in map[string]bool) []string {
	prev := map[string]string{}
	queue := []string{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, d := range deps[n] {
			if !in[d] {
				continue
			}
			if d == start {
				path := []string{start}
				for x := n; x != start; x = prev[x] {
					path = append(path, x)
				}
				path = append(path, start)
				// path is start, then the hops backwards; reverse the middle.
				slices.Reverse(path[1 : len(path)-1])
				return path
			}
			if _, seen := prev[d]; !seen {
				prev[d] = n
				queue = append(queue, d)
			}
		}
	}
	return []string{start, start} // unreachable for a member of a cycle
}

// graph is the DAG over names (sorted, distinct) by position: deps[i]
// are the positions of names[i]'s deps, in the order deps lists them. The
// algorithms below walk positions, not names, so a project of thousands
// of models costs slices, not maps.
type graph struct {
	names []string
	deps  [][]int32
}

func newGraph(names []string, deps map[string][]string) graph {
	at := make(map[string]int32, len(names))
	for i, n := range names {
		at[n] = int32(i)
	}
	g := graph{names: names, deps: make([][]int32, len(names))}
	total := 0
	for _, n := range names {
		total += len(deps[n])
	}
	flat := make([]int32, 0, total)
	for i, n := range names {
		start := len(flat)
		for _, d := range deps[n] {
			flat = append(flat, at[d])
		}
		g.deps[i] = flat[start:len(flat):len(flat)]
	}
	return g
}

// stronglyConnected returns the strongly connected components of the graph
// (Tarjan's algorithm, iterative so deep chains cannot overflow the stack).
func stronglyConnected(names []string, deps map[string][]string) [][]string {
	g := newGraph(names, deps)
	const unvisited = -1
	index := make([]int32, len(names))
	low := make([]int32, len(names))
	for i := range index {
		index[i] = unvisited
	}
	onStack := make([]bool, len(names))
	var stack []int32
	var out [][]string
	var next int32

	type frame struct {
		node int32
		i    int // next dep to visit
	}
	var call []frame
	for r := range names {
		root := int32(r)
		if index[root] != unvisited {
			continue
		}
		call = append(call[:0], frame{node: root})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if ds := g.deps[f.node]; f.i < len(ds) {
				d := ds[f.i]
				f.i++
				if index[d] == unvisited {
					index[d], low[d] = next, next
					next++
					stack = append(stack, d)
					onStack[d] = true
					call = append(call, frame{node: d})
				} else if onStack[d] {
					low[f.node] = min(low[f.node], index[d])
				}
				continue
			}
			n := f.node
			call = call[:len(call)-1]
			if len(call) > 0 {
				parent := call[len(call)-1].node
				low[parent] = min(low[parent], low[n])
			}
			if low[n] == index[n] {
				var scc []string
				for {
					x := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[x] = false
					scc = append(scc, names[x])
					if x == n {
						break
					}
				}
				slices.Sort(scc)
				out = append(out, scc)
			}
		}
	}
	return out
}

// topoOrder orders models parents first, breaking ties by name. Models that
// cannot be ordered (in a cycle, or downstream of one) follow in name order.
func topoOrder(byName map[string]*Model, names []string, deps map[string][]string) []*Model {
	g := newGraph(names, deps)
	indegree := make([]int32, len(names))
	nchildren := make([]int32, len(names)+1)
	for n, ds := range g.deps {
		indegree[n] = int32(len(ds))
		for _, d := range ds {
			nchildren[d+1]++
		}
	}
	// children[d] = flat[first[d]:first[d+1]], in names order as before.
	for i := range names {
		nchildren[i+1] += nchildren[i]
	}
	first := nchildren
	flat := make([]int32, first[len(names)])
	fill := slices.Clone(first[:len(names)])
	for n, ds := range g.deps {
		for _, d := range ds {
			flat[fill[d]] = int32(n)
			fill[d]++
		}
	}
	// Names are sorted, so the smallest position is the first name.
	var ready posHeap
	for n := range names {
		if indegree[n] == 0 {
			ready.push(int32(n))
		}
	}
	out := make([]*Model, 0, len(names))
	placed := make([]bool, len(names))
	for len(ready) > 0 {
		n := ready.pop()
		placed[n] = true
		out = append(out, byName[names[n]])
		for _, c := range flat[first[n]:first[n+1]] {
			if indegree[c]--; indegree[c] == 0 {
				ready.push(c)
			}
		}
	}
	for n, name := range names {
		if !placed[n] {
			out = append(out, byName[name])
		}
	}
	return out
}

// posHeap is a min-heap of positions.
type posHeap []int32

func (h *posHeap) push(x int32) {
	*h = append(*h, x)
	a := *h
	for i := len(a) - 1; i > 0; {
		parent := (i - 1) / 2
		if a[parent] <= a[i] {
			break
		}
		a[parent], a[i] = a[i], a[parent]
		i = parent
	}
}

func (h *posHeap) pop() int32 {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && a[l] < a[m] {
			m = l
		}
		if r < len(a) && a[r] < a[m] {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// WithBody returns p with m in place of the model of m's file when only the
// body moved: the same header, the same refs in the same order, and the
// file's diagnostics in p exactly was, what the parser said of its old
// text (no other check, Build's or the project's, spoke of it). The DAG is
// then what it was, and building every model again would yield p with m
// and diags, the parser's new word on the file, swapped in. It returns nil
// when the edit needs a Build.
//
// A body calling macros, or one that called them, is expanded as the
// assembly would (p's macros and variables), and its diagnostics are the
// parse's and the expansion's: a body edit of a model calling macros is
// no Build either.
func (p *Project) WithBody(m *Model, was, diags []Diagnostic) *Project {
	old := p.ByName[m.Name]
	parsed, parseDiags := m, diags
	if m.expand || m.Expansion != nil || old != nil && old.Expansion != nil {
		if m.Expansion != nil || old == nil || p.assembly == nil || m.expandHeader ||
			old.Expansion != nil && old.Expansion.Parsed != nil && old.Expansion.Parsed.expandHeader {
			return nil // the assembly expands it (a header's macros: the whole file)
		}
		var more []Diagnostic
		m, more = expandModel(m, p.Macros, p.Config.Variables)
		diags = append(slices.Clone(diags), more...)
		if old.Expansion != nil {
			was = append(slices.Clone(was), old.Expansion.diags...)
		}
	}
	if m.Name == "" || old == nil || old.File != m.File || m.BodyStart > len(m.Source) || old.BodyStart > len(old.Source) ||
		!bytes.Equal(old.Source[:old.BodyStart], m.Source[:m.BodyStart]) || !slices.Equal(old.Refs(), m.Refs()) {
		return nil
	}
	kept := make([]Diagnostic, 0, len(p.Diagnostics)+len(diags))
	var mine []Diagnostic
	for _, d := range p.Diagnostics {
		if d.File == m.File {
			mine = append(mine, d)
		} else {
			kept = append(kept, d)
		}
	}
	was = slices.Clone(was)
	SortDiagnostics(was)
	if !reflect.DeepEqual(mine, was) && (len(mine) > 0 || len(was) > 0) {
		return nil
	}
	i := slices.Index(p.Models, old)
	if i < 0 {
		return nil
	}
	n := *p
	if p.assembly != nil {
		// The assembly reads m's file as parsed now, so that WithVariables
		// expands it again from there.
		if n.assembly = p.assembly.withFile(old, parsed, parseDiags); n.assembly == nil {
			return nil
		}
	}
	n.ByName = maps.Clone(p.ByName)
	n.ByName[m.Name] = m
	n.Models = slices.Clone(p.Models)
	n.Models[i] = m
	n.Diagnostics = append(kept, diags...)
	// A body may read a variable the project does not define: the one
	// project-wide check a body has of its own.
	n.Diagnostics = append(n.Diagnostics, unknownVars(&n, m.File, m.Source, m.Macros)...)
	SortDiagnostics(n.Diagnostics)
	return &n
}
