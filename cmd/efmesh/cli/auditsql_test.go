package cli

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/state/sqlite"
)

// storedDefinition reads the definition prod's snapshot of model records;
// clear drops its audit files first, as a store written before efmesh
// recorded them holds it.
func storedDefinition(t *testing.T, dir, model string, clear bool) analysis.Definition {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ptrs, err := st.Environment(ctx, "prod")
	if err != nil {
		t.Fatal(err)
	}
	fp := ptrs[model].Fingerprint
	snaps, err := st.Snapshots(ctx, []string{fp})
	if err != nil {
		t.Fatal(err)
	}
	var d analysis.Definition
	if err := json.Unmarshal(snaps[fp].Definition, &d); err != nil {
		t.Fatal(err)
	}
	if clear {
		old := d
		old.AuditSources = nil
		b, _ := json.Marshal(old)
		if err := st.UpdateDefinition(ctx, fp, b); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// A snapshot stored before efmesh recorded audit files reads as unknown:
// the plan after the upgrade shows no change, the apply records the files
// without rebuilding or promoting anything, and from then on an edit of
// the file is a metadata-only change.
func TestAuditSourcesUpgrade(t *testing.T) {
	dir := t.TempDir()
	script, _ := filepath.Abs(filepath.Join("testdata", "projects", "shop32.sh"))
	cmd := exec.Command("sh", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shop32: %v\n%s", err, out)
	}
	writeFile(t, dir, "audits/small_amount.sql", "AUDIT (name small_amount);\nSELECT * FROM @this WHERE amount > 100000\n")
	editFile(t, dir, "models/core/c_1.sql", func(s string) string {
		return strings.Replace(s, "audits (unique(id))", "audits (unique(id), warn(small_amount))", 1)
	})
	mustRun(t, dir, "apply", "prod", "--yes")
	if d := storedDefinition(t, dir, "core.c_1", true); len(d.AuditSources) != 1 || d.AuditSources[0].File != "audits/small_amount.sql" {
		t.Fatalf("apply recorded audit files %+v, want audits/small_amount.sql", d.AuditSources)
	}
	// The store stands for an older efmesh's, rewritten behind the
	// environment's token: an older efmesh is another binary, whose
	// stamp no no-op digest of this one matches.
	forgetNoop(t, dir)
	before := warehouseObjects(t, dir)

	if got := changed(planJSONOf(t, dir, "prod")); len(got) != 0 {
		t.Fatalf("a store without audit files plans %v, want no change", got)
	}
	if out := mustRun(t, dir, "audit", "prod", "--model", "core.c_1"); !strings.Contains(out, "ok   core.c_1  warn(small_amount)") || strings.Contains(out, "changed since") {
		t.Fatalf("audit of an unknown record runs the project's file, unremarked:\n%s", out)
	}
	mustRun(t, dir, "apply", "prod", "--yes")
	if d := storedDefinition(t, dir, "core.c_1", false); len(d.AuditSources) != 1 {
		t.Fatalf("the apply after the upgrade did not record the audit file: %+v", d.AuditSources)
	}
	if after := warehouseObjects(t, dir); after != before {
		t.Fatalf("recording the audit files changed the warehouse:\n%s\nwant\n%s", after, before)
	}

	writeFile(t, dir, "audits/small_amount.sql", "AUDIT (name small_amount);\nSELECT * FROM @this WHERE amount > 0\n")
	p := planJSONOf(t, dir, "prod")
	if got := changed(p); !slices.Equal(got, []string{"core.c_1:metadata-only:false"}) {
		t.Fatalf("an edited audit file after the upgrade plans %v, want core.c_1 metadata-only", got)
	}
}
