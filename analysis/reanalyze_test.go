package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// summary renders what an analysis concluded, for comparing two analyses.
func summary(a *Analysis) string {
	var b strings.Builder
	var names []string
	for n := range a.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		i := a.Models[n]
		fmt.Fprintf(&b, "%s fp=%s cols=%v inferred=%v broken=%v\n", n, i.Fingerprint, i.Columns, i.Inferred, i.Broken)
	}
	for _, d := range a.Diagnostics {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

// TestReanalyzeMatchesAnalyze edits a project step by step and checks that
// the incremental analysis equals a fresh one, while checking only the
// edited model and its direct children.
func TestReanalyzeMatchesAnalyze(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"efmesh.yaml":   "name: t\n",
		"seeds/s.csv":   "id,name\n1,a\n",
		"models/s.sql":  `MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, name TEXT));`,
		"models/a.sql":  "MODEL (name m.a);\nSELECT id, name FROM @ref(raw.s)",
		"models/b.sql":  "MODEL (name m.b, kind VIEW);\nSELECT id, name FROM @ref(m.a)",
		"models/c.sql":  "MODEL (name m.c);\nSELECT name FROM @ref(m.b)",
		"models/d.sql":  "MODEL (name m.d, columns (id INTEGER));\nSELECT id FROM @ref(m.a)",
		"models/d2.sql": "MODEL (name m.d2);\nSELECT id FROM @ref(m.d)",
	}
	write := func(name, body string) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for n, b := range files {
		write(n, b)
	}
	ctx := context.Background()
	load := func() *project.Project {
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	fresh, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()

	prev, err := Analyze(ctx, load(), wb)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name, file, body string
		checked          []string
	}{
		{"reformat a", "models/a.sql", "MODEL (name m.a);\nselect id,\n  name from @ref(raw.s)", []string{"m.a"}},
		{"a loses a column", "models/a.sql", "MODEL (name m.a);\nSELECT id FROM @ref(raw.s)", []string{"m.a", "m.b", "m.c", "m.d"}},
		{"b breaks on it", "models/b.sql", "MODEL (name m.b, kind VIEW);\nSELECT id, nme FROM @ref(m.a)", []string{"m.b"}},
		{"a is fixed", "models/a.sql", "MODEL (name m.a);\nSELECT id, name FROM @ref(raw.s)", []string{"m.a", "m.b", "m.d"}},
		{"b is fixed", "models/b.sql", "MODEL (name m.b, kind VIEW);\nSELECT id, name FROM @ref(m.a)", []string{"m.b", "m.c"}},
		{"header error in d", "models/d.sql", "MODEL (name m.d, colums (id INTEGER));\nSELECT id FROM @ref(m.a)", []string{"m.d", "m.d2"}},
		{"d removed", "models/d.sql", "", []string{"m.d2"}},
	}
	for _, st := range steps {
		if st.body == "" {
			os.Remove(filepath.Join(dir, st.file))
		} else {
			write(st.file, st.body)
		}
		p := load()
		next, err := Reanalyze(ctx, prev, p, wb)
		if err != nil {
			t.Fatal(err)
		}
		full, err := Analyze(ctx, p, fresh)
		if err != nil {
			t.Fatal(err)
		}
		checked := append([]string(nil), next.Checked...)
		sort.Strings(checked)
		want := append([]string{"raw.s"}, st.checked...) // seeds are always re-read
		sort.Strings(want)
		if fmt.Sprint(checked) != fmt.Sprint(want) {
			t.Errorf("%s: checked %v, want %v", st.name, checked, want)
		}
		if got, want := summary(next), summary(full); got != want {
			t.Fatalf("%s: incremental analysis differs from a fresh one:\n--- incremental\n%s--- fresh\n%s", st.name, got, want)
		}
		prev = next
	}
}

