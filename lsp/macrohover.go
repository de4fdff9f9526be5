package lsp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// timeMacroAt finds the @start, @end or @this under off in m.
func timeMacroAt(m *project.Model, off int) (project.Macro, bool) {
	for _, k := range []project.MacroKind{project.MacroStart, project.MacroEnd, project.MacroThis} {
		if mc, ok := macroAt(m, k, off); ok {
			return mc, true
		}
	}
	return project.Macro{}, false
}

// timeMacroHover says what @start, @end or @this expand to for the model
// of d in the editor's environment: the interval bounds of each run of an
// incremental model (and what a plan would backfill), the whole range of
// other models, and the relation @this names.
func timeMacroHover(ctx context.Context, d *docPos, mc project.Macro, env string) string {
	m, w := d.f.model, d.w
	if mc.Kind == project.MacroThis {
		return thisHover()
	}
	var b strings.Builder
	if mc.Kind == project.MacroStart {
		b.WriteString("**@start** · `TIMESTAMP`: the start of the interval being computed (inclusive)")
	} else {
		b.WriteString("**@end** · `TIMESTAMP`: the end of the interval being computed (exclusive)")
	}
	if m.Kind.Name != project.KindIncrementalByTimeRange {
		start := "1970-01-01T00:00:00Z"
		if s := w.snap.proj.Config.Start; s != "" {
			if t, err := project.ParseTime(s); err == nil {
				start = t.UTC().Format(time.RFC3339)
			}
		}
		fmt.Fprintf(&b, "\n\n%s is %s: computed whole, over [%s, now)", m.Name, kindText(m.Kind), start)
		return b.String()
	}
	g := analysis.GrainOf(m)
	fmt.Fprintf(&b, "\n\n%s is %s: each run fills whole %ss (UTC) from @start to @end", m.Name, kindText(m.Kind), g)
	if m.Start != "" {
		fmt.Fprintf(&b, ", from start %s", m.Start)
	}
	if mp := modelPlan(ctx, d, env, m.Name); mp != nil {
		switch n := len(mp.Backfill); {
		case n == 0:
			fmt.Fprintf(&b, "\n\nin %s: no interval to backfill", env)
		default:
			fmt.Fprintf(&b, "\n\nin %s: %s to backfill, from %s to %s", env, intervalsText(mp.Intervals), rfc3339(mp.Backfill[0].Start), rfc3339(mp.Backfill[n-1].End))
		}
	}
	return b.String()
}

// auditThisHover says what @this stands for in a custom audit: the
// relation of each model that calls the audit, audited before it is
// promoted, so its physical table.
func auditThisHover(w *world, a *project.CustomAudit, env string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**@this** · the relation audited by %s: the physical table of each model that calls it", a.Name)
	var users []*project.Model
	for _, m := range w.snap.proj.Models {
		for _, c := range m.Audits {
			if strings.EqualFold(c.Name, a.Name) || c.Inner != nil && strings.EqualFold(c.Inner.Name, a.Name) {
				users = append(users, m)
				break
			}
		}
	}
	if len(users) == 0 {
		b.WriteString("\n\nno model calls this audit yet")
		return b.String()
	}
	b.WriteString("\n")
	for _, m := range users {
		fmt.Fprintf(&b, "\n- %s", m.Name)
		if rel := relationText(w, m, env); rel != "" {
			b.WriteString(": " + rel)
		}
	}
	return b.String()
}

// relationText names a model's physical table and its view in env.
func relationText(w *world, m *project.Model, env string) string {
	info := w.res.info(m.Name)
	if info == nil || info.Fingerprint == "" || w.res.analysis == nil || m.Kind.Name.Virtual() {
		return ""
	}
	d := w.res.analysis.Dialect()
	return fmt.Sprintf("`%s`, served in %s as `%s`", d.QuoteRelation(analysis.PhysicalRelation(d, m, info.Fingerprint)),
		env, d.QuoteRelation(analysis.EnvRelation(d, env, m)))
}

// thisHover is the hover of @this in a model, where it is an error (the
// diagnostic says so): what it would mean in an audit.
func thisHover() string {
	return "**@this** is only valid in audits, where it names the audited model's relation"
}

// hoverPlanWait bounds how long a hover, answered on the connection's
// reading goroutine, waits for a plan the code lenses have not made yet;
// the plan is made on, and cached for the next hover.
const hoverPlanWait = time.Second

// modelPlan is the model's entry of the plan the code lenses show (nil
// when there is none, or it is not ready within hoverPlanWait).
func modelPlan(ctx context.Context, d *docPos, env, name string) *planner.ModelPlan {
	res := d.w.res
	if res == nil || res.analysis == nil {
		return nil
	}
	done := make(chan *planner.Plan, 1)
	d.v.s.goSafe("the plan of a hover", func() {
		plan, err := d.v.planFor(context.WithoutCancel(ctx), res, env)
		if err != nil {
			plan = nil
		}
		done <- plan
	})
	t := time.NewTimer(hoverPlanWait)
	defer t.Stop()
	var plan *planner.Plan
	select {
	case plan = <-done:
	case <-t.C:
	case <-ctx.Done():
	}
	if plan == nil {
		return nil
	}
	for i := range plan.Models {
		if plan.Models[i].Name == name {
			return &plan.Models[i]
		}
	}
	return nil
}

// rfc3339 is a range bound as a plan's JSON writes it.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }
