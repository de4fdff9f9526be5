package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/project"
)

// TestCheckPublishedBeforeLint: a whole-project check publishes what it
// found before the linter runs (linting a fresh clone costs about as much
// as checking it), and the linter's findings follow.
func TestCheckPublishedBeforeLint(t *testing.T) {
	root, leaves := openFirstProject(t, 8)
	// A model the linter warns about (SELECT * over a model) and the
	// check does not.
	star := "models/m/star.sql"
	if err := os.WriteFile(filepath.Join(root, star), []byte("MODEL (name m.star, kind FULL);\n\nSELECT * FROM @ref(m.c00_1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	hook := func() {
		once.Do(func() {
			close(entered)
			<-release
		})
	}
	c := newTestClient(t, root, clientOptions{beforeLint: hook})
	var let sync.Once
	letGo := func() { let.Do(func() { close(release) }) }
	t.Cleanup(letGo)

	<-entered
	for _, rel := range leaves {
		c.waitFor(rel+"'s diagnostics while the linter is held", func() bool { return len(c.diagnostics(rel)) > 0 })
		if ds := c.diagnostics(rel); ds[0].Source != "efmesh" {
			t.Fatalf("%s: %+v", rel, ds)
		}
	}
	if ds := c.diagnostics(star); len(ds) > 0 {
		t.Fatalf("%s has lint findings before the linter ran: %+v", star, ds)
	}

	letGo()
	c.waitIdle()
	ds := c.diagnostics(star)
	if len(ds) != 1 || ds[0].Code != lint.NoSelectStar || ds[0].Source != lintSource {
		t.Fatalf("%s after the linter ran: %+v", star, ds)
	}
	for _, rel := range leaves {
		if len(c.diagnostics(rel)) == 0 {
			t.Errorf("%s: no diagnostics after the linter ran", rel)
		}
	}
}

// TestLintParallel: the linter spread over the cores finds what one pass
// over every model finds, in a project larger than one chunk.
func TestLintParallel(t *testing.T) {
	files := map[string]string{"efmesh.yaml": "name: lintpar\n"}
	n := 3*lintChunk + 7
	for i := range n {
		body := "SELECT 1 AS id"
		if i > 0 && i%3 == 0 {
			body = fmt.Sprintf("SELECT * FROM @ref(m.x%04d)", i-1)
		}
		files[fmt.Sprintf("models/m/x%04d.sql", i)] = fmt.Sprintf("MODEL (name m.x%04d, kind FULL);\n\n%s\n", i, body)
	}
	p, err := project.Load(testkit.WriteProject(t, files))
	if err != nil {
		t.Fatal(err)
	}
	wb, err := connect.Workbench(p)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	a, err := analysis.Analyze(context.Background(), p, wb)
	if err != nil {
		t.Fatal(err)
	}
	sev, _ := lint.Configure(a.Project.Config.Lint)
	var names []string
	for _, m := range a.Project.Models {
		names = append(names, m.Name)
	}
	want := lint.Check(a, sev, names)
	got := lintParallel(a, sev, names)
	if len(want) != n/3 {
		t.Fatalf("one pass found %d findings, want %d", len(want), n/3)
	}
	project.SortDiagnostics(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("parallel lint found\n%v\nwant\n%v", got, want)
	}
}

// TestLintOnEdit: an edit of a body lints the models its check checked
// and keeps every other model's findings: a finding the edit makes
// appears and goes again, the finding of a model the edit does not
// reach stays.
func TestLintOnEdit(t *testing.T) {
	root := testkit.WriteProject(t, map[string]string{
		"efmesh.yaml":           "name: lintedit\n",
		"models/raw/events.sql": "MODEL (name raw.events, kind EXTERNAL (table src.events), columns (id INTEGER, value DOUBLE));\n",
		"models/m/base.sql":     "MODEL (name m.base, kind FULL);\nSELECT id, value FROM @ref(raw.events)\n",
		"models/m/star.sql":     "MODEL (name m.star, kind FULL);\nSELECT * FROM @ref(m.base)\n",
		"models/m/edited.sql":   "MODEL (name m.edited, kind FULL);\nSELECT id FROM @ref(m.base)\n",
		"models/m/child.sql":    "MODEL (name m.child, kind FULL);\nSELECT id FROM @ref(m.edited)\n",
	})
	c := newTestClient(t, root, clientOptions{})
	edited := "models/m/edited.sql"
	c.open(edited)
	c.waitIdle()
	codes := func(rel string) (out []string) {
		for _, d := range c.diagnostics(rel) {
			out = append(out, d.Code.(string))
		}
		return out
	}
	want := func(rel string, codes_ ...string) {
		t.Helper()
		if got := codes(rel); !slices.Equal(got, codes_) {
			t.Fatalf("%s has %v, want %v", rel, got, codes_)
		}
	}
	want("models/m/star.sql", lint.NoSelectStar)
	want(edited)
	for range 2 {
		c.replace(edited, "SELECT id FROM", "SELECT * FROM")
		c.waitIdle()
		want(edited, lint.NoSelectStar)
		want("models/m/star.sql", lint.NoSelectStar)
		if n := c.srv.allViews()[0].ck.lint.linted; n == 0 || n > 2 {
			t.Fatalf("the edit linted %d models, want the edited one and its child", n)
		}
		c.replace(edited, "SELECT * FROM", "SELECT id FROM")
		c.waitIdle()
		want(edited)
		want("models/m/star.sql", lint.NoSelectStar)
		// A keystroke that moves no finding walks no other model.
		c.replace(edited, "SELECT id FROM", "SELECT id  FROM")
		c.waitIdle()
		want(edited)
		want("models/m/star.sql", lint.NoSelectStar)
		if lc := &c.srv.allViews()[0].ck.lint; lc.walked || lc.linted != 1 {
			t.Fatalf("a keystroke walked every model (%v) or linted %d models, want 1", lc.walked, lc.linted)
		}
		c.replace(edited, "SELECT id  FROM", "SELECT id FROM")
		c.waitIdle()
	}
}
