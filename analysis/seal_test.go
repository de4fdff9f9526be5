package analysis

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestCheckCacheFlippedBits: one flipped bit anywhere in the check cache's
// file opens an empty cache (everything is checked again), never entries
// other than the ones saved.
func TestCheckCacheFlippedBits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "check.gob")
	want := map[string]*CachedCheck{
		"a": {OwnHash: "h1", Canonical: []byte("SELECT 1"), Columns: []engine.Column{{Name: "id", Type: "INTEGER"}}},
		"b": {OwnHash: "h2", Broken: true},
	}
	fc := OpenFileCache(path)
	for k, c := range want {
		fc.Put(k, c)
	}
	if err := fc.Save(); err != nil {
		t.Fatal(err)
	}
	if got := OpenFileCache(path); !reflect.DeepEqual(got.old, want) {
		t.Fatalf("the intact cache opened as %v", got.old)
	}
	intact, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for pos := range intact {
		damaged := append([]byte(nil), intact...)
		damaged[pos] ^= 0x04
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := OpenFileCache(path); got.Len() != 0 && !reflect.DeepEqual(got.old, want) {
			t.Fatalf("byte %d flipped: the cache opened as %v", pos, got.old)
		}
	}
	// Truncated anywhere: a miss too.
	for n := range intact {
		if err := os.WriteFile(path, intact[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if got := OpenFileCache(path); got.Len() != 0 {
			t.Fatalf("truncated to %d bytes: %d entries", n, got.Len())
		}
	}
}

// TestSealRejectsOtherKinds: a sealed file is read only as what it was
// sealed as, at its version.
func TestSealRejectsOtherKinds(t *testing.T) {
	raw := Seal("noop", 5, []byte("body"))
	if b, ok := Unseal("noop", 5, raw); !ok || string(b) != "body" {
		t.Fatal("the sealed body did not open")
	}
	if _, ok := Unseal("noop", 6, raw); ok {
		t.Fatal("opened at another version")
	}
	if _, ok := Unseal("plan", 5, raw); ok {
		t.Fatal("opened as another kind")
	}
}
