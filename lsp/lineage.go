package lsp

import (
	"slices"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/workspace"
)

// Lineage comes from workspace.Lineage, the use case behind `efmesh
// lineage`, which reads the analyzed parse trees. The editor adds only
// what a cursor needs: which parent column a reference at the cursor reads
// (resolve.go), and a flat graph for clients to draw.

// lineageGraph is the JSON the efmesh.lineage command returns; the VS Code
// extension draws it (docs/json.md). Edges point from a source to what is
// computed from it (data flow).
type lineageGraph = jsonapi.EditorLineage

type (
	lineageNode = jsonapi.LineageGraphNode
	lineageEdge = jsonapi.LineageGraphEdge
)

func nodeID(model, column string) string {
	if column == "" {
		return model
	}
	return model + "." + column
}

// lineage returns the graph of a model (its sources and, for a whole
// model, its descendants too) or of one column (its sources).
func (w *world) lineage(model, column string) (*lineageGraph, error) {
	if w.res == nil || w.res.analysis == nil {
		return nil, errNotChecked
	}
	tree, err := w.lineageTree(model, column)
	if err != nil {
		return nil, err
	}
	g := &lineageGraph{Root: nodeID(model, column), Nodes: []lineageNode{}, Edges: []lineageEdge{}}
	seen := map[string]bool{}
	addNode := func(n *analysis.LineageNode) string {
		id := nodeID(n.Model, n.Column)
		if !seen[id] {
			seen[id] = true
			ln := lineageNode{ID: id, Model: n.Model, Column: n.Column, Kind: n.Kind, File: n.File}
			if n.Column != "" {
				ln.Type = w.columnType(n.Model, n.Column)
			}
			g.Nodes = append(g.Nodes, ln)
		}
		return id
	}
	addEdge := func(e lineageEdge) {
		if !slices.Contains(g.Edges, e) {
			g.Edges = append(g.Edges, e)
		}
	}
	var walk func(n *analysis.LineageNode)
	walk = func(n *analysis.LineageNode) {
		to := addNode(n)
		for _, src := range n.Sources {
			addEdge(lineageEdge{From: addNode(src), To: to})
			walk(src)
		}
	}
	walk(tree)
	if column == "" && w.snap.proj != nil {
		queue := []string{model}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			for _, child := range w.snap.proj.Children[cur] {
				if !seen[child] {
					m := w.snap.proj.ByName[child]
					seen[child] = true
					g.Nodes = append(g.Nodes, lineageNode{ID: child, Model: child, Kind: string(m.Kind.Name), File: m.File})
					queue = append(queue, child)
				}
				addEdge(lineageEdge{From: cur, To: child})
			}
		}
	}
	return g, nil
}

// lineageTree traces a model or a column of the checked project with the
// CLI's use case.
func (w *world) lineageTree(model, column string) (*analysis.LineageNode, error) {
	return workspace.New(w.res.analysis, nil, workspace.Options{}).Lineage(model, column)
}

// directSources returns the parent columns a model's column is computed
// from.
func (w *world) directSources(model, column string) []modelColumn {
	if w.res == nil || w.res.analysis == nil {
		return nil
	}
	var out []modelColumn
	for _, r := range analysis.ColumnSources(w.res.analysis, model, column) {
		out = appendUnique(out, modelColumn{Model: r.Model, Column: r.Column, Field: r.Field})
	}
	return out
}

// rawSources returns the columns of models without parents that a
// model's column comes from (the column itself when it has no sources).
func (w *world) rawSources(mc modelColumn) []modelColumn {
	if w.res == nil || w.res.analysis == nil {
		return nil
	}
	tree, err := analysis.FieldLineage(w.res.analysis, mc.Model, strings.ToLower(mc.Column), mc.Field)
	if err != nil {
		return nil
	}
	var out []modelColumn
	var walk func(n *analysis.LineageNode)
	walk = func(n *analysis.LineageNode) {
		if len(n.Sources) == 0 {
			c := modelColumn{Model: n.Model, Column: n.Column, Field: n.Field}
			if n == tree {
				// A column with no parent is its own source, named as asked
				// (the tree names it as the model yields it).
				c.Column = mc.Column
			}
			out = appendUnique(out, c)
		}
		for _, s := range n.Sources {
			walk(s)
		}
	}
	walk(tree)
	return out
}
