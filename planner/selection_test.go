package planner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state/sqlite"
)

// TestNarrowAndRestateSelected: Narrow keeps an unselected changed model
// at its stored version and lists it; a model whose stored version
// cannot be rebuilt (its seed changed) cannot be left out; RestateSelected
// clears exactly the selected models' ledgers.
func TestNarrowAndRestateSelected(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"seeds/s.csv":    "id,ts\n1,2026-01-01 10:00:00\n",
		"models/s.sql":   "MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INT, ts TIMESTAMP));\n",
		"models/a.sql":   "MODEL (name raw.a, kind FULL, tags (x));\nSELECT id, ts FROM @ref(raw.s)\n",
		"models/i.sql":   "MODEL (name core.i, kind INCREMENTAL_BY_TIME_RANGE (time_column ts));\nSELECT id, ts FROM @ref(raw.a) WHERE ts >= @start AND ts < @end\n",
		"models/f.sql":   "MODEL (name core.f, kind FULL);\nSELECT count(*) AS n FROM @ref(core.i)\n",
		"efmesh.yaml":    "name: t\nstart: 2026-01-01\n",
		"models/x/v.sql": "MODEL (name core.v, kind VIEW);\nSELECT id FROM @ref(raw.a)\n",
	}
	a := analyzeFiles(t, maps.Clone(files))
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
	now := func() time.Time { return time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC) }
	p, err := MakePlan(ctx, a, st, "dev", PlanAt(now()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(ctx, p, wh, st, ApplyOptions{AppliedBy: "test", Now: now}); err != nil {
		t.Fatal(err)
	}

	// raw.a changes (its tag too); core.v changes.
	changed := maps.Clone(files)
	changed["models/a.sql"] = "MODEL (name raw.a, kind FULL, tags (y));\nSELECT id, ts FROM @ref(raw.s) WHERE id > 0\n"
	changed["models/x/v.sql"] = "MODEL (name core.v, kind VIEW);\nSELECT id, 1 AS one FROM @ref(raw.a)\n"
	a2 := analyzeFiles(t, changed)
	mustClean(t, a2)
	n, err := Narrow(ctx, a2, st, "dev", map[string]bool{"core.v": true})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(n.LeftOut); got != "[{raw.a breaking "+a.Models["raw.a"].Fingerprint+"}]" {
		t.Fatalf("left out %s", got)
	}
	if old := n.Project.ByName["raw.a"]; old == nil || fmt.Sprint(old.Tags) != "[x]" {
		t.Fatalf("raw.a is not the stored version: %+v", old)
	}
	na, err := analysis.Analyze(ctx, n.Project, realdb.DuckDB(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckNarrowed(n, na, "dev"); err != nil {
		t.Fatal(err)
	}
	if na.Models["raw.a"].Fingerprint != a.Models["raw.a"].Fingerprint {
		t.Fatal("the narrowed raw.a does not have the environment's fingerprint")
	}

	// The seed's file changed: raw.s's stored version cannot come back.
	root := a2.Project.Root
	if err := os.WriteFile(filepath.Join(root, "seeds/s.csv"), []byte("id,ts\n2,2026-01-01 10:00:00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p3, err := project.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	a3, err := analysis.Analyze(ctx, p3, realdb.DuckDB(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	n3, err := Narrow(ctx, a3, st, "dev", map[string]bool{"core.v": true})
	if err != nil {
		t.Fatal(err)
	}
	na3, err := analysis.Analyze(ctx, n3.Project, realdb.DuckDB(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	var ue *UnrestorableError
	if err := CheckNarrowed(n3, na3, "dev"); !errors.As(err, &ue) || ue.Model != "raw.s" {
		t.Fatalf("a changed seed left out: %v", err)
	}

	// RestateSelected: exactly what is selected; descendants with "+".
	rs, err := RestateSelected(ctx, st, "dev", []string{"core.i"}, nil, now().AddDate(0, 0, -3), now().AddDate(0, 0, -1), RestateOptions{})
	if err != nil || len(rs) != 1 || rs[0].Name != "core.i" || rs[0].Intervals != 2 {
		t.Fatalf("restate core.i: %+v, %v", rs, err)
	}
	rs, err = RestateSelected(ctx, st, "dev", []string{"core.i+"}, nil, now().AddDate(0, 0, -3), now().AddDate(0, 0, -1), RestateOptions{DryRun: true})
	if err != nil || len(rs) != 2 || rs[1].Name != "core.i" || rs[0].Name != "core.f" || !rs[0].Rebuild || rs[1].Intervals != 0 {
		t.Fatalf("restate core.i+: %+v, %v", rs, err)
	}
	var se *project.SelectorError
	if _, err := RestateSelected(ctx, st, "dev", []string{"tag:"}, nil, now().AddDate(0, 0, -3), now(), RestateOptions{}); !errors.As(err, &se) {
		t.Fatalf("bad selector: %v", err)
	}
	if _, err := RestateSelected(ctx, st, "dev", []string{"core.v"}, nil, now().AddDate(0, 0, -3), now(), RestateOptions{}); err == nil {
		t.Fatal("a view restated")
	}
}
