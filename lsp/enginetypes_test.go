package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
