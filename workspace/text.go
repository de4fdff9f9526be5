package workspace

import (
	"fmt"
	"io"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// The one text of a plan and of an apply: `efmesh plan` and `efmesh apply`
// print it, the editor shows it in its messages and command results.

var changeMark = map[planner.Change]string{
	planner.Added: "+", planner.Breaking: "~", planner.NonBreaking: "~", planner.Indirect: "~",
	planner.ForwardOnly: "~", planner.MetadataOnly: "~", planner.Removed: "-", planner.Unchanged: "=",
}

// PlanText is WritePlan's text.
func PlanText(p *planner.Plan) string {
	var b strings.Builder
	WritePlan(&b, p)
	return b.String()
}

// WritePlan writes a plan for a person: one line per model that changes or
// has work to do, the unchanged ones counted, the totals as apply counts
// them, then the plan's warnings.
func WritePlan(w io.Writer, p *planner.Plan) {
	defer writeWarnings(w, p)
	defer writeLeftOut(w, p)
	defer writeDueRefresh(w, p)
	defer writeShared(w, p)
	defer writeReverts(w, p)
	if !p.HasChanges && len(p.LeftOut) > 0 {
		fmt.Fprintf(w, "No changes in the selection: environment %s stays as it is (%d models).\n", p.Env, len(p.Models))
		return
	}
	if !p.HasChanges {
		fmt.Fprintf(w, "No changes: environment %s is up to date (%d models", p.Env, len(p.Models))
		if p.Preview != nil {
			fmt.Fprintf(w, "; a preview of %s", p.Preview)
		}
		fmt.Fprintln(w, ").")
		return
	}
	fmt.Fprintf(w, "Plan for environment %s:\n", p.Env)
	if p.Preview != nil {
		fmt.Fprintf(w, "Preview: incremental models cover %s only.\n", p.Preview)
	}
	fmt.Fprintln(w)
	width := 0
	for _, m := range p.Models {
		width = max(width, len(m.Name))
	}
	unchanged := 0
	for _, m := range p.Models {
		if m.Change == planner.Unchanged && !m.Build && len(m.Backfill) == 0 && len(m.Refill) == 0 && !m.Missing && m.StaleView == "" {
			unchanged++
			continue
		}
		fmt.Fprintln(w, modelLine(m, width))
	}
	if unchanged > 0 {
		fmt.Fprintf(w, "  = %d unchanged\n", unchanged)
	}
	// As apply counts (AppliedText): a virtual model (EMBEDDED, EXTERNAL)
	// has no view to promote, and a removed model's view is dropped.
	s := p.Summary()
	summary := fmt.Sprintf("%d to build", s.Build)
	if s.Compute > 0 {
		summary += fmt.Sprintf(", %d to compute", s.Compute)
	}
	summary += fmt.Sprintf(", %d to promote", s.Promote)
	if s.Remove > 0 {
		summary += fmt.Sprintf(", %d to remove", s.Remove)
	}
	if s.StaleViews > 0 {
		summary += fmt.Sprintf(", %d stale view(s) to drop", s.StaleViews)
	}
	fmt.Fprintf(w, "\n%s.\n", summary)
}

// RunText is the text of a finished tick that computed what was due: the
// FULL models refreshed, the models merged again, the intervals computed
// (only INCREMENTAL_BY_TIME_RANGE models have intervals), one line each;
// "nothing due" once when there was nothing.
func RunText(r *planner.RunResult) string {
	var b strings.Builder
	if len(r.Refreshed) > 0 {
		fmt.Fprintf(&b, "run %s: refreshed %s (FULL, cron due).\n", r.Env, strings.Join(r.Refreshed, ", "))
	}
	if len(r.Merged) > 0 {
		fmt.Fprintf(&b, "run %s: merged %s again.\n", r.Env, strings.Join(r.Merged, ", "))
	}
	if len(r.Computed) > 0 {
		fmt.Fprintf(&b, "run %s: computed %d interval(s) of %s.\n", r.Env, r.Intervals, strings.Join(r.Computed, ", "))
	}
	if b.Len() == 0 && len(r.Failed) == 0 {
		fmt.Fprintf(&b, "run %s: nothing due.\n", r.Env)
	}
	return b.String()
}

// RunFailuresText is the rest of a tick's report: the models that failed,
// and those skipped because a model they read failed (errors, for stderr).
func RunFailuresText(r *planner.RunResult) string {
	var b strings.Builder
	for _, f := range r.Failed {
		fmt.Fprintf(&b, "run %s: failed %s: %s\n", r.Env, f.Model, f.Error)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "run %s: skipped %s: parent %s failed.\n", r.Env, s.Model, s.Parent)
	}
	return b.String()
}

