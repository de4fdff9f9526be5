package dbtimport

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestJinjaBadInput: Jinja that does not evaluate is bad input, at its
// file:line:col, and nothing is written.
func TestJinjaBadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // a substring of the error
	}{
		{"syntax error", map[string]string{"models/a.sql": "select 1\n{% if x %}\nfrom t"},
			"models/a.sql:3:"},
		{"undefined macro", map[string]string{"models/a.sql": "select\n  {{ nope('x') }} as y"},
			"models/a.sql:2:1: Jinja: no macro named nope"},
		{"package not installed", map[string]string{"models/a.sql": "select\n  {{ dbt_date.get_base_dates(n_dateparts=10) }}"},
			"models/a.sql:2:1: Jinja: no macro dbt_date.get_base_dates: the package dbt_date is not installed"},
		{"recursion", map[string]string{
			"macros/loop.sql": "{% macro again(n) %}{{ again(n) }}{% endmacro %}",
			"models/a.sql":    "select {{ again(1) }} as y"},
			"calls itself without end"},
		{"compiler error", map[string]string{"models/a.sql": "select 1\n{{ exceptions.raise_compiler_error('no way') }}"},
			"models/a.sql:2:1: compiler error: no way"},
		{"macro gonja cannot parse", map[string]string{
			"macros/bad.sql": "{% macro bad() %}\n{% if (a %}x{% endif %}\n{% endmacro %}",
			"models/a.sql":   "select {{ bad() }} as y"},
			"macros/bad.sql:2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := t.TempDir(), t.TempDir()
			tt.files["dbt_project.yml"] = "name: p\n"
			write(t, from, tt.files)
			_, err := Convert(from, to, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one with %q", err, tt.want)
			}
			t.Log(err)
			if entries, _ := os.ReadDir(to); len(entries) > 0 {
				t.Errorf("%d files written on bad input", len(entries))
			}
		})
	}
}

// TestJinjaContext covers dbt's context: var with project vars and
// defaults, env_var, target, this, return of a list, adapter.dispatch in a
// package, a plain macro with a default, and what needs the warehouse at
// compile time (left to a human, at its place).
func TestJinjaContext(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	t.Setenv("EFMESH_TEST_SCHEMA", "raw")
	write(t, from, map[string]string{
		"dbt_project.yml": "name: p\nvars:\n  floor: 5\n",
		"macros/m.sql": "-- Twice a column.\n{% macro twice(col, k=2) %}{{ col }} * {{ k }}{% endmacro %}\n" +
			"{% macro cols() %}{{ return(['a', 'b']) }}{% endmacro %}",
		"dbt_packages/util/macros/u.sql": "{% macro greet(x) %}{{ return(adapter.dispatch('greet', 'util')(x)) }}{% endmacro %}\n" +
			"{% macro default__greet(x) %}'hi ' || {{ x }}{% endmacro %}\n{% macro postgres__greet(x) %}'pg'{% endmacro %}",
		"models/a.sql": "select {% for c in cols() %}{{ c }}{{ ',' if not loop.last }} {% endfor %}, {{ twice('a') }} as t, {{ util.greet('b') }} as g,\n" +
			"  {{ var('floor') }} as f, {{ var('other', 7) }} as o, '{{ env_var('EFMESH_TEST_SCHEMA') }}' as s, '{{ target.type }}' as ty\n" +
			"from {{ ref('b') }}",
		"models/b.sql": "select 1 as a, 2 as b\n{% set vals = dbt_utils.get_column_values(ref('c'), 'x') %}\n{% set r = run_query('select 1') %}",
		"models/c.sql": "select 1 as x",
	})
	res, err := Convert(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(to, "models/a.sql"))
	want := "select a, b , @twice(a) as t, 'hi ' || b as g,\n  5 as f, 7 as o, 'raw' as s, 'duckdb' as ty\nfrom @ref(p.b)"
	if !strings.Contains(string(a), want) {
		t.Errorf("a.sql:\n%s\nwant it to hold:\n%s", a, want)
	}
	m, _ := os.ReadFile(filepath.Join(to, "macros/m.sql"))
	if string(m) != "-- Twice a column.\nMACRO twice(col, k := 2) AS @col * @k;\n" {
		t.Errorf("macros/m.sql:\n%s", m)
	}
	var pieces []string
	for _, p := range res.Unconverted {
		pieces = append(pieces, p.String())
	}
	wantPieces := []string{
		"models/b.sql:2:15: dbt_utils.get_column_values reads the warehouse at compile time: write its result by hand, or a macro efmesh runs: dbt_utils.get_column_values",
		"models/b.sql:3:12: run_query needs the warehouse at compile time: write the result by hand: run_query",
	}
	if !reflect.DeepEqual(pieces, wantPieces) {
		t.Errorf("unconverted:\n got %q\nwant %q", pieces, wantPieces)
	}
}

