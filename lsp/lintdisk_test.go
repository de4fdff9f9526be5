package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
)

// TestLintCacheAcrossSessions: a second session on an unchanged project
// takes every lint finding from the cache the first left (it lints no
// model through the engine) and publishes the same findings; a file
// changed on disk in between is linted again.
func TestLintCacheAcrossSessions(t *testing.T) {
	root := testkit.WriteProject(t, map[string]string{
		"efmesh.yaml":           "name: lintcache\n",
		"models/raw/events.sql": "MODEL (name raw.events, kind EXTERNAL (table src.events), columns (id INTEGER, value DOUBLE));\n",
		"models/m/base.sql":     "MODEL (name m.base, kind FULL);\nSELECT id, value FROM @ref(raw.events)\n",
		"models/m/star.sql":     "MODEL (name m.star, kind FULL);\nSELECT * FROM @ref(m.base)\n",
		"models/m/plain.sql":    "MODEL (name m.plain, kind FULL);\nSELECT id FROM @ref(m.base)\n",
	})
	session := func() (linted int, codes []string) {
		t.Helper()
		c := newTestClient(t, root, clientOptions{})
		c.waitIdle()
		for _, d := range c.diagnostics("models/m/star.sql") {
			codes = append(codes, d.Code.(string))
		}
		linted = c.srv.allViews()[0].ck.lint.linted
		c.shutdown()
		return linted, codes
	}
	linted, first := session()
	if len(first) != 1 || first[0] != "no_select_star" || linted == 0 {
		t.Fatalf("first session: linted %d models, star.sql has %v", linted, first)
	}
	if _, err := os.Stat(filepath.Join(root, ".efmesh", "cache", "lint.gob")); err != nil {
		t.Fatalf("no lint cache: %v", err)
	}
	linted, second := session()
	if linted != 0 || len(second) != 1 || second[0] != "no_select_star" {
		t.Fatalf("second session: linted %d models (want 0), star.sql has %v", linted, second)
	}
	if err := os.WriteFile(filepath.Join(root, "models/m/star.sql"), []byte("MODEL (name m.star, kind FULL);\nSELECT id FROM @ref(m.base)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	linted, third := session()
	if linted != 1 || len(third) != 0 {
		t.Fatalf("after an edit on disk: linted %d models (want 1), star.sql has %v", linted, third)
	}
}

// TestLintCacheCoversModelsNamed: the findings of a model the check found
// errors in are cached too, and their key covers the models a plain
// table name may name: a parent turned EXTERNAL (SELECT * over it is
// fine) has the child that reads it by a plain name linted again.
func TestLintCacheCoversModelsNamed(t *testing.T) {
	root := testkit.WriteProject(t, map[string]string{
		"efmesh.yaml":           "name: lintnamed\n",
		"models/raw/events.sql": "MODEL (name raw.events, kind EXTERNAL (table src.events), columns (id INTEGER, value DOUBLE));\n",
		"models/m/base.sql":     "MODEL (name m.base, kind FULL);\nSELECT id, value FROM @ref(raw.events)\n",
		"models/m/typo.sql":     "MODEL (name m.typo, kind FULL);\nSELECT *, p.valu FROM @ref(m.base) AS p\n",
		"models/m/plain.sql":    "MODEL (name m.plain, kind FULL);\nSELECT * FROM m.base\n",
	})
	codes := func(c *testClient, rel string) (out []string) {
		for _, d := range c.diagnostics(rel) {
			out = append(out, d.Code.(string))
		}
		slices.Sort(out)
		return out
	}
	session := func() (linted int, typo, plain []string) {
		t.Helper()
		c := newTestClient(t, root, clientOptions{})
		c.waitIdle()
		typo, plain = codes(c, "models/m/typo.sql"), codes(c, "models/m/plain.sql")
		linted = c.srv.allViews()[0].ck.lint.linted
		c.shutdown()
		return linted, typo, plain
	}
	linted, typo, plain := session()
	if linted == 0 || !slices.Contains(typo, "no_select_star") || !slices.Contains(plain, "no_select_star") || len(typo) < 2 || len(plain) < 2 {
		t.Fatalf("first session: linted %d, typo.sql has %v, plain.sql has %v", linted, typo, plain)
	}
	linted, typo2, plain2 := session()
	if linted != 0 || !slices.Equal(typo, typo2) || !slices.Equal(plain, plain2) {
		t.Fatalf("second session: linted %d (want 0), typo.sql has %v (was %v), plain.sql has %v (was %v)", linted, typo2, typo, plain2, plain)
	}
	if err := os.WriteFile(filepath.Join(root, "models/m/base.sql"),
		[]byte("MODEL (name m.base, kind EXTERNAL (table src.base), columns (id INTEGER, value DOUBLE));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, plain3 := session()
	if slices.Contains(plain3, "no_select_star") {
		t.Fatalf("m.base is EXTERNAL now, yet plain.sql still has %v", plain3)
	}
}
