package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The benchmark project of DESIGN.md §9: n FULL models in chains of five
// over one EXTERNAL table.
func writeBenchProject(b testing.TB, n int) string { return writeBenchProjectWith(b, n, false) }

// writeBenchProjectWith is writeBenchProject; with brokenLeaves the last
// model of every chain reads a column its parent lacks (as scripts/bench
// does), so a fifth of the files have a diagnostic to publish.
func writeBenchProjectWith(b testing.TB, n int, brokenLeaves bool) string {
	b.Helper()
	root := b.TempDir()
	write := func(rel, text string) {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("efmesh.yaml", "name: bench\n")
	write("models/raw/events.sql", `MODEL (
  name raw.events,
  kind EXTERNAL (table src.events),
  columns (id INTEGER, value DOUBLE, ts TIMESTAMP)
);
`)
	for i := range n {
		chain, step := i/5, i%5
		parent := "raw.events"
		if step > 0 {
			parent = benchModel(chain, step-1)
		}
		col := "value"
		if brokenLeaves && step == 4 {
			col = "valu"
		}
		write(fmt.Sprintf("models/m/c%05d_%d.sql", chain, step), fmt.Sprintf(`MODEL (
  name %s,
  kind FULL,
  grain (id),
  columns (id INTEGER, value DOUBLE, ts TIMESTAMP)
);

SELECT p.id, p.%s + 1 AS value, p.ts
FROM @ref(%s) AS p
WHERE p.value > 0
`, benchModel(chain, step), col, parent))
	}
	return root
}

func benchModel(chain, step int) string { return fmt.Sprintf("m.c%05d_%d", chain, step) }

var benchSizes = []int{100, 500, 2000, 10000}

// BenchmarkInitialize measures initialize → every file checked and its
// diagnostics published, on a fresh server each time: cold (no check
// cache; every model reaches DuckDB) and warm (the cache `efmesh plan` or
// an earlier session left in .efmesh/cache); warm-leaves is warm with an
// error in the last model of every chain, as in scripts/bench.
//
// peakRSS-MB is the process's high-water mark: for a clean number run one
// size alone, e.g. -bench 'Initialize/cold/2000$' -benchtime 1x.
func BenchmarkInitialize(b *testing.B) {
	for _, mode := range []string{"cold", "warm", "warm-leaves"} {
		for _, n := range benchSizes {
			b.Run(mode+"/"+strconv.Itoa(n), func(b *testing.B) {
				root := writeBenchProjectWith(b, n, mode == "warm-leaves")
				cache := filepath.Join(root, ".efmesh")
				if mode != "cold" {
					c := newTestClient(b, root, clientOptions{})
					c.waitIdle()
					c.shutdown()
				}
				stop := profileOpens(b)
				b.ResetTimer()
				for range b.N {
					if mode == "cold" {
						b.StopTimer()
						if err := os.RemoveAll(cache); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					c := newTestClient(b, root, clientOptions{})
					c.waitIdle()
					b.StopTimer()
					c.shutdown()
					b.StartTimer()
				}
				b.StopTimer()
				stop()
				reportPeakRSS(b)
			})
		}
	}
}

// profileOpens is profileEdits for the opens of BenchmarkInitialize
// ($EFMESH_OPEN_PROFILE): the warm mode's first, cold, session is left out.
func profileOpens(b *testing.B) func() {
	return profileTo(b, os.Getenv("EFMESH_OPEN_PROFILE"))
}

// BenchmarkEdit measures one edit → its diagnostics, debounce included:
// the middle model of a chain alternately breaks (an unknown column) and
// is fixed again, so each edit changes what is published.
func BenchmarkEdit(b *testing.B) { benchEdit(b, false) }

// BenchmarkEditLeaves is BenchmarkEdit with an error in the last model of
// every chain, as in scripts/bench: a fifth of the files hold published
// diagnostics while the edits go on.
func BenchmarkEditLeaves(b *testing.B) { benchEdit(b, true) }

func benchEdit(b *testing.B, brokenLeaves bool) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			root := writeBenchProjectWith(b, n, brokenLeaves)
			c := newTestClient(b, root, clientOptions{})
			rel := fmt.Sprintf("models/m/c%05d_2.sql", n/10)
			c.open(rel)
			c.waitIdle()
			var times []time.Duration
			stop := profileEdits(b)
			b.ResetTimer()
			for i := range b.N {
				broken := i%2 == 0
				start := time.Now()
				if broken {
					c.replace(rel, "p.value + 1", "p.valu + 1")
				} else {
					c.replace(rel, "p.valu + 1", "p.value + 1")
				}
				c.waitFor("diagnostics", func() bool { return (len(c.diagnostics(rel)) > 0) == broken })
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			stop()
			writeHeap(b)
			reportPercentiles(b, times)
			reportPeakRSS(b)
		})
	}
}

// profileEdits starts a CPU profile of the edits alone (the opening of the
// project left out, unlike -cpuprofile) when $EFMESH_EDIT_PROFILE names a
// file; the returned function stops it.
func profileEdits(b *testing.B) func() {
	return profileTo(b, os.Getenv("EFMESH_EDIT_PROFILE"))
}

// writeHeap writes what the heap holds (after a collection) to
// $EFMESH_HEAP_PROFILE when it is set: the server is still running, so the
// profile is what it keeps between edits (-memprofile is written after
// the server ended).
func writeHeap(b *testing.B) {
	path := os.Getenv("EFMESH_HEAP_PROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// profileTo starts a CPU profile into path, when it is not empty; the
// returned function stops it.
func profileTo(b *testing.B, path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// BenchmarkHover measures a hover on a column of a parent.
func BenchmarkHover(b *testing.B) {
	benchRequest(b, "textDocument/hover", "p.val|ue + 1")
}

// BenchmarkCompletion measures completion of a parent's columns after its
// alias, of model names in @ref(, and by clause: a select item's start
// (columns in scope, aliases, keywords), a word typed there (the same and
// the engine's functions of that prefix), and the keywords after a
// relation.
func BenchmarkCompletion(b *testing.B) {
	b.Run("column", func(b *testing.B) { benchRequest(b, "textDocument/completion", "p.|value + 1") })
	b.Run("ref", func(b *testing.B) { benchRequest(b, "textDocument/completion", "@ref(|") })
	b.Run("select-item", func(b *testing.B) { benchRequest(b, "textDocument/completion", "SELECT |p.id") })
	b.Run("select-prefix", func(b *testing.B) { benchRequest(b, "textDocument/completion", "SELECT p|.id") })
	b.Run("after-relation", func(b *testing.B) { benchRequest(b, "textDocument/completion", "AS p\n|WHERE") })
}

// BenchmarkDefinition measures going to a parent's column.
func BenchmarkDefinition(b *testing.B) {
	benchRequest(b, "textDocument/definition", "p.val|ue + 1")
}

func benchRequest(b *testing.B, method, marker string) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			root := writeBenchProject(b, n)
			c := newTestClient(b, root, clientOptions{})
			rel := fmt.Sprintf("models/m/c%05d_2.sql", n/10)
			c.open(rel)
			c.waitIdle()
			params := c.docPos(rel, marker)
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
			reportPeakRSS(b)
		})
	}
}

func reportPercentiles(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	pct := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}

// reportPeakRSS reports the process's peak resident memory (Linux).
func reportPeakRSS(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-MB")
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if kb, err := strconv.Atoi(f[1]); err == nil {
				b.ReportMetric(float64(kb)/1024, "peakRSS-MB")
			}
		}
	}
}
