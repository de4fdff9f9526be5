package planner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state/sqlite"
)

var benchSizes = []int{100, 500, 2000}

type benchEnv struct {
	dir string
	wb  *duckdb.DB
	wh  *duckdb.DB
	st  *sqlite.Store
}

func newBenchEnv(b *testing.B, n int) *benchEnv {
	b.Helper()
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: n}); err != nil {
		b.Fatal(err)
	}
	e := &benchEnv{dir: dir}
	var err error
	if e.wb, err = duckdb.Open(""); err != nil {
		b.Fatal(err)
	}
	if e.wh, err = duckdb.Open(""); err != nil {
		b.Fatal(err)
	}
	if e.st, err = sqlite.Open(context.Background(), filepath.Join(dir, ".efmesh", "state.db")); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.st.Close(); e.wh.Close(); e.wb.Close() })
	return e
}

// analyze loads and checks the project.
func (e *benchEnv) analyze(b *testing.B) *analysis.Analysis {
	p, err := project.Load(e.dir)
	if err != nil {
		b.Fatal(err)
	}
	a, err := analysis.Analyze(context.Background(), p, e.wb)
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// plan loads, analyzes and plans the project, as `efmesh plan` does.
func (e *benchEnv) plan(b *testing.B, env string) *Plan {
	pl, err := MakePlan(context.Background(), e.analyze(b), e.st, env)
	if err != nil {
		b.Fatal(err)
	}
	return pl
}

func BenchmarkPlanCold(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := newBenchEnv(b, n)
			for b.Loop() {
				e.plan(b, "dev")
			}
		})
	}
}

func BenchmarkPlanNoop(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := newBenchEnv(b, n)
			if _, err := Apply(context.Background(), e.plan(b, "dev"), e.wh, e.st, ApplyOptions{}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if p := e.plan(b, "dev"); p.HasChanges {
					b.Fatal("no-op plan has changes")
				}
			}
		})
	}
}

func BenchmarkApply(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				e := newBenchEnv(b, n)
				p := e.plan(b, "dev")
				b.StartTimer()
				if _, err := Apply(context.Background(), p, e.wh, e.st, ApplyOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyFloor runs the statements an apply issues directly on
// DuckDB (the builds, then the environment's views in one transaction):
// the floor apply is measured against.
func BenchmarkApplyFloor(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := newBenchEnv(b, n)
			p := e.plan(b, "dev")
			bl := &builder{a: p.analysis, d: e.wh.Dialect(), wh: e.wh, root: p.analysis.Project.Root}
			var stmts []string
			stmts = append(stmts, e.wh.Dialect().CreateSchema(analysis.PhysicalSchema))
			for _, mp := range p.Models {
				info := p.analysis.Models[mp.Name]
				if info.Model.Kind.Name.Virtual() {
					continue // read in place by its consumers
				}
				q, err := bl.Query(info)
				if err != nil {
					b.Fatal(err)
				}
				rel := analysis.PhysicalRelation(e.wh.Dialect(), info.Model, info.Fingerprint)
				stmts = append(stmts, e.wh.Dialect().ReplaceTableAs(rel, q)...)
			}
			// The environment's views, in one transaction, as apply promotes.
			var views []string
			schemas := map[string]bool{}
			for _, mp := range p.Models {
				m := p.analysis.Models[mp.Name].Model
				if m.Kind.Name.Virtual() {
					continue
				}
				rel := analysis.EnvRelation(e.wh.Dialect(), p.Env, m)
				if !schemas[rel.Schema] {
					schemas[rel.Schema] = true
					views = append(views, e.wh.Dialect().CreateSchema(rel.Schema))
				}
				views = append(views, e.wh.Dialect().ReplaceView(rel, "SELECT * FROM "+e.wh.Dialect().QuoteRelation(analysis.PhysicalRelation(e.wh.Dialect(), m, mp.Fingerprint))))
			}
			script := strings.Join(stmts, ";\n")
			for b.Loop() {
				b.StopTimer()
				wh, err := duckdb.Open("")
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := wh.Exec(context.Background(), script); err != nil {
					b.Fatal(err)
				}
				if err := wh.Tx(context.Background(), views); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				wh.Close()
				b.StartTimer()
			}
		})
	}
}

func BenchmarkPromote(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := newBenchEnv(b, n)
			if _, err := Apply(context.Background(), e.plan(b, "dev"), e.wh, e.st, ApplyOptions{}); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				p := e.plan(b, fmt.Sprintf("env%d", i))
				if p.Builds() != 0 {
					b.Fatal("promotion builds")
				}
				b.StartTimer()
				if _, err := Apply(context.Background(), p, e.wh, e.st, ApplyOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMakePlanNoop is the diff alone: an analyzed project against an
// environment that already holds it (reading the store included).
func BenchmarkMakePlanNoop(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := newBenchEnv(b, n)
			ctx := context.Background()
			if _, err := Apply(ctx, e.plan(b, "dev"), e.wh, e.st, ApplyOptions{}); err != nil {
				b.Fatal(err)
			}
			a := e.analyze(b)
			for b.Loop() {
				if pl, err := MakePlan(ctx, a, e.st, "dev"); err != nil || pl.HasChanges {
					b.Fatal("no-op plan has changes", err)
				}
			}
		})
	}
}

// BenchmarkCheckWarehouse is the presence check against an applied
// warehouse (every physical table and environment view listed, with
// their columns, and matched against what the store says), at a few
// thousand relations, as a plan makes it (checkWarehouse) and as status
// does: its cost must grow with the catalog, not with (relations asked
// for × relations listed).
func BenchmarkCheckWarehouse(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := newBenchEnv(b, n)
			ctx := context.Background()
			if _, err := Apply(ctx, e.plan(b, "dev"), e.wh, e.st, ApplyOptions{}); err != nil {
				b.Fatal(err)
			}
			p := e.plan(b, "dev")
			cat, err := catalogOf(e.wh)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("plan", func(b *testing.B) {
				for b.Loop() {
					ds, err := p.checkWarehouse(ctx, e.st, cat)
					if err != nil || len(ds) != 0 || p.HasChanges {
						b.Fatal("an applied warehouse is not whole", err, ds)
					}
				}
			})
			b.Run("status", func(b *testing.B) {
				cfg := p.analysis.Project.Config
				for b.Loop() {
					s, err := GetStatus(ctx, e.st, cfg, "dev", time.Now(), 1, StatusWarehouse(e.wh, e.dir))
					if err != nil || len(s.Missing) != 0 {
						b.Fatal("an applied warehouse is not whole", err, s.Missing)
					}
				}
			})
		})
	}
}