// TestCheckCache: a second analysis with the cache checks nothing and
// concludes the same; an edit re-checks only what its key covers.
func TestCheckCache(t *testing.T) {
	files := map[string]string{
		"seeds/s.csv":  "id,name\n1,a\n",
		"models/s.sql": `MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, name TEXT));`,
		"models/a.sql": "MODEL (name m.a);\nSELECT id, name FROM @ref(raw.s)",
		"models/b.sql": "MODEL (name m.b, kind VIEW);\nSELECT id, nme FROM @ref(m.a)",
		"models/c.sql": "MODEL (name m.c);\nSELECT id FROM @ref(m.a)",
	}
	first := analyzeFiles(t, files)
	dir := first.Project.Root
	cachePath := filepath.Join(t.TempDir(), "check.gob")
	ctx := context.Background()
	analyze := func() *Analysis {
		t.Helper()
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		wb, err := duckdb.Open("")
		if err != nil {
			t.Fatal(err)
		}
		defer wb.Close()
		fc := OpenFileCache(cachePath)
		a, err := AnalyzeWith(ctx, p, wb, AnalyzeOptions{Cache: fc})
		if err != nil {
			t.Fatal(err)
		}
		if err := fc.Save(); err != nil {
			t.Fatal(err)
		}
		return a
	}
	cold := analyze()
	if len(cold.Checked) != 4 {
		t.Fatalf("cold run checked %v", cold.Checked)
	}
	warm := analyze()
	if len(warm.Checked) != 0 {
		t.Fatalf("warm run checked %v", warm.Checked)
	}
	if summary(warm) != summary(cold) || summary(cold) != summary(first) {
		t.Fatalf("cached analysis differs:\n%s\n%s", summary(warm), summary(cold))
	}
	for name, info := range warm.Models {
		fresh, _ := json.Marshal(DefinitionOfInfo(info))
		if !bytes.Equal(info.DefinitionJSON(), fresh) {
			t.Fatalf("%s: cached definition %s, want %s", name, info.DefinitionJSON(), fresh)
		}
	}
	// Editing m.a without changing its shape re-checks m.a alone.
	os.WriteFile(filepath.Join(dir, "models/a.sql"), []byte("MODEL (name m.a);\nselect id, name from @ref(raw.s) where id > 0"), 0o644)
	if a := analyze(); fmt.Sprint(a.Checked) != "[m.a]" {
		t.Fatalf("after a same-shape edit checked %v", a.Checked)
	}
	// Changing its shape re-checks its children too.
	os.WriteFile(filepath.Join(dir, "models/a.sql"), []byte("MODEL (name m.a);\nSELECT id FROM @ref(raw.s)"), 0o644)
	if a := analyze(); fmt.Sprint(a.Checked) != "[m.a m.b m.c]" {
		t.Fatalf("after a shape change checked %v", a.Checked)
	}
}

// TestReanalyzeReachesOnlyWhatChanged edits a model's body in place (the
// editor's path: Project.WithBody, every other model shared) and checks
// which models are checked again: a column changing type re-checks the
// grandchild that reads it through a child, an edit that leaves the schema
// as it was re-checks no child, and a model the edit cannot reach keeps
// its very ModelInfo. Each result equals a fresh analysis.
func TestReanalyzeReachesOnlyWhatChanged(t *testing.T) {
	files := map[string]string{
		"efmesh.yaml":  "name: t\n",
		"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS id, 2 AS amount",
		"models/b.sql": "MODEL (name m.b);\nSELECT * FROM @ref(m.a)",
		"models/c.sql": "MODEL (name m.c);\nSELECT amount + 1 AS next FROM @ref(m.b)",
		"models/z.sql": "MODEL (name m.z);\nSELECT 'z' AS other",
		"models/y.sql": "MODEL (name m.y);\nSELECT other FROM @ref(m.z)",
	}
	dir := testkit.WriteProject(t, files)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	fresh, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	prev, err := Analyze(ctx, p, wb)
	if err != nil {
		t.Fatal(err)
	}
	if prev.Errors() {
		t.Fatalf("the project has errors: %v", prev.Diagnostics)
	}
	for _, st := range []struct {
		name, body string
		checked    string
		cBroken    bool // the grandchild's amount + 1 fails on text
	}{
		{"amount becomes text", "MODEL (name m.a);\nSELECT 1 AS id, 'two' AS amount", "[m.a m.b m.c]", true},
		{"same schema, other rows", "MODEL (name m.a);\nSELECT 1 AS id, 'tw' || 'o' AS amount", "[m.a]", true},
		{"amount is an integer again", "MODEL (name m.a);\nSELECT 1 AS id, 2 AS amount", "[m.a m.b m.c]", false},
	} {
		old := prev.Project.ByName["m.a"]
		m, diags := project.ParseModel(old.File, []byte(st.body))
		_, was := project.ParseModel(old.File, old.Source)
		np := prev.Project.WithBody(m, was, diags)
		if np == nil {
			t.Fatalf("%s: WithBody declined the edit", st.name)
		}
		next, err := Reanalyze(ctx, prev, np, wb)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(next.Checked); got != st.checked {
			t.Errorf("%s: checked %s, want %s", st.name, got, st.checked)
		}
		for _, name := range []string{"m.z", "m.y"} {
			if next.Models[name] != prev.Models[name] {
				t.Errorf("%s: %s was visited, though the edit cannot reach it", st.name, name)
			}
		}
		full, err := Analyze(ctx, np, fresh)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := summary(next), summary(full); got != want {
			t.Fatalf("%s: incremental analysis differs from a fresh one:\n--- incremental\n%s--- fresh\n%s", st.name, got, want)
		}
		// The child is not checked again on a same-shape edit, but its
		// fingerprint follows its parent's.
		if next.Models["m.b"].Fingerprint == prev.Models["m.b"].Fingerprint {
			t.Errorf("%s: the child's fingerprint did not move", st.name)
		}
		if got := len(next.Models["m.c"].Diagnostics) > 0; got != st.cBroken {
			t.Errorf("%s: the grandchild reports %v, want an error: %v", st.name, next.Models["m.c"].Diagnostics, st.cBroken)
		}
		prev = next
	}
}

