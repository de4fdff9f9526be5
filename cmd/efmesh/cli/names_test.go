package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/project"
)

// TestReservedNames: a model schema holding "__" could be an environment's
// schema of views (<env>__<schema>): the plan stops on it with the file's
// position, before anything is built; environment names on the command
// line follow the same rule.
func TestReservedNames(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": "name: shop\nmodels: [\"models/**/*.sql\"]\n",
		"models/a.sql": `MODEL (name mart.a, kind FULL);
SELECT 1 AS x
`,
		"models/b.sql": `MODEL (
  name dev__mart.a,
  kind FULL
);
SELECT 2 AS x
`,
	})
	code, _, errs := run(t, dir, "plan", "dev")
	if code != ExitError || !strings.Contains(errs, `models/b.sql:2:8: error: model schema dev__mart cannot hold models: "__" separates environment and schema`) {
		t.Fatalf("plan with a model in dev__mart: exit %d\n%s", code, errs)
	}
	if got := warehouseObjects(t, dir); got != "<none>" {
		t.Fatalf("the plan touched the warehouse: %s", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "models", "b.sql"), []byte("MODEL (name mart.b, kind FULL);\nSELECT 2 AS x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "plan", "dev")
	for _, env := range []string{"dev__mart", "_efmesh", "Dev"} {
		code, _, errs := run(t, dir, "plan", env)
		if code != ExitError || !strings.Contains(errs, "invalid environment name") {
			t.Fatalf("plan %s: exit %d\n%s", env, code, errs)
		}
	}
}

// TestEnvironmentNameLength: an environment name longer than
// project.MaxEnvName stops plan and apply with exit 1 before anything is
// built; a 300-character name once planned, then failed halfway through
// apply on a file name too long. A name of the longest length applies.
func TestEnvironmentNameLength(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":  "name: shop\nmodels: [\"models/**/*.sql\"]\n",
		"models/a.sql": "MODEL (name mart.a, kind FULL);\nSELECT 1 AS x\n",
	})
	long := strings.Repeat("e", 300)
	want := `invalid environment name: "` + long[:project.MaxEnvName] + `…" is 300 characters long, where an environment name has at most 32`
	for _, args := range [][]string{{"plan", long}, {"apply", long, "--yes"}, {"run", long}} {
		code, out, errs := run(t, dir, args...)
		if code != ExitError || !strings.Contains(errs, want) || strings.Contains(errs, "panic") {
			t.Fatalf("%s: exit %d\n%s%s", args[0], code, out, errs)
		}
	}
	if got := warehouseObjects(t, dir); got != "<none>" {
		t.Fatalf("the warehouse was touched: %s", got)
	}
	env := strings.Repeat("e", project.MaxEnvName)
	mustRun(t, dir, "apply", env, "--yes")
	if got := query(t, dir, "SELECT x FROM "+env+"__mart.a"); got != "[[1]]" {
		t.Fatalf("%s__mart.a: %s", env, got)
	}
}
