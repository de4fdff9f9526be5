package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// ReadFileStamp returns what os.ReadFile and os.Stat say of a file, and
// their error for a file that is not there.
func TestReadFileStamp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.sql")
	body := []byte("MODEL (name a.b);\nSELECT 'é' AS x\n")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
	src, size, mtime, err := ReadFileStamp(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(src) != string(body) || size != fi.Size() || mtime != fi.ModTime().UnixNano() {
		t.Fatalf("ReadFileStamp = %q, %d, %d; want %q, %d, %d", src, size, mtime, body, fi.Size(), fi.ModTime().UnixNano())
	}
	if _, _, _, err := ReadFileStamp(filepath.Join(dir, "none.sql")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, _, _, err := ReadFileStamp(dir); err == nil {
		t.Fatal("a folder read as a file")
	}
}
