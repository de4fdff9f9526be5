package workspace_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/format"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

// features is a project written the way people write SQL, untidily, with
// what the layout must keep: windows, QUALIFY, GROUP BY ALL, EXCLUDE,
// structs, unnest, non-ASCII names and strings, comments everywhere.
var features = map[string]string{
	"efmesh.yaml": "name: features\nstart: 2024-01-01\nengine: {type: duckdb, path: efmesh.duckdb}\nstate: {type: sqlite, path: .efmesh/state.db}\n",
	"models/raw/people.sql": `-- people, as the CRM exports them
model (name raw.people, kind full, /* no contract */ description 'Leute – people')
select * from (values
  (1, 'Jörg', {'first': 'Jörg', 'last': 'Müller'}, ['a', 'b'], timestamp '2024-01-01 10:00', 1.5),
  (2, 'Ana', {'first': 'Ana', 'last': 'Lima'}, ['b'], timestamp '2024-01-02 11:00', -2.5)
) as v(id, "Käufer", name_parts, tags, ts, amount)
`,
	"models/core/ranked.sql": `MODEL (name core.ranked, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), grain (id));
/* ranks within a day */ select id, ts, "Käufer", name_parts.first as first_name, name_parts['last'] as last_name,
  row_number() over (partition by ts::date order by amount desc nulls last, id) as rn, -- the rank
  sum(amount) over (order by ts rows between unbounded preceding and current row) as running
from @ref(raw.people) -- the source
where ts >= @start and ts < @end
qualify rn <= 10
`,
	"models/core/tags.sql": `model(name core.tags, kind view)
-- one row per tag
select id, unnest(tags) as tag, 'Grüße -- kein Kommentar /* auch nicht */' as note from @ref(raw.people)
`,
	"models/mart/summary.sql": `MODEL (name mart.summary, kind FULL, columns (tag TEXT, people BIGINT, names TEXT[], "Größe" DOUBLE))
with t as (select * exclude (note) from @ref(core.tags)), p as (select * from @ref(raw.people) where amount > -10 and "Käufer" <> 'x')
select t.tag, count(distinct t.id) as people, list(p."Käufer" order by p."Käufer") as names, coalesce(sum(p.amount), 0)::double as "Größe"
from t join p using (id)
group by all
having count(*) > 0 or sum(p.amount) between -1 and 1
order by 1
`,
}

// TestFormatKeepsFingerprints formats every model of the examples, of
// testdata/corpus and of a project with windows, QUALIFY, GROUP BY ALL,
// EXCLUDE, structs, unnest, non-ASCII names and comments: no model's
// fingerprint changes (computed by the analysis a plan makes, before and
// after), every file is written, and formatting again changes nothing.
func TestFormatKeepsFingerprints(t *testing.T) {
	root := testkit.Root(t)
	projects := map[string]string{
		"hospital":  testkit.Example(t, "hospital"),
		"eventlake": testkit.Example(t, "eventlake"),
		"corpus":    testkit.CopyProject(t, filepath.Join(root, "testdata", "corpus")),
		"features":  testkit.WriteProject(t, features),
	}
	for name, dir := range projects {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			before := fingerprintsOf(t, dir)
			files, err := workspace.Format(ctx, dir, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			changed := 0
			for _, f := range files {
				if f.Problem != "" {
					t.Errorf("%s: %s", f.File, f.Problem)
				}
				if f.Changed {
					changed++
					if !f.Written {
						t.Errorf("%s: changed but not written", f.File)
					}
				}
				src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.File)))
				if err != nil {
					t.Fatal(err)
				}
				again, err := format.Source(src)
				if err != nil || string(again) != string(src) {
					t.Errorf("%s: not idempotent (%v):\n%s", f.File, err, again)
				}
			}
			if changed == 0 && name == "features" {
				t.Error("the untidy project was left as it was")
			}
			after := fingerprintsOf(t, dir)
			if len(before) == 0 || !maps.Equal(before, after) {
				for _, m := range slices.Sorted(maps.Keys(before)) {
					if before[m] != after[m] {
						t.Errorf("%s: fingerprint %s became %s", m, before[m], after[m])
					}
				}
			}
			again, err := workspace.Format(ctx, dir, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range again {
				if f.Changed || f.Problem != "" {
					t.Errorf("%s: a second format would change it (%s)", f.File, f.Problem)
				}
			}
			t.Logf("%d models, %d reformatted", len(files), changed)
		})
	}
}

func fingerprintsOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	p, err := workspace.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if project.HasErrors(p.Diagnostics) {
		t.Fatalf("the project does not load: %v", p.Diagnostics)
	}
	wb, err := connect.Workbench(p)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	a, err := analysis.AnalyzeWith(context.Background(), p, wb, analysis.AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, info := range a.Models {
		if info.Fingerprint == "" {
			t.Errorf("%s has no fingerprint: %v", name, info.Diagnostics)
		}
		out[name] = info.Fingerprint
	}
	return out
}