// writeReverts says which models the plan moves back to a version someone
// else applied over since (planner.Revert): printed right after the lines.
func writeReverts(w io.Writer, p *planner.Plan) {
	if len(p.Reverts) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, r := range p.Reverts {
		fmt.Fprintf(w, "! %s\n", r.Text(p.Env))
	}
}

// writeDueRefresh says which FULL models are due for their cron refresh:
// apply leaves them as they are (it never refreshes for a cron), the next
// run refreshes them, and nobody should be surprised by it.
func writeDueRefresh(w io.Writer, p *planner.Plan) {
	if len(p.DueRefresh) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d FULL model(s) are due for their cron refresh: apply does not refresh them, `efmesh run %s` does (%s).\n",
		len(p.DueRefresh), p.Env, strings.Join(p.DueRefresh, ", "))
}

// writeShared says, for each forward-only model whose inherited table
// other environments serve too, what they will see after apply.
func writeShared(w io.Writer, p *planner.Plan) {
	for _, m := range p.Models {
		if len(m.SharedWith) > 0 {
			fmt.Fprintf(w, "\nnote: %s: %s.\n", m.Name, planner.SharedText(m))
		}
	}
}

// writeLeftOut lists the direct changes a plan of a selection did not
// take: each model stays in the environment as it is.
func writeLeftOut(w io.Writer, p *planner.Plan) {
	if len(p.LeftOut) == 0 {
		return
	}
	width := 0
	for _, l := range p.LeftOut {
		width = max(width, len(l.Name))
	}
	if p.LeftOutFrom != "" {
		fmt.Fprintf(w, "\nLeft out (not selected; the new environment %s takes them as %s has them):\n", p.Env, p.LeftOutFrom)
	} else {
		fmt.Fprintf(w, "\nLeft out (not selected; %s keeps them as they are):\n", p.Env)
	}
	for _, l := range p.LeftOut {
		what := string(l.Change)
		switch l.Change {
		case planner.Added:
			what = "added: not created"
		case planner.Removed:
			what = "removed: kept"
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, l.Name, what)
	}
}

// modelLine is one model's line: its mark, name, category and action.
func modelLine(m planner.ModelPlan, width int) string {
	action, mark := "", changeMark[m.Change]
	switch {
	case m.Differs:
		action, mark = "differs from its snapshot → rebuild "+m.PhysicalTable, "!"
	case m.Missing && m.Build:
		action, mark = "missing → rebuild "+m.PhysicalTable, "!"
	case m.Missing:
		action, mark = "missing → recreate the view", "!"
	case m.Change == planner.Removed && m.StaleView != "":
		action = "forget, drop stale view " + m.StaleView
	case m.StaleView != "":
		action, mark = "drop stale view "+m.StaleView, "-"
	case m.Change == planner.Removed && project.KindName(m.Kind).Virtual():
		action = "forget"
	case m.Change == planner.Removed:
		action = "drop view"
	case m.Build && m.CopiesHistoryFrom != "":
		action = "build " + m.PhysicalTable + ", copies history from " + m.CopiesHistoryFrom
	case m.Build:
		action = "build " + m.PhysicalTable
	case len(m.Covered) > 0:
		by := "covered so far"
		if len(m.CoveredIn) > 0 {
			by = strings.Join(m.CoveredIn, ", ") + " covered"
		}
		action = "reuse " + m.PhysicalTable + ", backfill " + planner.RangeText(m.Backfill) + " (" + by + " " + planner.RangeText(m.Covered) + ")"
	case len(m.Backfill) > 0 && m.ReusedFrom != "":
		action = "inherit " + m.PhysicalTable + ", compute new intervals"
	case len(m.Backfill) > 0:
		action = "compute in " + m.PhysicalTable
	case len(m.Refill) > 0:
		action = "refill " + m.PhysicalTable
	case m.Kind == string(project.KindEmbedded):
		action = "inlined"
	case m.Kind == string(project.KindExternal):
		action = "read in place"
	case m.ReusedFrom != "":
		action = "inherit " + m.PhysicalTable
	default:
		action = "reuse " + m.PhysicalTable
	}
	line := fmt.Sprintf("  %s %-*s  %-13s %s", mark, width, m.Name, m.Change, action)
	if m.ReclassifiedFrom != "" && m.ReclassifiedFrom != m.Change {
		line += "  (was " + string(m.ReclassifiedFrom) + ")"
	}
	if len(m.Cause) > 0 {
		line += "  (via " + strings.Join(m.Cause, ", ") + ")"
	}
	if len(m.AddsColumns) > 0 {
		line += "  (adds " + strings.Join(m.AddsColumns, ", ") + ")"
	}
	for _, r := range m.Retyped {
		line += "  (widens " + r.String() + ")"
	}
	if len(m.Backfill) > 0 && len(m.Covered) == 0 {
		line += "  intervals " + BackfillText(m.Backfill)
	}
	if len(m.Refill) > 0 && !m.Build && m.RefillWhy == planner.RefillPreview {
		line += "  (after " + strings.Join(m.Refill, ", ") + ": intervals outside a preview)"
	} else if len(m.Refill) > 0 && !m.Build {
		line += "  (restated: " + strings.Join(m.Refill, ", ") + ")"
	}
	if m.RebuildsHistory {
		line += "  (rebuilds history: the versions so far are not carried over)"
	}
	if len(m.Redacted) > 0 {
		line += "  (without " + strings.Join(m.Redacted, ", ") + ": redacted)"
	}
	if m.Reason != "" {
		line += "  (" + m.Reason + ")"
	}
	return line
}

