package project

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// selectorProject is a 32-model project five generations deep:
//
//	raw.src_0..5 (SEED, tag raw)
//	stg.s_i      (VIEW, tag staging)   refs raw.src_{i%6}                  i = 0..7
//	core.c_i     (tag core; nightly when i%3 == 0) refs stg.s_i, stg.s_{(i+1)%8}
//	             c0 c2 c4 c6 INCREMENTAL_BY_TIME_RANGE, c7 INCREMENTAL_BY_UNIQUE_KEY,
//	             c1 c3 c5 FULL
//	mart.m_i     (FULL, tag mart, models/mart/) refs core.c_i, core.c_{i+2}  i = 0..5
//	report.r_i   (VIEW, tags mart report, models/mart/reports/) refs mart.m_i, mart.m_{i+1}  i = 0..3
func selectorProject(t *testing.T) *Project {
	t.Helper()
	files := map[string]string{}
	add := func(file, name, kind, tags string, refs ...string) {
		var b strings.Builder
		fmt.Fprintf(&b, "MODEL (\n  name %s,\n  kind %s,\n  tags (%s)\n);\n", name, kind, tags)
		if len(refs) == 0 {
			files[file] = b.String()
			return
		}
		b.WriteString("SELECT t0.x")
		for i, r := range refs {
			if i == 0 {
				fmt.Fprintf(&b, "\nFROM @ref(%s) AS t0", r)
			} else {
				fmt.Fprintf(&b, "\nJOIN @ref(%s) AS t%d USING (x)", r, i)
			}
		}
		files[file] = b.String()
	}
	for i := range 6 {
		add(fmt.Sprintf("models/raw/src_%d.sql", i), fmt.Sprintf("raw.src_%d", i), fmt.Sprintf("SEED (path 'seeds/src_%d.csv')", i), "raw")
	}
	for i := range 8 {
		add(fmt.Sprintf("models/staging/s_%d.sql", i), fmt.Sprintf("stg.s_%d", i), "VIEW", "staging", fmt.Sprintf("raw.src_%d", i%6))
	}
	for i := range 8 {
		kind := "FULL"
		switch {
		case i == 7:
			kind = "INCREMENTAL_BY_UNIQUE_KEY (key x)"
		case i%2 == 0:
			kind = "INCREMENTAL_BY_TIME_RANGE (time_column x)"
		}
		tags := "core"
		if i%3 == 0 {
			tags += ", nightly"
		}
		add(fmt.Sprintf("models/core/c_%d.sql", i), fmt.Sprintf("core.c_%d", i), kind, tags,
			fmt.Sprintf("stg.s_%d", i), fmt.Sprintf("stg.s_%d", (i+1)%8))
	}
	for i := range 6 {
		add(fmt.Sprintf("models/mart/m_%d.sql", i), fmt.Sprintf("mart.m_%d", i), "FULL", "mart",
			fmt.Sprintf("core.c_%d", i), fmt.Sprintf("core.c_%d", (i+2)%8))
	}
	for i := range 4 {
		add(fmt.Sprintf("models/mart/reports/r_%d.sql", i), fmt.Sprintf("report.r_%d", i), "VIEW", "mart, report",
			fmt.Sprintf("mart.m_%d", i), fmt.Sprintf("mart.m_%d", i+1))
	}
	p := buildModels(t, files)
	for _, d := range p.Diagnostics {
		if d.Severity == SeverityError {
			t.Fatalf("generated project: %s: %s", d.File, d.Message)
		}
	}
	if len(p.Models) != 32 {
		t.Fatalf("generated project has %d models, want 32", len(p.Models))
	}
	return p
}