// TestLayoutProblemsRefuses: a new text of a model that means something
// else (what a layout bug would write) is refused with the reason, and one
// that only moves blanks is let through; likewise for an audit file.
func TestLayoutProblemsRefuses(t *testing.T) {
	files := maps.Clone(features)
	files["audits/no_negative.sql"] = "AUDIT (name no_negative, blocking false);\nselect * from @this where amount < 0\n"
	files["efmesh.yaml"] = features["efmesh.yaml"] + "audits: [audits/*.sql]\n"
	dir := testkit.WriteProject(t, files)
	p, err := workspace.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Audits) != 1 {
		t.Fatalf("the audit did not load: %v", p.Diagnostics)
	}
	wb, err := connect.Workbench(p)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	const refused = "the layout would change the model's fingerprint; left as it is"
	for _, c := range []struct {
		file, text, want string
	}{
		{"models/core/tags.sql", "model(name core.tags, kind view)\nselect id,\n  unnest(tags) as tag, 'Grüße -- kein Kommentar /* auch nicht */' as note\nfrom @ref(raw.people)\n", ""},
		{"models/core/tags.sql", "model(name core.tags, kind view)\nselect id, unnest(tags) as tag, 'Grüsse' as note from @ref(raw.people)\n", refused},
		{"models/core/tags.sql", "model(name core.tags, kind full)\nselect id, unnest(tags) as tag, 'Grüße -- kein Kommentar /* auch nicht */' as note from @ref(raw.people)\n", refused},
		{"models/core/tags.sql", "model(name core.tags, kind view)\nselect id, unnest(tags) as tag, 'Grüße -- kein Kommentar /* auch nicht */' as note from @ref(raw.other)\n", refused},
		{"models/core/tags.sql", "model(name core.tags, kind view)\nselect id, unnest(tags) as tag, from from @ref(raw.people)\n", refused},
		{"audits/no_negative.sql", "AUDIT (\n  name no_negative,\n  blocking false\n);\n\nSELECT *\nFROM @this\nWHERE amount < 0\n", ""},
		{"audits/no_negative.sql", "AUDIT (name no_negative, blocking false);\nselect * from @this where amount <= 0\n", "the layout would change the audit; left as it is"},
		{"audits/no_negative.sql", "AUDIT (name no_negative, blocking true);\nselect * from @this where amount < 0\n", "the layout would change the audit; left as it is"},
	} {
		got := workspace.LayoutProblems(p, wb, map[string][]byte{c.file: []byte(c.text)})
		if got[c.file] != c.want {
			t.Errorf("%q: problem %q, want %q", c.text, got[c.file], c.want)
		}
	}
}

