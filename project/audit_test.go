package project

import (
	"reflect"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
)

func TestParseAudit(t *testing.T) {
	src := "-- durations are never negative\nAUDIT (name Positive_Duration, blocking false, description 'no time travel');\n\nSELECT * FROM @this WHERE hours < 0;\n"
	a, diags := ParseAudit("audits/positive.sql", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagStrings(diags))
	}
	if a.Name != "positive_duration" || a.Blocking || a.Description != "no time travel" {
		t.Errorf("audit = %+v", a)
	}
	if a.Body != "SELECT * FROM @this WHERE hours < 0;\n" || string(a.Source[a.BodyStart:]) != a.Body {
		t.Errorf("body = %q", a.Body)
	}
	if len(a.Macros) != 1 || a.Macros[0].Kind != MacroThis {
		t.Errorf("macros = %+v", a.Macros)
	}
	if a.NameRange.Start.Line != 2 || a.NameRange.Start.Column != 13 {
		t.Errorf("name range = %+v", a.NameRange)
	}

	// blocking defaults to true; refs are allowed.
	a, diags = ParseAudit("a.sql", []byte("AUDIT (name known_dept)\nSELECT * FROM @this AS s ANTI JOIN @ref(ref.departments) AS d USING (dept)"))
	if len(diags) > 0 || !a.Blocking || !reflect.DeepEqual(a.Refs(), []string{"ref.departments"}) {
		t.Errorf("default blocking / refs: %+v %v", a, diagStrings(diags))
	}
}

func TestParseAuditErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"no header", "SELECT * FROM @this", []string{`1:1: header-missing: an audit file starts with a AUDIT (...) header, found "SELECT"`}},
		{"no name", "AUDIT (blocking true);\nSELECT * FROM @this", []string{"1:1: missing-property: the AUDIT header has no name: add name my_audit"}},
		{"bad blocking", "AUDIT (name x, blocking maybe);\nSELECT * FROM @this", []string{`1:25: bad-value: blocking must be true or false, found "maybe"`}},
		{"unknown property", "AUDIT (name x, blokcing true);\nSELECT * FROM @this", []string{`1:16: unknown-property: unknown audit property "blokcing"; did you mean blocking?`}},
		{"dotted name", "AUDIT (name a.b);\nSELECT * FROM @this", []string{`1:13: bad-value: an audit name is one word of a-z, 0-9 and _ starting with a letter, found "a.b"`}},
		{"no query", "AUDIT (name x);\n-- nothing\n", []string{"1:15: syntax-error: the audit has no query: write a SELECT over @this that returns the violating rows"}},
		{"no this", "AUDIT (name x);\nSELECT 1", []string{"2:1: audit: the audit query never reads @this, the audited model"}},
		{"interval macro", "AUDIT (name x);\nSELECT * FROM @this WHERE t >= @start", []string{"2:32: bad-macro: @start is not available in an audit: it audits a relation (@this), not an interval"}},
		{"unclosed", "AUDIT (name x\nSELECT * FROM @this", []string{"1:7: header-syntax: AUDIT ( is not closed before SELECT: expected )"}},
		{"duplicate", "AUDIT (name x, name y);\nSELECT * FROM @this", []string{"1:16: duplicate-property: duplicate property name (first set on line 1)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := ParseAudit("a.sql", []byte(tt.src))
			if got := diagStrings(diags); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCheckAudits(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"efmesh.yaml": "name: a\n",
		"models/a.sql": `MODEL (
  name med.a,
  audits (not_null(id), warn(no_negative), per_interval(whole(unique(id))), no_negativ, no_negative(id), warn(warn(unique(id))), bogus_thing)
);
SELECT 1 AS id`,
		"audits/neg.sql":   "AUDIT (name no_negative);\nSELECT * FROM @this WHERE id < 0",
		"audits/neg2.sql":  "AUDIT (name no_negative);\nSELECT * FROM @this WHERE id < 0",
		"audits/taken.sql": "AUDIT (name unique, blocking false);\nSELECT * FROM @this",
		"audits/ref.sql":   "AUDIT (name refs);\nSELECT * FROM @this WHERE id NOT IN (SELECT id FROM @ref(med.b))",
	})
	p, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Audits) != 4 || p.Audit("no_negative") == nil || p.Audit("no_negative").File != "audits/neg.sql" {
		t.Fatalf("audits = %+v", p.Audits)
	}
	var got []string
	for _, d := range p.Diagnostics {
		got = append(got, d.File+":"+strings.TrimPrefix(d.String(), d.File+":"))
	}
	want := []string{
		"audits/neg2.sql:1:13: error: audit no_negative is also defined in audits/neg.sql",
		`audits/ref.sql:2:58: error: unknown model "med.b"; did you mean med.a?`,
		"audits/taken.sql:1:13: error: audit name unique is taken by a built-in audit; choose another name",
		"models/a.sql:3:57: error: whole cannot be combined with another scope: an audit runs per interval or on the whole table",
		`models/a.sql:3:77: error: unknown audit "no_negativ" in the audits of med.a; did you mean no_negative?`,
		"models/a.sql:3:89: error: custom audit no_negative takes no arguments: write no_negative",
		"models/a.sql:3:111: error: warn is applied twice in warn(unique(id))",
		`models/a.sql:3:130: error: unknown audit "bogus_thing" in the audits of med.a (built-in: accepted, assert_contiguous, assert_no_gaps, not_null, unique, warn, per_interval, whole; custom audits are AUDIT files matched by the audits globs)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics:\n got %q\nwant %q", got, want)
	}
	for _, d := range p.Diagnostics {
		if strings.Contains(d.Message, "no_negativ\"") {
			if len(d.Fixes) != 1 || d.Fixes[0].Edits[0].NewText != "no_negative" {
				t.Errorf("fix = %+v", d.Fixes)
			}
		}
	}
}

func FuzzParseAudit(f *testing.F) {
	for _, s := range []string{
		"", "AUDIT (name x);\nSELECT * FROM @this", "AUDIT (name x, blocking false, description 'd')\nSELECT * FROM @this AS t JOIN @ref(a.b) USING (id)",
		"AUDIT ((((", "AUDIT (name 'x", "AUDIT (name x, blocking);", "AUDIT (name x) SELECT @start, @foo, @ref(", "/* */ AUDIT (,,);;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		b := []byte(src)
		a, diags := ParseAudit("a.sql", b)
		if a == nil {
			t.Fatal("no audit")
		}
		inFile := func(what string, r Range) {
			if r.Start.Offset < 0 || r.Start.Offset > r.End.Offset || r.End.Offset > len(b) ||
				r.Start != PosAt(b, r.Start.Offset) || r.End != PosAt(b, r.End.Offset) {
				t.Fatalf("%s range %+v outside a file of %d bytes or off its positions", what, r, len(b))
			}
		}
		for _, d := range diags {
			inFile("diagnostic "+d.Message, d.Range)
		}
		inFile("header", a.Header)
		inFile("name", a.NameRange)
		if a.BodyStart < 0 || a.BodyStart > len(b) || a.Body != src[a.BodyStart:] {
			t.Fatalf("body %q at %d", a.Body, a.BodyStart)
		}
		p := Build("/", DefaultConfig(), nil, diags)
		p.Audits = []*CustomAudit{a}
		CheckAudits(p)
	})
}
