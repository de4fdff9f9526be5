package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/format"
	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/workspace"
)

// BenchmarkLayoutCheck2000 is what formatting one model costs in a
// 2,000-model project once the check cache is warm: the layout and the
// fingerprint check of both texts (LayoutProblems), as the editor's
// formatting request and efmesh format do it.
func BenchmarkLayoutCheck2000(b *testing.B) {
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: 2000, Wide: true}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	p, err := workspace.Load(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "models", "m", "model_01000.sql")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	// The first check fills the check cache, as the editor's checker has
	// when a user formats.
	check := func() {
		got, err := format.Source(src)
		if err != nil {
			b.Fatal(err)
		}
		q, err := workspace.Load(dir, map[string][]byte{path: got})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := workspace.LayoutProblems(ctx, p, q, []string{"m.model_01000"}); err != nil {
			b.Fatal(err)
		}
	}
	check()
	for b.Loop() {
		check()
	}
}
