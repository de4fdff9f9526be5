package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerWatchesWhenClientCannot: a client without dynamic
// registration of file watchers never says a file changed on disk; the
// server sees it itself: an unopened model edited, then deleted, outside
// the editor.
func TestServerWatchesWhenClientCannot(t *testing.T) {
	root := writeProject(t, smallProject)
	c := newTestClient(t, root, clientOptions{noWatch: true})
	c.waitIdle()
	if ds := c.diagnostics("models/b.sql"); len(ds) != 0 {
		t.Fatalf("b.sql starts with diagnostics: %v", ds)
	}
	b := filepath.Join(root, "models", "b.sql")
	if err := os.WriteFile(b, []byte("MODEL (name s.b, kind VIEW);\nSELECT nope FROM @ref(s.a)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.waitFor("the unknown column of b.sql changed on disk", func() bool {
		for _, d := range c.diagnostics("models/b.sql") {
			if strings.Contains(d.Message, "nope") {
				return true
			}
		}
		return false
	})
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	c.waitFor("b.sql's diagnostics cleared once it is deleted", func() bool {
		return len(c.diagnostics("models/b.sql")) == 0
	})
}

func TestWatchersCoverTestsAndMacros(t *testing.T) {
	for _, path := range []string{"models/a.sql", "macros/m.sql", "tests/test_a.yaml", "tests/t.yml", "seeds/s.csv", "efmesh.yaml"} {
		if !watchedFile(path) {
			t.Errorf("%s is not watched", path)
		}
	}
	if watchedFile("README.md") {
		t.Error("README.md is watched")
	}
}
