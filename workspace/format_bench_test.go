package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/format"
	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/workspace"
)

// BenchmarkLayoutCheck2000 is what formatting one model costs in a
// 2,000-model project: the layout and the fingerprint check of both texts
// (LayoutProblems) on an open workbench, as the editor's formatting request
// does it (efmesh format opens one workbench for all the files it checks).
func BenchmarkLayoutCheck2000(b *testing.B) {
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: 2000, Wide: true}); err != nil {
		b.Fatal(err)
	}
	p, err := workspace.Load(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	wb, err := connect.Workbench(p)
	if err != nil {
		b.Fatal(err)
	}
	defer wb.Close()
	const rel = "models/m/model_01000.sql"
	src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		got, err := format.Source(src)
		if err != nil {
			b.Fatal(err)
		}
		if pr := workspace.LayoutProblems(p, wb, map[string][]byte{rel: got}); pr[rel] != "" {
			b.Fatal(pr[rel])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/model")
}

// BenchmarkFormatCheck2000 is efmesh format --check over every model of
// a 2,000-model project whose files all change: one load, one workbench,
// the own hashes of every file before and after in one batch.
func BenchmarkFormatCheck2000(b *testing.B) {
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: 2000, Wide: true}); err != nil {
		b.Fatal(err)
	}
	files := 0
	for b.Loop() {
		out, err := workspace.Format(context.Background(), dir, nil, false)
		if err != nil {
			b.Fatal(err)
		}
		files = 0
		for _, f := range out {
			if f.Problem != "" {
				b.Fatalf("%s: %s", f.File, f.Problem)
			}
			if f.Changed {
				files++
			}
		}
	}
	if files == 0 {
		b.Fatal("no file would change")
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/float64(files), "ms/changed-file")
}
