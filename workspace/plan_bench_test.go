package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/workspace"
	"github.com/efmesh/efmesh/workspace/digest"
)

// The sizes of issue #19's benchmark project (scripts/bench measures the
// whole processes; these are the same paths in-process, for profiles):
//
//	go test ./workspace -run '^$' -bench 'Plan/noop/2000$' -benchtime 20x -cpuprofile /tmp/noop.prof
//	go tool pprof -top -nodecount 5 workspace.test /tmp/noop.prof
//
// A cold plan's growth shows by comparing the profiles of two sizes (the
// anchored pattern leaves out the other benchmarks whose names hold Plan):
//
//	go test ./workspace -run '^$' -bench '^BenchmarkPlan$/^cold$/^10000$' -benchtime 1x -cpuprofile /tmp/c10.prof
//
// quick is what `efmesh plan dev` of an unchanged project does first: the
// answer of the no-op digest (Lookup), with the state file's stamps kept.
var planBenchSizes = []int{100, 500, 2000, 10000}

// benchProject is a fresh clone of the generated project: N FULL models in
// chains of five over one 1,000-row source, DuckDB in a file.
func benchProject(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: n, Warehouse: "efmesh.duckdb"}); err != nil {
		b.Fatal(err)
	}
	return dir
}

// plan is `efmesh plan env`: open (load, check through the cache next to
// the state store), plan against the store and the warehouse.
func plan(b *testing.B, dir, env string) bool {
	ctx := context.Background()
	w, err := workspace.Open(ctx, dir, workspace.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	p, err := w.Plan(ctx, env)
	if err != nil {
		b.Fatal(err)
	}
	return p.HasChanges
}

// BenchmarkPlan measures `efmesh plan dev` in-process: cold (a fresh clone:
// no .efmesh, so every model reaches DuckDB), warm (the check cache filled,
// nothing applied yet), noop (the project applied, nothing changed: the
// full path) and quick (the same, answered by the no-op digest).
func BenchmarkPlan(b *testing.B) {
	for _, mode := range []string{"cold", "warm", "noop", "quick"} {
		for _, n := range planBenchSizes {
			b.Run(mode+"/"+strconv.Itoa(n), func(b *testing.B) {
				dir := benchProject(b, n)
				switch mode {
				case "warm":
					plan(b, dir, "dev")
				case "noop", "quick":
					ctx := context.Background()
					w, err := workspace.Open(ctx, dir, workspace.OpenOptions{})
					if err != nil {
						b.Fatal(err)
					}
					_, err = w.Apply(ctx, "dev", workspace.ApplyRequest{})
					w.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
				if mode == "quick" {
					quickBench(b, dir)
					return
				}
				for b.Loop() {
					if mode == "cold" {
						b.StopTimer()
						if err := os.RemoveAll(filepath.Join(dir, ".efmesh")); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					if changes := plan(b, dir, "dev"); changes != (mode != "noop") {
						b.Fatalf("%s plan: changes %v", mode, changes)
					}
				}
			})
		}
	}
}

// BenchmarkCheckOne measures the check of a project in which one model
// changed since the check cache was filled: the changed model reaches
// DuckDB, every other model is answered by the cache (its parents'
// schemas did not change). Each iteration changes the model again, so
// every iteration is a miss.
func BenchmarkCheckOne(b *testing.B) {
	for _, n := range planBenchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := benchProject(b, n)
			ctx := context.Background()
			wb, err := duckdb.Open("")
			if err != nil {
				b.Fatal(err)
			}
			defer wb.Close()
			cache := analysis.OpenFileCache(filepath.Join(b.TempDir(), "check.gob"))
			p, err := workspace.Load(dir, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := analysis.AnalyzeWith(ctx, p, wb, analysis.AnalyzeOptions{Cache: cache}); err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(dir, "models", "m", fmt.Sprintf("model_%05d.sql", (n/10)*5+2))
			src, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			i, checked := 0, 0
			for b.Loop() {
				b.StopTimer()
				i++
				text := strings.Replace(string(src), "WHERE id >= 0", fmt.Sprintf("WHERE id >= %d", -i), 1)
				p, err := workspace.Load(dir, map[string][]byte{path: []byte(text)})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				a, err := analysis.AnalyzeWith(ctx, p, wb, analysis.AnalyzeOptions{Cache: cache})
				if err != nil {
					b.Fatal(err)
				}
				checked += len(a.Checked)
			}
			b.ReportMetric(float64(checked)/float64(i), "checked/op")
		})
	}
}

// quickBench measures Lookup of dir, applied and unchanged: the digest
// is left by a plain plan, and the state file's stamps kept (the apply of
// the CLI does so; here the state file is aged past the clock's tick).
func quickBench(b *testing.B, dir string) {
	ctx := context.Background()
	req := workspace.NoopRequest{Env: "dev", Now: time.Now()}
	w, err := workspace.Open(ctx, dir, workspace.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := w.Plan(ctx, "dev")
	if err == nil {
		err = w.RememberNoop(req, p)
	}
	w.Close()
	if err != nil {
		b.Fatal(err)
	}
	if !digest.Settle(ctx, dir, req) {
		b.Fatal("the no-op digest missed")
	}
	for b.Loop() {
		hit, ok := digest.Lookup(ctx, dir, req)
		if !ok || !hit.ByStamps {
			b.Fatalf("quick plan: hit %v, by the state file's stamps %v", ok, hit.ByStamps)
		}
	}
}

// BenchmarkLongLiteral measures `efmesh plan dev` (cold: no .efmesh) and
// `efmesh apply dev` of a project whose one model holds one long string
// literal (SELECT '<N MB of x>' AS s): what a literal's size costs.
//
//	go test ./workspace -run '^$' -bench LongLiteral -benchtime 1x
func BenchmarkLongLiteral(b *testing.B) {
	for _, mb := range []int{5, 50} {
		for _, step := range []string{"plan", "apply"} {
			b.Run(step+"/"+strconv.Itoa(mb)+"MB", func(b *testing.B) {
				body := "MODEL (name core.big, kind FULL);\nSELECT '" + strings.Repeat("x", mb<<20) + "' AS s\n"
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					b.StopTimer()
					dir := b.TempDir()
					yaml := "name: big\nstart: 2026-01-01\nengine: {type: duckdb, path: efmesh.duckdb}\nstate: {type: sqlite, path: .efmesh/state.db}\n"
					if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
						b.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, "efmesh.yaml"), []byte(yaml), 0o644); err != nil {
						b.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, "models", "big.sql"), []byte(body), 0o644); err != nil {
						b.Fatal(err)
					}
					if step == "apply" {
						plan(b, dir, "dev") // the check cache filled, as after a plan
					}
					b.StartTimer()
					if step == "plan" {
						plan(b, dir, "dev")
						continue
					}
					ctx := context.Background()
					w, err := workspace.Open(ctx, dir, workspace.OpenOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := w.Apply(ctx, "dev", workspace.ApplyRequest{}); err != nil {
						b.Fatal(err)
					}
					w.Close()
				}
			})
		}
	}
}
