package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestCorpusHasNoFalsePositives opens every model of testdata/corpus (the
// real-world analytical SQL that cmd/efmesh/cli's corpus test builds and
// compares with plain DuckDB) in a real client: none gets an error. Then
// it checks the other side: a qualifier apply could not bind (the schema
// of a ref, which renders to a physical table) is an error in the editor,
// not a failed apply.
func TestCorpusHasNoFalsePositives(t *testing.T) {
	root := t.TempDir()
	copyDir(t, "../testdata/corpus", root)
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "models"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".sql") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 60 {
		t.Fatalf("%d corpus models, want at least 60", len(files))
	}
	c := newTestClient(t, root, clientOptions{})
	for _, f := range files {
		c.open(f)
	}
	c.waitIdle()
	for _, f := range files {
		for _, d := range c.diagnostics(f) {
			if d.Severity == protocol.DiagnosticSeverityError {
				t.Errorf("%s:%d:%d: false positive: %s", f, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message)
			}
		}
	}

	// raw.orders.priority binds in plain SQL over a table raw.orders, but a
	// ref is not that table: apply reads a physical one.
	const file = "models/core/order_priority_checking.sql"
	c.replace(file, "SELECT orders.priority, count(*)", "SELECT raw.orders.priority, count(*)")
	c.waitFor("the error on raw.orders.priority", func() bool { return len(c.diagnostics(file)) > 0 })
	if ds := c.diagnostics(file); ds[0].Severity != protocol.DiagnosticSeverityError || ds[0].Range.Start != c.position(file, "SELECT |raw.orders.priority") {
		t.Errorf("want an error at raw.orders.priority, got %+v", ds)
	}
}
