package lsp

import (
	"fmt"
	"testing"
	"time"

	"github.com/efmesh/efmesh/internal/gen"
)

// BenchmarkEditMacros is BenchmarkEdit on the macro twins of 2,000 models
// (gen's project, as scripts/bench --macros: half the models call project
// macros, or write the same SQL out): a model that calls macros in the
// calls twin alternately breaks (an unknown column) and is fixed again.
func BenchmarkEditMacros(b *testing.B) {
	for _, tw := range []struct {
		name   string
		macros gen.Macros
	}{{"calls", gen.MacroCalls}, {"by-hand", gen.MacrosByHand}} {
		b.Run(tw.name, func(b *testing.B) {
			const n = 2000
			root := b.TempDir()
			if _, err := gen.Write(root, gen.Options{Models: n, Macros: tw.macros}); err != nil {
				b.Fatal(err)
			}
			c := newTestClient(b, root, clientOptions{})
			rel := fmt.Sprintf("models/m/model_%05d.sql", (n/10)*5+2)
			c.open(rel)
			c.waitIdle()
			var times []time.Duration
			stop := profileEdits(b)
			b.ResetTimer()
			for i := range b.N {
				broken := i%2 == 0
				start := time.Now()
				if broken {
					c.replace(rel, "label, ts", "labl, ts")
				} else {
					c.replace(rel, "labl, ts", "label, ts")
				}
				c.waitFor("diagnostics", func() bool { return (len(c.diagnostics(rel)) > 0) == broken })
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			stop()
			reportPercentiles(b, times)
		})
	}
}
