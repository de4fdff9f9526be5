package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/engine"
)

var _ engine.FunctionCatalog = (*DB)(nil)

// Version is the server's version, e.g. "postgres 15.8".
func (d *DB) Version(ctx context.Context) (string, error) {
	rows, err := d.Query(ctx, "SHOW server_version")
	if err != nil {
		return "", fmt.Errorf("postgres: version: %w", err)
	}
	if len(rows.Values) != 1 {
		return "", fmt.Errorf("postgres: version: no row")
	}
	return "postgres " + fmt.Sprint(rows.Values[0][0]), nil
}

// functionsQuery lists the functions a query can call by name: from
// pg_proc, with pg_description's comment, every overload visible on the
// search path; procedures, the engine's I/O and handler functions (which
// take or return internal, cstring or a handler type) and operators'
// support functions without a plain name are left out. Parameters are
// name and type, joined by chr(31), separated by chr(30).
const functionsQuery = `SELECT p.proname,
  CASE p.prokind WHEN 'a' THEN 'aggregate' WHEN 'w' THEN 'window' ELSE CASE WHEN p.proretset THEN 'table' ELSE 'scalar' END END,
  coalesce(d.description, ''),
  pg_get_function_result(p.oid),
  coalesce((SELECT string_agg(coalesce(CASE WHEN p.proargmodes IS NULL THEN p.proargnames[i + 1] END, '') || chr(31) || format_type(p.proargtypes[i], NULL), chr(30) ORDER BY i)
            FROM generate_series(0, p.pronargs - 1) AS i), ''),
  CASE WHEN p.provariadic <> 0 THEN format_type(p.provariadic, NULL) ELSE '' END
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
LEFT JOIN pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_proc'::regclass AND d.objsubid = 0
WHERE p.prokind <> 'p'
  AND p.proname ~ '^[a-z][a-z0-9_]*$'
  AND n.nspname <> 'information_schema'
  AND pg_function_is_visible(p.oid)
  AND format_type(p.prorettype, NULL) NOT IN ('internal', 'cstring', 'trigger', 'event_trigger', 'language_handler',
      'fdw_handler', 'index_am_handler', 'tsm_handler', 'table_am_handler')
  AND NOT EXISTS (SELECT 1 FROM unnest(p.proargtypes) AS a(t) WHERE format_type(a.t, NULL) IN ('internal', 'cstring'))
ORDER BY p.proname, p.pronargs`

// Functions lists the functions of pg_proc with their comments.
func (d *DB) Functions(ctx context.Context) ([]engine.Function, error) {
	rows, err := d.Query(ctx, functionsQuery)
	if err != nil {
		return nil, fmt.Errorf("postgres: functions: %w", err)
	}
	out := make([]engine.Function, 0, len(rows.Values))
	for _, r := range rows.Values {
		f := engine.Function{Name: text(r[0]), Kind: text(r[1]), Description: text(r[2]), Returns: text(r[3]), Variadic: text(r[5])}
		if args := text(r[4]); args != "" {
			for _, a := range strings.Split(args, "\x1e") {
				name, typ, _ := strings.Cut(a, "\x1f")
				f.Params = append(f.Params, engine.Param{Name: name, Type: typ})
			}
		}
		if f.Variadic != "" && len(f.Params) > 0 {
			// The last parameter is the array the variadic arguments fill.
			f.Params = f.Params[:len(f.Params)-1]
		}
		if f.Kind == "table" {
			f.Returns = strings.TrimPrefix(f.Returns, "SETOF ")
		}
		out = append(out, f)
	}
	return engine.WithSpecialForms(out, specialForms), nil
}

// specialForms are what PostgreSQL's grammar reads as expressions of their
// own, which pg_proc does not list.
var specialForms = []engine.Function{
	{Name: "coalesce", Kind: "scalar", Params: []engine.Param{{Name: "value", Type: "anyelement"}}, Variadic: "anyelement", Returns: "anyelement", Description: "Returns the first argument that is not NULL."},
	{Name: "nullif", Kind: "scalar", Params: []engine.Param{{Name: "value", Type: "anyelement"}, {Name: "other", Type: "anyelement"}}, Returns: "anyelement", Description: "Returns NULL when value equals other, else value."},
	{Name: "greatest", Kind: "scalar", Params: []engine.Param{{Name: "value", Type: "anyelement"}}, Variadic: "anyelement", Returns: "anyelement", Description: "The largest argument, NULLs ignored."},
	{Name: "least", Kind: "scalar", Params: []engine.Param{{Name: "value", Type: "anyelement"}}, Variadic: "anyelement", Returns: "anyelement", Description: "The smallest argument, NULLs ignored."},
	{Name: "case", Kind: "scalar", Syntax: "CASE [value] WHEN condition THEN result [...] [ELSE result] END", Returns: "anyelement", Description: "The result of the first WHEN that holds (or equals value); ELSE's, or NULL, when none does."},
	{Name: "cast", Kind: "scalar", Syntax: "CAST(value AS type)", Returns: "type", Description: "Converts value to type (also written value::type)."},
	{Name: "extract", Kind: "scalar", Syntax: "EXTRACT(field FROM source)", Returns: "numeric", Description: "The field (year, month, day, hour, …) of a date, time, timestamp or interval."},
	{Name: "exists", Kind: "scalar", Syntax: "EXISTS (subquery)", Returns: "boolean", Description: "Whether the subquery yields a row."},
	{Name: "grouping", Kind: "aggregate", Params: []engine.Param{{Name: "column", Type: "anyelement"}}, Variadic: "anyelement", Returns: "integer", Description: "Which of the columns a GROUPING SETS, ROLLUP or CUBE row does not group by, as bits."},
	{Name: "current_timestamp", Kind: "scalar", Syntax: "CURRENT_TIMESTAMP", Returns: "timestamp with time zone", Description: "The time the transaction started."},
}

func text(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}
