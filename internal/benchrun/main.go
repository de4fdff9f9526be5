// Command benchrun measures plan, apply and promotion on generated projects
// and prints one table; scripts/bench runs it. Each size runs in its own
// process so peak memory is that size's alone.
//
// The steps are the library calls the CLI makes, in-process, on an
// in-memory DuckDB with the state store in a temporary SQLite file (the
// shape of DESIGN.md §9), plus the floor: the same statements run directly
// on DuckDB.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state/sqlite"
)

// result is one size's measurements, in milliseconds and megabytes.
type result struct {
	N            int     `json:"n"`
	ColdPlan     float64 `json:"coldPlanMs"`
	CachedPlan   float64 `json:"cachedPlanMs"`
	Apply        float64 `json:"applyMs"`
	ApplyFloor   float64 `json:"applyFloorMs"`
	NoopPlan     float64 `json:"noopPlanMs"`
	Promote      float64 `json:"promoteMs"`
	PromoteFloor float64 `json:"promoteFloorMs"`
	PeakMB       float64 `json:"peakMB"`
	// CPU time (user + system, every thread) of the same steps: on a
	// shared machine the ratios of CPU times hold where wall times do not.
	ApplyCPU        float64 `json:"applyCPUMs"`
	ApplyFloorCPU   float64 `json:"applyFloorCPUMs"`
	PromoteCPU      float64 `json:"promoteCPUMs"`
	PromoteFloorCPU float64 `json:"promoteFloorCPUMs"`
	CheckedCold     int     `json:"checkedCold"`
	CheckedNoop     int     `json:"checkedNoop"`
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-one" {
		n, err := strconv.Atoi(os.Args[2])
		if err != nil {
			fail(err)
		}
		r, err := measure(n)
		if err != nil {
			fail(err)
		}
		json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	sizes := []int{100, 500, 2000}
	if len(os.Args) > 1 {
		sizes = nil
		for _, a := range os.Args[1:] {
			n, err := strconv.Atoi(a)
			if err != nil || n < 1 {
				fail(fmt.Errorf("sizes are positive integers, got %q", a))
			}
			sizes = append(sizes, n)
		}
	}
	var rows []result
	for _, n := range sizes {
		fmt.Fprintf(os.Stderr, "measuring N = %d …\n", n)
		cmd := exec.Command(os.Args[0], "-one", strconv.Itoa(n))
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			fail(fmt.Errorf("size %d: %w", n, err))
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			fail(err)
		}
		r.PeakMB = peakOf(cmd)
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].N < rows[j].N })
	print(rows)
}

func peakOf(cmd *exec.Cmd) float64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return 0
}

func print(rows []result) {
	fmt.Printf("%-34s", "step (ms; budget at N=2000)")
	for _, r := range rows {
		fmt.Printf("%12s", "N="+strconv.Itoa(r.N))
	}
	fmt.Println()
	line := func(name string, f func(r result) string) {
		fmt.Printf("%-34s", name)
		for _, r := range rows {
			fmt.Printf("%12s", f(r))
		}
		fmt.Println()
	}
	ms := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	line("cold plan, no check cache", func(r result) string { return ms(r.ColdPlan) })
	line("cold plan, check cache (≤ 200)", func(r result) string { return ms(r.CachedPlan) })
	line("apply, build all", func(r result) string { return ms(r.Apply) })
	line("  floor: same SQL on DuckDB", func(r result) string { return ms(r.ApplyFloor) })
	line("  apply / floor (≤ 1.3×)", func(r result) string { return fmt.Sprintf("%.2f×", r.Apply/r.ApplyFloor) })
	line("no-op plan (≤ 10)", func(r result) string { return ms(r.NoopPlan) })
	line("promote to prod, views only", func(r result) string { return ms(r.Promote) })
	line("  floor: same views on DuckDB", func(r result) string { return ms(r.PromoteFloor) })
	line("  promote / floor (≤ 1.3×)", func(r result) string { return fmt.Sprintf("%.2f×", r.Promote/r.PromoteFloor) })
	line("  CPU time: apply / floor", func(r result) string { return fmt.Sprintf("%.2f×", r.ApplyCPU/r.ApplyFloorCPU) })
	line("  CPU time: promote / floor", func(r result) string { return fmt.Sprintf("%.2f×", r.PromoteCPU/r.PromoteFloorCPU) })
	line("peak memory, MB (≤ 150)", func(r result) string { return strconv.FormatFloat(r.PeakMB, 'f', 0, 64) })
	line("models checked: cold / no-op", func(r result) string { return fmt.Sprintf("%d / %d", r.CheckedCold, r.CheckedNoop) })
}

