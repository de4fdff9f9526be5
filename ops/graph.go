package ops

import (
	"strings"

	"github.com/efmesh/efmesh/project"
)

// GraphNode is a model in the DAG drawing.
type GraphNode struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Target      string   `json:"target"`
	File        string   `json:"file"`
	Description string   `json:"description,omitempty"`
	Parents     []string `json:"parents"`
	SQL         string   `json:"sql"`
	Level       int      `json:"level"` // longest path from a source
}

// Graph lists the project's models with their parents, in topological
// order, each with the longest distance from a source (its column in a
// drawing).
func Graph(p *project.Project) []GraphNode {
	level := map[string]int{}
	nodes := make([]GraphNode, 0, len(p.Models))
	for _, m := range p.Models {
		refs := m.Refs()
		if refs == nil {
			refs = []string{}
		}
		lv := 0
		for _, r := range refs {
			if l, ok := level[r]; ok && l+1 > lv {
				lv = l + 1
			}
		}
		level[m.Name] = lv
		target := m.Target
		if target == "" {
			target = "table"
		}
		nodes = append(nodes, GraphNode{Name: m.Name, Kind: string(m.Kind.Name), Target: target, File: m.File,
			Description: m.Description, Parents: refs, SQL: strings.TrimSpace(string(m.Source)), Level: lv})
	}
	return nodes
}