// TestDbtCrossDatabaseMacros: dbt's built-in package renders each of its
// cross-database macros as dbt-duckdb does (duckdb__ before default__), and
// the project may override one, as in dbt.
func TestDbtCrossDatabaseMacros(t *testing.T) {
	calls := map[string]string{
		"dbt.date_trunc('day', 'ts')":                        "date_trunc('day', ts)",
		"dbt.type_string()":                                  "text",
		"dbt.type_timestamp()":                               "timestamp",
		"dbt.type_numeric()":                                 "numeric(28,6)",
		"dbt.type_int()":                                     "int",
		"dbt.type_bigint()":                                  "bigint",
		"dbt.type_float()":                                   "float",
		"dbt.type_boolean()":                                 "boolean",
		"dbt.dateadd('month', 2, 'ts')":                      "(ts + cast(2 as bigint) * interval 1 month)",
		"dbt.datediff('a', 'b', 'day')":                      "(date_diff('day', a::timestamp, b::timestamp ))",
		"dbt.safe_cast('x', dbt.type_int())":                 "cast(x as int)",
		"dbt.concat(['a', 'b'])":                             "a || b",
		"dbt.hash('a')":                                      "md5(cast(a as text))",
		"dbt.cast_bool_to_text('f')":                         "cast(f as text)",
		"dbt.split_part('s', \"','\", 2)":                    "string_split(s, ',')[ 2 ]",
		"dbt.listagg('x', \"','\")":                          "string_agg(\n        x,\n        ','\n        \n        )",
		"dbt.current_timestamp()":                            "now()",
		"dbt.any_value('x')":                                 "arbitrary(x)",
		"dbt.date(2024, 1, 2)":                               "make_date(2024, 1, 2)",
		"dbt.string_literal('x')":                            "'x'",
		"dbt.escape_single_quotes(\"it's\")":                 "it''s",
		"current_timestamp()":                                "now()",
		"dbt.right('s', 2)":                                  "right(\n        s,\n        2\n    )",
		"dbt.cast('x', api.Column.translate_type('string'))": "cast(x as text)",
	}
	for call, want := range calls {
		from, to := t.TempDir(), t.TempDir()
		write(t, from, map[string]string{"dbt_project.yml": "name: p\n", "models/a.sql": "select {{ " + call + " }} as v"})
		if _, err := Convert(from, to, Options{}); err != nil {
			t.Errorf("%s: %v", call, err)
			continue
		}
		b, _ := os.ReadFile(filepath.Join(to, "models/a.sql"))
		_, got, _ := strings.Cut(string(b), ");\n\nselect")
		got = strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(got), "as v")), " ")
		if want = strings.Join(strings.Fields(want), " "); got != want {
			t.Errorf("%s renders %q, want %q", call, got, want)
		}
	}
	// A project's own implementation wins over dbt's (here a plain one,
	// written as an efmesh macro).
	from, to := t.TempDir(), t.TempDir()
	write(t, from, map[string]string{"dbt_project.yml": "name: p\n",
		"macros/trunc.sql": "{% macro duckdb__date_trunc(datepart, date) %}time_bucket(interval 1 {{ datepart }}, {{ date }}){% endmacro %}",
		"models/a.sql":     "select {{ dbt.date_trunc('day', 'ts') }} as v"})
	if _, err := Convert(from, to, Options{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(to, "models/a.sql")); !strings.Contains(string(b), "select @duckdb__date_trunc(day, ts) as v") {
		t.Errorf("project override:\n%s", b)
	}
}