// profile writes a CPU profile of one step when $EFMESH_BENCH_PROFILE is
// "<step>:<file>" (steps: cold, apply, noop, promote).
func profile(step string) (stop func()) {
	want, file, ok := strings.Cut(os.Getenv("EFMESH_BENCH_PROFILE"), ":")
	if !ok || want != step {
		return func() {}
	}
	f, err := os.Create(file)
	if err != nil {
		fail(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fail(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}

func since(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// cpu is the CPU time the process has used so far, in milliseconds.
func cpu() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// measure runs every step once on a fresh project of n models.
func measure(n int) (result, error) {
	r := result{N: n}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "efmesh-bench-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	if _, err := gen.Write(dir, gen.Options{Models: n}); err != nil {
		return r, err
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		return r, err
	}
	defer st.Close()
	wh, err := duckdb.Open("")
	if err != nil {
		return r, err
	}
	defer wh.Close()
	cachePath := filepath.Join(dir, ".efmesh", "cache", "check.gob")

	// plan is what `efmesh plan` does: load, check (with the cache), diff.
	plan := func(env string, cache bool) (*planner.Plan, *analysis.Analysis, error) {
		p, err := project.Load(dir)
		if err != nil {
			return nil, nil, err
		}
		wb, err := duckdb.Open("")
		if err != nil {
			return nil, nil, err
		}
		defer wb.Close()
		opt := analysis.AnalyzeOptions{}
		var fc *analysis.FileCache
		if cache {
			fc = analysis.OpenFileCache(cachePath)
			opt.Cache = fc
		}
		a, err := analysis.AnalyzeWith(ctx, p, wb, opt)
		if err != nil {
			return nil, nil, err
		}
		if fc != nil {
			if err := fc.Save(); err != nil {
				return nil, nil, err
			}
		}
		pl, err := planner.MakePlan(ctx, a, st, env)
		return pl, a, err
	}

	stop := profile("cold")
	t := time.Now()
	_, a, err := plan("dev", false)
	if err != nil {
		return r, err
	}
	r.ColdPlan = since(t)
	stop()
	r.CheckedCold = len(a.Checked)
	if _, _, err := plan("dev", true); err != nil { // fills the cache
		return r, err
	}
	t = time.Now()
	p, _, err := plan("dev", true)
	if err != nil {
		return r, err
	}
	r.CachedPlan = since(t)

	stop = profile("apply")
	t, c := time.Now(), cpu()
	if _, err := planner.Apply(ctx, p, wh, st, planner.ApplyOptions{}); err != nil {
		return r, err
	}
	r.Apply, r.ApplyCPU = since(t), cpu()-c
	stop()

	if r.ApplyFloor, r.ApplyFloorCPU, err = applyFloor(ctx, p, wh); err != nil {
		return r, err
	}

	stop = profile("noop")
	t = time.Now()
	p, a, err = plan("dev", true)
	if err != nil {
		return r, err
	}
	r.NoopPlan = since(t)
	stop()
	r.CheckedNoop = len(a.Checked)
	if p.HasChanges {
		return r, fmt.Errorf("the no-op plan has changes")
	}

	pp, _, err := plan("prod", true)
	if err != nil {
		return r, err
	}
	stop = profile("promote")
	t, c = time.Now(), cpu()
	if _, err := planner.Apply(ctx, pp, wh, st, planner.ApplyOptions{}); err != nil {
		return r, err
	}
	r.Promote, r.PromoteCPU = since(t), cpu()-c
	stop()
	r.PromoteFloor, r.PromoteFloorCPU, err = promoteFloor(ctx, pp, wh)
	return r, err
}

// applyFloor runs the statements the apply ran on the warehouse — the
// CREATE of every table and view it built, then the environment's views in
// one transaction — on a fresh DuckDB.
func applyFloor(ctx context.Context, p *planner.Plan, wh *duckdb.DB) (ms, cpuMs float64, err error) {
	var stmts []string
	d := wh.Dialect()
	stmts = append(stmts, d.CreateSchema(analysis.PhysicalSchema))
	for _, mp := range p.Models {
		if !mp.Build {
			continue
		}
		q, err := planner.Render(p.Analysis(), wh, mp.Name, "", time.Now())
		if err != nil {
			return 0, 0, err
		}
		s, t, _ := strings.Cut(mp.PhysicalTable, ".")
		rel := engine.Relation{Schema: s, Name: t}
		if mp.Kind == string(project.KindView) {
			stmts = append(stmts, d.ReplaceView(rel, q))
		} else {
			stmts = append(stmts, d.ReplaceTableAs(rel, q)...)
		}
	}
	// The environment's views, in one transaction, as apply promotes.
	var views []string
	schemas := map[string]bool{}
	for _, mp := range p.Models {
		if project.KindName(mp.Kind).Virtual() {
			continue // read in place: no view
		}
		s, t, _ := strings.Cut(mp.Name, ".")
		rel := engine.Relation{Schema: analysis.EnvSchema(d, p.Env, s), Name: t}
		if !schemas[rel.Schema] {
			schemas[rel.Schema] = true
			views = append(views, d.CreateSchema(rel.Schema))
		}
		ps, pt, _ := strings.Cut(mp.PhysicalTable, ".")
		views = append(views, d.ReplaceView(rel, "SELECT * FROM "+d.QuoteRelation(engine.Relation{Schema: ps, Name: pt})))
	}
	db, err := duckdb.Open("")
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	t, c := time.Now(), cpu()
	for _, s := range stmts {
		if err := db.Exec(ctx, s); err != nil {
			return 0, 0, err
		}
	}
	if err := db.Tx(ctx, views); err != nil {
		return 0, 0, err
	}
	return since(t), cpu() - c, nil
}

// promoteFloor creates the same views again, in one transaction.
func promoteFloor(ctx context.Context, p *planner.Plan, wh *duckdb.DB) (ms, cpuMs float64, err error) {
	d := wh.Dialect()
	var stmts []string
	schemas := map[string]bool{}
	for _, mp := range p.Models {
		if project.KindName(mp.Kind).Virtual() {
			continue
		}
		s, t, _ := strings.Cut(mp.Name, ".")
		rel := engine.Relation{Schema: "floor__" + s, Name: t}
		if !schemas[rel.Schema] {
			schemas[rel.Schema] = true
			stmts = append(stmts, d.CreateSchema(rel.Schema))
		}
		ps, pt, _ := strings.Cut(mp.PhysicalTable, ".")
		stmts = append(stmts, d.ReplaceView(rel, "SELECT * FROM "+d.QuoteRelation(engine.Relation{Schema: ps, Name: pt})))
	}
	t, c := time.Now(), cpu()
	if err := wh.Tx(ctx, stmts); err != nil {
		return 0, 0, err
	}
	return since(t), cpu() - c, nil
}
