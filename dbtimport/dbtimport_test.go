package dbtimport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConvertChoices covers what the end-to-end script does not: a source
// read as a table with untyped columns, alias, enabled: false, folder
// configs overridden by the file's, models outside any folder, and what is
// reported (an incremental efmesh cannot tell, another materialization, an
// unknown config key, a var without a value).
func TestConvertChoices(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	write(t, from, map[string]string{
		"dbt_project.yml":         "name: Shop-App\nmodels:\n  Shop-App:\n    +materialized: table\n    legacy:\n      +enabled: false\n    deep:\n      +schema: core\n      inner:\n        materialized: view\n",
		"models/src.yml":          "version: 2\nsources:\n  - name: erp\n    schema: raw_erp\n    tables:\n      - name: items\n        identifier: ITEMS_V2\n        columns:\n          - name: id\n            data_type: int\n          - name: label\n",
		"models/top.sql":          "select * from {{ source('erp', 'items') }}",
		"models/legacy/old.sql":   "select 1",
		"models/deep/inner/v.sql": "select * from {{ ref('top') }}",
		"models/deep/t.sql":       "{{ config(alias='tee', materialized='incremental', full_refresh=false) }}\nselect * from {{ ref('v') }} where k = {{ var('k') }}",
		"models/deep/snap.sql":    "{{ config(materialized='snapshot') }}\nselect 1 as a",
		"models/deep/inc.sql":     "{{ config(materialized='incremental') }}\nselect id from {{ ref('v') }}\n{% if is_incremental() %}where ts > (select max(ts) from {{ this }}){% endif %}",
		"models/deep/meta.sql":    "{{ config(materialized='view', meta={'x': 1}) }}\nselect 1 as a",
		"models/deep/inner/w.sql": "{{ config(schema='other', materialized='table') }}\nselect * from {{ ref('t') }}",
	})
	write(t, to, map[string]string{".gitignore": "mine\n"})
	res, err := Convert(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(to, ".gitignore")); string(b) != "mine\n" {
		t.Errorf(".gitignore was rewritten: %q", b)
	}
	var got []string
	for _, m := range res.Models {
		got = append(got, m.Name+" "+m.Kind+" "+m.File)
	}
	want := []string{
		"core.inc INCREMENTAL_BY_TIME_RANGE models/deep/inc.sql",
		"core.meta FULL models/deep/meta.sql",
		"core.snap FULL models/deep/snap.sql",
		"core.tee FULL models/deep/t.sql",
		"core.v VIEW models/deep/inner/v.sql",
		"erp.items EXTERNAL models/_sources/erp/items.sql",
		"other.w FULL models/deep/inner/w.sql",
		"shop_app.top FULL models/top.sql",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("models:\n got %q\nwant %q", got, want)
	}
	var pieces []string
	for _, p := range res.Unconverted {
		pieces = append(pieces, p.String())
	}
	wantPieces := []string{
		"models/deep/inc.sql:3:1: the is_incremental() filter's column is not visibly in the select list: check the model's time_column: time_column ts",
		"models/deep/meta.sql:1:1: config(): meta: \"{'x':\" is not a literal efmesh reads (a string, number, boolean or list of strings): {{ config(materialized='view', meta={'x': 1}) }}",
		"models/deep/snap.sql:1:1: materialization efmesh has no equivalent for: written as FULL: materialized='snapshot'",
		"models/deep/t.sql:1:1: incremental model without a unique_key or a recognisable is_incremental() timestamp filter: written as FULL: materialized='incremental'",
		"models/deep/t.sql:1:1: config key efmesh has no equivalent for: full_refresh=false",
		"models/deep/t.sql:2:40: variable with no value in dbt_project.yml's vars and no default: {{ var('k') }}",
	}
	if !reflect.DeepEqual(pieces, wantPieces) {
		t.Errorf("unconverted:\n got %q\nwant %q", pieces, wantPieces)
	}
	src, err := os.ReadFile(filepath.Join(to, "models/_sources/erp/items.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "kind EXTERNAL (table raw_erp.items_v2)\n") || strings.Contains(string(src), "columns") {
		t.Errorf("source model:\n%s", src)
	}
	w, err := os.ReadFile(filepath.Join(to, "models/deep/inner/w.sql"))
	if err != nil || !strings.Contains(string(w), "select * from @ref(core.tee)") {
		t.Errorf("w.sql (%v):\n%s", err, w)
	}
	if _, err := os.Stat(filepath.Join(to, "models/legacy/old.sql")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a disabled model was written: %v", err)
	}

	// A second conversion into the same folder writes nothing.
	_, err = Convert(from, to, Options{})
	var ee *ExistsError
	if !errors.As(err, &ee) {
		t.Fatalf("second conversion: %v, want an ExistsError", err)
	}
}

// TestConvertTests covers the tests the fixtures do not: an audit that
// reads a model built after its own goes to that model, a singular test
// over two models, a test no macro defines and a test config efmesh has no
// equivalent for (left to a human), two uses of one test (two audits),
// dbt_utils's recency, whose macro gonja does not parse, and a dbt unit
// test (left to a human), and a test whose Jinja does not
// evaluate (bad input at its YAML place).
func TestConvertTests(t *testing.T) {
	files := map[string]string{
		"dbt_project.yml":    "name: p\n",
		"models/a.sql":       "select 1 as id",
		"models/b.sql":       "select id from {{ ref('a') }}",
		"macros/even.sql":    "{% test even(model, column_name) %}select * from {{ model }} where {{ column_name }} % 2 = 1{% endtest %}",
		"tests/two_refs.sql": "select * from {{ ref('a') }} join {{ ref('b') }} using (id) where false",
		"models/schema.yml": `version: 2
models:
  - name: a
    columns:
      - name: id
        tests:
          - relationships: {to: ref('b'), field: id}
          - even
          - even: {config: {severity: warn}}
          - nope
          - even: {config: {error_if: ">10"}}
    tests:
      - dbt_utils.recency: {datepart: day, field: id, interval: 1}
unit_tests:
  - name: t1
    model: a
`,
	}
	from, to := t.TempDir(), t.TempDir()
	write(t, from, files)
	res, err := Convert(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string
	for _, p := range res.Unconverted {
		pieces = append(pieces, p.String())
	}
	want := []string{
		"models/schema.yml:10:13: dbt test with no definition in the project (macros/, tests/generic/), its packages or dbt: write it as a custom audit: nope on a.id",
		"models/schema.yml:11:13: dbt test config efmesh has no equivalent for (error_if): an audit fails on any row: even on a.id",
		"models/schema.yml:13:9: dbt test whose macro efmesh's Jinja engine cannot parse (write it as a custom audit): (dbt_utils)/generic_tests/recency.sql:9:103: Jinja: Unable to parse controlStructure \"macro\": Unable to parse controlStructure \"set\": Unbalanced parenthesis (Line: 5 Col: 103, near \"(\"): dbt_utils.recency on a",
		"models/schema.yml:15:5: dbt unit test: not converted (efmesh's tests in tests/*.yaml take given rows and expected rows too: write it as one): unit test t1 of a",
		"tests/two_refs.sql:1:1: singular test that refs 2 models: an efmesh audit belongs to one model (write it as a custom audit of one, or as a model): test two_refs",
	}
	if !reflect.DeepEqual(pieces, want) {
		t.Errorf("unconverted:\n got %q\nwant %q", pieces, want)
	}
	a, _ := os.ReadFile(filepath.Join(to, "models/a.sql"))
	b, _ := os.ReadFile(filepath.Join(to, "models/b.sql"))
	if !strings.Contains(string(a), "audits (even_a_id, warn(even_a_id_2))") || !strings.Contains(string(b), "audits (relationships_a_id)") {
		t.Errorf("audits:\n%s\n%s", a, b)
	}
	rel, _ := os.ReadFile(filepath.Join(to, "audits/relationships_a_id.sql"))
	if !strings.Contains(string(rel), "from @ref(p.a)") || !strings.Contains(string(rel), "from @this") {
		t.Errorf("relationships audit, on b (built after a):\n%s", rel)
	}

	// A test whose Jinja does not evaluate is bad input, at its place.
	files["macros/even.sql"] = "{% test even(model, column_name) %}{{ undefined_macro() }}{% endtest %}"
	from, to = t.TempDir(), t.TempDir()
	write(t, from, files)
	if _, err := Convert(from, to, Options{}); err == nil || !strings.Contains(err.Error(), "models/schema.yml:8:13: test even on a.id: ") {
		t.Errorf("error %v", err)
	}
}

// TestConvertSnapshots covers the snapshot differences the fixture does
// not: a unique_key expression, hard_deletes='new_record',
// dbt_valid_to_current, renamed meta columns, dbt_scd_id read downstream,
// and a disabled snapshot.
func TestConvertSnapshots(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	write(t, from, map[string]string{
		"dbt_project.yml": "name: p\nsnapshots:\n  p:\n    +strategy: check\n    +check_cols: all\n    +hard_deletes: invalidate\n",
		"models/a.sql":    "select 1 as id, 'x' as v",
		"models/b.sql":    "select dbt_scd_id from {{ ref('s2') }}",
		"snapshots/s.sql": "{% snapshot s1 %}\n{{ config(unique_key=\"id || '-' || v\") }}\nselect * from {{ ref('a') }}\n{% endsnapshot %}\n" +
			"{% snapshot s2 %}{{ config(unique_key='id', hard_deletes='new_record', dbt_valid_to_current=\"'9999-12-31'\") }}select * from {{ ref('a') }}{% endsnapshot %}\n" +
			"{% snapshot s3 %}{{ config(unique_key='id', enabled=false) }}select * from {{ ref('a') }}{% endsnapshot %}\n" +
			"{% snapshot s4 %}{{ config(unique_key=['id', 'v'], target_schema='hist') }}select * from {{ ref('a') }}{% endsnapshot %}\n",
	})
	res, err := Convert(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Models {
		got = append(got, m.Name+" "+m.Kind)
	}
	if want := []string{"hist.s4 SCD_TYPE_2", "p.a VIEW", "p.b VIEW", "snapshots.s1 SCD_TYPE_2", "snapshots.s2 SCD_TYPE_2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("models %q, want %q", got, want)
	}
	var pieces []string
	for _, p := range res.Unconverted {
		pieces = append(pieces, p.File+":"+p.Text)
	}
	want := []string{
		"snapshots/s.sql:unique_key=id || '-' || v",
		"snapshots/s.sql:hard_deletes='new_record'",
		"snapshots/s.sql:dbt_valid_to_current",
		"snapshots/s.sql:dbt_scd_id, dbt_updated_at",
	}
	if !reflect.DeepEqual(pieces, want) {
		t.Errorf("unconverted:\n got %q\nwant %q", pieces, want)
	}
	s4, _ := os.ReadFile(filepath.Join(to, "models/_snapshots/s4.sql"))
	if !strings.Contains(string(s4), "kind SCD_TYPE_2 (key (id, v), valid_from dbt_valid_from, valid_to dbt_valid_to)") {
		t.Errorf("s4:\n%s", s4)
	}
}

// TestConvertProjectConfig: dbt_project.yml's configs as real projects
// write them: +enabled from a var (Jinja in YAML), +tags adding up from
// folder to file, a generate_schema_name override naming every model,
// seed and snapshot, hooks listed for a human, and a dbt-duckdb source
// whose external_location names the {identifier}.
func TestConvertProjectConfig(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	write(t, from, map[string]string{
		"dbt_project.yml": `name: p
on-run-start: "create schema if not exists audit"
on-run-end:
  - "grant select on all tables in schema main to reporter"
models:
  p:
    +tags: [nightly]
    marts:
      +schema: analytics
      +tags: finance
      +post-hook: "analyze {{ this }}"
seeds:
  p:
    +schema: raw
    extra:
      +enabled: "{{ var('load_extra', false) }}"
`,
		"macros/schema.sql": `{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if node.resource_type == 'seed' -%} {{ custom_schema_name | trim }}
    {%- elif custom_schema_name is none -%} {{ target.schema }}
    {%- else -%} {{ target.schema }}_{{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}`,
		"models/sources.yml":     "version: 2\nsources:\n  - name: lake\n    meta:\n      external_location: \"s3://bucket/{identifier}.parquet\"\n    tables:\n      - name: events\n        identifier: events_v2\n",
		"models/staging/stg.sql": "{{ config(pre_hook=\"set threads = 1\") }}\nselect * from {{ source('lake', 'events') }}",
		"models/marts/m.sql":     "{{ config(tags=['daily']) }}\nselect * from {{ ref('stg') }} join {{ ref('c') }} using (id)",
		"seeds/c.csv":            "id\n1\n",
		"seeds/extra/e.csv":      "id\n1\n",
	})
	res, err := Convert(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Models {
		got = append(got, m.Name+" "+m.Kind)
	}
	if want := []string{"lake.events EXTERNAL", "main.stg VIEW", "main_analytics.m VIEW", "raw.c SEED"}; !reflect.DeepEqual(got, want) {
		t.Errorf("models %q, want %q", got, want)
	}
	var pieces []string
	for _, p := range res.Unconverted {
		pieces = append(pieces, fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Text))
	}
	want := []string{
		"dbt_project.yml:2: on-run-start: create schema if not exists audit",
		"dbt_project.yml:3: on-run-end: grant select on all tables in schema main to reporter",
		"models/marts/m.sql:1: post_hook: analyze {{ this }}",
		"models/staging/stg.sql:1: pre_hook: set threads = 1",
	}
	if !reflect.DeepEqual(pieces, want) {
		t.Errorf("unconverted:\n got %q\nwant %q", pieces, want)
	}
	m, _ := os.ReadFile(filepath.Join(to, "models/marts/m.sql"))
	if !strings.Contains(string(m), "tags (nightly, finance, daily)") || !strings.Contains(string(m), "@ref(main.stg)") || !strings.Contains(string(m), "@ref(raw.c)") {
		t.Errorf("m.sql:\n%s", m)
	}
	src, _ := os.ReadFile(filepath.Join(to, "models/_sources/lake/events.sql"))
	if !strings.Contains(string(src), "kind EXTERNAL (files 's3://bucket/events_v2.parquet', format parquet)") {
		t.Errorf("source:\n%s", src)
	}
}
