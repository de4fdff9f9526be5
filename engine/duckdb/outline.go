package duckdb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/efmesh/efmesh/engine"
)

// This file is the one place that reads json_serialize_sql's tree beyond
// canonicalizing it: it converts a canonical form to an engine.Outline.

var _ engine.Outliner = (*DB)(nil)

// Outline reads a canonical form of this engine as an outline; see Outline.
func (d *DB) Outline(canonical []byte) (*engine.Outline, error) { return Outline(canonical) }

// Outline converts a canonical form (one statement of json_serialize_sql,
// see Canonicalize) to an engine.Outline. It needs no database.
//
// The parts of Query.Rest are named by the serializer's own keys
// (from_table, where_clause, group_expressions, having, qualify,
// modifiers for DISTINCT/ORDER BY/LIMIT, cte_map, a set operation's left
// and right, the statement's named_param_map).
func Outline(canonical []byte) (*engine.Outline, error) {
	stmt, err := decodeTree(canonical)
	if err != nil {
		return nil, err
	}
	node, _ := stmt["node"].(map[string]any)
	if node == nil {
		return nil, fmt.Errorf("duckdb: outline: the statement has no query")
	}
	tr := new(tree)
	q := tr.outlineQuery(node)
	for k, v := range stmt {
		if k != "node" {
			q.Rest[k] = tr.hashJSON(v)
		}
	}
	o := &engine.Outline{Query: q}
	tr.walk(stmt, false, func(m map[string]any) bool {
		if m["class"] == "WINDOW" {
			o.Windows = addName(o.Windows, m["function_name"])
		}
		return true
	})
	slices.Sort(o.Windows)
	tr.walk(stmt, false, func(m map[string]any) bool {
		name := ""
		switch m["class"] {
		case "FUNCTION":
			name, _ = m["function_name"].(string)
		case "COLUMN_REF":
			// DuckDB parses a bare CURRENT_TIMESTAMP (CURRENT_DATE, …) as a
			// column and binds it to the function when no column has
			// the name.
			if names := stringList(m["column_names"]); len(names) == 1 && slices.Contains(bareFunctions, strings.ToLower(names[0])) {
				name = names[0]
			}
		}
		if name = strings.ToLower(name); name != "" && !slices.Contains(o.Calls, name) {
			o.Calls = append(o.Calls, name)
		}
		return true
	})
	slices.Sort(o.Calls)
	o.Files = tr.files(stmt)
	return o, nil
}

// bareFunctions are the functions SQL calls without parens.
var bareFunctions = []string{"current_timestamp", "current_date", "current_time", "localtimestamp", "localtime", "current_user", "current_role"}

// outlineQuery converts a query node (SELECT_NODE, SET_OPERATION_NODE, …);
// nil for none.
func (tr *tree) outlineQuery(node map[string]any) *engine.Query {
	if node == nil {
		return nil
	}
	typ, _ := node["type"].(string)
	q := &engine.Query{Kind: engine.QueryKind(strings.ToLower(strings.TrimSuffix(typ, "_NODE"))), Rest: map[string]string{}}
	if cm, ok := node["cte_map"].(map[string]any); ok {
		entries, _ := cm["map"].([]any)
		for _, e := range entries {
			em, _ := e.(map[string]any)
			key, _ := em["key"].(string)
			val, _ := em["value"].(map[string]any)
			sq, _ := val["query"].(map[string]any)
			sub, _ := sq["node"].(map[string]any)
			q.CTEs = append(q.CTEs, engine.CTE{Name: key, Query: tr.outlineQuery(sub), Columns: stringList(val["aliases"])})
		}
	}
	switch typ {
	case "SELECT_NODE":
		q.Kind = engine.Select
		items, _ := node["select_list"].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				q.Items = append(q.Items, tr.outlineItem(m))
			}
		}
		from, _ := node["from_table"].(map[string]any)
		q.From = tr.sources(from)
		mods, _ := node["modifiers"].([]any)
		for _, m := range mods {
			if mm, ok := m.(map[string]any); ok && mm["type"] == "DISTINCT_MODIFIER" {
				q.Distinct = true
			}
		}
		groups, _ := node["group_expressions"].([]any)
		q.Grouped = len(groups) > 0 || node["aggregate_handling"] == "FORCE_AGGREGATES" // GROUP BY ALL
		q.Where = tr.columnRefs(node["where_clause"])
		q.WhereEqual = tr.equalities(node["where_clause"])
		q.GroupAll = node["aggregate_handling"] == "FORCE_AGGREGATES"
		clauses := []any{node["where_clause"], node["group_expressions"], node["having"], node["qualify"]}
		for _, m := range mods {
			mm, _ := m.(map[string]any)
			switch mm["type"] {
			case "ORDER_MODIFIER":
				orders, _ := mm["orders"].([]any)
				if len(orders) == 1 {
					o, _ := orders[0].(map[string]any)
					if e, _ := o["expression"].(map[string]any); e["class"] == "STAR" && e["columns"] == true && e["expr"] == nil {
						q.OrderAll = true
						continue
					}
				}
			case "LIMIT_MODIFIER", "LIMIT_PERCENT_MODIFIER":
				q.Limited = mm["limit"] != nil || mm["offset"] != nil
			}
			clauses = append(clauses, mm)
		}
		q.Reads = tr.columnRefs(clauses)
		for _, it := range items {
			m, _ := it.(map[string]any)
			for k, v := range m {
				if k != "exclude_list" && k != "qualified_exclude_list" && k != "replace_list" && k != "rename_list" {
					q.Stars = append(q.Stars, tr.nestedStars(v)...)
				}
			}
		}
		q.Stars = append(q.Stars, tr.nestedStars(clauses)...)
		q.Subqueries = tr.subqueries(append(clauses, items, joinConditions(from)))
	case "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE":
		q.Kind = engine.SetOperation
		if typ == "RECURSIVE_CTE_NODE" {
			q.Kind = engine.RecursiveCTE
		}
		for _, k := range []string{"left", "right"} {
			sub, _ := node[k].(map[string]any)
			q.Branches = append(q.Branches, tr.outlineQuery(sub))
		}
	}
	for k, v := range node {
		if k == "type" || k == "select_list" && q.Kind == engine.Select {
			continue
		}
		q.Rest[k] = tr.hashJSON(v)
	}
	return q
}

