package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
)

// TestInitFromSqlmesh converts the public sqlmesh projects of
// testdata/sqlmesh. The quickstart converts in full (exit 0), plans,
// applies, serves the rows sqlmesh builds and passes its unit test; cdf's
// workspace and sushi await a human (exit 2), each piece at its
// file:line:col; bad input writes nothing (exit 1).
func TestInitFromSqlmesh(t *testing.T) {
	fixtures := filepath.Join(testkit.Root(t), "testdata", "sqlmesh")
	work := t.TempDir()

	code, out, errs := run(t, work, "init", "qs", "--from-sqlmesh", filepath.Join(fixtures, "quickstart"))
	if code != ExitOK || !strings.Contains(out, ": 3 models, 3 converted in full.") {
		t.Fatalf("init quickstart: exit %d\n%s%s", code, out, errs)
	}
	qs := filepath.Join(work, "qs")
	mustRun(t, qs, "apply", "prod", "--yes")
	if got := mustRun(t, qs, "query", "SELECT item_id, num_orders FROM @ref(sqlmesh_example.full_model) ORDER BY item_id", "--env", "prod"); got != "item_id,num_orders\n1,5\n2,1\n3,1\n" {
		t.Errorf("full_model rows:\n%s", got)
	}
	// @start_date/@end_date became the interval's days: every seed row
	// once, none twice.
	if got := mustRun(t, qs, "query", "SELECT count(*) AS n, count(DISTINCT id) AS ids FROM @ref(sqlmesh_example.incremental_model)", "--env", "prod"); got != "n,ids\n7,7\n" {
		t.Errorf("incremental_model rows:\n%s", got)
	}
	if got := mustRun(t, qs, "test"); !strings.Contains(got, "1 passed, 0 failed") {
		t.Errorf("test: %s", got)
	}
	if got := mustRun(t, qs, "plan", "prod"); !strings.Contains(got, "up to date") {
		t.Errorf("plan after apply: %s", got)
	}

	// cdf: an audit its workspace does not define, and a time column of
	// text, which only the check of the written project finds.
	code, out, _ = run(t, work, "init", "cdf", "--from-sqlmesh", filepath.Join(fixtures, "cdf"))
	for _, s := range []string{
		"models/full_model.sql:6:11: audit that is no sqlmesh built-in efmesh converts and no audit of the project: assert_positive_order_ids",
		"models/incremental_model.sql:4:47: error: time_column ds is VARCHAR; it must hold dates or timestamps",
	} {
		if code != ExitAwaiting || !strings.Contains(out, s) {
			t.Errorf("init cdf: exit %d, want 2 and %q:\n%s", code, s, out)
		}
	}

	code, out, _ = run(t, work, "init", "sushi", "--from-sqlmesh", filepath.Join(fixtures, "sushi"), "--json")
	for _, s := range []string{`"reason": "Python model: efmesh models are SQL`, `"file": "models/orders.py",`, `"message": "unknown macro @ADD_ONE"`} {
		if code != ExitAwaiting || !strings.Contains(out, s) {
			t.Errorf("init sushi --json: exit %d, want 2 and %q:\n%s", code, s, out)
		}
	}

	// Bad input and an occupied destination write nothing.
	code, _, errs = run(t, work, "init", "other", "--from-sqlmesh", qs)
	if code != ExitError || !strings.Contains(errs, "is not a sqlmesh project") {
		t.Errorf("init from a folder without config: exit %d %s", code, errs)
	}
	testkit.WriteFiles(t, filepath.Join(work, "busy"), map[string]string{"models/full_model.sql": "mine\n"})
	code, _, errs = run(t, work, "init", "busy", "--from-sqlmesh", filepath.Join(fixtures, "quickstart"))
	if code != ExitError || !strings.Contains(errs, "nothing was written") {
		t.Errorf("init over a file it would write: exit %d %s", code, errs)
	}
	for _, dir := range []string{"other", "busy/efmesh.yaml"} {
		if _, err := os.Stat(filepath.Join(work, dir)); err == nil {
			t.Errorf("%s was written", dir)
		}
	}
	code, _, errs = run(t, work, "init", "x", "--from-sqlmesh", qs, "--from-dbt", qs)
	if code == ExitOK || !strings.Contains(errs, "one project at a time") {
		t.Errorf("both --from flags: exit %d %s", code, errs)
	}
}
