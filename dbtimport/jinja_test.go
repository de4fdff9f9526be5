package dbtimport

import (
	"fmt"
	"reflect"
	"testing"
)

func TestConvertBody(t *testing.T) {
	models := map[string]string{"stg_orders": "staging.stg_orders", "orders": "marts.orders"}
	r := resolver{
		model: func(n string) (string, bool) { s, ok := models[n]; return s, ok },
		source: func(s, tb string) (string, bool) {
			if s == "raw" && tb == "orders" {
				return "raw.orders", true
			}
			return "", false
		},
	}
	tests := []struct {
		name    string
		src     string
		want    string
		pieces  []string // "line:col text"
		timeCol string
		config  map[string]any
		vars    map[string]string
	}{
		{name: "ref",
			src:  "select * from {{ ref('stg_orders') }} o",
			want: "select * from @ref(staging.stg_orders) o"},
		{name: "ref double quotes and whitespace control",
			src:  `select * from {{- ref("orders") -}}`,
			want: "select * from @ref(marts.orders)"}, // whitespace control is not applied: SQL needs none
		{name: "ref with a package",
			src:  "from {{ ref('jaffle', 'orders') }}",
			want: "from @ref(marts.orders)"},
		{name: "ref to an unknown model is kept and reported",
			src:    "select 1\nfrom {{ ref('nope') }}",
			want:   "select 1\nfrom /* efmesh: not converted: {{ ref('nope') }} */",
			pieces: []string{"2:6 {{ ref('nope') }}"}},
		{name: "source",
			src:  "from {{ source('raw', 'orders') }}",
			want: "from @ref(raw.orders)"},
		{name: "undeclared source",
			src:    "from {{ source('raw', 'items') }}",
			want:   "from /* efmesh: not converted: {{ source('raw', 'items') }} */",
			pieces: []string{"1:6 {{ source('raw', 'items') }}"}},
		{name: "this",
			src:  "select max(id) from {{ this }}",
			want: "select max(id) from @this"},
		{name: "quoted var loses its quotes",
			src:  `where country = '{{ var("country") }}'`,
			want: "where country = @var(country)",
			vars: map[string]string{"country": ""}},
		{name: "var with a default",
			src:  "where amount >= {{ var('min_amount', 10) }}",
			want: "where amount >= @var(min_amount)",
			vars: map[string]string{"min_amount": "10"}},
		{name: "config is read and dropped",
			src:    "{{ config(materialized='incremental', unique_key=['a', 'b'], full_refresh=false) }}\nselect 1",
			want:   "select 1",
			config: map[string]any{"materialized": "incremental", "unique_key": []string{"a", "b"}, "full_refresh": false}},
		{name: "config efmesh cannot read",
			src:    "{{ config(post_hook=grant_select()) }}\nselect 1",
			want:   "/* efmesh: not converted: {{ config(post_hook=grant_select()) }} */\nselect 1",
			pieces: []string{"1:1 {{ config(post_hook=grant_select()) }}"}},
		{name: "is_incremental timestamp filter",
			src:     "select * from t\n{% if is_incremental() %}\n  where updated_at > (select max(updated_at) from {{ this }})\n{% endif %}",
			want:    "select * from t\nwhere updated_at >= @start AND updated_at < @end",
			timeCol: "updated_at"},
		{name: "is_incremental filter with AND, qualified, >=",
			src:     "select * from t as o where o.ok\n{%- if is_incremental() -%} AND o.ts >= (SELECT MAX(ts) FROM {{this}}) {%- endif %}",
			want:    "select * from t as o where o.ok\nAND o.ts >= @start AND o.ts < @end",
			timeCol: "ts"},
		{name: "is_incremental block efmesh cannot read",
			src:    "select 1\n{% if is_incremental() %}where id not in (select id from {{ this }}){% endif %}",
			want:   "select 1\n/* efmesh: not converted: {% if is_incremental() %}where id not in (select id from {{ this }}){% endif %} */",
			pieces: []string{"2:1 {% if is_incremental() %}where id not in (select id from {{ this }}){% endif %}"}},
		{name: "macro call",
			src:    "select\n  {{ cents_to_dollars('amount') }} as amount",
			want:   "select\n  /* efmesh: not converted: {{ cents_to_dollars('amount') }} */ as amount",
			pieces: []string{"2:3 {{ cents_to_dollars('amount') }}"}},
		{name: "loop: every tag reported",
			src:    "select\n{% for m in ['a', 'b'] %}sum({{ m }}),{% endfor %} 1",
			want:   "select\n/* efmesh: not converted: {% for m in ['a', 'b'] %} */sum(/* efmesh: not converted: {{ m }} */),/* efmesh: not converted: {% endfor %} */ 1",
			pieces: []string{"2:1 {% for m in ['a', 'b'] %}", "2:30 {{ m }}", "2:39 {% endfor %}"}},
		{name: "jinja comment",
			src:  "{# the orders #}\nselect 1",
			want: "/* the orders */\nselect 1"},
		{name: "a comment end inside kept text is defused",
			src:    "select {{ f('*/') }}",
			want:   "select /* efmesh: not converted: {{ f('* /') }} */",
			pieces: []string{"1:8 {{ f('*/') }}"}},
		{name: "unterminated tag",
			src:    "select {{ ref('orders')",
			want:   "select /* efmesh: not converted: {{ ref('orders') */",
			pieces: []string{"1:8 {{ ref('orders')"}},
		{name: "braces in SQL are not jinja",
			src:  "select {'a': 1} as s, '{x}' as t",
			want: "select {'a': 1} as s, '{x}' as t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := convertBody("m.sql", tt.src, r)
			if b.sql != tt.want {
				t.Errorf("sql:\n got %q\nwant %q", b.sql, tt.want)
			}
			var pieces []string
			for _, p := range b.pieces {
				pieces = append(pieces, fmt.Sprintf("%d:%d %s", p.Line, p.Col, p.Text))
				if p.File != "m.sql" || p.Reason == "" {
					t.Errorf("piece %+v: want the file and a reason", p)
				}
			}
			if !reflect.DeepEqual(pieces, tt.pieces) {
				t.Errorf("pieces:\n got %q\nwant %q", pieces, tt.pieces)
			}
			if b.timeCol != tt.timeCol {
				t.Errorf("time column %q, want %q", b.timeCol, tt.timeCol)
			}
			if tt.config != nil && !reflect.DeepEqual(b.config, tt.config) {
				t.Errorf("config %#v, want %#v", b.config, tt.config)
			}
			if tt.vars != nil && !reflect.DeepEqual(b.vars, tt.vars) {
				t.Errorf("vars %v, want %v", b.vars, tt.vars)
			}
		})
	}
}

