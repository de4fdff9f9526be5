package workspace

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// TestApplyStrategy: Apply answers each apply by the first path that can,
// and says which: the full path for the first apply of dev, the no-op
// digest for the apply after it (reviewed by its text when ReviewText is
// set, by the decoded plan otherwise, the full path's plan either way),
// the fingerprints digest for prod, which only promotes what dev built;
// Plan answers alike. A selection, or an edit, takes the full path.
func TestApplyStrategy(t *testing.T) {
	ctx := context.Background()
	dir := writeProject(t, promoShop())
	var unused [][]project.UnusedVar
	l := Loading{Dir: dir, Open: OpenOptions{Options: Options{Now: func() time.Time { return noopNow }}},
		UnusedVars: func(u []project.UnusedVar) { unused = append(unused, u) }}
	plain := func(env string) *NoopRequest { return &NoopRequest{Env: env, Vars: map[string]string{"nobody": "x"}} }
	l.Open.Vars = plain("dev").Vars
	var reviewed []*planner.Plan
	review := func(p *planner.Plan) error { reviewed = append(reviewed, p); return nil }

	first, err := Apply(ctx, l, "dev", ApplyRequest{Noop: plain("dev"), Review: review})
	if err != nil {
		t.Fatal(err)
	}
	if first.Answer != ByPlan || !first.Applied || len(first.Built) == 0 {
		t.Fatalf("the first apply of dev: answered by the %s, applied %v, built %v", first.Answer, first.Applied, first.Built)
	}

	again, err := Apply(ctx, l, "dev", ApplyRequest{Noop: plain("dev"), Review: review})
	if err != nil {
		t.Fatal(err)
	}
	if again.Answer != ByNoopDigest || again.Applied || again.Plan == nil || again.Plan.HasChanges {
		t.Fatalf("the apply after an apply: answered by the %s, applied %v, plan %+v", again.Answer, again.Applied, again.Plan)
	}
	if len(reviewed) != 2 || reviewed[1] != again.Plan {
		t.Fatalf("the digest's plan was not reviewed: %d reviews", len(reviewed))
	}
	full := fullPlan(t, dir, "dev", l.Open.Vars)
	if planText(again.Plan) != planText(full) {
		t.Fatalf("the digest's plan:\n%s\nthe full path's:\n%s", planText(again.Plan), planText(full))
	}
	var text string
	byText, err := Apply(ctx, l, "dev", ApplyRequest{Noop: plain("dev"), Review: review,
		ReviewText: func(s string) error { text = s; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if byText.Answer != ByNoopDigest || byText.Plan != nil || text != PlanText(full) || len(reviewed) != 2 {
		t.Fatalf("reviewed by its text: answered by the %s, text %q", byText.Answer, text)
	}
	stop := errors.New("not now")
	if _, err := Apply(ctx, l, "dev", ApplyRequest{Noop: plain("dev"), ReviewText: func(string) error { return stop }}); !errors.Is(err, stop) {
		t.Fatalf("a review that stops the apply: %v", err)
	}
	for i, u := range unused {
		if len(u) != 1 || u[0].Name != "nobody" {
			t.Fatalf("answer %d told the unused --var %v", i, u)
		}
	}

	p, err := Plan(ctx, l, "dev", PlanRequest{Noop: plain("dev"), Text: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Answer != ByNoopDigest || p.Plan != nil || p.Text != PlanText(full) {
		t.Fatalf("the plan of dev: answered by the %s, text %q", p.Answer, p.Text)
	}
	sel := l
	sel.Selection = Selection{Selects: []string{"mart.top"}}
	if p, err := Plan(ctx, sel, "dev", PlanRequest{Noop: plain("dev")}); err != nil || p.Answer != ByPlan {
		t.Fatalf("the plan of a selection: %v, %+v", err, p)
	}

	prod, err := Apply(ctx, l, "prod", ApplyRequest{Noop: plain("prod"), Review: review})
	if err != nil {
		t.Fatal(err)
	}
	if prod.Answer != ByPromotion || !prod.Applied || len(prod.Built) != 0 || len(prod.Promoted) == 0 {
		t.Fatalf("the apply of prod: answered by the %s, applied %v, built %v, promoted %v", prod.Answer, prod.Applied, prod.Built, prod.Promoted)
	}

	writeFile(t, dir, "models/top.sql", noopShop["models/top.sql"]+"WHERE o.customer <> 'bob'\n")
	edited, err := Apply(ctx, l, "dev", ApplyRequest{Noop: plain("dev"), Review: review})
	if err != nil {
		t.Fatal(err)
	}
	if edited.Answer != ByPlan || !edited.Applied {
		t.Fatalf("the apply of an edit: answered by the %s, applied %v", edited.Answer, edited.Applied)
	}
}