// TestFormatAuditsAndSkips: efmesh format lays out audit files as it does
// model files (checked, written, idempotent), and a path naming a
// unit-test file or a file outside the project's globs is reported as
// skipped, never dropped silently.
func TestFormatAuditsAndSkips(t *testing.T) {
	files := maps.Clone(features)
	files["audits/no_negative.sql"] = "audit (name no_negative, blocking false);\nselect * from @this\n\n\nwhere amount < 0\n"
	files["tests/people.yaml"] = "test_people:\n  model: raw.people\n  outputs:\n    query:\n      rows: []\n"
	files["notes.txt"] = "not sql\n"
	files["efmesh.yaml"] = features["efmesh.yaml"] + "audits: [audits/*.sql]\ntests: [tests/*.yaml]\n"
	dir := testkit.WriteProject(t, files)
	ctx := context.Background()
	got, err := workspace.Format(ctx, dir, []string{
		filepath.Join(dir, "audits"), filepath.Join(dir, "tests", "people.yaml"), filepath.Join(dir, "notes.txt"),
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]workspace.FormattedFile{}
	for _, f := range got {
		byFile[f.File] = f
	}
	if len(got) != 3 {
		t.Fatalf("got %d files: %+v", len(got), got)
	}
	a := byFile["audits/no_negative.sql"]
	if a.Audit != "no_negative" || !a.Written || a.Problem != "" {
		t.Errorf("the audit: %+v", a)
	}
	want := "AUDIT (\n  name no_negative,\n  blocking false\n);\n\nSELECT *\nFROM @this\n\nWHERE amount < 0\n"
	if b, _ := os.ReadFile(filepath.Join(dir, "audits", "no_negative.sql")); string(b) != want {
		t.Errorf("the audit was written as\n%s", b)
	}
	for _, f := range []string{"tests/people.yaml", "notes.txt"} {
		if byFile[f].Skipped == "" || byFile[f].Changed {
			t.Errorf("%s: %+v, want skipped", f, byFile[f])
		}
	}
	again, err := workspace.Format(ctx, dir, []string{filepath.Join(dir, "audits")}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again {
		if f.Changed || f.Problem != "" || f.Skipped != "" {
			t.Errorf("second format: %s %+v", f.File, f)
		}
	}
}

// macroProject calls macros of every sort, untidily: @DEF statements, a
// lambda in @EACH, @{x} in names, named arguments, an @IF clause, @STAR
// and @UNION (rendered with their parents' columns) and a project macro
// whose file is itself untidy.
var macroProject = map[string]string{
	"efmesh.yaml":  "name: macros\nstart: 2024-01-01\nengine: {type: duckdb, path: efmesh.duckdb}\nstate: {type: sqlite, path: .efmesh/state.db}\nvars: {region: eu}\n",
	"macros/m.sql": "-- cents to an amount\nmacro   to_amount(c, places := 2) as round(@c/100.0,@places);\n",
	"models/raw/pay.sql": `model (name raw.pay, kind full)
select * from (values (1, 'card', 1250), (2, 'gift', 300), (3, 'card', 99)) as v(id, method, cents)
`,
	"models/mart/stacked.sql": "model (name mart.stacked, kind view)\n@UNION('all', @ref(raw.pay), @ref(mart.by_method))\n",
	"models/mart/star.sql":    "model (name mart.star, kind view)\nselect @STAR(@ref(raw.pay), exclude := [cents], prefix := 'p_'), cents/100.0 as amount from @ref(raw.pay)\n",
	"models/mart/by_method.sql": `model (name mart.by_method, kind full);
@DEF(methods, ['card', 'gift']);
@def(times, (a, b) -> a * b);
select id, @EACH(@methods, m -> sum(case when method = m then cents else 0 end) as @{m}_cents), @times(count(*), 2) as twice,
  @to_amount(sum(cents), places := 1) as amount
from @ref(raw.pay) @IF(@var(region) = 'eu', where cents > 0) group by all
`,
}

// TestFormatKeepsMacros: efmesh format lays out a model calling macros
// around its calls, each kept as written (never the expansion), keeps its
// fingerprint (also of a model holding @STAR or @UNION), and leaves the
// macro files alone: they are not formatted, and a path naming one is
// reported as skipped.
func TestFormatKeepsMacros(t *testing.T) {
	dir := testkit.WriteProject(t, macroProject)
	ctx := context.Background()
	before := fingerprintsOf(t, dir)
	files, err := workspace.Format(ctx, dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Problem != "" || f.Skipped != "" {
			t.Errorf("%s: %+v", f.File, f)
		}
	}
	got, _ := os.ReadFile(filepath.Join(dir, "models", "mart", "by_method.sql"))
	want := `MODEL (
  name mart.by_method,
  kind FULL
);

@DEF(methods, ['card', 'gift']);
@def(times, (a, b) -> a * b);
SELECT
  id,
  @EACH(@methods, m -> sum(case when method = m then cents else 0 end) as @{m}_cents),
  @times(count(*), 2) AS twice,
  @to_amount(sum(cents), places := 1) AS amount
FROM @ref(raw.pay)
@IF(@var(region) = 'eu', where cents > 0)
GROUP BY ALL
`
	if string(got) != want {
		t.Errorf("the model was written as\n%q\nwant\n%q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "macros", "m.sql")); string(b) != macroProject["macros/m.sql"] {
		t.Errorf("the macro file was changed:\n%s", b)
	}
	if after := fingerprintsOf(t, dir); len(before) != 4 || !maps.Equal(before, after) {
		t.Errorf("fingerprints %v became %v", before, after)
	}
	again, err := workspace.Format(ctx, dir, []string{filepath.Join(dir, "models"), filepath.Join(dir, "macros", "m.sql")}, false)
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, f := range again {
		if f.Changed || f.Problem != "" {
			t.Errorf("second format: %s %+v", f.File, f)
		}
		if f.Skipped != "" {
			skipped++
			if f.File != "macros/m.sql" {
				t.Errorf("%s skipped: %s", f.File, f.Skipped)
			}
		}
	}
	if skipped != 1 {
		t.Errorf("the macro file named is not reported skipped: %+v", again)
	}
	// A new text of the model is checked on its expansion: one whose
	// macros expand to another query is refused.
	p, err := workspace.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := connect.Workbench(p)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	const file = "models/mart/by_method.sql"
	for text, problem := range map[string]string{
		want: "",
		strings.Replace(want, "places := 1", "places := 3", 1):   "the layout would change the model's fingerprint; left as it is",
		strings.Replace(want, "['card', 'gift']", "['card']", 1): "the layout would change the model's fingerprint; left as it is",
	} {
		if got := workspace.LayoutProblems(p, wb, map[string][]byte{file: []byte(text)}); got[file] != problem {
			t.Errorf("%s: problem %q, want %q", text, got[file], problem)
		}
	}
}
