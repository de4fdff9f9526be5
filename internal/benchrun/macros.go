package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/internal/gen"
)

// The text the macro comparison's edits toggle: a column both twins write
// out in every model, macro models included (the plain bench's "amount + "
// is inside a macro call in the macro twin).
const (
	macroGood = "label, ts"
	macroBad  = "labl, ts"
)

// macroRes is the macro comparison of one size: the project whose even
// models call project macros (Calls) beside its twin with the same SQL
// written out (ByHand).
type macroRes struct {
	N      int          `json:"n"`
	Calls  macroTwin    `json:"calls"`
	ByHand macroTwin    `json:"byHand"`
	Runs   [2]int       `json:"runs"` // cold plans and editor sessions per twin
	Load   [2]string    `json:"loadAverage"`
	Plans  [2][]step    `json:"coldPlans"`
	P95s   [2][]float64 `json:"editP95s"`
}

// macroTwin is one twin's medians.
type macroTwin struct {
	ColdPlan  step    `json:"coldPlan"` // the run of median wall time
	ColdCPUMs float64 `json:"coldPlanCpuMs"`
	EditP50Ms float64 `json:"editP50Ms"`
	EditP95Ms float64 `json:"editP95Ms"`
}

// measureMacros runs the macro comparison of size n: plans cold plans of
// a fresh clone of each twin and sessions editor sessions (30 edits of a
// macro model each), the twins alternating so that the machine's drift
// falls on both, and keeps the medians.
func measureMacros(ctx context.Context, bin string, n, plans, sessions int) (macroRes, error) {
	r := macroRes{N: n, Runs: [2]int{plans, sessions}}
	r.Load[0] = loadAvg()
	twins := [2]gen.Macros{gen.MacroCalls, gen.MacrosByHand}
	names := [2]string{"macro calls", "by hand"}
	var pristine [2]string
	for k, tw := range twins {
		dir, err := writeProject(ctx, n, tw)
		if dir != "" {
			defer os.RemoveAll(dir)
		}
		if err != nil {
			return r, err
		}
		pristine[k] = dir
	}
	var outs [2]string
	for i := range plans {
		for k := range twins {
			dir, err := cloneTree(pristine[k])
			if err != nil {
				return r, err
			}
			s, out, err := run(dir, bin, "plan", "dev")
			os.RemoveAll(dir)
			if err != nil {
				return r, err
			}
			if !strings.Contains(out, fmt.Sprintf("\n%d to build", n)) {
				return r, fmt.Errorf("%s: the cold plan does not build %d models:\n%s", names[k], n, out)
			}
			// The twins are the same models: the same fingerprints.
			if outs[k] = out; k == 1 && outs[0] != out {
				return r, fmt.Errorf("the twins' plans differ:\n%s\n%s", outs[0], out)
			}
			fmt.Fprintf(os.Stderr, "  cold plan %-12s %d/%d %9.1f ms (cpu %7.1f ms) %6.0f MB\n", names[k], i+1, plans, s.Ms, s.CPUMs, s.PeakMB)
			r.Plans[k] = append(r.Plans[k], s)
		}
	}
	var p50s [2][]float64
	for i := range sessions {
		for k := range twins {
			dir, err := cloneTree(pristine[k])
			if err != nil {
				return r, err
			}
			s, err := lspSession(bin, dir, n, macroGood, macroBad)
			if err == nil {
				_, err = s.c.shutdown()
			}
			if s != nil && s.c != nil {
				s.c.kill()
			}
			os.RemoveAll(dir)
			if err != nil {
				return r, fmt.Errorf("%s: language server: %w", names[k], err)
			}
			p50, p95 := pct(s.edits, 0.50), pct(s.edits, 0.95)
			fmt.Fprintf(os.Stderr, "  editor    %-12s %d/%d open %7.1f ms, edit p50 %5.1f ms, p95 %5.1f ms\n", names[k], i+1, sessions, s.openMs, p50, p95)
			p50s[k] = append(p50s[k], p50)
			r.P95s[k] = append(r.P95s[k], p95)
		}
	}
	for k, t := range []*macroTwin{&r.Calls, &r.ByHand} {
		t.ColdPlan = medianStep(r.Plans[k])
		t.ColdCPUMs = medianOf(func(s step) float64 { return s.CPUMs }, r.Plans[k])
		t.EditP50Ms = medianOf(func(v float64) float64 { return v }, p50s[k])
		t.EditP95Ms = medianOf(func(v float64) float64 { return v }, r.P95s[k])
	}
	r.Load[1] = loadAvg()
	return r, nil
}

// medianOf is the median of f over xs.
func medianOf[T any](f func(T) float64, xs []T) float64 {
	if len(xs) == 0 {
		return 0
	}
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// cloneTree copies the files of dir into a new temporary folder: a fresh
// clone of a project written once.
func cloneTree(dir string) (string, error) {
	dst, err := os.MkdirTemp("", "efmesh-bench-clone-")
	if err != nil {
		return "", err
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		os.RemoveAll(dst)
		return "", err
	}
	return dst, nil
}

// printMacros prints the macro comparison: each twin's medians and their
// ratio, against the budget of DESIGN §9 (≤ 1.1×).
func printMacros(w io.Writer, rows []macroRes) {
	msf := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	ratio := func(a, b float64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", a/b)
	}
	for _, r := range rows {
		fmt.Fprintf(w, "macros, N=%d (%d of them call project macros); medians of %d cold plans and %d editor sessions of 30 edits per twin\n",
			r.N, (r.N+1)/2, r.Runs[0], r.Runs[1])
		fmt.Fprintf(w, "%-40s%14s%14s%10s   %s\n", "step (ms)", "macro calls", "by hand", "ratio", "target")
		fmt.Fprintln(w, strings.Repeat("-", 90))
		row := func(name string, a, b float64) {
			fmt.Fprintf(w, "%-40s%14s%14s%10s   %s\n", name, msf(a), msf(b), ratio(a, b), "≤ 1.10×")
		}
		row("cold plan, fresh clone (wall)", r.Calls.ColdPlan.Ms, r.ByHand.ColdPlan.Ms)
		row("cold plan, CPU", r.Calls.ColdCPUMs, r.ByHand.ColdCPUMs)
		row("edit → its diagnostics, p50", r.Calls.EditP50Ms, r.ByHand.EditP50Ms)
		row("edit → its diagnostics, p95", r.Calls.EditP95Ms, r.ByHand.EditP95Ms)
		fmt.Fprintf(w, "%-40s%14s%14s\n", "cold plan, peak RSS (MB)",
			strconv.FormatFloat(slices.MaxFunc(r.Plans[0], byPeak).PeakMB, 'f', 0, 64),
			strconv.FormatFloat(slices.MaxFunc(r.Plans[1], byPeak).PeakMB, 'f', 0, 64))
		fmt.Fprintf(w, "%-40s%28s\n", "load average, start → end", r.Load[0]+" → "+r.Load[1])
		fmt.Fprintln(w)
	}
}

func byPeak(a, b step) int { return cmp.Compare(a.PeakMB, b.PeakMB) }