// names expands "schema.prefix{a..b}" shorthands into model names.
func names(specs ...string) []string {
	var out []string
	for _, s := range specs {
		var prefix string
		var a, b int
		if n, _ := fmt.Sscanf(strings.NewReplacer("{", " ", "..", " ", "}", "").Replace(s), "%s %d %d", &prefix, &a, &b); n == 3 {
			for i := a; i <= b; i++ {
				out = append(out, fmt.Sprintf("%s%d", prefix, i))
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

func TestSelect(t *testing.T) {
	p := selectorProject(t)
	tests := []struct {
		name              string
		selects, excludes []string
		want              []string
	}{
		{"one model", []string{"core.c_1"}, nil, names("core.c_1")},
		{"case does not matter", []string{"Core.C_1"}, nil, names("core.c_1")},
		{"schema glob", []string{"core.*"}, nil, names("core.c_{0..7}")},
		{"table glob", []string{"*.s_1"}, nil, names("stg.s_1")},
		{"union by space", []string{"report.r_0 report.r_1"}, nil, names("report.r_{0..1}")},
		{"union by comma", []string{"report.r_0,report.r_1"}, nil, names("report.r_{0..1}")},
		{"union of flags", []string{"report.r_0", "report.r_1"}, nil, names("report.r_{0..1}")},
		{"all ancestors", []string{"+report.r_0"}, nil,
			names("core.c_{0..3}", "mart.m_{0..1}", "raw.src_{0..4}", "report.r_0", "stg.s_{0..4}")},
		{"ancestors, one generation", []string{"1+report.r_0"}, nil, names("mart.m_{0..1}", "report.r_0")},
		{"ancestors, two generations", []string{"2+report.r_0"}, nil, names("core.c_{0..3}", "mart.m_{0..1}", "report.r_0")},
		{"all descendants", []string{"raw.src_5+"}, nil,
			names("core.c_{4..5}", "mart.m_{2..5}", "raw.src_5", "report.r_{1..3}", "stg.s_5")},
		{"descendants, one generation", []string{"raw.src_5+1"}, nil, names("raw.src_5", "stg.s_5")},
		{"descendants, two generations", []string{"raw.src_5+2"}, nil, names("core.c_{4..5}", "raw.src_5", "stg.s_5")},
		{"both ways", []string{"+stg.s_3+"}, nil,
			names("core.c_{2..3}", "mart.m_{0..3}", "raw.src_3", "report.r_{0..3}", "stg.s_3")},
		{"tag", []string{"tag:nightly"}, nil, names("core.c_0", "core.c_3", "core.c_6")},
		{"tag in any case", []string{"tag:NIGHTLY"}, nil, names("core.c_0", "core.c_3", "core.c_6")},
		{"tag with descendants", []string{"tag:nightly+1"}, nil,
			names("core.c_0", "core.c_3", "core.c_6", "mart.m_0", "mart.m_1", "mart.m_3", "mart.m_4")},
		{"path glob", []string{"path:models/mart/**"}, nil, names("mart.m_{0..5}", "report.r_{0..3}")},
		{"path folder", []string{"path:models/mart/reports"}, nil, names("report.r_{0..3}")},
		{"path of one file", []string{"path:models/core/c_7.sql"}, nil, names("core.c_7")},
		{"kind incremental", []string{"kind:incremental"}, nil, names("core.c_0", "core.c_2", "core.c_4", "core.c_6", "core.c_7")},
		{"kind by full name", []string{"kind:INCREMENTAL_BY_UNIQUE_KEY"}, nil, names("core.c_7")},
		{"kind full", []string{"kind:full"}, nil, names("core.c_1", "core.c_3", "core.c_5", "mart.m_{0..5}")},
		{"kind seed", []string{"kind:Seed"}, nil, names("raw.src_{0..5}")},
		{"mixed union", []string{"core.c_0, tag:staging"}, nil, names("core.c_0", "stg.s_{0..7}")},
		{"exclude a kind", []string{"core.*"}, []string{"kind:incremental"}, names("core.c_1", "core.c_3", "core.c_5")},
		{"exclude ancestors", []string{"+report.r_0"}, []string{"raw.*", "stg.*"},
			names("core.c_{0..3}", "mart.m_{0..1}", "report.r_0")},
		{"exclude from all", nil, []string{"path:models/mart/**", "kind:seed"},
			names("core.c_{0..7}", "stg.s_{0..7}")},
		{"exclude with graph operator", []string{"core.c_3+"}, []string{"mart.m_1+"},
			names("core.c_3", "mart.m_3", "report.r_2", "report.r_3")},
		{"intersection", []string{"tag:core&kind:full"}, nil, names("core.c_1", "core.c_3", "core.c_5")},
		{"intersection of three", []string{"tag:core&kind:incremental&tag:nightly"}, nil, names("core.c_0", "core.c_6")},
		{"intersection after graph operators", []string{"raw.src_5+&tag:mart"}, nil, names("mart.m_{2..5}", "report.r_{1..3}")},
		{"intersection binds tighter than a union", []string{"tag:nightly&kind:full report.r_0"}, nil, names("core.c_3", "report.r_0")},
		{"intersection beside a comma union", []string{"tag:nightly&kind:full,report.r_0"}, nil, names("core.c_3", "report.r_0")},
		{"exclude an intersection", []string{"core.*"}, []string{"kind:incremental&tag:nightly"}, names("core.c_{1..5}", "core.c_7")},
		// mart.m_4's one descendant report.r_3 also reads mart.m_3.
		{"at: descendants and their ancestors", []string{"@mart.m_4"}, nil,
			names("core.c_{3..6}", "mart.m_{3..4}", "raw.src_{0..1}", "raw.src_{3..5}", "report.r_3", "stg.s_{3..7}")},
		{"at of a leaf is its ancestors", []string{"@report.r_0"}, nil,
			names("core.c_{0..3}", "mart.m_{0..1}", "raw.src_{0..4}", "report.r_0", "stg.s_{0..4}")},
		{"materialized table", []string{"config.materialized:table"}, nil, names("core.c_1", "core.c_3", "core.c_5", "mart.m_{0..5}")},
		{"materialized incremental", []string{"config.materialized:incremental"}, nil, names("core.c_0", "core.c_2", "core.c_4", "core.c_6", "core.c_7")},
		{"materialized view", []string{"config.materialized:View"}, nil, names("report.r_{0..3}", "stg.s_{0..7}")},
		{"materialized seed", []string{"config.materialized:seed"}, nil, names("raw.src_{0..5}")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.Select(tc.selects, tc.excludes)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Select(%q, %q) =\n  %v\nwant\n  %v", tc.selects, tc.excludes, got, tc.want)
			}
		})
	}
}

func TestSelectErrors(t *testing.T) {
	p := selectorProject(t)
	tests := []struct {
		selects, excludes []string
		want              string
	}{
		{[]string{"core.c_1+ tag:"}, nil, "--select:1:11: tag: needs a value"},
		{[]string{""}, nil, "--select:1:1: empty selector: expected a model name, a glob, tag:, path:, kind:, config.materialized: or state:"},
		{[]string{" , "}, nil, "--select:1:1: empty selector: expected a model name, a glob, tag:, path:, kind:, config.materialized: or state:"},
		{[]string{"core.c_1", "foo:x"}, nil, `--select:2:1: unknown selector method "foo"; expected tag:, path:, kind:, config.materialized: or state:`},
		{[]string{"tag:core&"}, nil, "--select:1:10: empty term beside &: expected a model name, a glob, tag:, path:, kind:, config.materialized: or state: on each side"},
		{[]string{"core.c_1 &tag:core"}, nil, "--select:1:10: empty term beside &: expected a model name, a glob, tag:, path:, kind:, config.materialized: or state: on each side"},
		{[]string{"core.c_1, tag:core&tag:raw"}, nil, "--select:1:11: tag:core&tag:raw matches no model: no model is in every term"},
		{[]string{"tag:core&nope.x"}, nil, "--select:1:10: nope.x matches no model"},
		{[]string{"config.materialized:snapshot"}, nil, `--select:1:21: unknown materialization "snapshot"; expected one of ephemeral, incremental, seed, table, view`},
		{[]string{"config.materialized:ephemeral"}, nil, "--select:1:1: config.materialized:ephemeral matches no model"},
		{[]string{"config.materialised:table"}, nil, `--select:1:1: unknown selector method "config.materialised"; did you mean config.materialized:?`},
		{[]string{"state:new"}, nil, `--select:1:7: unknown state "new"; expected modified`},
		{[]string{"core.c_1 state:modified+"}, nil, "--select:1:10: state:modified+ needs an environment to compare with: this command compares with no environment"},
		{[]string{"@"}, nil, "--select:1:1: @ needs a model name or a selector after it"},
		{[]string{"@core.c_1+"}, nil, "--select:1:10: @ takes no +: @model already holds its descendants and all their ancestors"},
		{[]string{"tag:raw @@core.c_1"}, nil, "--select:1:10: unexpected @ after @"},
		{[]string{"@core.cc_1"}, nil, `--select:1:1: @core.cc_1 matches no model; did you mean "core.c_1"?`},
		{[]string{"core.c_1 tags:x"}, nil, `--select:1:10: unknown selector method "tags"; did you mean tag:?`},
		{[]string{"kind:incr"}, nil, `--select:1:6: unknown kind "incr"; expected one of incremental, full, view, embedded, incremental_by_time_range, incremental_by_unique_key, scd_type_2, seed, external`},
		{[]string{"path:/etc/**"}, nil, "--select:1:6: path:/etc/**: patterns are relative to the project root"},
		{[]string{"path:../x"}, nil, "--select:1:6: path:../x: patterns must stay inside the project root"},
		{[]string{"path:models/["}, nil, "--select:1:6: path:models/[: syntax error in pattern"},
		{[]string{"core.cc_1"}, nil, `--select:1:1: core.cc_1 matches no model; did you mean "core.c_1"?`},
		{[]string{"core.c_1, tag:nope"}, nil, "--select:1:11: tag:nope matches no model"},
		{[]string{"kind:scd_type_2"}, nil, "--select:1:1: kind:scd_type_2 matches no model"},
		{[]string{"nope.*+"}, nil, "--select:1:1: nope.*+ matches no model"},
		{[]string{"2x"}, nil, "--select:1:1: a depth (2) must be followed by + and a model: 2+model"},
		{[]string{"0+core.c_1"}, nil, "--select:1:1: depth 0: must be between 1 and 9999"},
		{[]string{"+"}, nil, "--select:1:2: + needs a model name or a selector beside it"},
		{[]string{"core.c_1 ++"}, nil, "--select:1:11: + needs a model name or a selector beside it"},
		{[]string{"-1+core.c_1"}, nil, "--select:1:1: unexpected '-' at the start of a selector: write n+model for n generations of ancestors, and use --exclude to leave models out"},
		{[]string{"core.c_1 -core.c_2"}, nil, "--select:1:10: unexpected '-' at the start of a selector: write n+model for n generations of ancestors, and use --exclude to leave models out"},
		{[]string{"tag:core,,core.c_1"}, nil, "--select:1:10: empty term at this comma: expected a model name, a glob, tag:, path:, kind:, config.materialized: or state: on each side"},
		{[]string{"tag:core, ,core.c_1"}, nil, "--select:1:11: empty term at this comma: expected a model name, a glob, tag:, path:, kind:, config.materialized: or state: on each side"},
		{[]string{",core.c_1"}, nil, "--select:1:1: empty term at this comma: expected a model name, a glob, tag:, path:, kind:, config.materialized: or state: on each side"},
		{[]string{"core.c_1,"}, nil, "--select:1:9: empty term at this comma: expected a model name, a glob, tag:, path:, kind:, config.materialized: or state: on each side"},
		{[]string{"core.c_1+x"}, nil, `--select:1:10: expected a depth after +, found "x"`},
		{[]string{"core.c_1+2+"}, nil, `--select:1:9: unexpected + inside "core.c_1+2"`},
		{[]string{"core.c_1, core$"}, nil, `--select:1:15: unexpected '$' in a model name or glob`},
		{[]string{"core.[c"}, nil, `--select:1:1: bad glob "core.[c"`},
		{nil, []string{"kind:nope"}, `--exclude:1:6: unknown kind "nope"; expected one of incremental, full, view, embedded, incremental_by_time_range, incremental_by_unique_key, scd_type_2, seed, external`},
		{nil, []string{"core.*", "tag:missing"}, "--exclude:2:1: tag:missing matches no model"},
		{[]string{"core.c_1"}, []string{"core.*"}, "--exclude:1:1: --exclude leaves no model selected"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(append(tc.selects, tc.excludes...), "|"), func(t *testing.T) {
			got, err := p.Select(tc.selects, tc.excludes)
			if err == nil {
				t.Fatalf("Select(%q, %q) = %v, want an error", tc.selects, tc.excludes, got)
			}
			if _, ok := err.(*SelectorError); !ok {
				t.Errorf("error is a %T, want *SelectorError", err)
			}
			if err.Error() != tc.want {
				t.Errorf("Select(%q, %q) error\n  %s\nwant\n  %s", tc.selects, tc.excludes, err, tc.want)
			}
		})
	}
}

// TestSelectState: state:modified matches the models Modified names, with
// graph operators and intersections; none modified selects nothing,
// without an error.
func TestSelectState(t *testing.T) {
	p := selectorProject(t)
	calls := 0
	modified := map[string]bool{"core.c_1": true, "stg.s_7": true}
	sc := SelectContext{Modified: func() (map[string]bool, error) { calls++; return modified, nil }}
	tests := []struct {
		selects, excludes []string
		want              []string
	}{
		{[]string{"state:modified"}, nil, names("core.c_1", "stg.s_7")},
		{[]string{"state:modified+"}, nil, names("core.c_1", "core.c_{6..7}", "mart.m_1", "mart.m_{4..5}", "report.r_{0..1}", "report.r_3", "stg.s_7")},
		{[]string{"state:modified+&kind:full"}, nil, names("core.c_1", "mart.m_1", "mart.m_{4..5}")},
		{[]string{"state:modified", "tag:raw"}, []string{"stg.*"}, names("core.c_1", "raw.src_{0..5}")},
	}
	for _, tc := range tests {
		calls = 0
		got, err := p.SelectIn(tc.selects, tc.excludes, sc)
		if err != nil {
			t.Fatal(err)
		}
		if want := slices.Sorted(slices.Values(tc.want)); !reflect.DeepEqual(got, want) {
			t.Errorf("SelectIn(%q, %q) =\n  %v\nwant\n  %v", tc.selects, tc.excludes, got, want)
		}
		if calls != 1 {
			t.Errorf("SelectIn(%q): Modified called %d times, want once", tc.selects, calls)
		}
	}
	modified = map[string]bool{}
	got, err := p.SelectIn([]string{"state:modified+"}, nil, sc)
	if err != nil || len(got) != 0 {
		t.Errorf("nothing modified: SelectIn = %v, %v; want nothing, no error", got, err)
	}
	if !SelectorUsesState([]string{"core.c_1"}, []string{"tag:x&state:modified"}) || SelectorUsesState([]string{"core.c_1, tag:state"}) {
		t.Error("SelectorUsesState: wrong answer")
	}
}

func TestKindWithArticle(t *testing.T) {
	for k, want := range map[KindName]string{
		KindIncrementalByTimeRange: "an INCREMENTAL_BY_TIME_RANGE",
		KindIncrementalByUniqueKey: "an INCREMENTAL_BY_UNIQUE_KEY",
		KindExternal:               "an EXTERNAL",
		KindEmbedded:               "an EMBEDDED",
		KindSCDType2:               "an SCD_TYPE_2",
		KindFull:                   "a FULL",
		KindView:                   "a VIEW",
		KindSeed:                   "a SEED",
	} {
		if got := k.WithArticle(); got != want {
			t.Errorf("%s.WithArticle() = %q, want %q", k, got, want)
		}
	}
}
