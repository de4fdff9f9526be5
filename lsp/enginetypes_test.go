package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/engine/duckdb"
)

// TestBuiltStructHoverTypeIsDuckDBs: the type hover gives a field of a
// struct a CTE or subquery builds is the one DuckDB's DESCRIBE reports for
// the same expression read in a plain query.
func TestBuiltStructHoverTypeIsDuckDBs(t *testing.T) {
	cases := []struct{ expr, path string }{
		{`{'a': 1, 'b': 'x'}`, "b"},
		{`{'a': pid, 'b': [pid, pid]}`, "b"},
		{`struct_pack(c := pid, d := name)`, "d"},
		{`struct_pack(c := pid * 1.5, d := name || '!')`, "c"},
		{`{'in': {'deep': 2.5, 'when': DATE '2024-01-01'}}`, "in.when"},
		{`{'in': {'deep': 2.5}}`, "in"},
		{`{'m': map([name], [pid])}`, "m"},
		{`unnest([{'a': pid, 'b': name}])`, "b"},
		{`unnest([[{'a': pid::BIGINT}]])[1]`, "a"},
	}
	ctx := context.Background()
	db, err := duckdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(ctx, `CREATE TABLE people (pid INTEGER, name VARCHAR)`); err != nil {
		t.Fatal(err)
	}

	root := t.TempDir()
	files := map[string]string{
		"efmesh.yaml":       "name: built\n",
		"seeds/people.csv":  "pid,name\n1,ann\n",
		"models/people.sql": "MODEL (name raw.people, kind SEED (path 'seeds/people.csv'), columns (pid INTEGER, name TEXT));\n",
	}
	for i, c := range cases {
		cte := fmt.Sprintf("MODEL (name mart.c%d, kind VIEW);\nWITH k AS (SELECT %s AS st FROM @ref(raw.people))\nSELECT k.st.%s AS v FROM k\n", i, c.expr, c.path)
		sub := fmt.Sprintf("MODEL (name mart.s%d, kind VIEW);\nSELECT s.st.%s AS v FROM (SELECT %s AS st FROM @ref(raw.people)) AS s\n", i, c.path, c.expr)
		files[fmt.Sprintf("models/c%d.sql", i)] = cte
		files[fmt.Sprintf("models/s%d.sql", i)] = sub
	}
	for rel, src := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newTestClient(t, root, clientOptions{})
	defer c.shutdown()
	typeRe := regexp.MustCompile("^\\*\\*[^*]+\\*\\* `([^`]+)`")
	for i, cs := range cases {
		cols, err := db.Describe(ctx, fmt.Sprintf("SELECT (%s AS st).st.%s AS v FROM people", cs.expr, cs.path))
		if err != nil {
			// Not every expression reads with .field in place: read the
			// built column from a subquery, as the model does.
			cols, err = db.Describe(ctx, fmt.Sprintf("SELECT s.st.%s AS v FROM (SELECT %s AS st FROM people) AS s", cs.path, cs.expr))
		}
		if err != nil || len(cols) != 1 {
			t.Fatalf("%s: DESCRIBE: %v %v", cs.expr, cols, err)
		}
		want := cols[0].Type
		last := cs.path[strings.LastIndexByte(cs.path, '.')+1:]
		for _, f := range []string{fmt.Sprintf("models/c%d.sql", i), fmt.Sprintf("models/s%d.sql", i)} {
			c.open(f)
			c.waitIdle()
			if d := c.diagnostics(f); len(d) > 0 {
				t.Fatalf("%s: %+v", f, d)
			}
			marker := "st." + strings.TrimSuffix(cs.path, last) + "|" + last + " AS v"
			var h *protocol.Hover
			c.mustCall("textDocument/hover", c.docPos(f, marker), &h)
			if h == nil {
				t.Errorf("%s (%s): no hover", f, cs.expr)
				continue
			}
			m := typeRe.FindStringSubmatch(h.Contents.Value)
			if m == nil || m[1] != want {
				t.Errorf("%s (%s .%s): hover %q, DuckDB describes %s", f, cs.expr, cs.path, h.Contents.Value, want)
			}
		}
	}
}

// TestFieldHoverDoesNotWaitForCheck: a hover on a field of a struct a CTE
// builds, whose type only the engine tells, is answered at once with the
// field's origin while a whole-project check holds the workbench; with
// the checker idle, before and after, it has the engine's type too.
func TestFieldHoverDoesNotWaitForCheck(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"efmesh.yaml":       "name: held\n",
		"seeds/people.csv":  "pid,name\n1,ann\n",
		"models/people.sql": "MODEL (name raw.people, kind SEED (path 'seeds/people.csv'), columns (pid INTEGER, name TEXT));\n",
		"models/k.sql":      "MODEL (name mart.k, kind VIEW);\nWITH k AS (SELECT {'a': pid, 'b': name} AS st FROM @ref(raw.people))\nSELECT k.st.b AS v FROM k\n",
	}
	for rel, src := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The hook holds a whole-project check once hold is set.
	var hold atomic.Bool
	entered := make(chan struct{})
	done := make(chan struct{}) // closed: the hook no longer holds checks
	var once sync.Once
	hook := func(map[string]openDoc) {
		if !hold.Load() {
			return
		}
		select {
		case <-done:
			return
		case entered <- struct{}{}:
		}
		<-done
	}
	c := newTestClient(t, root, clientOptions{beforeWholeCheck: hook})
	letGo := func() { once.Do(func() { close(done) }) }
	t.Cleanup(letGo)
	f := "models/k.sql"
	c.open(f)
	c.waitIdle()

	hover := func() string {
		var h *protocol.Hover
		c.mustCall("textDocument/hover", c.docPos(f, "k.st.|b AS v"), &h)
		if h == nil {
			return ""
		}
		return h.Contents.Value
	}
	if idle := hover(); !strings.Contains(idle, "`VARCHAR`") || !strings.Contains(idle, "raw.people.name") {
		t.Errorf("hover with the checker idle: %q, want the type VARCHAR and the origin", idle)
	}

	// A seed changed on disk: the whole project is checked again, and
	// held there.
	hold.Store(true)
	c.srv.allViews()[0].touch()
	<-entered
	// The check stays held until letGo: a hover that returns at all was
	// answered without it.
	held := hover()
	if !strings.Contains(held, "raw.people.name") {
		t.Errorf("hover while the check is held: %q, want the field's origin raw.people.name", held)
	}

	// Once the check is done, the checker takes the description again.
	letGo()
	c.waitIdle()
	c.waitFor("the engine's type after the check", func() bool {
		return strings.Contains(hover(), "`VARCHAR`")
	})
}
