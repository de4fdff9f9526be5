package planner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// ColumnRef names a column of a model.
type ColumnRef struct {
	Model  string `json:"model"`
	Column string `json:"column"`
}

// LineageNode is a model (or one of its columns) with what it is computed
// from, down to models that read no other model (raw sources).
type LineageNode struct {
	Model   string         `json:"model"`
	Column  string         `json:"column,omitempty"`
	Kind    string         `json:"kind"`
	File    string         `json:"file"`
	Sources []*LineageNode `json:"sources"`
}

// Lineage traces a model, or one of its columns when column is not empty,
// to its raw sources. Column lineage reads the canonical parse tree: select
// items, aliases, CTEs, subqueries, joins, set operations and `*` (with
// EXCLUDE) are followed; anything it cannot follow is left out rather than
// guessed.
func Lineage(a *Analysis, model, column string) (*LineageNode, error) {
	info := a.Models[model]
	if info == nil {
		return nil, fmt.Errorf("unknown model %q%s", model, didYouMean(model, a.Models))
	}
	if column != "" && !hasColumn(info, column) {
		return nil, fmt.Errorf("model %s has no column %q (it has %s)", model, column, strings.Join(columnNames(info), ", "))
	}
	return lineage(a, model, column, map[ColumnRef]bool{}), nil
}

func lineage(a *Analysis, model, column string, seen map[ColumnRef]bool) *LineageNode {
	info := a.Models[model]
	n := &LineageNode{Model: model, Column: column, Sources: []*LineageNode{}}
	if info == nil {
		return n
	}
	n.Kind, n.File = string(info.Model.Kind.Name), info.Model.File
	key := ColumnRef{model, column}
	if seen[key] {
		return n
	}
	seen[key] = true
	defer delete(seen, key)
	if column == "" {
		for _, r := range info.Model.Refs() {
			n.Sources = append(n.Sources, lineage(a, r, "", seen))
		}
		return n
	}
	for _, src := range ColumnSources(a, model, column) {
		n.Sources = append(n.Sources, lineage(a, src.Model, src.Column, seen))
	}
	return n
}

// ColumnSources returns the parent columns a model's column is computed
// from directly (one step up), sorted.
func ColumnSources(a *Analysis, model, column string) []ColumnRef {
	info := a.Models[model]
	if info == nil || info.Canonical == nil {
		return nil
	}
	var tree map[string]any
	if json.Unmarshal(info.Canonical, &tree) != nil {
		return nil
	}
	node, _ := tree["node"].(map[string]any)
	lt := &lineageTracer{a: a}
	outs := lt.outputs(node, nil)
	set := map[ColumnRef]bool{}
	for _, o := range outs {
		if strings.EqualFold(o.name, column) {
			for _, s := range o.srcs {
				set[s] = true
			}
		}
	}
	out := make([]ColumnRef, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Model != out[j].Model {
			return out[i].Model < out[j].Model
		}
		return out[i].Column < out[j].Column
	})
	return out
}

func hasColumn(info *ModelInfo, column string) bool {
	for _, c := range info.Columns {
		if strings.EqualFold(c.Name, column) {
			return true
		}
	}
	return false
}

func columnNames(info *ModelInfo) []string {
	out := make([]string, len(info.Columns))
	for i, c := range info.Columns {
		out[i] = c.Name
	}
	return out
}

type outCol struct {
	name string
	srcs []ColumnRef
}

type relation struct {
	name string // alias, or the table name
	cols []outCol
}

// cteScope maps CTE names visible at a node to their outputs.
type cteScope map[string][]outCol

type lineageTracer struct {
	a     *Analysis
	depth int
}

