package ops

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/state/sqlite"
)

func TestOrphanGroups(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	u := func(fp, kind, table string, orphaned time.Time, parents ...string) state.SnapshotUsage {
		ps := map[string]string{}
		for i, p := range parents {
			ps[fmt.Sprint("p", i)] = p
		}
		return state.SnapshotUsage{Fingerprint: fp, Name: "s.t", Kind: kind, PhysicalTable: "_efmesh." + table, Parents: ps, OrphanedAt: orphaned}
	}
	use := []state.SnapshotUsage{
		u("full1", "FULL", "full1", at(1)),                         // ripe
		u("full2", "FULL", "full2", at(9)),                         // within the ttl
		u("shared_old", "INCREMENTAL_BY_TIME_RANGE", "inc", at(1)), // shares a live table (forward-only)
		u("shared_new", "INCREMENTAL_BY_TIME_RANGE", "inc", time.Time{}),
		u("parent_old", "FULL", "parent_old", at(1)), // read by a referenced view
		u("view", "VIEW", "view", time.Time{}, "parent_old", "emb"),
		u("emb", "EMBEDDED", "emb", at(1), "parent2"), // inlined in the view: its parents are read too
		u("parent2", "FULL", "parent2", at(1)),
		u("pair_a", "FULL", "pair", at(1)), // two ripe snapshots of one table
		u("pair_b", "FULL", "pair", at(2)),
	}
	groups, waiting := orphanGroups(use, at(5))
	var got []string
	for _, g := range groups {
		var fps []string
		for _, s := range g.snaps {
			fps = append(fps, s.Fingerprint)
		}
		got = append(got, g.table+"="+strings.Join(fps, "+"))
	}
	if fmt.Sprint(got) != "[_efmesh.full1=full1 _efmesh.pair=pair_a+pair_b]" || waiting != 1 {
		t.Fatalf("groups = %v, waiting %d", got, waiting)
	}
	r := groups[1].removal("/lake")
	if r.Lake != "" || !r.OrphanedAt.Equal(at(2)) || r.Model != "s.t" {
		t.Errorf("removal = %+v", r) // "pair" has no fingerprint suffix: no lake prefix
	}
	r = orphanGroup{table: "_efmesh.s__t__1234abcd", snaps: use[:1]}.removal("/lake")
	if r.Lake != filepath.Join("/lake", "s", "t", "fp=1234abcd") {
		t.Errorf("lake prefix = %q", r.Lake)
	}
}

// TestJanitorClaimBeatsApply: a plan that reuses an orphaned snapshot, and
// a janitor that removes that snapshot before the plan is applied. The
// apply stops before any view changes and asks for a new plan, which
// builds the snapshot again.
func TestJanitorClaimBeatsApply(t *testing.T) {
	ctx := context.Background()
	v1 := map[string]string{"models/x.sql": "MODEL (name a.x);\nSELECT 1 AS id"}
	v2 := map[string]string{"models/x.sql": "MODEL (name a.x);\nSELECT 2 AS id"}
	a1, a2 := analyzeFiles(t, v1), analyzeFiles(t, v2)
	wh, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	day := func(n int) time.Time { return time.Date(2026, 1, n, 0, 0, 0, 0, time.UTC) }
	apply := func(a *analysis.Analysis, at time.Time) error {
		p, err := planner.MakePlan(ctx, a, st, "dev", planner.PlanAt(at))
		if err != nil {
			t.Fatal(err)
		}
		_, err = planner.Apply(ctx, p, wh, st, planner.ApplyOptions{Now: func() time.Time { return at }})
		return err
	}
	serving := func() string {
		rows, err := wh.Query(ctx, "SELECT id FROM dev__a.x")
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rows.Values)
	}
	if err := apply(a1, day(1)); err != nil {
		t.Fatal(err)
	}
	if err := apply(a2, day(2)); err != nil { // v1 orphaned on day 2
		t.Fatal(err)
	}
	rollback, err := planner.MakePlan(ctx, a1, st, "dev", planner.PlanAt(day(3)))
	if err != nil || rollback.Models[0].Build {
		t.Fatalf("the rollback plan should reuse v1: %+v, %v", rollback.Models, err)
	}

	// A janitor with a ttl of a day, on day 3: v1 goes.
	res, err := Janitor(ctx, st, wh, JanitorOptions{TTL: 24 * time.Hour, Now: day(3)})
	if err != nil || len(res.Removed) != 1 || res.Removed[0].Model != "a.x" || res.Removed[0].Error != "" {
		t.Fatalf("janitor = %+v, %v", res, err)
	}
	_, err = planner.Apply(ctx, rollback, wh, st, planner.ApplyOptions{Now: func() time.Time { return day(3) }})
	if err == nil || !strings.Contains(err.Error(), "the janitor removed a snapshot of this plan") {
		t.Fatalf("apply of the stale rollback = %v", err)
	}
	if got := serving(); got != "[[2]]" {
		t.Fatalf("dev serves %s after the refused rollback", got)
	}
	// A fresh plan builds v1 again.
	if err := apply(a1, day(3)); err != nil {
		t.Fatal(err)
	}
	if got := serving(); got != "[[1]]" {
		t.Fatalf("dev serves %s after the rollback", got)
	}

	// v2 is orphaned now, since day 3; a ttl of a day keeps it on day 3 …
	res, err = Janitor(ctx, st, wh, JanitorOptions{TTL: 24 * time.Hour, Now: day(3).Add(time.Hour)})
	if err != nil || len(res.Removed) != 0 || res.Waiting != 1 {
		t.Fatalf("janitor within the ttl = %+v, %v", res, err)
	}
	// … and a reservation (an apply about to promote it) keeps it even
	// past the ttl.
	if err := st.Reserve(ctx, []string{a2.Models["a.x"].Fingerprint}, day(5).Add(planner.ReserveLease)); err != nil {
		t.Fatal(err)
	}
	res, err = Janitor(ctx, st, wh, JanitorOptions{TTL: 24 * time.Hour, Now: day(6)})
	if err != nil || len(res.Removed) != 0 {
		t.Fatalf("janitor over a reserved snapshot = %+v, %v", res, err)
	}
	res, err = Janitor(ctx, st, wh, JanitorOptions{TTL: 24 * time.Hour, Now: day(7)})
	if err != nil || len(res.Removed) != 1 {
		t.Fatalf("janitor after the lease = %+v, %v", res, err)
	}
	rows, err := wh.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = '_efmesh' ORDER BY 1")
	if err != nil || len(rows.Values) != 1 || !strings.HasSuffix(fmt.Sprint(rows.Values[0][0]), a1.Models["a.x"].Fingerprint[:8]) {
		t.Fatalf("physical tables left: %v, %v", rows.Values, err)
	}
}