func TestAuditOf(t *testing.T) {
	tests := []struct {
		test any
		want string // "" when not converted
	}{
		{"unique", "unique(id)"},
		{"not_null", "not_null(id)"},
		{map[string]any{"not_null": map[string]any{"config": map[string]any{"severity": "warn"}}}, "warn(not_null(id))"},
		{map[string]any{"unique": map[string]any{"severity": "error"}}, "unique(id)"},
		{map[string]any{"accepted_values": map[string]any{"values": []any{"a", "it's"}}}, "accepted(id, 'a', 'it''s')"},
		{map[string]any{"accepted_values": map[string]any{"values": []any{1, 2}, "quote": false}}, ""},
		{map[string]any{"not_null": map[string]any{"where": "x > 1"}}, ""},
		{map[string]any{"relationships": map[string]any{"to": "ref('b')", "field": "id"}}, ""},
		{"dbt_utils.at_least_one", ""},
	}
	for _, tt := range tests {
		got, ok := auditOf("id", tt.test)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("auditOf(%v) = %q, %v; want %q", tt.test, got, ok, tt.want)
		}
	}
}

func TestSelects(t *testing.T) {
	tests := []struct {
		sql, col string
		want     bool
	}{
		{"select o.id, o.ordered_at, p.paid from x", "ordered_at", true},
		{"SELECT * FROM x WHERE ordered_at > 1", "ordered_at", true},
		{"select id, ordered_at as at from x", "ordered_at", true}, // renamed: a lexical look cannot tell
		{"select id, updated from x where ordered_at > 1", "ordered_at", false},
		{"with a as (select 1) select id from a", "ordered_at", false},
	}
	for _, tt := range tests {
		if got := selects(tt.sql, tt.col); got != tt.want {
			t.Errorf("selects(%q, %q) = %v, want %v", tt.sql, tt.col, got, tt.want)
		}
	}
}
