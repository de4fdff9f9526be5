package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvDeleteWarehouse: deleting dev removes its views, its schemas and
// the storage (tables, parquet files) only it used, and leaves prod
// queryable; deleting prod takes --force and frees what prod alone used.
func TestEnvDeleteWarehouse(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":        "name: e\nstart: 2026-01-01\n",
		"models/core/t.sql":  "MODEL (name core.t, kind FULL);\nSELECT 1 AS v",
		"models/core/pq.sql": "MODEL (name core.pq, kind FULL, target parquet);\nSELECT v * 10 AS w FROM @ref(core.t)",
		"models/core/vw.sql": "MODEL (name core.vw, kind VIEW);\nSELECT w + 1 AS x FROM @ref(core.pq)",
	})
	t.Setenv("EFMESH_NOW", "2026-01-10T00:00:00Z")
	mustRun(t, dir, "apply", "prod", "--yes")
	prodRelations := efmeshRelations(t, dir)
	editFile(t, dir, "models/core/t.sql", func(s string) string { return strings.Replace(s, "1 AS v", "2 AS v", 1) })
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT x FROM dev__core.vw"); got != "[[21]]" {
		t.Fatalf("dev before delete: %s", got)
	}
	lakeDirs := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "lake", "core", "pq", "fp=*"))
		return m
	}
	if n := len(lakeDirs()); n != 2 {
		t.Fatalf("%d parquet versions before delete, want 2", n)
	}

	out := mustRun(t, dir, "env", "delete", "dev", "--yes", "--json")
	var res struct {
		Deleted struct {
			DroppedViews   []string `json:"droppedViews"`
			DroppedSchemas []string `json:"droppedSchemas"`
			Freed          []struct {
				PhysicalTable string `json:"physicalTable"`
				Lake          string `json:"lake"`
			} `json:"freed"`
		} `json:"deleted"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Deleted.DroppedViews) != 3 || strings.Join(res.Deleted.DroppedSchemas, ",") != "dev__core" || len(res.Deleted.Freed) != 3 {
		t.Fatalf("delete dev: %s", out)
	}
	if got := query(t, dir, "SELECT count(*) FROM information_schema.tables WHERE table_schema LIKE 'dev__%'"); got != "[[0]]" {
		t.Fatalf("dev views left: %s", got)
	}
	if got := query(t, dir, "SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE 'dev__%'"); got != "[[0]]" {
		t.Fatalf("dev schemas left: %s", got)
	}
	if got := efmeshRelations(t, dir); got != prodRelations {
		t.Fatalf("physical relations after deleting dev:\n%s\nwant prod's:\n%s", got, prodRelations)
	}
	if n := len(lakeDirs()); n != 1 {
		t.Fatalf("%d parquet versions after deleting dev, want prod's only", n)
	}
	if got := query(t, dir, "SELECT x FROM core.vw"); got != "[[11]]" {
		t.Fatalf("prod after deleting dev: %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "efmesh.duckdb")); err != nil {
		t.Fatal(err)
	}

	if code, _, errs := run(t, dir, "env", "delete", "prod", "--yes"); code != ExitError || !strings.Contains(errs, "--force") {
		t.Fatalf("delete prod without --force: exit %d, %s", code, errs)
	}
	if got := query(t, dir, "SELECT x FROM core.vw"); got != "[[11]]" {
		t.Fatalf("prod after a refused delete: %s", got)
	}
	mustRun(t, dir, "env", "delete", "prod", "--yes", "--force")
	if got := query(t, dir, "SELECT count(*) FROM information_schema.tables WHERE table_schema IN ('core', '_efmesh')"); got != "[[0]]" {
		t.Fatalf("relations left after deleting prod: %s", got)
	}
	if out := mustRun(t, dir, "env", "list"); !strings.Contains(out, "none is applied now") {
		t.Fatalf("list after deleting every environment: %s", out)
	}
}
