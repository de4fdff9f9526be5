package cli

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/state/sqlite"
)

// TestKillMidPromotion kills -9 the promotion of what dev built into new
// environments at points spread over a promotion's run: each environment
// is left with all its views or none, all its pointers (with the plan's
// applied record) or none (without one), and never pointers the warehouse
// does not serve. The apply after each kill promotes the whole set.
func TestKillMidPromotion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 400-model project")
	}
	const n = 400
	dir := t.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: n, Warehouse: "efmesh.duckdb"}); err != nil {
		t.Fatal(err)
	}
	// Every model built gets a view; the source (EXTERNAL) is read in
	// place.
	plan := planJSONOf(t, dir, "dev")
	models, views := len(plan.Models), 0
	for _, m := range plan.Models {
		if m.Build {
			views++
		}
	}
	if views != n {
		t.Fatalf("the plan builds %d models, want %d", views, n)
	}
	mustRun(t, dir, "apply", "dev", "--yes")

	// A promotion run to its end, timed: the kills land inside that span.
	promote := func(env string) *exec.Cmd {
		cmd, _, _ := cliProcess(dir, "apply", env, "--yes")
		return cmd
	}
	mustRun(t, dir, "plan", "dev") // the fingerprints digest, as after a plain plan
	ref := promote("whole")
	start := time.Now()
	if err := ref.Run(); err != nil {
		t.Fatalf("the promotion to whole: %v", err)
	}
	span := time.Since(start)
	checkPromotion(t, dir, "whole", models, views)

	outcomes := map[string]int{}
	for k := 1; k <= 8; k++ {
		env := fmt.Sprintf("kill%d", k)
		mustRun(t, dir, "plan", "dev")
		cmd := promote(env)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(span * time.Duration(k) / 9)
		_ = cmd.Process.Kill() // SIGKILL; it may have ended already
		_ = cmd.Wait()
		outcomes[checkPromotion(t, dir, env, models, views)]++
		// The next apply promotes the whole set, whatever the kill left.
		mustRun(t, dir, "apply", env, "--yes")
		if got := checkPromotion(t, dir, env, models, views); got != "promoted" {
			t.Fatalf("after the apply that follows the kill, %s is %s", env, got)
		}
	}
	t.Logf("outcomes of the kills: %v", outcomes)
}

// checkPromotion reads env's views in the warehouse and its pointers and applied
// plans in the store, fails the test on a half promotion, and says what
// it found: "none", "views" (the warehouse swapped, the store not yet:
// the next apply points them again) or "promoted".
func checkPromotion(t *testing.T, dir, env string, models, views int) string {
	t.Helper()
	got := query(t, dir, fmt.Sprintf("SELECT count(*) FROM information_schema.tables WHERE table_schema LIKE '%s\\_\\_%%' ESCAPE '\\' AND table_type = 'VIEW'", env))
	var nviews int
	if _, err := fmt.Sscanf(got, "[[%d]]", &nviews); err != nil {
		t.Fatalf("views of %s: %q", env, got)
	}
	st, err := sqlite.OpenReadOnly(context.Background(), filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ptrs, err := st.Environment(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := st.Plans(context.Background(), env, 0)
	if err != nil {
		t.Fatal(err)
	}
	applied := 0
	for _, p := range plans {
		if p.Status == state.PlanApplied {
			applied++
		}
	}
	switch {
	case nviews != 0 && nviews != views:
		t.Fatalf("%s has %d of its %d views: a half promotion in the warehouse", env, nviews, views)
	case len(ptrs) != 0 && len(ptrs) != models:
		t.Fatalf("%s has %d of its %d pointers: a half promotion in the store", env, len(ptrs), models)
	case len(ptrs) > 0 && nviews == 0:
		t.Fatalf("the store points %s at %d models the warehouse serves no view of", env, len(ptrs))
	case (len(ptrs) > 0) != (applied > 0):
		t.Fatalf("%s has %d pointers and %d applied plans: the journal and the pointers disagree", env, len(ptrs), applied)
	case len(ptrs) > 0:
		return "promoted"
	case nviews > 0:
		return "views"
	}
	return "none"
}
