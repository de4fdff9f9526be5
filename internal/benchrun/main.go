// Command benchrun measures efmesh the way a user meets it: whole processes
// of the real efmesh binary on a generated project (N FULL models in chains
// of five over one 1,000-row parquet source, DuckDB in a file, SQLite
// state), next to the floor — the same SQL run directly on DuckDB through
// the same driver, in one process of its own — and the language server
// driven over a pipe as an editor drives it. scripts/bench builds both
// binaries and runs it; see its header for profiling.
//
//	benchrun -efmesh <binary> [-json file] [-skip-lsp] [N …]
//	benchrun -efmesh <binary> -macros [-plans 7] [-sessions 3] [-json file] [N …]
//
// Every step of one size runs in one run, in order: cold plan from a fresh
// clone (no .efmesh, no warehouse), apply, no-op plan and apply, the
// apply's floor, promotions to prod and four more environments (each
// beside its floor), then the editor: open → every diagnostic without and
// with the check cache, 30 edits, 30 hovers and 30 completions.
//
// With -macros it compares the macro twins instead (macros.go): cold plans
// and editor edits of the project whose models call project macros beside
// the same SQL written out.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state/sqlite"
)

// step is one whole process: its wall time, CPU time (user and system,
// every thread: on a shared machine the wall time also counts the waits
// for a core) and peak resident memory.
type step struct {
	Ms     float64 `json:"ms"`
	CPUMs  float64 `json:"cpuMs"`
	PeakMB float64 `json:"peakMB"`
}

// noopRuns is how many times the no-op plan is timed again.
const noopRuns = 11

// promoteRuns is how many environments the applied plan is promoted to.
const promoteRuns = 5

