package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPostgresDiffersRebuild: on Postgres a view depends on the table it
// reads, so a physical table altered by hand cannot simply be dropped.
// Apply drops it with the views of every environment pointing at its
// snapshot and creates them again after the build, in the build's one
// transaction: dev's apply rebuilds the table prod serves too, prod's view
// keeps serving the right rows, both are healthy and the next plans have
// nothing to do. A build that fails (a blocking audit) rolls all of it
// back: the table and both views are as they were.
func TestPostgresDiffersRebuild(t *testing.T) {
	dir, dbURL := postgresShop32(t)
	t.Setenv("EFMESH_NOW", "2026-01-03T00:00:00Z")
	mustRun(t, dir, "apply", "prod", "--yes")
	mustRun(t, dir, "apply", "dev", "--yes")

	const rows = `SELECT * FROM @ref(core.c_3) ORDER BY 1`
	want := mustRun(t, dir, "query", rows, "--env", "prod")
	if strings.Count(want, "\n") < 2 {
		t.Fatalf("core.c_3 serves no rows:\n%s", want)
	}
	phys := pgQuery(t, dbURL, `SELECT table_schema || '.' || table_name FROM information_schema.tables
WHERE table_name LIKE 'core__c_3__%' AND table_type = 'BASE TABLE'`)
	phys = strings.Trim(phys, "[]")
	if strings.Contains(phys, " ") || phys == "" {
		t.Fatalf("the physical table of core.c_3: %q", phys)
	}
	alter := func() {
		t.Helper()
		pgQuery(t, dbURL, "ALTER TABLE "+phys+" ADD COLUMN z INTEGER")
	}
	columns := func() string {
		t.Helper()
		s, n, _ := strings.Cut(phys, ".")
		return pgQuery(t, dbURL, "SELECT column_name FROM information_schema.columns WHERE table_schema = '"+s+"' AND table_name = '"+n+"' ORDER BY ordinal_position")
	}
	alter()

	var plan struct {
		Models []struct {
			Name       string   `json:"name"`
			Differs    bool     `json:"differs"`
			SharedWith []string `json:"sharedWith"`
		} `json:"models"`
	}
	out := mustRun(t, dir, "plan", "dev", "--json")
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	var differs []string
	for _, m := range plan.Models {
		if m.Differs {
			differs = append(differs, m.Name+" shared with "+strings.Join(m.SharedWith, ","))
		}
	}
	if strings.Join(differs, ";") != "core.c_3 shared with prod" {
		t.Fatalf("plan dev: differs %v\n%s", differs, out)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "differs from its snapshot → rebuild "+phys) {
		t.Fatalf("plan dev does not say it rebuilds %s:\n%s", phys, out)
	}

	// A build that fails takes nothing away: a duplicate id upstream
	// fails core.c_3's blocking unique(id) audit inside the transaction.
	pgQuery(t, dbURL, "INSERT INTO src.src_3 SELECT * FROM src.src_3 LIMIT 1")
	if code, out, errs := run(t, dir, "apply", "dev", "--yes"); code != 1 {
		t.Fatalf("apply dev with a duplicate id: exit %d\n%s%s", code, out, errs)
	}
	if got := columns(); got != "[[id] [amount] [ts] [z]]" {
		t.Fatalf("after a failed rebuild the table has columns %s, want the altered ones back", got)
	}
	for _, env := range []string{"prod", "dev"} {
		if got := mustRun(t, dir, "query", rows, "--env", env); got != want {
			t.Fatalf("after a failed rebuild %s's core.c_3 serves:\n%s\nwant:\n%s", env, got, want)
		}
	}
	pgQuery(t, dbURL, "DELETE FROM src.src_3 a USING src.src_3 b WHERE a.ctid > b.ctid AND a.id = b.id")

	mustRun(t, dir, "apply", "dev", "--yes")
	if got := columns(); got != "[[id] [amount] [ts]]" {
		t.Fatalf("the rebuilt table has columns %s", got)
	}
	for _, env := range []string{"prod", "dev"} {
		if got := mustRun(t, dir, "query", rows, "--env", env); got != want {
			t.Fatalf("after the rebuild %s's core.c_3 serves:\n%s\nwant:\n%s", env, got, want)
		}
		if out := mustRun(t, dir, "status", env, "--check"); !strings.Contains(out, "Healthy") {
			t.Fatalf("status %s --check:\n%s", env, out)
		}
		if p := planJSONOf(t, dir, env); p.HasChanges {
			t.Fatalf("plan %s after the rebuild has changes: %v", env, changed(p))
		}
	}
}

// TestPostgresViewRepointedByHand: an environment's view pointed by hand
// at another relation serves other rows; plan says it differs and remakes
// it, status --check is unhealthy until then, and apply brings the rows
// back (the catalog lists each view's definition, as on DuckDB).
func TestPostgresViewRepointedByHand(t *testing.T) {
	dir, dbURL := postgresShop32(t)
	t.Setenv("EFMESH_NOW", "2026-01-03T00:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	const rows = `SELECT * FROM @ref(core.c_3) ORDER BY 1`
	want := mustRun(t, dir, "query", rows, "--env", "dev")
	view := pgQuery(t, dbURL, `SELECT table_schema || '.' || table_name FROM information_schema.views
WHERE table_schema LIKE 'dev%' AND table_name = 'c_3'`)
	view = strings.Trim(view, "[]")
	if strings.Contains(view, " ") || view == "" {
		t.Fatalf("dev's view of core.c_3: %q", view)
	}
	pgQuery(t, dbURL, "CREATE TABLE public.old_c_3 AS SELECT * FROM "+view+" LIMIT 1; CREATE OR REPLACE VIEW "+view+" AS SELECT * FROM public.old_c_3")
	if got := mustRun(t, dir, "query", rows, "--env", "dev"); got == want {
		t.Fatal("the view re-pointed by hand serves the same rows: not a case")
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "core.c_3") || strings.Contains(out, "No changes") {
		t.Fatalf("plan dev after the view was re-pointed:\n%s", out)
	}
	if code, out, errs := run(t, dir, "status", "dev", "--check"); code == 0 {
		t.Fatalf("status --check is healthy with the view re-pointed:\n%s%s", out, errs)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := mustRun(t, dir, "query", rows, "--env", "dev"); got != want {
		t.Fatalf("after apply dev serves:\n%s\nwant:\n%s", got, want)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after the repair:\n%s", out)
	}
}