// sources lists what a FROM clause binds, joins flattened.
func (tr *tree) sources(t map[string]any) []engine.Source {
	if t == nil {
		return nil
	}
	alias, _ := t["alias"].(string)
	switch t["type"] {
	case "BASE_TABLE":
		schema, _ := t["schema_name"].(string)
		table, _ := t["table_name"].(string)
		return []engine.Source{{Schema: schema, Table: table, Alias: alias, Columns: stringList(t["column_name_alias"])}}
	case "SUBQUERY":
		sq, _ := t["subquery"].(map[string]any)
		sub, _ := sq["node"].(map[string]any)
		return []engine.Source{{Alias: alias, Query: tr.outlineQuery(sub), Columns: stringList(t["column_name_alias"])}}
	case "TABLE_FUNCTION":
		fn, _ := t["function"].(map[string]any)
		name, _ := fn["function_name"].(string)
		return []engine.Source{{Alias: alias, Function: strings.ToLower(name), Args: tr.columnRefs(fn["children"]), Columns: stringList(t["column_name_alias"])}}
	case "JOIN":
		l, _ := t["left"].(map[string]any)
		r, _ := t["right"].(map[string]any)
		right := tr.sources(r)
		if len(right) > 0 {
			ref, _ := t["ref_type"].(string)
			right[0].Join = strings.ToLower(ref)
			right[0].Using = stringList(t["using_columns"])
			right[0].On = tr.columnRefs(t["condition"])
			right[0].Equal = tr.equalities(t["condition"])
		}
		return append(tr.sources(l), right...)
	case "PIVOT":
		return []engine.Source{{Alias: alias, Columns: stringList(t["column_name_alias"]), Pivot: tr.pivot(t)}}
	}
	return []engine.Source{{Alias: alias}}
}

