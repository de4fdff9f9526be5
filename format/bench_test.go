package format

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/internal/gen"
)

// BenchmarkFormat2000 lays out every model of the generated 2,000-model
// project (wide models: 30 columns, joins, window functions) and reports
// the time per model: what formatting on save costs.
func BenchmarkFormat2000(b *testing.B) {
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: 2000, Wide: true}); err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "models", "*", "*.sql"))
	var srcs [][]byte
	size := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
		size += len(src)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		for _, src := range srcs {
			if _, err := Source(src); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(len(srcs)), "ms/model")
}