// writeWarnings lists the plan's warnings after the plan.
func writeWarnings(w io.Writer, p *planner.Plan) {
	for _, wn := range p.Warnings {
		fmt.Fprintf(w, "warning: %s: %s\n", wn.Code, wn.Message)
	}
	for _, m := range p.Models {
		for _, wn := range m.Warnings {
			fmt.Fprintf(w, "warning: %s: %s: %s\n", m.Name, wn.Code, wn.Message)
		}
	}
}

// BackfillText shows a plan's ranges as [start, end) pairs, the first few
// only.
func BackfillText(rs []analysis.Range) string {
	const show = 3
	var b strings.Builder
	for i, r := range rs {
		if i == show {
			fmt.Fprintf(&b, " and %d more", len(rs)-show)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// WriteExplain writes why each model got its category. A directly
// changed model's edit comes first as SQL, the changed clauses old (-)
// and new (+); the parse-tree paths the category was decided on follow as
// one detail line. A model without such a diff lists its paths as
// written.
func WriteExplain(w io.Writer, p *planner.Plan) {
	for _, m := range p.Models {
		if len(m.Explain) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s):\n", m.Name, m.Change)
		WriteClauseDiff(w, "    ", m.Diff)
		path := map[string]bool{}
		if len(m.Diff) > 0 {
			for _, p := range m.Paths {
				path[p] = true
			}
		}
		for _, e := range m.Explain {
			if !path[e] {
				fmt.Fprintf(w, "  - %s\n", e)
			}
		}
		if len(path) > 0 {
			fmt.Fprintf(w, "  - detail (parse tree): %s\n", strings.Join(m.Paths, ", "))
		}
	}
}

// WriteClauseDiff writes changed clauses as a diff, each line after
// indent: "- old" for the previous text, "+ new" for the text now.
func WriteClauseDiff(w io.Writer, indent string, diff []analysis.ClauseChange) {
	for _, c := range diff {
		if c.Old != "" {
			fmt.Fprintf(w, "%s- %s\n", indent, c.Old)
		}
		if c.New != "" {
			fmt.Fprintf(w, "%s+ %s\n", indent, c.New)
		}
	}
}

// AppliedText is the text of a finished apply: what it built, promoted and
// removed, then the stale views it dropped and what it exported, one
// sentence a line.
//
// Its counts are the plan's summary line's (planner.Summary): built are the
// models the plan had "to build", computed those it had "to compute".
func AppliedText(env string, r *planner.ApplyResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Applied to %s: built %d", env, len(r.Built))
	if len(r.Computed) > 0 {
		fmt.Fprintf(&b, ", computed %d", len(r.Computed))
	}
	fmt.Fprintf(&b, ", promoted %d", len(r.Promoted))
	if len(r.Removed) > 0 {
		fmt.Fprintf(&b, ", removed %d", len(r.Removed))
	}
	b.WriteString(".\n")
	if len(r.DroppedViews) > 0 {
		fmt.Fprintf(&b, "Dropped the stale view(s) %s.\n", strings.Join(r.DroppedViews, ", "))
	}
	if len(r.Exported) > 0 {
		fmt.Fprintf(&b, "Exported %s.\n", strings.Join(r.Exported, ", "))
	}
	return b.String()
}
