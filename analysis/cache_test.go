package analysis

import (
	"bytes"
	"encoding/gob"
	"os"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestFileCacheFile: what Save writes, OpenFileCache reads back entry for
// entry; a truncated file, or one in another layout, is an empty cache
// (never an error: the cache is only a speed-up).
func TestFileCacheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "check.gob")
	fc := OpenFileCache(path)
	if fc.Len() != 0 {
		t.Fatalf("a missing file opened with %d entries", fc.Len())
	}
	want := map[string]*CachedCheck{}
	for _, k := range []string{"k1", "k2", "k3"} {
		c := &CachedCheck{OwnHash: "own" + k, Canonical: []byte("canon " + k),
			Columns: []engine.Column{{Name: "id", Type: "INTEGER"}}, Definition: []byte(`{"k":"` + k + `"}`)}
		want[k] = c
		fc.Put(k, c)
	}
	if err := fc.Save(); err != nil {
		t.Fatal(err)
	}
	back := OpenFileCache(path)
	if back.Len() != len(want) {
		t.Fatalf("read back %d entries, want %d", back.Len(), len(want))
	}
	for k, w := range want {
		got, ok := back.Get(k)
		if !ok || got.OwnHash != w.OwnHash || !bytes.Equal(got.Canonical, w.Canonical) ||
			!bytes.Equal(got.Definition, w.Definition) || len(got.Columns) != 1 || got.Columns[0] != w.Columns[0] {
			t.Fatalf("entry %s read back as %+v, want %+v", k, got, w)
		}
	}

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)-5], 0o644); err != nil {
		t.Fatal(err)
	}
	if n := OpenFileCache(path).Len(); n != 0 {
		t.Fatalf("a truncated file opened with %d entries", n)
	}

	var other bytes.Buffer
	if err := gob.NewEncoder(&other).Encode(want); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, other.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := OpenFileCache(path).Len(); n != 0 {
		t.Fatalf("a file of one map (another layout) opened with %d entries", n)
	}
}
