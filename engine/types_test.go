package engine

import (
	"slices"
	"testing"
)

func TestTypeFamily(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"INTEGER", "integer"},
		{"bigint", "integer"},
		{"DECIMAL(10, 2)", "fractional"},
		{"double precision", "fractional"},
		{"TIMESTAMP WITH TIME ZONE", "timestamp"},
		{"TIMESTAMP_NS", "timestamp"},
		{"VARCHAR[]", "list<text>"},
		{"INTEGER[3][]", "list<list<integer>>"},
		{"STRUCT(a INTEGER, \"B c\" VARCHAR[])", "struct<a:integer,b c:list<text>>"},
		{"MAP(VARCHAR, STRUCT(x DOUBLE))", "map<text,struct<x:fractional>>"},
		{"TIME WITH TIME ZONE", "time"},
		{"GEOMETRY", "geometry"},
		{"character varying(20)", "text"},
	} {
		if got := TypeFamily(tc.in); string(got) != tc.want {
			t.Errorf("TypeFamily(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRenderSourceMap(t *testing.T) {
	src := []byte("MODEL(x);\nSELECT a FROM @ref(m.x) WHERE t >= @start")
	from := 10
	refAt := len("MODEL(x);\nSELECT a FROM ")
	startAt := len(src) - len("@start")
	r := Render(src, from, len(src), []Substitution{
		{Start: refAt, End: refAt + len("@ref(m.x)"), Text: `"_efmesh"."m__x__12345678"`},
		{Start: startAt, End: len(src), Text: "TIMESTAMP '2026-01-01 00:00:00'"},
	})
	want := `SELECT a FROM "_efmesh"."m__x__12345678" WHERE t >= TIMESTAMP '2026-01-01 00:00:00'`
	if r.SQL != want {
		t.Fatalf("SQL = %q", r.SQL)
	}
	if got := r.SourceOffset(7); got != from+7 {
		t.Errorf("offset of 'a' = %d, want %d", got, from+7)
	}
	if got := r.SourceOffset(20); got != refAt {
		t.Errorf("offset inside ref = %d, want %d", got, refAt)
	}
	w := len(`SELECT a FROM "_efmesh"."m__x__12345678" WHERE `)
	if got := r.SourceOffset(w); got != refAt+len("@ref(m.x) WHERE ") {
		t.Errorf("offset of t = %d", got)
	}
	p := r.Prefix("DESCRIBE ")
	if got := p.SourceOffset(9 + 7); got != from+7 {
		t.Errorf("prefixed offset = %d", got)
	}
	s, e := r.SourceSpan(20, 25)
	if s != refAt || e != refAt+len("@ref(m.x)") {
		t.Errorf("span = %d,%d", s, e)
	}
}

func TestStructFields(t *testing.T) {
	for typ, want := range map[string][]string{
		`STRUCT("first" VARCHAR, last INTEGER)`:            {"first", "last"},
		`STRUCT(a STRUCT(b INT, c INT), "Käufer" VARCHAR)`: {"a", "Käufer"},
		`INTEGER`:   nil,
		`VARCHAR[]`: nil,
	} {
		if got := StructFields(typ); !slices.Equal(got, want) {
			t.Errorf("StructFields(%s) = %q, want %q", typ, got, want)
		}
	}
}
