package duckdb

import (
	"context"
	"fmt"
	"regexp"

	"github.com/efmesh/efmesh/engine"
)

var _ engine.FunctionCatalog = (*DB)(nil)

// Version is DuckDB's version, e.g. "v1.5.6".
func (d *DB) Version(ctx context.Context) (string, error) {
	rows, err := d.Query(ctx, "SELECT version()")
	if err != nil {
		return "", fmt.Errorf("duckdb: version: %w", err)
	}
	if len(rows.Values) != 1 {
		return "", fmt.Errorf("duckdb: version: no row")
	}
	return "duckdb " + fmt.Sprint(rows.Values[0][0]), nil
}

// functionName is what a user calls by name: operators (+, ~~) and the
// engine's own helpers (__internal_…) are left out.
var functionName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Functions lists every overload of duckdb_functions() a query can call by
// name, with its parameters, return type and description.
func (d *DB) Functions(ctx context.Context) ([]engine.Function, error) {
	rows, err := d.Query(ctx, `SELECT function_name, function_type, coalesce(description, ''), coalesce(return_type, ''),
       parameters, parameter_types, coalesce(varargs, '')
FROM duckdb_functions()
WHERE function_type IN ('scalar', 'aggregate', 'macro', 'table', 'table_macro')
ORDER BY function_name, function_type, len(parameters), array_to_string(parameter_types, ','), return_type, description`)
	if err != nil {
		return nil, fmt.Errorf("duckdb: functions: %w", err)
	}
	out := make([]engine.Function, 0, len(rows.Values))
	for _, r := range rows.Values {
		name := str(r[0])
		if !functionName.MatchString(name) {
			continue
		}
		kind := str(r[1])
		switch kind {
		case "table_macro":
			kind = "table"
		}
		f := engine.Function{Name: name, Kind: kind, Description: str(r[2]), Returns: str(r[3]), Variadic: str(r[6])}
		names, types := strs(r[4]), strs(r[5])
		for i, n := range names {
			p := engine.Param{Name: n}
			if i < len(types) {
				p.Type = types[i]
			}
			f.Params = append(f.Params, p)
		}
		out = append(out, f)
	}
	return engine.WithSpecialForms(out, specialForms), nil
}

// specialForms are what DuckDB's parser reads as expressions of their own,
// which duckdb_functions() does not list (checked against DuckDB 1.5).
var specialForms = []engine.Function{
	{Name: "coalesce", Kind: "scalar", Params: []engine.Param{{Name: "value", Type: "ANY"}}, Variadic: "ANY", Returns: "ANY", Description: "Returns the first argument that is not NULL."},
	{Name: "ifnull", Kind: "scalar", Params: []engine.Param{{Name: "value", Type: "ANY"}, {Name: "fallback", Type: "ANY"}}, Returns: "ANY", Description: "Returns fallback when value is NULL, else value."},
	{Name: "if", Kind: "scalar", Params: []engine.Param{{Name: "condition", Type: "BOOLEAN"}, {Name: "then", Type: "ANY"}, {Name: "otherwise", Type: "ANY"}}, Returns: "ANY", Description: "Returns then when condition is true, else otherwise."},
	{Name: "case", Kind: "scalar", Syntax: "CASE [value] WHEN condition THEN result [...] [ELSE result] END", Returns: "ANY", Description: "The result of the first WHEN that holds (or equals value); ELSE's, or NULL, when none does."},
	{Name: "cast", Kind: "scalar", Syntax: "CAST(value AS type)", Returns: "type", Description: "Converts value to type; an error when it does not convert (also written value::type)."},
	{Name: "try_cast", Kind: "scalar", Syntax: "TRY_CAST(value AS type)", Returns: "type", Description: "Converts value to type; NULL when it does not convert."},
	{Name: "extract", Kind: "scalar", Syntax: "EXTRACT(part FROM value)", Returns: "BIGINT", Description: "The part (year, month, day, hour, …) of a date, time, timestamp or interval."},
	{Name: "exists", Kind: "scalar", Syntax: "EXISTS (subquery)", Returns: "BOOLEAN", Description: "Whether the subquery yields a row."},
	{Name: "grouping", Kind: "aggregate", Params: []engine.Param{{Name: "column", Type: "ANY"}}, Variadic: "ANY", Returns: "BIGINT", Description: "Which of the columns a GROUPING SETS, ROLLUP or CUBE row does not group by, as bits."},
	{Name: "columns", Kind: "scalar", Syntax: "COLUMNS(* | 'regex' | lambda)", Returns: "ANY", Description: "The expression once per column the selector matches."},
	{Name: "current_timestamp", Kind: "scalar", Syntax: "CURRENT_TIMESTAMP", Returns: "TIMESTAMP WITH TIME ZONE", Description: "The time the transaction started."},
	{Name: "current_time", Kind: "scalar", Syntax: "CURRENT_TIME", Returns: "TIME WITH TIME ZONE", Description: "The time of day the transaction started."},
}

func str(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = str(x)
	}
	return out
}
