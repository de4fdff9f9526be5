package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// printTable prints one row per measurement, one column per size, and the
// issue's target at N = 2,000 (the editor's at N = 10,000) beside it.
func printTable(w io.Writer, rows []result) {
	const nameW, colW = 46, 18
	line := func(name, target string, f func(r result) string) {
		fmt.Fprintf(w, "%-*s", nameW, name)
		for _, r := range rows {
			fmt.Fprintf(w, "%*s", colW, f(r))
		}
		fmt.Fprintf(w, "   %s\n", target)
	}
	msf := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	mb := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	ratio := func(a, b float64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", a/b)
	}
	line("step (whole processes; ms, MB)", "target", func(r result) string { return "N=" + strconv.Itoa(r.N) })
	fmt.Fprintln(w, strings.Repeat("-", nameW+colW*len(rows)+10))
	line("cold plan, fresh clone (no cache)", "≤ 300 ms", func(r result) string { return msf(r.ColdPlan.Ms) })
	line("no-op plan, first after apply", "", func(r result) string { return msf(r.NoopPlan.Ms) })
	line("no-op plan again (digest; median of 11)", "≤ 15 ms", func(r result) string { return msf(r.NoopAgain.Ms) })
	line("no-op apply (digest; median of 11)", "", func(r result) string { return msf(r.NoopApply.Ms) })
	line("apply dev (build all)", "", func(r result) string { return msf(r.Apply.Ms) })
	line("  floor: the same SQL on DuckDB", "", func(r result) string { return msf(r.ApplyFloor.Ms) })
	line("  apply / floor", "≤ 1.15×", func(r result) string { return ratio(r.Apply.Ms, r.ApplyFloor.Ms) })
	line("  apply / floor, CPU time", "", func(r result) string { return ratio(r.Apply.CPUMs, r.ApplyFloor.CPUMs) })
	line("promote (views only), median of 5", "", func(r result) string { return msf(r.Promote.Ms) })
	line("  floor: the same views on DuckDB", "", func(r result) string { return msf(r.PromoteFloor.Ms) })
	line("  promote / floor", "≤ 1.1×", func(r result) string { return ratio(r.Promote.Ms, r.PromoteFloor.Ms) })
	line("  promote / floor, CPU time", "", func(r result) string { return ratio(r.Promote.CPUMs, r.PromoteFloor.CPUMs) })
	line("peak RSS, cold plan", "≤ 150 MB", func(r result) string { return mb(r.ColdPlan.PeakMB) })
	line("peak RSS, no-op plan (first / again)", "≤ 150 MB", func(r result) string { return mb(r.NoopPlan.PeakMB) + " / " + mb(r.NoopAgain.PeakMB) })
	line("peak RSS, apply", "≤ 300 MB", func(r result) string { return mb(r.Apply.PeakMB) })
	line("peak RSS, promote", "≤ 300 MB", func(r result) string { return mb(r.Promote.PeakMB) })
	line("peak RSS, floors (apply / promote)", "", func(r result) string {
		return mb(r.ApplyFloor.PeakMB) + " / " + mb(r.PromoteFloor.PeakMB)
	})
	if len(rows) > 0 && rows[0].LSP != nil {
		fmt.Fprintln(w)
		line("language server (over a pipe)", "target at N=10,000", func(r result) string { return "N=" + strconv.Itoa(r.N) })
		fmt.Fprintln(w, strings.Repeat("-", nameW+colW*len(rows)+10))
		l := func(name, target string, f func(l *lspRes) string) {
			line(name, target, func(r result) string {
				if r.LSP == nil {
					return "-"
				}
				return f(r.LSP)
			})
		}
		l("open → all diagnostics, cold (no cache)", "≤ 5 s", func(l *lspRes) string { return msf(l.OpenColdMs) })
		l("open → all diagnostics, warm (cache)", "≤ 1 s", func(l *lspRes) string { return msf(l.OpenWarmMs) })
		l("edit → its diagnostics, p50 (30 edits)", "", func(l *lspRes) string { return msf(l.EditP50Ms) })
		l("edit → its diagnostics, p95", "≤ 50 ms", func(l *lspRes) string { return msf(l.EditP95Ms) })
		l("hover, p95 (30)", "≤ 5 ms", func(l *lspRes) string { return msf(l.HoverP95Ms) })
		l("completion, p95 (30)", "≤ 5 ms", func(l *lspRes) string { return msf(l.CompleteP95) })
		l("server peak RSS", "≤ 400 MB", func(l *lspRes) string { return mb(l.ServerPeakMB) })
	}
	fmt.Fprintln(w)
	line("wall time of the whole run, s", "", func(r result) string { return strconv.FormatFloat(r.TotalSec, 'f', 0, 64) })
	line("load average at the end (1/5/15 min)", "", func(r result) string { return r.Load })
}
