package duckdb

import (
	"slices"
	"strings"
)

// files lists the file paths and globs a statement reads by name (see
// engine.Outline.Files): the string constants among the arguments of a
// file-reading table function, and a FROM whose table name is a file's
// (DuckDB parses FROM 'x.csv' as a table named x.csv and scans the file).
func (tr *tree) files(stmt map[string]any) []string {
	var out []string
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	tr.walk(stmt, false, func(m map[string]any) bool {
		switch m["type"] {
		case "TABLE_FUNCTION":
			fn, _ := m["function"].(map[string]any)
			name, _ := fn["function_name"].(string)
			if !readsFiles(strings.ToLower(name)) {
				return true
			}
			if args := anyList(fn["children"]); len(args) > 0 {
				for _, s := range stringConstants(args[0]) {
					add(s)
				}
			}
		case "BASE_TABLE":
			schema, _ := m["schema_name"].(string)
			table, _ := m["table_name"].(string)
			if schema == "" && strings.ContainsAny(table, "./\\") {
				add(table)
			}
		}
		return true
	})
	slices.Sort(out)
	return out
}

// readsFiles reports whether the table function name reads the files its
// first argument names.
func readsFiles(name string) bool {
	switch name {
	case "parquet_scan", "sniff_csv", "glob", "delta_scan", "iceberg_scan", "st_read":
		return true
	}
	return strings.HasPrefix(name, "read_")
}

// stringConstants are the strings of a constant or of a list of constants
// (list_value('a', 'b'), as DuckDB parses ['a', 'b']); nil for anything
// else (a column, a parameter: no literal file).
func stringConstants(v any) []string {
	m, _ := v.(map[string]any)
	switch m["class"] {
	case "CONSTANT":
		val, _ := m["value"].(map[string]any)
		if isNull, _ := val["is_null"].(bool); isNull {
			return nil
		}
		if s, ok := val["value"].(string); ok {
			return []string{s}
		}
	case "FUNCTION":
		if name, _ := m["function_name"].(string); strings.EqualFold(name, "list_value") {
			var out []string
			for _, c := range anyList(m["children"]) {
				out = append(out, stringConstants(c)...)
			}
			return out
		}
	}
	return nil
}
