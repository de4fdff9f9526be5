package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestDialectInTheEditor: the editor agrees with plan on testdata/dialect
// (DuckDB SQL beyond TPC, which cmd/efmesh/cli's dialect test builds and
// compares with plain DuckDB): no model gets an error; and each model of
// testdata/dialect/rejected, which apply would refuse, gets an error where
// its first line says ("-- error at: x": the first x of the body).
func TestDialectInTheEditor(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2024-03-08T00:00:00Z")
	root := t.TempDir()
	copyDir(t, "../testdata/dialect", root)
	bad, err := filepath.Glob(filepath.Join(root, "rejected", "*.sql"))
	if err != nil || len(bad) < 12 {
		t.Fatalf("%d rejected models (%v)", len(bad), err)
	}
	if err := os.MkdirAll(filepath.Join(root, "models", "bad"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range bad {
		if err := os.Rename(f, filepath.Join(root, "models", "bad", filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	err = filepath.WalkDir(filepath.Join(root, "models"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".sql") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, root, clientOptions{})
	for _, f := range files {
		c.open(f)
	}
	c.waitIdle()
	for _, f := range files {
		var errs []protocol.Diagnostic
		for _, d := range c.diagnostics(f) {
			if d.Severity == protocol.DiagnosticSeverityError {
				errs = append(errs, d)
			}
		}
		if !strings.HasPrefix(f, "models/bad/") {
			for _, d := range errs {
				t.Errorf("%s:%d:%d: false positive: %s", f, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message)
			}
			continue
		}
		// The header is the file's second line; the body follows it.
		text := string(c.text(f))
		first, _, _ := strings.Cut(text, "\n")
		needle := strings.TrimPrefix(first, "-- error at: ")
		bodyAt := strings.Index(text, ");\n") + 3
		at := strings.Index(text[bodyAt:], needle)
		if bodyAt < 3 || at < 0 {
			t.Fatalf("%s: no \"-- error at: x\" line naming a place in the body", f)
		}
		at += bodyAt
		want := protocol.Position{Line: uint32(strings.Count(text[:at], "\n")), Character: uint32(at - strings.LastIndex(text[:at], "\n") - 1)}
		ok := false
		for _, d := range errs {
			ok = ok || d.Range.Start == want
		}
		if !ok {
			t.Errorf("%s: no error at %q (%d:%d): %v", f, needle, want.Line+1, want.Character+1, errs)
		}
	}

	// An edit is checked as the project was: a date that does not exist is
	// an error at once, at the literal.
	const file = "models/core/typed_literals.sql"
	c.replace(file, "DATE '2024-02-29'", "DATE '2023-02-29'")
	c.waitFor("the error on DATE '2023-02-29'", func() bool { return len(c.diagnostics(file)) > 0 })
	if ds := c.diagnostics(file); ds[0].Severity != protocol.DiagnosticSeverityError || ds[0].Range.Start != c.position(file, "DATE |'2023-02-29'") {
		t.Errorf("want an error at '2023-02-29', got %+v", ds)
	}
}
