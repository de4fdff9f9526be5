package lsp

import (
	"os"
	"path/filepath"
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
