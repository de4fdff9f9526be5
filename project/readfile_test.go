package project

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadFile answers what os.ReadFile answers: the contents, or the same
// error text.
func TestReadFileAsOS(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"empty.sql": "",
		"small.sql": "SELECT 1",
		"page.sql":  strings.Repeat("x", 511),
		"exact.sql": strings.Repeat("y", 512),
		"large.sql": strings.Repeat("SELECT 1;\n", 100_000),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.sql"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"empty.sql", "small.sql", "page.sql", "exact.sql", "large.sql", "folder.sql", "missing.sql"} {
		abs := filepath.Join(dir, name)
		got, err := ReadFile(abs)
		want, wantErr := os.ReadFile(abs)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%s: error %v, os.ReadFile's %v", name, err, wantErr)
		}
		if !bytes.Equal(got, want) || (err == nil && (got == nil) != (want == nil)) {
			t.Errorf("%s: %d bytes (nil %v), os.ReadFile's %d (nil %v)", name, len(got), got == nil, len(want), want == nil)
		}
	}
}
