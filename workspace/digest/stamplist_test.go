package digest

import (
	"crypto/sha256"
	"slices"
	"testing"
)

// TestStampListRoundTrip: the compact stamps decode to what was encoded
// (shared prefixes, missing files, hashes, negative and zero values), and a
// truncated list is an error, not a panic.
func TestStampListRoundTrip(t *testing.T) {
	sum := sha256.Sum256([]byte("x"))
	in := stampList{
		{Path: "/p/efmesh.yaml", Size: 10, ModTime: 1, Hash: string(sum[:])},
		{Path: "/p/models/a.sql", Size: 0, ModTime: -5},
		{Path: "/p/models/ab.sql", Size: 1 << 40, ModTime: 1 << 62, Hash: string(sum[:])},
		{Path: "/p/models", Missing: true},
		{Path: "/q", Size: 3},
	}
	raw, err := in.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out stampList
	if err := out.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in, out) {
		t.Fatalf("round trip:\n%v\n%v", in, out)
	}
	for n := range raw {
		var cut stampList
		if cut.UnmarshalBinary(raw[:n]) == nil {
			t.Fatalf("a list cut at %d of %d bytes decoded", n, len(raw))
		}
	}
	paths := pathList{"a/b.sql", "a/bc.sql", "a/c/d.sql", "z"}
	raw, _ = paths.MarshalBinary()
	var back pathList
	if err := back.UnmarshalBinary(raw); err != nil || !slices.Equal(back, paths) {
		t.Fatalf("paths: %v %v", back, err)
	}
	for n := range raw {
		var cut pathList
		if cut.UnmarshalBinary(raw[:n]) == nil {
			t.Fatalf("a path list cut at %d of %d bytes decoded", n, len(raw))
		}
	}
}
