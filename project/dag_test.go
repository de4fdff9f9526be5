package project

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// buildModels parses files (path → source) and builds a project of them.
func buildModels(t *testing.T, files map[string]string) *Project {
	t.Helper()
	var models []*Model
	var diags []Diagnostic
	for file, src := range files {
		m, ds := ParseModel(file, []byte(src))
		models = append(models, m)
		diags = append(diags, ds...)
	}
	return Build("/root", DefaultConfig(), models, diags)
}

// model writes a FULL model named name whose body refs the given models.
func model(name string, refs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MODEL (name %s);\nSELECT 1 AS x", name)
	for i, r := range refs {
		fmt.Fprintf(&b, "\nJOIN @ref(%s) AS t%d USING (x)", r, i)
	}
	return b.String()
}

func modelNames(ms []*Model) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

func TestBuildOrder(t *testing.T) {
	p := buildModels(t, map[string]string{
		"models/d.sql":   model("s.d", "s.b", "s.c"),
		"models/c.sql":   model("s.c", "s.a"),
		"models/b.sql":   model("s.b", "s.a", "s.a"),
		"models/a.sql":   model("s.a"),
		"models/z.sql":   model("s.z"),
		"models/e/e.sql": model("s.e", "s.a"),
	})
	if len(p.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", p.Diagnostics)
	}
	if got, want := modelNames(p.Models), []string{"s.a", "s.b", "s.c", "s.d", "s.e", "s.z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	wantChildren := map[string][]string{"s.a": {"s.b", "s.c", "s.e"}, "s.b": {"s.d"}, "s.c": {"s.d"}}
	if !reflect.DeepEqual(p.Children, wantChildren) {
		t.Errorf("children = %v", p.Children)
	}
	if got := modelNames(p.Descendants("s.a")); !reflect.DeepEqual(got, []string{"s.b", "s.c", "s.d", "s.e"}) {
		t.Errorf("descendants of s.a = %v", got)
	}
	if p.Model("s.c").File != "models/c.sql" {
		t.Errorf("ByName[s.c] = %+v", p.Model("s.c"))
	}
}

func TestBuildOrderTiesByName(t *testing.T) {
	// A chain whose names sort against the dependency order.
	p := buildModels(t, map[string]string{
		"1.sql": model("a.c"),
		"2.sql": model("a.b", "a.c"),
		"3.sql": model("a.a", "a.b"),
		"4.sql": model("a.d"),
	})
	if got, want := modelNames(p.Models), []string{"a.c", "a.b", "a.a", "a.d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}

func TestBuildUnknownRef(t *testing.T) {
	src := "MODEL (name med.report);\nSELECT * FROM @ref(med.stayz) JOIN @ref( stays ) USING (id) JOIN @ref(zzz.qqq) USING (id)"
	p := buildModels(t, map[string]string{
		"models/stays.sql":  model("med.stays"),
		"models/report.sql": src,
	})
	want := []string{
		`2:20: unknown-ref: unknown model "med.stayz" in @ref; did you mean "med.stays"?`,
		`2:42: unknown-ref: unknown model "stays" in @ref; did you mean "med.stays"?`,
		`2:71: unknown-ref: unknown model "zzz.qqq" in @ref`,
	}
	if got := diagStrings(p.Diagnostics); !reflect.DeepEqual(got, want) {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	d := p.Diagnostics[0]
	if d.File != "models/report.sql" || src[d.Range.Start.Offset:d.Range.End.Offset] != "med.stayz" {
		t.Errorf("diagnostic %v covers %q", d, src[d.Range.Start.Offset:d.Range.End.Offset])
	}
	e := d.Fixes[0].Edits[0]
	if fixed := src[:e.Start] + e.NewText + src[e.End:]; !strings.Contains(fixed, "@ref(med.stays)") || e.File != "models/report.sql" {
		t.Errorf("fix gives %q", fixed)
	}
	if len(p.Diagnostics[2].Fixes) != 0 {
		t.Errorf("a fix without a suggestion: %+v", p.Diagnostics[2].Fixes)
	}
	// The known ref still makes an edge.
	if len(p.Children) != 0 {
		t.Errorf("children = %v", p.Children)
	}
}

func TestBuildCycles(t *testing.T) {
	p := buildModels(t, map[string]string{
		"models/x.sql":    model("a.x", "a.y"),
		"models/y.sql":    model("a.y", "base.t", "a.z"),
		"models/z.sql":    model("a.z", "a.x"),
		"models/self.sql": model("a.self", "a.self"),
		"models/t.sql":    model("base.t"),
		"models/down.sql": model("a.down", "a.x"),
	})
	want := []string{
		"models/self.sql 3:6: cycle: dependency cycle: a.self -> a.self",
		"models/x.sql 3:6: cycle: dependency cycle: a.x -> a.y -> a.z -> a.x",
		"models/y.sql 4:6: cycle: dependency cycle: a.y -> a.z -> a.x -> a.y",
		"models/z.sql 3:6: cycle: dependency cycle: a.z -> a.x -> a.y -> a.z",
	}
	var got []string
	for _, d := range p.Diagnostics {
		got = append(got, fmt.Sprintf("%s %d:%d: %s: %s", d.File, d.Range.Start.Line, d.Range.Start.Column, d.Code, d.Message))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Models in or below a cycle come last, in name order.
	if got, want := modelNames(p.Models), []string{"base.t", "a.down", "a.self", "a.x", "a.y", "a.z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}

func TestBuildDuplicates(t *testing.T) {
	p := buildModels(t, map[string]string{
		"models/b.sql": model("a.x"),
		"models/a.sql": "-- first\n" + model("A.X"),
		"models/c.sql": model("a.y", "a.x"),
		"models/n.sql": "MODEL (kind FULL);\nSELECT * FROM @ref(a.q)",
	})
	want := []string{
		`models/a.sql 2:13: duplicate-model: model "a.x" is also defined in models/b.sql`,
		`models/b.sql 1:13: duplicate-model: model "a.x" is also defined in models/a.sql`,
		`models/n.sql 1:1: missing-property: the MODEL header has no name: add name schema.table`,
		`models/n.sql 2:20: unknown-ref: unknown model "a.q" in @ref; did you mean "a.x"?`,
	}
	var got []string
	for _, d := range p.Diagnostics {
		got = append(got, fmt.Sprintf("%s %d:%d: %s: %s", d.File, d.Range.Start.Line, d.Range.Start.Column, d.Code, d.Message))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p.Model("a.x").File != "models/a.sql" {
		t.Errorf("kept %s", p.Model("a.x").File)
	}
	if got := modelNames(p.Models); !reflect.DeepEqual(got, []string{"a.x", "a.y"}) {
		t.Errorf("models = %v", got)
	}
	if !reflect.DeepEqual(p.Children, map[string][]string{"a.x": {"a.y"}}) {
		t.Errorf("children = %v", p.Children)
	}
}

func TestBuildDeepChain(t *testing.T) {
	// Deep chains must not overflow anything recursive.
	files := map[string]string{}
	const n = 5000
	for i := range n {
		if i == 0 {
			files[fmt.Sprintf("m%05d.sql", i)] = model(fmt.Sprintf("s.m%05d", i))
		} else {
			files[fmt.Sprintf("m%05d.sql", i)] = model(fmt.Sprintf("s.m%05d", i), fmt.Sprintf("s.m%05d", i-1))
		}
	}
	files["m00000.sql"] = model("s.m00000", fmt.Sprintf("s.m%05d", n-1)) // close the loop
	p := buildModels(t, files)
	if len(p.Diagnostics) != n || len(p.Models) != n {
		t.Fatalf("%d diagnostics, %d models", len(p.Diagnostics), len(p.Models))
	}
	want := "dependency cycle: s.m00000 -> s.m04999 -> s.m04998 -> s.m04997 -> … 4993 more … -> s.m00003 -> s.m00002 -> s.m00001 -> s.m00000"
	if got := p.Diagnostics[0].Message; got != want {
		t.Errorf("message = %q\nwant      %q", got, want)
	}
}

// TestWithBody: an edit of a model's body either yields exactly what Build
// over every file yields, or is declined (the DAG may have moved).
func TestWithBody(t *testing.T) {
	base := map[string]string{
		"a.sql":   model("m.a"),
		"b.sql":   model("m.b", "m.a"),
		"c.sql":   model("m.c", "m.a", "m.b"),
		"d.sql":   model("m.d", "m.c"),
		"bad.sql": model("m.bad", "m.nope"),
		"cy1.sql": model("m.cy1", "m.cy2"),
		"cy2.sql": model("m.cy2", "m.cy1"),
	}
	for _, tc := range []struct {
		file, src string
		fast      bool // WithBody answers
	}{
		{"c.sql", strings.Replace(model("m.c", "m.a", "m.b"), "SELECT 1 AS x", "SELECT 2 AS x, 'é' AS y", 1), true},
		{"c.sql", model("m.c", "m.a", "m.b") + "\nWHERE x > 1 -- @ref(m.d) in a comment", true},
		{"c.sql", model("m.c", "m.a") + "\nJOIN @ref(m.b) AS again USING (x)\nJOIN @ref(m.b) AS t1 USING (x)", true}, // b twice: the refs are still a, b
		{"c.sql", model("m.c", "m.b", "m.a"), false},                                                                 // refs reordered
		{"c.sql", model("m.c", "m.a", "m.b", "m.d"), false},                                                          // a new ref: a cycle
		{"c.sql", model("m.c", "m.a", "m.nope"), false},                                                              // an unknown ref
		{"c.sql", strings.Replace(model("m.c", "m.a", "m.b"), "name m.c", "name m.e", 1), false},                     // renamed
		{"bad.sql", model("m.bad", "m.nope") + " -- still unknown", false},                                           // its own unknown ref
		{"cy1.sql", model("m.cy1", "m.cy2") + " -- still a cycle", false},
		{"d.sql", "MODEL (name m.d);\nSELECT FROM WHERE @ref(m.c)", true}, // the body's syntax is the checker's
	} {
		prev := buildModels(t, base)
		files := map[string]string{}
		for k, v := range base {
			files[k] = v
		}
		files[tc.file] = tc.src
		want := buildModels(t, files)
		_, was := ParseModel(tc.file, []byte(base[tc.file]))
		m, diags := ParseModel(tc.file, []byte(tc.src))
		got := prev.WithBody(m, was, diags)
		if (got != nil) != tc.fast {
			t.Errorf("%s → %q: WithBody answered %v, want %v", tc.file, tc.src, got != nil, tc.fast)
			continue
		}
		if got == nil {
			continue
		}
		if !reflect.DeepEqual(modelNames(got.Models), modelNames(want.Models)) || !reflect.DeepEqual(got.Children, want.Children) ||
			!reflect.DeepEqual(got.Diagnostics, want.Diagnostics) || got.ByName[m.Name] != m || len(got.ByName) != len(want.ByName) {
			t.Errorf("%s: WithBody differs from Build:\n got %v %v\nwant %v %v", tc.file, modelNames(got.Models), got.Diagnostics, modelNames(want.Models), want.Diagnostics)
		}
		if prev.ByName[m.Name] == m {
			t.Errorf("WithBody changed the project it was called on")
		}
		// A diagnostic of the file from beyond the parser (an audit's, a
		// test's): WithBody cannot tell it still holds, and declines.
		prev.Diagnostics = append(prev.Diagnostics, Diagnostic{File: tc.file, Severity: SeverityError, Code: CodeAudit, Message: "unknown audit"})
		if prev.WithBody(m, was, diags) != nil {
			t.Errorf("%s: WithBody dropped a diagnostic it did not make", tc.file)
		}
	}
}
