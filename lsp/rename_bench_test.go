package lsp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"
)

// BenchmarkRenameColumn measures renaming a column at a use: `p.id` of
// the middle model of a chain, a column each model of the chain passes
// on by a bare reference, so the rename reaches the rest of the chain
// and every unit test and audit file is looked at once per carrier.
func BenchmarkRenameColumn(b *testing.B) {
	benchColumnRequest(b, "textDocument/rename", map[string]any{"newName": "ident"})
}

// BenchmarkReferencesColumn measures finding the uses of the same column.
func BenchmarkReferencesColumn(b *testing.B) {
	benchColumnRequest(b, "textDocument/references", map[string]any{"context": map[string]any{"includeDeclaration": true}})
}

func benchColumnRequest(b *testing.B, method string, extra map[string]any) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			root := writeBenchProject(b, n)
			c := newTestClient(b, root, clientOptions{})
			rel := fmt.Sprintf("models/m/c%05d_2.sql", n/10)
			c.open(rel)
			c.waitIdle()
			params := c.docPos(rel, "SELECT p.i|d")
			for k, v := range extra {
				params[k] = v
			}
			var times []time.Duration
			var out json.RawMessage
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				c.mustCall(method, params, &out)
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			if len(out) < 10 {
				b.Fatalf("%s answered %s", method, out)
			}
			reportPercentiles(b, times)
		})
	}
}
