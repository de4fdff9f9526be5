package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/planner"
)

// An edit of a custom audit file is a metadata-only change of the model
// that runs it: the no-op digest misses, the plan and the editor's preview
// say so, and the physical relation keeps its name.
func TestAuditFileEditIsMetadata(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"efmesh.yaml":         "name: shop\n",
		"models/orders.sql":   "MODEL (name raw.orders, kind FULL, audits (positive));\nSELECT 1 AS order_id, 5 AS amount\n",
		"models/top.sql":      "MODEL (name mart.top, kind VIEW);\nSELECT o.order_id FROM @ref(raw.orders) AS o\n",
		"audits/positive.sql": "AUDIT (name positive);\nSELECT * FROM @this WHERE amount < 0\n",
	})
	applyEnv(t, dir, "prod", noopNow)
	before, quick := planPlain(t, dir, "prod", nil, noopNow)
	if before.HasChanges || quick {
		t.Fatalf("after apply: changes %v, quick %v; want a full plan without changes", before.HasChanges, quick)
	}
	if err := os.WriteFile(filepath.Join(dir, "audits", "positive.sql"), []byte("AUDIT (name positive);\nSELECT * FROM @this WHERE amount <= 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, quick := planPlain(t, dir, "prod", nil, noopNow)
	if quick {
		t.Fatal("the no-op digest answered a plan after an audit file edit")
	}
	check := func(what string, p *planner.Plan) {
		t.Helper()
		for _, mp := range p.Models {
			want := planner.Unchanged
			if mp.Name == "raw.orders" {
				want = planner.MetadataOnly
			}
			if mp.Change != want || mp.Build {
				t.Errorf("%s: %s is %s (build %v), want %s without a build", what, mp.Name, mp.Change, mp.Build, want)
			}
		}
		if old, now := modelOf(before, "raw.orders"), modelOf(p, "raw.orders"); old == nil || now == nil || old.PhysicalTable != now.PhysicalTable || old.Fingerprint != now.Fingerprint {
			t.Errorf("%s: the audit edit moved raw.orders' fingerprint or table", what)
		}
	}
	check("plan", p)
	w, err := Open(context.Background(), dir, OpenOptions{Options: Options{Now: func() time.Time { return noopNow }}, Env: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	pv, err := w.Preview(context.Background(), "prod")
	if err != nil {
		t.Fatal(err)
	}
	check("preview", pv)
}

func modelOf(p *planner.Plan, name string) *planner.ModelPlan {
	for i := range p.Models {
		if p.Models[i].Name == name {
			return &p.Models[i]
		}
	}
	return nil
}
