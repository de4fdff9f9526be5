package lsp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"
)

// BenchmarkFormatting measures textDocument/formatting of a model whose
// layout changes (the request is answered with an edit, after the
// fingerprint check on the view's workbench): what formatting on save
// costs in a project of each size.
func BenchmarkFormatting(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			root := writeBenchProject(b, n)
			c := newTestClient(b, root, clientOptions{})
			rel := fmt.Sprintf("models/m/c%05d_2.sql", n/10)
			c.open(rel)
			// An untidy buffer: the answer is an edit, checked first.
			c.replace(rel, "SELECT p.id, p.value + 1 AS value, p.ts\nFROM", "select p.id,\n  p.value+1 as value, p.ts from")
			c.waitIdle()
			params := map[string]any{"textDocument": map[string]any{"uri": c.uri(rel)}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}
			var times []time.Duration
			var out json.RawMessage
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				c.mustCall("textDocument/formatting", params, &out)
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			if len(out) < 10 {
				b.Fatalf("formatting answered %s", out)
			}
			reportPercentiles(b, times)
		})
	}
}
