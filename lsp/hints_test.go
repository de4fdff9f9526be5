package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// applyElsewhere applies the project as saved on disk to env the way
// another process does: its own analysis, store and warehouse.
func applyElsewhere(t *testing.T, root, env string) {
	t.Helper()
	ctx := context.Background()
	p, err := project.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := connect.Workbench(p)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	a, err := analysis.Analyze(ctx, p, wb)
	if err != nil {
		t.Fatal(err)
	}
	st, err := connect.Store(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	wh, err := connect.Warehouse(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	plan, err := planner.MakePlan(ctx, a, st, env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := planner.Apply(ctx, plan, wh, st, planner.ApplyOptions{AppliedBy: "elsewhere"}); err != nil {
		t.Fatal(err)
	}
}

// TestOnePublishPerEdit: an edit of a model with a breaking-change hint is
// published once, hint included (it was published without the hint and
// then again with it); the hint follows what another process applies.
func TestOnePublishPerEdit(t *testing.T) {
	root := writeProject(t, map[string]string{
		"efmesh.yaml":  "name: hints\n",
		"models/a.sql": "MODEL (name s.a, kind FULL);\nSELECT 1 AS x, 2 AS y\n",
		"models/b.sql": "MODEL (name s.b, kind FULL);\nSELECT x FROM @ref(s.a)\n",
	})
	applyElsewhere(t, root, "dev")
	c := newTestClient(t, root, clientOptions{})
	c.open("models/a.sql")
	c.waitIdle()

	hint := func() string {
		for _, d := range c.diagnostics("models/a.sql") {
			if d.Code == CodeBreakingChange {
				return d.Message
			}
		}
		return ""
	}
	if h := hint(); h != "" {
		t.Fatalf("a hint before any change: %s", h)
	}
	c.replace("models/a.sql", "1 AS x", "10 AS x")
	c.waitIdle()
	// The edit as SQL, old and new, the parse-tree path as the detail.
	want := "breaking change against dev: rebuilds 1 downstream model (s.b)\n" +
		"- SELECT 1 AS x, 2 AS y\n+ SELECT 10 AS x, 2 AS y\ndetail (parse tree): select_list[0]"
	if h := hint(); h != want {
		t.Fatalf("hint = %q, want %q", h, want)
	}

	first := hint()
	c.replace("models/a.sql", "2 AS y", "2 AS y, 3 AS z") // version 3: the hint names one more path
	c.waitIdle()
	if hint() == first {
		t.Fatalf("the hint did not change: %s", first)
	}
	c.mu.Lock()
	n := c.pubs["models/a.sql@3"]
	c.mu.Unlock()
	if n != 1 {
		t.Errorf("version 3 of models/a.sql was published %d times, want once", n)
	}
	want = "breaking change against dev: rebuilds 1 downstream model (s.b)\n" +
		"- SELECT 1 AS x, 2 AS y\n+ SELECT 10 AS x, 2 AS y, 3 AS z\ndetail (parse tree): select_list[0], select_list[2] (added)"
	if h := hint(); h != want {
		t.Fatalf("hint after the second edit = %q, want %q", h, want)
	}

	// Another process applies the buffer's content: the model is no
	// longer changed against dev. An edit that moves no fingerprint shows
	// it: the hints follow the store, not only the fingerprints.
	if err := os.WriteFile(filepath.Join(root, "models", "a.sql"), c.text("models/a.sql"), 0o644); err != nil {
		t.Fatal(err)
	}
	applyElsewhere(t, root, "dev")
	fp := func() string {
		_, res := c.srv.allViews()[0].current()
		return res.info("s.a").Fingerprint
	}
	before := fp()
	c.replace("models/a.sql", "10 AS x", "10  AS x")
	c.waitIdle()
	if fp() != before {
		t.Fatalf("the whitespace edit moved the fingerprint")
	}
	if h := hint(); h != "" {
		t.Errorf("hint after dev was applied elsewhere: %s", h)
	}
}

// TestExternalFileProblems: what an EXTERNAL model reads is checked by the
// plan (a file that matches no more, a file whose columns are not the
// declared ones: plan, apply and run stop there); the editor publishes
// the plan's errors where the plan reports them, and follows the files as
// they change.
func TestExternalFileProblems(t *testing.T) {
	root := writeProject(t, map[string]string{
		"efmesh.yaml":  "name: src\n",
		"data/src.csv": "id,label\n1,a\n",
		"models/src.sql": "MODEL (name raw.src, kind EXTERNAL (files 'data/src.csv', format csv, header true),\n" +
			"  columns (id INTEGER, label TEXT));\n",
		"models/b.sql": "MODEL (name s.b, kind FULL);\nSELECT id, label FROM @ref(raw.src)\n",
	})
	applyElsewhere(t, root, "dev")
	c := newTestClient(t, root, clientOptions{})
	c.open("models/b.sql")
	c.waitIdle()
	errorsOf := func() string {
		var out []string
		for _, d := range c.diagnostics("models/src.sql") {
			if d.Severity == protocol.DiagnosticSeverityError {
				out = append(out, fmt.Sprintf("%d: %s", d.Range.Start.Line+1, d.Message))
			}
		}
		return strings.Join(out, "\n")
	}
	if got := errorsOf(); got != "" {
		t.Fatalf("errors before the file changed: %s", got)
	}
	change := func(body string) {
		t.Helper()
		path := filepath.Join(root, "data", "src.csv")
		typ := protocol.FileChangeTypeChanged
		if body == "" {
			typ = protocol.FileChangeTypeDeleted
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": c.uri("data/src.csv"), "type": typ}}})
	}
	wait := func(want string) {
		t.Helper()
		c.waitFor("the plan's error "+want, func() bool { return errorsOf() == want })
	}
	change("")
	wait("1: EXTERNAL raw.src reads files data/src.csv, but no file matches data/src.csv")
	change("id,label\n1,a\n2,b\n")
	wait("")
	change("id,name\n1,a\n")
	wait("2: EXTERNAL raw.src: data/src.csv has no column label (it has name)")
	change("id,label\n1,a\n")
	wait("")
}