// pivot outlines a PIVOT or UNPIVOT table reference.
func (tr *tree) pivot(t map[string]any) *engine.Pivot {
	src, _ := t["source"].(map[string]any)
	p := &engine.Pivot{Of: tr.sources(src)}
	pivots := anyList(t["pivots"])
	if values := stringList(t["unpivot_names"]); len(values) > 0 {
		p.Unpivot, p.Values = true, values
		for _, pv := range pivots {
			pm, _ := pv.(map[string]any)
			p.Names = append(p.Names, stringList(pm["unpivot_names"])...)
			for _, e := range anyList(pm["entries"]) {
				em, _ := e.(map[string]any)
				if star, _ := em["star_expr"].(map[string]any); star != nil {
					re := ""
					if x, _ := star["expr"].(map[string]any); x != nil {
						v, _ := x["value"].(map[string]any)
						re, _ = v["value"].(string)
					}
					p.Patterns = append(p.Patterns, re)
					var it engine.Item
					tr.starLists(&it, star)
					p.Exclude = append(p.Exclude, it.Exclude...)
					continue
				}
				var cols []string
				for _, v := range anyList(em["values"]) {
					vm, _ := v.(map[string]any)
					cols = append(cols, fmt.Sprint(vm["value"]))
				}
				p.On = append(p.On, cols)
			}
		}
		return p
	}
	p.Groups = stringList(t["groups"])
	// The names of the pivoted columns: each combination of the ON
	// expressions' IN values (or their aliases), joined by "_".
	names := []string{""}
	for _, pv := range pivots {
		pm, _ := pv.(map[string]any)
		p.Reads = append(p.Reads, tr.columnRefs(pm["pivot_expressions"])...)
		entries := anyList(pm["entries"])
		if len(entries) == 0 {
			names = nil // the data decides
		}
		var next []string
		for _, n := range names {
			for _, e := range entries {
				em, _ := e.(map[string]any)
				name, _ := em["alias"].(string)
				if name == "" {
					var vals []string
					for _, v := range anyList(em["values"]) {
						vm, _ := v.(map[string]any)
						vals = append(vals, fmt.Sprint(vm["value"]))
					}
					name = strings.Join(vals, "_")
				}
				if n != "" {
					name = n + "_" + name
				}
				next = append(next, name)
			}
		}
		names = next
	}
	aggs := anyList(t["aggregates"])
	for _, a := range aggs {
		am, _ := a.(map[string]any)
		p.Aggregates = append(p.Aggregates, tr.columnRefs(am))
		alias, _ := am["alias"].(string)
		var cols []string
		if alias != "" || len(aggs) == 1 {
			for _, n := range names {
				if alias != "" {
					n += "_" + alias
				}
				cols = append(cols, n)
			}
		}
		p.Columns = append(p.Columns, cols)
	}
	return p
}

// nestedStars lists the relation names of the stars in an expression
// ("" for an unqualified * or COLUMNS(…)), outside subqueries.
func (tr *tree) nestedStars(v any) []string {
	var out []string
	tr.walk(v, true, func(m map[string]any) bool {
		if m["class"] == "STAR" {
			name, _ := m["relation_name"].(string)
			out = append(out, name)
		}
		return true
	})
	return out
}

// subqueries outlines the queries of the subquery expressions in v, not
// entering them.
func (tr *tree) subqueries(v any) []*engine.Query {
	var out []*engine.Query
	tr.walk(v, false, func(m map[string]any) bool {
		if m["class"] != "SUBQUERY" {
			return true
		}
		sq, _ := m["subquery"].(map[string]any)
		if node, _ := sq["node"].(map[string]any); node != nil {
			out = append(out, tr.outlineQuery(node))
		}
		// The compared expression (x IN (SELECT …)) is this query's.
		out = append(out, tr.subqueries(m["child"])...)
		return false
	})
	return out
}

// joinConditions lists the ON conditions of a FROM clause's joins, not
// entering its subqueries (their expressions belong to their own scope).
func joinConditions(t map[string]any) []any {
	if t == nil || t["type"] != "JOIN" {
		return nil
	}
	l, _ := t["left"].(map[string]any)
	r, _ := t["right"].(map[string]any)
	out := append(joinConditions(l), t["condition"])
	return append(out, joinConditions(r)...)
}

