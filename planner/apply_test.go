package planner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/state/sqlite"
)

// TestApplyExternalTableAndJSONSeed builds every non-incremental kind that
// the hospital example does not use: an EXTERNAL table already in the
// warehouse (read in place with casts to the declared columns: never
// built, no view) and a JSON seed.
func TestApplyExternalTableAndJSONSeed(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, map[string]string{
		"seeds/codes.json": `[{"code": "a", "label": "Älpha"}, {"code": "b", "label": "Beta 🚀"}]`,
		"models/codes.sql": `MODEL (name ref.codes, kind SEED (path 'seeds/codes.json'), columns (code TEXT, label TEXT));`,
		"models/events.sql": `MODEL (name raw.events, kind EXTERNAL (table src.events),
  columns (id BIGINT, code TEXT, seen_at TIMESTAMP));`,
		"models/joined.sql": `MODEL (name mart.joined, columns (id BIGINT, label TEXT, seen_at TIMESTAMP));
SELECT e.id, c.label, e.seen_at FROM @ref(raw.events) AS e JOIN @ref(ref.codes) AS c USING (code)`,
	})
	mustClean(t, a)
	wh, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	// The source stores ids as text: the external's declared columns cast.
	if err := wh.Exec(ctx, `CREATE SCHEMA src; CREATE TABLE src.events AS SELECT * FROM (VALUES ('1', 'a', '2026-01-01 10:00:00'), ('2', 'b', '2026-01-02 11:00:00')) v(id, code, seen_at)`); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := MakePlan(ctx, a, st, "dev")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Apply(ctx, p, wh, st, ApplyOptions{AppliedBy: "test", Now: func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Built) != "[ref.codes mart.joined]" {
		t.Fatalf("built %v", res.Built)
	}
	rows, err := wh.Query(ctx, `SELECT id, label, seen_at FROM dev__mart.joined ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows.Values); got != "[[1 Älpha 2026-01-01 10:00:00 +0000 UTC] [2 Beta 🚀 2026-01-02 11:00:00 +0000 UTC]]" {
		t.Fatalf("rows = %s", got)
	}
	cols, err := wh.Describe(ctx, `SELECT * FROM dev__mart.joined`)
	if err != nil || cols[0].Type != "BIGINT" {
		t.Fatalf("columns read from the external = %v, %v", cols, err)
	}
	if _, err := wh.Describe(ctx, `SELECT * FROM dev__raw.events`); err == nil {
		t.Fatal("the EXTERNAL model has a view in dev")
	}
	plans, err := st.Plans(ctx, "dev", 10)
	if err != nil || len(plans) != 1 || plans[0].AppliedBy != "test" || plans[0].Status != "applied" {
		t.Fatalf("journal = %+v, %v", plans, err)
	}
}

// TestRollbackKeepsWhatAnotherEnvironmentPromoted: a failed apply takes
// back the snapshots it recorded, but one that another environment's apply
// promoted meanwhile keeps its record (the store refuses to remove a
// pointed-at snapshot) and so must keep its table too.
func TestRollbackKeepsWhatAnotherEnvironmentPromoted(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, map[string]string{
		"models/a.sql": "MODEL (name core.a, kind FULL);\nSELECT 1 AS id\n",
		"models/b.sql": "MODEL (name core.b, kind FULL);\nSELECT id FROM @ref(core.a)\n",
	})
	mustClean(t, a)
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
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	// dev's plan is made while the store holds neither snapshot ...
	dev, err := MakePlan(ctx, a, st, "dev")
	if err != nil {
		t.Fatal(err)
	}
	// ... then prod builds and promotes both ...
	prod, err := MakePlan(ctx, a, st, "prod")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(ctx, prod, wh, st, ApplyOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
	// ... and dev's apply fails before building anything.
	if err := rollback(ctx, dev, wh, st, &ApplyResult{}); err != nil {
		t.Fatal(err)
	}
	snaps, err := st.Snapshots(ctx, []string{a.Models["core.a"].Fingerprint, a.Models["core.b"].Fingerprint})
	if err != nil || len(snaps) != 2 {
		t.Fatalf("prod's snapshots after dev's rollback: %d, %v", len(snaps), err)
	}
	rows, err := wh.Query(ctx, `SELECT id FROM core.b`)
	if err != nil {
		t.Fatalf("prod's core.b after dev's rollback: %v", err)
	}
	if got := fmt.Sprint(rows.Values); got != "[[1]]" {
		t.Fatalf("prod's core.b = %s", got)
	}
}

// TestFailedBuildKeepsTheBatchBefore: the store records of the models
// built before a failing one are written although their batch was not
// full, so the failed apply's rollback keeps them and the next plan
// builds only what failed — whatever the batch size.
func TestFailedBuildKeepsTheBatchBefore(t *testing.T) {
	files := map[string]string{
		"models/a.sql": "MODEL (name core.a, kind FULL);\nSELECT 1 AS id\n",
		"models/b.sql": "MODEL (name core.b, kind FULL);\nSELECT id + 1 AS id FROM @ref(core.a)\n",
		"models/c.sql": "MODEL (name core.c, kind FULL);\nSELECT id + 1 AS id FROM @ref(core.b)\n",
		// Checks (the cast is typed), fails when run.
		"models/d.sql": "MODEL (name core.d, kind FULL);\nSELECT CAST('x' || id AS INTEGER) AS id FROM @ref(core.c)\n",
	}
	for _, every := range []int{1, 2, 256} {
		t.Run(fmt.Sprint(every), func(t *testing.T) {
			ctx := context.Background()
			a := analyzeFiles(t, files)
			mustClean(t, a)
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
			p, err := MakePlan(ctx, a, st, "dev")
			if err != nil {
				t.Fatal(err)
			}
			res, err := Apply(ctx, p, wh, st, ApplyOptions{RecordEvery: every, RecordWithin: time.Hour})
			if err == nil {
				t.Fatal("the apply of a failing model succeeded")
			}
			if fmt.Sprint(res.Built) != "[core.a core.b core.c]" {
				t.Fatalf("built %v", res.Built)
			}
			fixed := map[string]string{}
			for k, v := range files {
				fixed[k] = v
			}
			fixed["models/d.sql"] = "MODEL (name core.d, kind FULL);\nSELECT id + 1 AS id FROM @ref(core.c)\n"
			a = analyzeFiles(t, fixed)
			mustClean(t, a)
			p, err = MakePlan(ctx, a, st, "dev")
			if err != nil {
				t.Fatal(err)
			}
			var build []string
			for _, mp := range p.Models {
				if mp.Build {
					build = append(build, mp.Name)
				}
			}
			if fmt.Sprint(build) != "[core.d]" {
				t.Fatalf("after the failed apply, the plan builds %v; want [core.d]", build)
			}
			for _, name := range []string{"core.a", "core.b", "core.c"} {
				ivs, err := st.Intervals(ctx, a.Models[name].Fingerprint)
				if err != nil || len(ivs) != 1 {
					t.Errorf("ledger of %s: %v, %v; want one refresh", name, ivs, err)
				}
			}
			if _, err := Apply(ctx, p, wh, st, ApplyOptions{RecordEvery: every, RecordWithin: time.Hour}); err != nil {
				t.Fatal(err)
			}
			rows, err := wh.Query(ctx, `SELECT id FROM dev__core.d`)
			if err != nil || fmt.Sprint(rows.Values) != "[[4]]" {
				t.Fatalf("dev__core.d = %v, %v", rows, err)
			}
		})
	}
}

// TestApplyRecordsMetadataOfAStoredSnapshot: a blocking audit stops an
// apply after some intervals of an incremental model were computed (the
// store keeps its snapshot, with the audit as it was then); once the audit
// is made a warning, the next apply promotes that snapshot, and records
// the project's metadata with it: the following plans of dev and prod
// have no changes. A built snapshot promoted elsewhere with an audit its
// record lacks runs that audit on its data first, as a metadata-only
// change would.
func TestApplyRecordsMetadataOfAStoredSnapshot(t *testing.T) {
	ctx := context.Background()
	events := func(audits string) map[string]string {
		return map[string]string{
			"models/events.sql": `MODEL (name core.events, kind INCREMENTAL_BY_TIME_RANGE (time_column t, batch_size 1), interval day,
  columns (id INTEGER, t TIMESTAMP), audits (` + audits + `));
SELECT id, t FROM (VALUES (1, TIMESTAMP '2026-01-01 10:00'), (2, TIMESTAMP '2026-01-02 10:00'), (4, TIMESTAMP '2026-01-04 10:00'))
  AS v(id, t) WHERE t >= @start AND t < @end
`,
			"models/daily.sql": "MODEL (name core.daily, kind FULL);\nSELECT t::DATE AS day, count(*) AS n FROM @ref(core.events) GROUP BY ALL\n",
		}
	}
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
	at := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	opt := ApplyOptions{Now: func() time.Time { return at }}
	apply := func(a *analysis.Analysis, env string) error {
		t.Helper()
		p, err := MakePlan(ctx, a, st, env, PlanAt(at))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Apply(ctx, p, wh, st, opt)
		return err
	}
	noChanges := func(a *analysis.Analysis, env string) {
		t.Helper()
		p, err := MakePlan(ctx, a, st, env, PlanAt(at))
		if err != nil {
			t.Fatal(err)
		}
		if p.HasChanges {
			for _, mp := range p.Models {
				if mp.Change != Unchanged || mp.Build {
					t.Errorf("plan of %s after a successful apply: %s %s (build %v) %v", env, mp.Name, mp.Change, mp.Build, mp.Explain)
				}
			}
		}
	}

	blocking := analyzeFiles(t, events("whole(assert_no_gaps(t, day))"))
	mustClean(t, blocking)
	var af *AuditFailure
	if err := apply(blocking, "dev"); !errors.As(err, &af) {
		t.Fatalf("apply with a gap under a blocking audit: %v; want an audit failure", err)
	}
	warned := analyzeFiles(t, events("warn(assert_no_gaps(t, day))"))
	mustClean(t, warned)
	if err := apply(warned, "dev"); err != nil {
		t.Fatal(err)
	}
	noChanges(warned, "dev")
	if err := apply(warned, "prod"); err != nil {
		t.Fatal(err)
	}
	noChanges(warned, "prod")
	snaps, err := st.Snapshots(ctx, []string{warned.Models["core.events"].Fingerprint})
	if err != nil {
		t.Fatal(err)
	}
	if def := string(snaps[warned.Models["core.events"].Fingerprint].Definition); !strings.Contains(def, "warn(assert_no_gaps(t, day))") {
		t.Errorf("stored definition of core.events: %s", def)
	}

	// dev's snapshot, built, goes to a new environment with a blocking
	// audit it was never checked against: it fails there, and nothing is
	// promoted.
	checked := analyzeFiles(t, events("warn(assert_no_gaps(t, day)), whole(assert_no_gaps(t, day))"))
	mustClean(t, checked)
	if err := apply(checked, "qa"); !errors.As(err, &af) {
		t.Fatalf("promotion of a built snapshot with a new failing audit: %v; want an audit failure", err)
	}
	if ptrs, err := st.Environment(ctx, "qa"); err != nil || len(ptrs) != 0 {
		t.Fatalf("qa after the failed audit: %v, %v", ptrs, err)
	}
}