// result is one size's measurements.
type result struct {
	N          int  `json:"n"`
	ColdPlan   step `json:"coldPlan"`
	Apply      step `json:"apply"`
	ApplyFloor step `json:"applyFloor"`
	NoopPlan   step `json:"noopPlan"`
	// NoopAgain is the same plan again, the median of noopRuns runs (a
	// process of a few milliseconds is timed as one sample of its spread):
	// the first plan after an apply may take the full path and save the
	// project's digest, the next ones answer from it (workspace/digest).
	NoopAgain step `json:"noopPlanAgain"`
	// NoopApply is an apply of the unchanged project (median of noopRuns):
	// nothing to build or promote.
	NoopApply    step    `json:"noopApply"`
	Promote      step    `json:"promote"`
	PromoteFloor step    `json:"promoteFloor"`
	LSP          *lspRes `json:"lsp,omitempty"`
	TotalSec     float64 `json:"totalSeconds"`
	Load         string  `json:"loadAverage"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-floor" {
		if err := floorChild(os.Args[2:]); err != nil {
			fail(err)
		}
		return
	}
	bin := flag.String("efmesh", "", "the efmesh binary to measure (required)")
	jsonOut := flag.String("json", "", "also write the results as JSON to this file")
	skipLSP := flag.Bool("skip-lsp", false, "leave out the language server's section")
	lspOnly := flag.Bool("lsp-only", false, "measure the language server's section alone")
	macros := flag.Bool("macros", false, "compare the macro twins instead: cold plan and editor edits of a project whose models call macros and of the same SQL written out")
	plans := flag.Int("plans", 7, "with -macros: cold plans per twin (the median is kept)")
	sessions := flag.Int("sessions", 3, "with -macros: editor sessions of 30 edits per twin (the median p95 is kept)")
	flag.Parse()
	if *bin == "" {
		fail(errors.New("-efmesh <binary> is required"))
	}
	abs, err := filepath.Abs(*bin)
	if err != nil {
		fail(err)
	}
	sizes := []int{2000}
	if flag.NArg() > 0 {
		sizes = nil
		for _, a := range flag.Args() {
			n, err := strconv.Atoi(a)
			if err != nil || n < 1 {
				fail(fmt.Errorf("sizes are positive integers, got %q", a))
			}
			sizes = append(sizes, n)
		}
	}
	if *macros {
		var rows []macroRes
		for _, n := range sizes {
			fmt.Fprintf(os.Stderr, "macro twins, N = %d (load average %s) …\n", n, loadAvg())
			r, err := measureMacros(context.Background(), abs, n, max(*plans, 1), max(*sessions, 1))
			if err != nil {
				fail(fmt.Errorf("size %d: %w", n, err))
			}
			rows = append(rows, r)
		}
		printMacros(os.Stdout, rows)
		if *jsonOut != "" {
			b, _ := json.MarshalIndent(rows, "", "  ")
			if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
				fail(err)
			}
		}
		return
	}
	var rows []result
	for _, n := range sizes {
		fmt.Fprintf(os.Stderr, "measuring N = %d (load average %s) …\n", n, loadAvg())
		start := time.Now()
		var r result
		var err error
		if *lspOnly {
			r.N = n
			r.LSP, err = measureLSP(context.Background(), abs, n)
		} else {
			r, err = measure(context.Background(), abs, n, !*skipLSP)
		}
		if err != nil {
			fail(fmt.Errorf("size %d: %w", n, err))
		}
		r.TotalSec = time.Since(start).Seconds()
		r.Load = loadAvg()
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].N < rows[j].N })
	printTable(os.Stdout, rows)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rows, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}

// loadAvg is the machine's 1-, 5- and 15-minute load: the machine is
// shared, so a table says under which load it was taken.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cpuMs is a finished child's user and system CPU time (wait4's rusage).
func cpuMs(ps *os.ProcessState) float64 {
	return ms(ps.UserTime() + ps.SystemTime())
}

// peakMB is a finished child's peak resident memory (wait4's rusage).
func peakMB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return 0
}

// run times one whole process of name args in dir.
func run(dir, name string, args ...string) (step, string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	t := time.Now()
	err := cmd.Run()
	s := step{Ms: ms(time.Since(t))}
	if cmd.ProcessState != nil {
		s.PeakMB = peakMB(cmd.ProcessState)
		s.CPUMs = cpuMs(cmd.ProcessState)
	}
	if err != nil {
		return s, out.String(), fmt.Errorf("%s %s: %w\n%s%s", filepath.Base(name), strings.Join(args, " "), err, out.String(), errb.String())
	}
	return s, out.String(), nil
}

// median runs the command noopRuns times in dir, each of which must
// print want first, and returns the run of median wall time, with the
// highest peak RSS of all.
func median(dir, bin, want string, args ...string) (step, error) {
	runs := make([]step, noopRuns)
	for i := range runs {
		s, out, err := run(dir, bin, args...)
		if err != nil {
			return s, err
		}
		if !strings.HasPrefix(out, want) {
			return s, fmt.Errorf("%s, run %d: want %q, got:\n%s", strings.Join(args, " "), i+1, want, out)
		}
		runs[i] = s
	}
	return medianStep(runs), nil
}

// medianStep is the run of median wall time, with the highest peak RSS of
// all runs.
func medianStep(runs []step) step {
	runs = slices.Clone(runs)
	slices.SortFunc(runs, func(a, b step) int { return cmp.Compare(a.Ms, b.Ms) })
	m := runs[len(runs)/2]
	m.PeakMB = slices.MaxFunc(runs, func(a, b step) int { return cmp.Compare(a.PeakMB, b.PeakMB) }).PeakMB
	return m
}

// writeProject writes a fresh clone of the benchmark project of n models
// into a new temporary folder: the sources only, no .efmesh and no
// warehouse. macros picks the plain project or one of the macro twins.
func writeProject(ctx context.Context, n int, macros gen.Macros) (string, error) {
	dir, err := os.MkdirTemp("", "efmesh-bench-")
	if err != nil {
		return "", err
	}
	if _, err := gen.Write(dir, gen.Options{Models: n, Warehouse: "efmesh.duckdb", Parquet: true, Macros: macros}); err != nil {
		return dir, err
	}
	db, err := duckdb.Open("")
	if err != nil {
		return dir, err
	}
	defer db.Close()
	csv, pq := filepath.Join(dir, gen.CSVData), filepath.Join(dir, gen.ParquetData)
	copySQL := fmt.Sprintf("COPY (SELECT * FROM read_csv(%s, header = true, columns = {'id': 'BIGINT', 'grp': 'INTEGER', 'amount': 'DOUBLE', 'label': 'TEXT', 'ts': 'TIMESTAMP'})) TO %s (FORMAT parquet)",
		engine.QuoteString(csv), engine.QuoteString(pq))
	if err := db.Exec(ctx, copySQL); err != nil {
		return dir, err
	}
	return dir, os.Remove(csv)
}

// measure runs every step of one size once, in order.
func measure(ctx context.Context, bin string, n int, withLSP bool) (result, error) {
	r := result{N: n}
	dir, err := writeProject(ctx, n, gen.NoMacros)
	defer os.RemoveAll(dir)
	if err != nil {
		return r, err
	}
	say := func(what string, s step) {
		fmt.Fprintf(os.Stderr, "  %-28s %9.1f ms (cpu %7.1f ms) %6.0f MB\n", what, s.Ms, s.CPUMs, s.PeakMB)
	}
	if r.ColdPlan, _, err = run(dir, bin, "plan", "dev"); err != nil {
		return r, err
	}
	say("cold plan (fresh clone)", r.ColdPlan)
	if r.Apply, _, err = run(dir, bin, "apply", "dev", "--yes"); err != nil {
		return r, err
	}
	say("apply dev", r.Apply)
	var out string
	if r.NoopPlan, out, err = run(dir, bin, "plan", "dev"); err != nil {
		return r, err
	}
	if !strings.HasPrefix(out, "No changes") {
		return r, fmt.Errorf("the no-op plan has changes:\n%s", out)
	}
	say("no-op plan", r.NoopPlan)
	if r.NoopAgain, err = median(dir, bin, "No changes", "plan", "dev"); err != nil {
		return r, err
	}
	say(fmt.Sprintf("no-op plan again (median of %d)", noopRuns), r.NoopAgain)
	if r.NoopApply, err = median(dir, bin, "No changes", "apply", "dev", "--yes"); err != nil {
		return r, err
	}
	say(fmt.Sprintf("no-op apply (median of %d)", noopRuns), r.NoopApply)
	build, views, err := floorStatements(ctx, dir)
	if err != nil {
		return r, err
	}
	floorDB := filepath.Join(dir, "floor.duckdb")
	self, err := os.Executable()
	if err != nil {
		return r, err
	}
	if r.ApplyFloor, err = runFloor(dir, self, floorDB, build, views("dev")); err != nil {
		return r, err
	}
	say("floor: apply's SQL", r.ApplyFloor)
	// A promotion is one process of a few hundred milliseconds, which a
	// shared machine's drift swings by a third: promote to promoteRuns
	// fresh environments, each followed by its floor (the same views on
	// the floor's file, which has the same environments), and keep the
	// medians.
	var promotes, floors []step
	for k := range promoteRuns {
		env := "prod"
		if k > 0 {
			env = fmt.Sprintf("prod%d", k+1)
		}
		p, _, err := run(dir, bin, "apply", env, "--yes")
		if err != nil {
			return r, err
		}
		f, err := runFloor(dir, self, floorDB, nil, views(env))
		if err != nil {
			return r, err
		}
		say("promote to "+env, p)
		say("  floor: its views", f)
		promotes, floors = append(promotes, p), append(floors, f)
	}
	r.Promote, r.PromoteFloor = medianStep(promotes), medianStep(floors)
	say(fmt.Sprintf("promote (median of %d)", promoteRuns), r.Promote)
	say(fmt.Sprintf("floor: views (median of %d)", promoteRuns), r.PromoteFloor)

	if withLSP {
		if r.LSP, err = measureLSP(ctx, bin, n); err != nil {
			return r, fmt.Errorf("language server: %w", err)
		}
	}
	return r, nil
}

// floorStatements are the statements an apply of the project issues on the
// warehouse, rendered by the library: the physical schema and every
// model's CREATE TABLE … AS in DAG order (the plan's order), and, per
// environment, its schemas and views.
func floorStatements(ctx context.Context, dir string) (build []string, views func(env string) []string, err error) {
	p, err := project.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	wb, err := duckdb.Open("")
	if err != nil {
		return nil, nil, err
	}
	defer wb.Close()
	a, err := analysis.AnalyzeWith(ctx, p, wb, analysis.AnalyzeOptions{})
	if err != nil {
		return nil, nil, err
	}
	stDir, err := os.MkdirTemp("", "efmesh-bench-state-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(stDir)
	st, err := sqlite.Open(ctx, filepath.Join(stDir, "state.db"))
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	pl, err := planner.MakePlan(ctx, a, st, "dev")
	if err != nil {
		return nil, nil, err
	}
	d := wb.Dialect()
	rel := func(qualified string) engine.Relation {
		s, t, _ := strings.Cut(qualified, ".")
		return engine.Relation{Schema: s, Name: t}
	}
	build = append(build, d.CreateSchema(analysis.PhysicalSchema))
	now := time.Now()
	for _, mp := range pl.Models {
		if !mp.Build {
			continue
		}
		q, err := planner.Render(pl.Analysis(), wb, mp.Name, "", now)
		if err != nil {
			return nil, nil, err
		}
		if mp.Kind == string(project.KindView) {
			build = append(build, d.ReplaceView(rel(mp.PhysicalTable), q))
		} else {
			build = append(build, d.ReplaceTableAs(rel(mp.PhysicalTable), q)...)
		}
	}
	views = func(env string) []string {
		var out []string
		schemas := map[string]bool{}
		for _, mp := range pl.Models {
			if project.KindName(mp.Kind).Virtual() {
				continue // read in place: no view
			}
			v := rel(mp.Name)
			v.Schema = analysis.EnvSchema(d, env, v.Schema)
			if !schemas[v.Schema] {
				schemas[v.Schema] = true
				out = append(out, d.CreateSchema(v.Schema))
			}
			out = append(out, d.ReplaceView(v, "SELECT * FROM "+d.QuoteRelation(rel(mp.PhysicalTable))))
		}
		return out
	}
	return build, views, nil
}

// floorScript is what the floor's child process runs: build one statement
// at a time, then tx in one transaction.
type floorScript struct {
	DB    string   `json:"db"`
	Build []string `json:"build"`
	Tx    []string `json:"tx"`
}

// runFloor runs a floor script in a child process of its own, so that it
// is timed and measured as a whole process like efmesh's steps.
func runFloor(dir, self, db string, build, tx []string) (step, error) {
	b, err := json.Marshal(floorScript{DB: db, Build: build, Tx: tx})
	if err != nil {
		return step{}, err
	}
	f, err := os.CreateTemp(dir, "floor-*.json")
	if err != nil {
		return step{}, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return step{}, err
	}
	f.Close()
	s, _, err := run(dir, self, "-floor", f.Name())
	return s, err
}

// floorChild is the floor's process: open the DuckDB file under the memory
// cap efmesh's warehouse has by default, run the script through the same
// driver efmesh uses, close (checkpoint) it.
func floorChild(args []string) error {
	if len(args) != 1 {
		return errors.New("-floor <script.json>")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var sc floorScript
	if err := json.Unmarshal(b, &sc); err != nil {
		return err
	}
	ctx := context.Background()
	db, err := duckdb.Open(sc.DB)
	if err != nil {
		return err
	}
	// The same memory cap and spill directory as efmesh's warehouse.
	if err := connect.TuneDuckDB(ctx, db, project.EngineConfig{}, sc.DB); err != nil {
		db.Close()
		return err
	}
	for _, s := range sc.Build {
		if err := db.Exec(ctx, s); err != nil {
			db.Close()
			return err
		}
	}
	if len(sc.Tx) > 0 {
		if err := db.Tx(ctx, sc.Tx); err != nil {
			db.Close()
			return err
		}
	}
	return db.Close()
}
