package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type janitorOut struct {
	APIVersion int    `json:"apiVersion"`
	DryRun     bool   `json:"dryRun"`
	Cutoff     string `json:"cutoff"`
	Waiting    int    `json:"waiting"`
	Removed    []struct {
		PhysicalTable string   `json:"physicalTable"`
		Model         string   `json:"model"`
		Snapshots     []string `json:"snapshots"`
		OrphanedAt    string   `json:"orphanedAt"`
		Lake          string   `json:"lake"`
		Error         string   `json:"error"`
	} `json:"removed"`
}

func janitorRun(t *testing.T, dir string, args ...string) janitorOut {
	t.Helper()
	out := mustRun(t, dir, append([]string{"janitor", "--json"}, args...)...)
	var r janitorOut
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.APIVersion != 1 {
		t.Fatalf("janitor --json: %v\n%s", err, out)
	}
	return r
}

func efmeshRelations(t *testing.T, dir string) string {
	t.Helper()
	return query(t, dir, "SELECT table_name FROM information_schema.tables WHERE table_schema = '_efmesh' ORDER BY 1")
}

// hasAll reports whether every relation name of want (an efmeshRelations
// result) is in got.
func hasAll(got, want string) bool {
	for _, name := range strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(want)) {
		if !strings.Contains(got, name) {
			return false
		}
	}
	return true
}

// TestJanitor: two versions of a table and of a parquet model; the old
// ones go only once no environment points at them and the ttl has passed
// since the last pointer went.
func TestJanitor(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":        "name: j\nstart: 2026-01-01\njanitor: {ttl: 48h}\n",
		"models/core/t.sql":  "MODEL (name core.t, kind FULL);\nSELECT 1 AS v",
		"models/core/pq.sql": "MODEL (name core.pq, kind FULL, target parquet);\nSELECT v * 10 AS w FROM @ref(core.t)",
	})
	t.Setenv("EFMESH_NOW", "2026-01-10T00:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	mustRun(t, dir, "apply", "prod", "--yes")
	v1 := efmeshRelations(t, dir)

	// v2 in prod on the 11th; dev still points at v1.
	editFile(t, dir, "models/core/t.sql", func(s string) string { return strings.Replace(s, "1 AS v", "2 AS v", 1) })
	t.Setenv("EFMESH_NOW", "2026-01-11T00:00:00Z")
	mustRun(t, dir, "apply", "prod", "--yes")
	t.Setenv("EFMESH_NOW", "2026-02-01T00:00:00Z")
	if r := janitorRun(t, dir, "--ttl", "0"); len(r.Removed) != 0 || r.Waiting != 0 {
		t.Fatalf("janitor while dev points at v1: %+v", r)
	}

	// dev moves to v2 on the 12th: v1 is orphaned from then.
	t.Setenv("EFMESH_NOW", "2026-01-12T00:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	t.Setenv("EFMESH_NOW", "2026-01-13T12:00:00Z")
	if r := janitorRun(t, dir); len(r.Removed) != 0 || r.Waiting != 2 || r.Cutoff != "2026-01-11T12:00:00Z" {
		t.Fatalf("janitor within the 48h ttl: %+v", r)
	}
	if got := efmeshRelations(t, dir); !hasAll(got, v1) {
		t.Fatalf("v1 is gone within the ttl: %s", got)
	}
	r := janitorRun(t, dir, "--ttl", "1d", "--dry-run")
	if !r.DryRun || len(r.Removed) != 2 || r.Removed[0].Model != "core.pq" || r.Removed[0].OrphanedAt != "2026-01-12T00:00:00Z" {
		t.Fatalf("dry run with a ttl of a day: %+v", r)
	}
	if got := efmeshRelations(t, dir); !hasAll(got, v1) {
		t.Fatalf("a dry run removed v1: %s", got)
	}

	// Past the ttl: v1's table, view and parquet prefix go; what prod and
	// dev point at stays and is still served.
	t.Setenv("EFMESH_NOW", "2026-01-14T00:00:01Z")
	r = janitorRun(t, dir)
	if len(r.Removed) != 2 || r.Removed[1].Model != "core.t" || r.Removed[0].Lake == "" {
		t.Fatalf("janitor past the ttl: %+v", r)
	}
	if _, err := os.Stat(r.Removed[0].Lake); !os.IsNotExist(err) {
		t.Fatalf("the parquet prefix %s is still there: %v", r.Removed[0].Lake, err)
	}
	prefixes, _ := filepath.Glob(filepath.Join(dir, "lake", "core", "pq", "fp=*"))
	if len(prefixes) != 1 {
		t.Fatalf("parquet prefixes left: %v", prefixes)
	}
	left := efmeshRelations(t, dir)
	for _, name := range strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(v1)) {
		if strings.Contains(left, name) {
			t.Fatalf("v1's %s is still there: %s", name, left)
		}
	}
	for _, env := range []string{"", "dev__"} {
		if got := query(t, dir, "SELECT w FROM "+env+"core.pq"); got != "[[20]]" {
			t.Fatalf("%score.pq serves %s after the janitor", env, got)
		}
	}
	if r := janitorRun(t, dir, "--ttl", "0"); len(r.Removed) != 0 {
		t.Fatalf("janitor removed storage environments point at: %+v", r)
	}

	// Rolling dev back to v1 builds it again: its storage is gone.
	editFile(t, dir, "models/core/t.sql", func(s string) string { return strings.Replace(s, "2 AS v", "1 AS v", 1) })
	if p := planJSONOf(t, dir, "dev"); !strings.Contains(strings.Join(changed(p), " "), "core.t:breaking:true") {
		t.Fatalf("the rollback plan: %v", changed(p))
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT w FROM dev__core.pq"); got != "[[10]]" {
		t.Fatalf("dev__core.pq after the rollback: %s", got)
	}
	if out := mustRun(t, dir, "janitor"); !strings.Contains(out, "Nothing to remove") {
		t.Fatalf("janitor text output:\n%s", out)
	}
}