// starLists reads a star's EXCLUDE, REPLACE and RENAME lists into it.
func (tr *tree) starLists(it *engine.Item, v map[string]any) {
	excl, _ := v["exclude_list"].([]any)
	for _, e := range excl {
		switch x := e.(type) {
		case string:
			it.Exclude = append(it.Exclude, x)
		case map[string]any:
			it.Exclude = append(it.Exclude, stringList(x["column_names"])...)
		}
	}
	qexcl, _ := v["qualified_exclude_list"].([]any)
	for _, e := range qexcl {
		m, _ := e.(map[string]any)
		if c, ok := m["column"].(string); ok && c != "" {
			it.Exclude = append(it.Exclude, c)
		} else if names := stringList(m["column_names"]); len(names) > 0 {
			it.Exclude = append(it.Exclude, names[len(names)-1])
		}
	}
	for _, e := range anyList(v["replace_list"]) {
		m, _ := e.(map[string]any)
		if name, _ := m["key"].(string); name != "" {
			it.Replace = append(it.Replace, engine.Field{Name: name, Refs: tr.columnRefs(m["value"])})
		}
	}
	for _, e := range anyList(v["rename_list"]) {
		m, _ := e.(map[string]any)
		key, _ := m["key"].(map[string]any)
		from, _ := key["column"].(string)
		to, _ := m["value"].(string)
		if from != "" && to != "" {
			if it.Rename == nil {
				it.Rename = map[string]string{}
			}
			it.Rename[strings.ToLower(from)] = to
		}
	}
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

// outlineItem converts one select-list expression.
func (tr *tree) outlineItem(v map[string]any) engine.Item {
	it := engine.Item{Hash: tr.hashJSON(v)}
	if v["class"] == "STAR" {
		it.Star = true
		it.StarOf, _ = v["relation_name"].(string)
		shape := make(map[string]any, len(v))
		for k, x := range v {
			if k != "exclude_list" && k != "qualified_exclude_list" {
				shape[k] = x
			}
		}
		it.StarShape = tr.hashJSON(shape)
		it.Expands = true
		tr.starLists(&it, v)
		return it
	}
	it.Name, _ = v["alias"].(string)
	if it.Name == "" && v["class"] == "COLUMN_REF" {
		if names := stringList(v["column_names"]); len(names) > 0 {
			it.Name = names[len(names)-1]
		}
	}
	tr.walk(v, true, func(m map[string]any) bool {
		if m["class"] == "STAR" && !it.Expands {
			it.Expands = true
			it.StarOf, _ = m["relation_name"].(string)
			tr.starLists(&it, m)
		}
		return !it.Expands
	})
	// Column references and windows, outside subqueries.
	it.Refs = tr.columnRefs(v)
	it.Plain = v["class"] == "COLUMN_REF"
	tr.walk(v, false, func(m map[string]any) bool {
		it.Subquery = it.Subquery || m["class"] == "SUBQUERY"
		return !it.Subquery
	})
	if fn, _ := v["function_name"].(string); v["class"] == "FUNCTION" && (fn == "struct_pack" || fn == "row") {
		kids, _ := v["children"].([]any)
		for _, k := range kids {
			km, _ := k.(map[string]any)
			if name, _ := km["alias"].(string); name != "" {
				it.Fields = append(it.Fields, engine.Field{Name: name, Refs: tr.columnRefs(km)})
			}
		}
	}
	tr.walk(v, true, func(m map[string]any) bool {
		switch m["class"] {
		case "WINDOW":
			it.Windows = addName(it.Windows, m["function_name"])
		}
		return true
	})
	// Calls, outside windows and subqueries.
	tr.walk(v, true, func(m map[string]any) bool {
		switch m["class"] {
		case "WINDOW":
			return false
		case "FUNCTION":
			if name, _ := m["function_name"].(string); name != "" && !slices.Contains(it.Calls, strings.ToLower(name)) {
				it.Calls = append(it.Calls, strings.ToLower(name))
			}
		}
		return true
	})
	return it
}

// equalities are the conjuncts of a condition (AND-ed at its top) that
// compare two expressions reading one column each with =.
func (tr *tree) equalities(v any) []engine.Equality {
	m, _ := v.(map[string]any)
	switch {
	case m == nil:
		return nil
	case m["class"] == "CONJUNCTION" && m["type"] == "CONJUNCTION_AND":
		var out []engine.Equality
		children, _ := m["children"].([]any)
		for _, c := range children {
			out = append(out, tr.equalities(c)...)
		}
		return out
	case m["class"] == "COMPARISON" && m["type"] == "COMPARE_EQUAL":
		l, r := tr.columnRefs(m["left"]), tr.columnRefs(m["right"])
		if len(l) == 1 && len(r) == 1 {
			return []engine.Equality{{Left: l[0], Right: r[0]}}
		}
	}
	return nil
}

// columnRefs lists the columns an expression reads, outside subqueries.
func (tr *tree) columnRefs(v any) []engine.ColumnRef {
	var refs []engine.ColumnRef
	tr.walk(v, true, func(m map[string]any) bool {
		if names, field := subscript(m); field != "" {
			// c['f'] or struct_extract(c, 'f'): read as c.f.
			path := append(names, field)
			refs = append(refs, engine.ColumnRef{Qualifier: path[len(path)-2], Column: field, Path: path})
			return false
		}
		if m["class"] == "LAMBDA" {
			// x -> x + c reads c, not x: a parameter is no column.
			params := map[string]bool{}
			tr.walk(m["lhs"], true, func(p map[string]any) bool {
				if names := stringList(p["column_names"]); len(names) == 1 {
					params[strings.ToLower(names[0])] = true
				}
				return true
			})
			for _, r := range tr.columnRefs(m["expr"]) {
				first := r.Column
				if len(r.Path) > 0 {
					first = r.Path[0]
				}
				if !params[strings.ToLower(first)] {
					refs = append(refs, r)
				}
			}
			return false
		}
		if m["class"] != "COLUMN_REF" {
			return true
		}
		if names := stringList(m["column_names"]); len(names) > 0 {
			ref := engine.ColumnRef{Column: names[len(names)-1]}
			if len(names) >= 2 {
				ref.Qualifier = names[len(names)-2]
				ref.Path = names
			}
			refs = append(refs, ref)
		}
		return false
	})
	return refs
}

// subscript reads a struct field access by name: c['f'] (ARRAY_EXTRACT,
// which DuckDB binds to struct_extract on a struct) or struct_extract(c,
// 'f'), on a column reference. It returns the column's names and the
// field; "" for anything else.
func subscript(m map[string]any) ([]string, string) {
	fn, _ := m["function_name"].(string)
	if m["type"] != "ARRAY_EXTRACT" && !(m["class"] == "FUNCTION" && strings.EqualFold(fn, "struct_extract")) {
		return nil, ""
	}
	kids, _ := m["children"].([]any)
	if len(kids) != 2 {
		return nil, ""
	}
	col, _ := kids[0].(map[string]any)
	key, _ := kids[1].(map[string]any)
	if col["class"] != "COLUMN_REF" || key["class"] != "CONSTANT" {
		return nil, ""
	}
	val, _ := key["value"].(map[string]any)
	typ, _ := val["type"].(map[string]any)
	field, _ := val["value"].(string)
	if typ["id"] != "VARCHAR" {
		return nil, ""
	}
	return stringList(col["column_names"]), field
}

// walk calls f on every object of a decoded tree, parents first, keys in
// sorted order, descending into an object's members when f returns true.
// With skipSubqueries a subquery expression is not entered.
func (tr *tree) walk(v any, skipSubqueries bool, f func(map[string]any) bool) {
	switch t := v.(type) {
	case map[string]any:
		if skipSubqueries && t["class"] == "SUBQUERY" {
			return
		}
		if !f(t) {
			return
		}
		for _, k := range tr.sortedKeys(t) {
			tr.walk(t[k], skipSubqueries, f)
		}
	case []any:
		for _, c := range t {
			tr.walk(c, skipSubqueries, f)
		}
	}
}

// tree memoizes the sorted keys of a decoded tree's objects: an outline
// walks most subtrees several times (columns, calls, windows, stars,
// hashes), and sorting an object's keys on every visit was most of it.
// The tree is not changed while it is outlined.
type tree struct {
	keys map[unsafe.Pointer][]string
}

// sortedKeys returns m's keys in sorted order. A nil tree sorts each time.
func (tr *tree) sortedKeys(m map[string]any) []string {
	var id unsafe.Pointer
	if tr != nil {
		// The memo's key keeps m alive, so no other object takes its
		// address while the memo lives.
		id = reflect.ValueOf(m).UnsafePointer()
		if ks, ok := tr.keys[id]; ok {
			return ks
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if tr != nil {
		if tr.keys == nil {
			tr.keys = map[unsafe.Pointer][]string{}
		}
		tr.keys[id] = keys
	}
	return keys
}

// addName adds a function name to names unless present ("?" for none).
func addName(names []string, v any) []string {
	name, _ := v.(string)
	if name == "" {
		name = "?"
	}
	if slices.Contains(names, name) {
		return names
	}
	return append(names, name)
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

// hashJSON hashes a decoded value: maps encode with sorted keys, so the
// serializer's key order does not matter.
func (tr *tree) hashJSON(v any) string {
	return engine.Hash(tr.appendJSON(nil, v))
}

// appendJSON appends json.Marshal's encoding of a value the decoder of
// Outline produced (maps, slices, strings, json.Numbers, booleans, nil),
// byte for byte, without reflection: an outline hashes most subtrees of
// its tree, and an editor outlines every model it opens. Anything else,
// and any string that needs escaping, is left to json.Marshal.
func (tr *tree) appendJSON(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if t {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case string:
		return appendJSONString(b, t)
	case json.Number:
		if t != "" {
			return append(b, t...) // the decoder's: a valid JSON number
		}
	case []any:
		if t == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = tr.appendJSON(b, x)
		}
		return append(b, ']')
	case map[string]any:
		if t == nil {
			return append(b, "null"...)
		}
		keys := tr.sortedKeys(t)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = tr.appendJSON(b, t[k])
		}
		return append(b, '}')
	}
	out, _ := json.Marshal(v)
	return append(b, out...)
}

// appendJSONString appends s quoted as json.Marshal quotes it: printable
// ASCII other than the quote, the backslash and the HTML characters it
// escapes is written as is; any other string goes through json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(s)
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
