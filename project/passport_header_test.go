package project

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePassportProperties(t *testing.T) {
	tests := []struct {
		header     string
		answerable string
		caveats    []string
		diags      []string
	}{
		{header: "name a.b, answerable Sampled, caveats 'since March'", answerable: "sampled", caveats: []string{"since March"}},
		{header: "name a.b, caveats ('one', 'two',)", caveats: []string{"one", "two"}},
		{header: "name a.b, answerable most", diags: []string{`1:29: bad-value: answerable must be full or sampled or partial or none, found "most"`}},
		{header: "name a.b, caveats (one)", diags: []string{`1:27: bad-value: a caveat must be a 'quoted string', found "one"`}},
	}
	for _, tt := range tests {
		m, ds := ParseModel("m.sql", []byte("MODEL ("+tt.header+");\nSELECT 1\n"))
		got := diagStrings(ds)
		if strings.Join(got, "\n") != strings.Join(tt.diags, "\n") {
			t.Errorf("%s: diagnostics\n got %q\nwant %q", tt.header, got, tt.diags)
			continue
		}
		if m.Answerable != tt.answerable || len(tt.diags) == 0 && !reflect.DeepEqual(m.Caveats, tt.caveats) {
			t.Errorf("%s: answerable %q caveats %q", tt.header, m.Answerable, m.Caveats)
		}
	}
}

func TestParseExport(t *testing.T) {
	m, ds := ParseModel("m.sql", []byte("MODEL (name a.b, export (attach App, table Public.Stays));\nSELECT 1\n"))
	if len(ds) != 0 || m.Export == nil || *m.Export != (Export{Attach: "app", Schema: "public", Table: "stays"}) {
		t.Fatalf("export: %+v %v", m.Export, diagStrings(ds))
	}
	_, ds = ParseModel("m.sql", []byte("MODEL (name a.b, export (attach app, table stays));\nSELECT 1\n"))
	if got := strings.Join(diagStrings(ds), "\n"); !strings.Contains(got, "table must be schema.table") {
		t.Fatalf("export without a schema: %s", got)
	}
	cfg, _ := ParseConfig(ConfigFile, []byte("attach: {apps: {type: sqlite, path: a.db}}\n"))
	m, _ = ParseModel("m.sql", []byte("MODEL (name a.b, export (attach app, table public.stays));\nSELECT 1\n"))
	p := Build("/x", cfg, []*Model{m}, nil)
	if got := strings.Join(diagStrings(p.Diagnostics), "\n"); got != `1:25: bad-value: export names attach "app", which efmesh.yaml does not configure (known: apps); did you mean apps?` {
		t.Fatalf("unknown attach: %s", got)
	}
	_, ds = ParseConfig(ConfigFile, []byte("attach: {app: {type: oracle, path: x}, b: {type: duckdb}}\n"))
	if got := strings.Join(diagStrings(ds), "\n"); !strings.Contains(got, `unknown attach type "oracle"`) || !strings.Contains(got, "attach.b needs path") {
		t.Fatalf("attach config errors: %s", got)
	}
}

func TestParseRedact(t *testing.T) {
	m, ds := ParseModel("m.sql", []byte("MODEL (name a.b, grain (id), redact (SSN, dob));\nSELECT 1\n"))
	if len(ds) != 0 || strings.Join(m.Redact, ",") != "ssn,dob" {
		t.Fatalf("redact: %v %v", m.Redact, diagStrings(ds))
	}
	_, ds = ParseModel("m.sql", []byte("MODEL (name a.b, grain (id), redact (id));\nSELECT 1\n"))
	if got := strings.Join(diagStrings(ds), "\n"); !strings.Contains(got, "cannot redact id: it is a grain column") {
		t.Fatalf("redact of the grain: %s", got)
	}
}