// TestReanalyzeEditCost edits one body of a project of 200 models, a
// fifth of them broken, the way the editor does (Project.WithBody), and
// counts what each Reanalyze visited: the edited model and the children
// its new shape reaches, and their files' diagnostics, never the project;
// each result equals a fresh analysis.
func TestReanalyzeEditCost(t *testing.T) {
	const n = 200
	files := map[string]string{
		"efmesh.yaml":           "name: t\n",
		"models/raw/events.sql": "MODEL (name raw.events, kind EXTERNAL (table src.events), columns (id INTEGER, value DOUBLE));\n",
	}
	for i := range n {
		chain, step := i/5, i%5
		parent := "raw.events"
		if step > 0 {
			parent = fmt.Sprintf("m.c%03d_%d", chain, step-1)
		}
		col := "value"
		if step == 4 {
			col = "valu" // the leaves are broken
		}
		files[fmt.Sprintf("models/m/c%03d_%d.sql", chain, step)] = fmt.Sprintf("MODEL (name m.c%03d_%d);\nSELECT p.id, p.%s + 1 AS value FROM @ref(%s) AS p\n", chain, step, col, parent)
	}
	dir := testkit.WriteProject(t, files)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	fresh, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	prev, err := Analyze(ctx, p, wb)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(prev.Diagnostics); got != n/5 {
		t.Fatalf("the project has %d diagnostics, want %d", got, n/5)
	}
	const edited = "m.c020_2"
	for k, st := range []struct {
		name, body string
	}{
		{"break", "SELECT p.id, p.valu + 1 AS value FROM @ref(m.c020_1) AS p"},
		{"fix", "SELECT p.id, p.value + 1 AS value FROM @ref(m.c020_1) AS p"},
		{"same shape", "SELECT p.id, p.value + 2 AS value FROM @ref(m.c020_1) AS p"},
		{"a new column", "SELECT p.id, p.value + 2 AS value, 1 AS x FROM @ref(m.c020_1) AS p"},
		{"break again", "SELECT p.id, p.valu + 1 AS value FROM @ref(m.c020_1) AS p"},
	} {
		old := prev.Project.ByName[edited]
		src := "MODEL (name " + edited + ");\n" + st.body + "\n"
		m, diags := project.ParseModel(old.File, []byte(src))
		_, was := project.ParseModel(old.File, old.Source)
		np := prev.Project.WithBody(m, was, diags)
		if np == nil {
			t.Fatalf("%s: WithBody declined the edit", st.name)
		}
		next, err := Reanalyze(ctx, prev, np, wb)
		if err != nil {
			t.Fatal(err)
		}
		visited, rebuilt := next.EditCost()
		// The edited model and its two descendants, whose fingerprints
		// follow its own, and their files. The first edit after Analyze
		// assembles every file's diagnostics once; later ones only these.
		if visited != 3 || k > 0 && rebuilt != 3 {
			t.Errorf("%s: visited %d models and rebuilt %d files, want the edited model, its descendants and their 3 files", st.name, visited, rebuilt)
		}
		full, err := Analyze(ctx, np, fresh)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := summary(next), summary(full); got != want {
			t.Fatalf("%s: incremental analysis differs from a fresh one:\n--- incremental\n%s--- fresh\n%s", st.name, got, want)
		}
		prev = next
	}
}
