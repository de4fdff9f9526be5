package project

import (
	"testing"
)

var fuzzSeeds = []string{
	"MODEL (name a.b, answerable sampled, caveats ('x', 'y'), redact (ssn), export (attach app, table public.t));\nSELECT 1",
	"MODEL (name a.b, export (attach, table), caveats (1), redact ());\nSELECT 1",
	"",
	"MODEL (name a.b);\nSELECT 1",
	"MODEL (name a.b, kind INCREMENTAL_BY_TIME_RANGE (time_column t, batch_size 3, lookback 1), interval hour, start '2026-01-01');\nSELECT * FROM @ref(a.c) WHERE t >= @start AND t < @end",
	"MODEL (name a.b, kind EXTERNAL (files 'x/*.csv', delim ';', header true), columns (a DECIMAL(10, 2), b STRUCT(x INT[], y MAP(VARCHAR, INT))));",
	"MODEL (name a.b, kind SCD_TYPE_2 (key (a, b), valid_from f), audits (warn(per_interval(unique(a, b))), accepted(c, 'x', 1), custom));\nSELECT 1",
	"MODEL (name a.b, kind SEED (path 's.csv'), tags (a, 'b'), grain a, cron '@daily', description 'it''s', owner 'o', target parquet)",
	"MODEL (name \"A\".\"b\"\"c\", kind FULL\nWITH x AS (SELECT @ref(\"q\".r)) SELECT 1",
	"/* MODEL */ -- x\nMODEL (name a.b, columns (t TIMESTAMP WITH TIME ZONE, u VARCHAR[]),,) ; SELECT E'\\'@ref(x.y)', $t$ @this $t$, @ -1, @foo, @ref(",
	"MODEL ((((((",
	"MODEL (name a.b, kind EXTERNAL (table x.y)); SELECT 1",
	"MODEL (name 'x", "MODEL (/*", "é MODEL", "MODEL (name a.\xff);\xff @ref(\xffa)",
}

func FuzzParseModel(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		b := []byte(src)
		m, diags := ParseModel("m.sql", b)
		if m == nil {
			t.Fatal("no model")
		}
		inFile := func(what string, r Range) {
			if r.Start.Offset < 0 || r.Start.Offset > r.End.Offset || r.End.Offset > len(b) {
				t.Fatalf("%s range %+v outside a file of %d bytes", what, r, len(b))
			}
			if r.Start != PosAt(b, r.Start.Offset) || r.End != PosAt(b, r.End.Offset) {
				t.Fatalf("%s range %+v: positions disagree with PosAt", what, r)
			}
		}
		for _, d := range diags {
			inFile("diagnostic "+d.Message, d.Range)
			for _, fx := range d.Fixes {
				for _, e := range fx.Edits {
					if e.Start < 0 || e.Start > e.End || e.End > len(b) {
						t.Fatalf("fix edit %+v outside the file", e)
					}
				}
			}
		}
		for _, p := range m.Properties {
			inFile("property", p.Range)
			inFile("property value", p.ValueRange)
		}
		for _, c := range m.Columns {
			inFile("column", c.Range)
		}
		for _, a := range m.Audits {
			inFile("audit", a.Range)
		}
		inFile("header", m.Header)
		inFile("name", m.NameRange)
		if m.BodyStart < 0 || m.BodyStart > len(b) || m.Body != src[m.BodyStart:] {
			t.Fatalf("body %q at %d", m.Body, m.BodyStart)
		}
		for _, mc := range m.Macros {
			if mc.Start < m.BodyStart || mc.Start >= mc.End || mc.End > len(b) || b[mc.Start] != '@' {
				t.Fatalf("macro %+v", mc)
			}
			if mc.Kind == MacroRef && (mc.ArgStart <= mc.Start || mc.ArgStart >= mc.ArgEnd || mc.ArgEnd >= mc.End || mc.Arg == "") {
				t.Fatalf("ref %+v", mc)
			}
		}
		// Build must accept whatever the parser returns.
		Build("/", DefaultConfig(), []*Model{m}, diags)
	})
}

func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"", "name: x\n", "engine: {type: postgres, url: u}\nenvironments: {dev: {redacted: true}}\n",
		"models: [a, 'b/**/*.sql']\njanitor: {ttl: 1h}\n", "a: [1\n", "attach: {a: {type: sqlite, path: x}, b: [1], c: {type: duckdb}}\n", "- a\n", "x: &a {b: *a}\n", "!!map {a: b}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, diags := ParseConfig(ConfigFile, []byte(src))
		for _, d := range diags {
			r := d.Range
			if r.Start.Offset < 0 || r.Start.Offset > r.End.Offset || r.End.Offset > len(src) {
				t.Fatalf("diagnostic %q range %+v outside a file of %d bytes", d.Message, r, len(src))
			}
		}
	})
}