// outputs computes the output columns of a query node with their sources.
func (lt *lineageTracer) outputs(node map[string]any, ctes cteScope) []outCol {
	if node == nil || lt.depth > 64 {
		return nil
	}
	lt.depth++
	defer func() { lt.depth-- }()
	scope := cteScope{}
	for k, v := range ctes {
		scope[k] = v
	}
	if cm, ok := node["cte_map"].(map[string]any); ok {
		entries, _ := cm["map"].([]any)
		for _, e := range entries {
			em, _ := e.(map[string]any)
			key, _ := em["key"].(string)
			val, _ := em["value"].(map[string]any)
			q, _ := val["query"].(map[string]any)
			sub, _ := q["node"].(map[string]any)
			scope[strings.ToLower(key)] = lt.outputs(sub, scope)
		}
	}
	switch node["type"] {
	case "SET_OPERATION_NODE":
		left, _ := node["left"].(map[string]any)
		right, _ := node["right"].(map[string]any)
		l, r := lt.outputs(left, scope), lt.outputs(right, scope)
		for i := range l {
			if i < len(r) {
				l[i].srcs = append(l[i].srcs, r[i].srcs...)
			}
		}
		return l
	case "SELECT_NODE":
	default:
		return nil
	}
	from, _ := node["from_table"].(map[string]any)
	rels := lt.relations(from, scope)
	var outs []outCol
	items, _ := node["select_list"].([]any)
	for _, it := range items {
		item, _ := it.(map[string]any)
		if item == nil {
			continue
		}
		if item["class"] == "STAR" {
			outs = append(outs, starColumns(item, rels)...)
			continue
		}
		name, _ := item["alias"].(string)
		if name == "" && item["class"] == "COLUMN_REF" {
			if names := stringList(item["column_names"]); len(names) > 0 {
				name = names[len(names)-1]
			}
		}
		var srcs []ColumnRef
		for _, ref := range columnRefs(item) {
			srcs = append(srcs, resolveColumn(ref, rels)...)
		}
		outs = append(outs, outCol{name: name, srcs: srcs})
	}
	return outs
}

// relations lists what a FROM clause binds.
func (lt *lineageTracer) relations(t map[string]any, ctes cteScope) []relation {
	if t == nil {
		return nil
	}
	alias, _ := t["alias"].(string)
	switch t["type"] {
	case "BASE_TABLE":
		schema, _ := t["schema_name"].(string)
		table, _ := t["table_name"].(string)
		name := alias
		if name == "" {
			name = table
		}
		if schema == "" {
			if cols, ok := ctes[strings.ToLower(table)]; ok {
				return []relation{{name: name, cols: cols}}
			}
		}
		model := strings.ToLower(schema + "." + table)
		info := lt.a.Models[model]
		if info == nil {
			return []relation{{name: name}}
		}
		cols := make([]outCol, len(info.Columns))
		for i, c := range info.Columns {
			cols[i] = outCol{name: c.Name, srcs: []ColumnRef{{Model: model, Column: c.Name}}}
		}
		return []relation{{name: name, cols: cols}}
	case "SUBQUERY":
		sq, _ := t["subquery"].(map[string]any)
		sub, _ := sq["node"].(map[string]any)
		return []relation{{name: alias, cols: lt.outputs(sub, ctes)}}
	case "JOIN":
		l, _ := t["left"].(map[string]any)
		r, _ := t["right"].(map[string]any)
		return append(lt.relations(l, ctes), lt.relations(r, ctes)...)
	}
	return []relation{{name: alias}}
}

func starColumns(item map[string]any, rels []relation) []outCol {
	rel, _ := item["relation_name"].(string)
	exclude := map[string]bool{}
	for _, e := range item["exclude_list"].([]any) {
		switch v := e.(type) {
		case string:
			exclude[strings.ToLower(v)] = true
		case map[string]any:
			for _, n := range stringList(v["column_names"]) {
				exclude[strings.ToLower(n)] = true
			}
		}
	}
	if q, ok := item["qualified_exclude_list"].([]any); ok {
		for _, e := range q {
			if m, ok := e.(map[string]any); ok {
				if names := stringList(m["column_names"]); len(names) > 0 {
					exclude[strings.ToLower(names[len(names)-1])] = true
				}
			}
		}
	}
	var out []outCol
	for _, r := range rels {
		if rel != "" && !strings.EqualFold(rel, r.name) {
			continue
		}
		for _, c := range r.cols {
			if !exclude[strings.ToLower(c.name)] {
				out = append(out, c)
			}
		}
	}
	return out
}

func resolveColumn(ref []string, rels []relation) []ColumnRef {
	if len(ref) == 0 {
		return nil
	}
	col := ref[len(ref)-1]
	var qual string
	if len(ref) >= 2 {
		qual = ref[len(ref)-2]
	}
	var out []ColumnRef
	for _, r := range rels {
		if qual != "" && !strings.EqualFold(qual, r.name) {
			continue
		}
		for _, c := range r.cols {
			if strings.EqualFold(c.name, col) {
				out = append(out, c.srcs...)
			}
		}
		if qual == "" && len(out) > 0 {
			return out // the first relation that has it, as the binder would for an unambiguous name
		}
	}
	return out
}

// columnRefs collects the column references of an expression tree,
// without descending into subqueries.
func columnRefs(v any) [][]string {
	var out [][]string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if t["class"] == "COLUMN_REF" {
				out = append(out, stringList(t["column_names"]))
				return
			}
			if t["class"] == "SUBQUERY" {
				return
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}

func stringList(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
