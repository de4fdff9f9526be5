package cli

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/state/sqlite"
)

// The drift sweep: a project of every materialized kind applied to dev and
// promoted to prod, then one change made behind efmesh's back per case.
// What plan (full and from the no-op digest), status --check and the
// editor's plan predict must be what apply and run then do, and the rows
// the environment serves must be those a clean apply of the same files
// gives.

const driftNow = "2026-01-05T06:00:00Z"

func driftFiles() map[string]string {
	return map[string]string{
		"efmesh.yaml":   "name: drift\nstart: 2026-01-01\n",
		"seeds/ev.csv":  "id,amount,ts\n1,10,2026-01-01T10:00:00\n2,20,2026-01-02T10:00:00\n3,30,2026-01-02T11:00:00\n4,40,2026-01-04T09:00:00\n",
		"data/src.csv":  "id,label\n1,a\n2,b\n3,a\n4,c\n",
		"models/ev.sql": "MODEL (name raw.ev, kind SEED (path 'seeds/ev.csv'), columns (id INTEGER, amount INTEGER, ts TIMESTAMP));\n",
		"models/src.sql": "MODEL (name raw.src, kind EXTERNAL (files 'data/src*.csv', format csv, header true),\n" +
			"  columns (id INTEGER, label TEXT));\n",
		"models/daily.sql": `MODEL (name core.daily, kind INCREMENTAL_BY_TIME_RANGE (time_column day), interval day,
  columns (day TIMESTAMP, n BIGINT, amount BIGINT));
SELECT date_trunc('day', ts)::TIMESTAMP AS day, count(*) AS n, sum(amount)::BIGINT AS amount
FROM @ref(raw.ev) WHERE ts >= @start AND ts < @end GROUP BY ALL
`,
		"models/labeled.sql": `MODEL (name core.labeled, kind FULL, columns (id INTEGER, amount INTEGER, label TEXT));
SELECT e.id, e.amount, s.label FROM @ref(raw.ev) AS e LEFT JOIN @ref(raw.src) AS s USING (id)
`,
		"models/lake.sql": `MODEL (name mart.lake, kind FULL, target parquet, columns (id INTEGER, amount INTEGER));
SELECT e.id, e.amount FROM @ref(raw.ev) AS e
`,
		"models/srcview.sql": "MODEL (name mart.src_view, kind VIEW, columns (id INTEGER, label TEXT));\nSELECT s.id, s.label FROM @ref(raw.src) AS s\n",
		"models/totals.sql": `MODEL (name mart.totals, kind VIEW, columns (label TEXT, amount BIGINT));
SELECT l.label, sum(l.amount)::BIGINT AS amount FROM @ref(core.labeled) AS l GROUP BY ALL
`,
	}
}

// driftRows is what an environment serves: every view's rows, ordered (a
// view that cannot be read, its error).
func driftRows(t *testing.T, dir, env string) string {
	t.Helper()
	prefix := env + "__"
	if env == "prod" {
		prefix = ""
	}
	db, err := duckdb.OpenReadOnly(filepath.Join(dir, "efmesh.duckdb"))
	if err != nil {
		return err.Error()
	}
	defer db.Close()
	var b strings.Builder
	for _, v := range []string{"raw.ev", "core.daily", "core.labeled", "mart.totals", "mart.lake", "mart.src_view"} {
		rows, err := db.Query(context.Background(), "SELECT * FROM "+prefix+v+" ORDER BY ALL")
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", v, err)
			continue
		}
		fmt.Fprintf(&b, "%s=%v\n", v, rows.Values)
	}
	return b.String()
}

// cliResult is one command's exit code and output.
type cliResult struct {
	code     int
	out, err string
}

func (r cliResult) String() string { return r.out + r.err }

func runRes(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	code, out, errs := run(t, dir, args...)
	return cliResult{code, out, errs}
}

func copyAll(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// cleanRows is what a clean apply of dir's files to dev serves ("" when it
// fails).
func cleanRows(t *testing.T, dir string) string {
	t.Helper()
	clean := copyTree(t, dir)
	if code, _, _ := run(t, clean, "apply", "dev", "--yes"); code != ExitOK {
		return ""
	}
	return driftRows(t, clean, "dev")
}

func touchAll(t *testing.T, dir string, at time.Time) {
	t.Helper()
	for _, rel := range []string{"efmesh.yaml", "seeds/ev.csv", "data/src.csv", "models/ev.sql", "models/src.sql",
		"models/daily.sql", "models/labeled.sql", "models/totals.sql", "models/lake.sql", "models/srcview.sql"} {
		if err := os.Chtimes(filepath.Join(dir, rel), at, at); err != nil {
			t.Fatal(err)
		}
	}
}

func writeAt(t *testing.T, dir, rel, body string, at time.Time) {
	t.Helper()
	writeFile(t, dir, rel, body)
	if err := os.Chtimes(filepath.Join(dir, rel), at, at); err != nil {
		t.Fatal(err)
	}
}

type driftCase struct {
	name  string
	drift func(t *testing.T, dir string)
	// now, when set, is the clock after the drift.
	now string
	// fails: apply is expected to fail (and plan to say so first).
	fails bool
	// files: the drift changes the project's files; the rows to expect
	// are a clean apply's of them.
	files bool
	// moved: the project is copied elsewhere and its folder deleted.
	moved bool
	// rows, when set, are the rows to expect, from those served before.
	rows func(before string) string
	// known: a mismatch this sweep found and left open, with why.
	known string
	// unrecorded are the environments whose views the warehouse serves and
	// the drifted state store does not know: the plan warns, apply refuses
	// them without --force, and the sweep goes on with --force.
	unrecorded []string
}

// TestDriftSweep: per drift, plan (the full path and the no-op digest),
// status --check and the editor (its plan and its diagnostics) must say
// what apply and run then do: the same refusal, or a plan whose apply
// leaves dev (and prod, once applied) serving the rows a clean apply of
// the same files serves, after which plan has no changes and status is
// healthy.
func TestDriftSweep(t *testing.T) {
	t.Setenv("EFMESH_NOW", driftNow)
	// The project is built in the folder every case works in, then set
	// aside: each case gets a copy of it there (its views over files name
	// that folder's files, so the copy is the project, not a project
	// moved, which is a case of its own).
	base := t.TempDir()
	work, tmpl := filepath.Join(base, "project"), filepath.Join(base, "template")
	testkit.WriteFiles(t, work, driftFiles())
	mustRun(t, work, "apply", "dev", "--yes")
	mustRun(t, work, "apply", "prod", "--yes")
	before := driftRows(t, work, "dev")
	if got := driftRows(t, work, "prod"); got != before {
		t.Fatalf("prod after the promotion:\n%s\nwant\n%s", got, before)
	}
	physical := map[string]string{}
	for _, m := range missingPlanOf(t, work, "dev").Models {
		physical[m.Name] = m.PhysicalTable
	}
	if err := os.Rename(work, tmpl); err != nil {
		t.Fatal(err)
	}
	other := writeProject(t, map[string]string{
		"efmesh.yaml":   "name: other\n",
		"models/o.sql":  "MODEL (name core.labeled, kind FULL);\nSELECT 1 AS id, 2 AS amount, 'z' AS label\n",
		"models/o2.sql": "MODEL (name other.x, kind VIEW);\nSELECT 1 AS x\n",
	})
	mustRun(t, other, "apply", "dev", "--yes")
	past := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

	cases := []driftCase{
		{name: "full table dropped", drift: func(t *testing.T, dir string) { execWarehouse(t, dir, "DROP TABLE "+physical["core.labeled"]) }},
		{name: "incremental table dropped", drift: func(t *testing.T, dir string) { execWarehouse(t, dir, "DROP TABLE "+physical["core.daily"]) }},
		{name: "seed table dropped", drift: func(t *testing.T, dir string) { execWarehouse(t, dir, "DROP TABLE "+physical["raw.ev"]) }},
		{name: "full table renamed", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "ALTER TABLE "+physical["core.labeled"]+" RENAME TO renamed_by_hand")
		}},
		{name: "column added", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "ALTER TABLE "+physical["core.labeled"]+" ADD COLUMN extra INTEGER")
		}},
		{name: "column dropped", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "ALTER TABLE "+physical["core.labeled"]+" DROP COLUMN label")
		}},
		{name: "column retyped", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "ALTER TABLE "+physical["core.labeled"]+" ALTER amount TYPE VARCHAR")
		}},
		{name: "column retyped in its family", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "ALTER TABLE "+physical["core.daily"]+" ALTER n TYPE INTEGER")
		}},
		{name: "incremental column dropped", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "ALTER TABLE "+physical["core.daily"]+" DROP COLUMN amount")
		}},
		{name: "env view dropped", drift: func(t *testing.T, dir string) { execWarehouse(t, dir, "DROP VIEW dev__mart.totals") }},
		{name: "env view replaced by a table", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "DROP VIEW dev__core.labeled; CREATE TABLE dev__core.labeled AS SELECT * FROM "+physical["core.labeled"])
		}},
		{name: "env view replaced by a stale table", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "DROP VIEW dev__core.labeled; CREATE TABLE dev__core.labeled AS SELECT * FROM "+physical["core.labeled"]+" WHERE id = 1")
		}},
		{name: "env view replaced by a table, then a change", files: true, drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "DROP VIEW dev__core.labeled; CREATE TABLE dev__core.labeled AS SELECT * FROM "+physical["core.labeled"])
			editFile(t, dir, "seeds/ev.csv", func(s string) string { return s + "5,50,2026-01-03T08:00:00\n" })
		}},
		{name: "full table replaced by a view", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "CREATE TABLE keep AS SELECT * FROM "+physical["core.labeled"]+"; DROP TABLE "+physical["core.labeled"]+
				"; CREATE VIEW "+physical["core.labeled"]+" AS SELECT * FROM keep WHERE id = 1")
		}},
		// A day later: run computes the next interval into it.
		{name: "incremental table replaced by a view", now: "2026-01-06T06:00:00Z", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "CREATE TABLE keep AS SELECT * FROM "+physical["core.daily"]+"; DROP TABLE "+physical["core.daily"]+
				"; CREATE VIEW "+physical["core.daily"]+" AS SELECT * FROM keep")
		}},
		{name: "view model's view replaced by a table", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "CREATE TABLE keep AS SELECT * FROM "+physical["mart.totals"]+"; DROP VIEW "+physical["mart.totals"]+
				"; CREATE TABLE "+physical["mart.totals"]+" AS SELECT * FROM keep WHERE false")
		}},
		{name: "env schema dropped", drift: func(t *testing.T, dir string) { execWarehouse(t, dir, "DROP SCHEMA dev__core CASCADE") }},
		{name: "warehouse deleted", drift: func(t *testing.T, dir string) { removeWarehouse(t, dir) }},
		{name: "warehouse truncated", fails: true, drift: func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, "efmesh.duckdb"), 0); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "warehouse not a database", fails: true, drift: func(t *testing.T, dir string) {
			writeFile(t, dir, "efmesh.duckdb", "not a database, but longer than a header would be\n")
		}},
		{name: "warehouse read-only", drift: func(t *testing.T, dir string) { readOnly(t, filepath.Join(dir, "efmesh.duckdb")) }},
		{name: "warehouse read-only, a table dropped", fails: true, drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "DROP TABLE "+physical["core.labeled"])
			readOnly(t, filepath.Join(dir, "efmesh.duckdb"))
		}},
		{name: "warehouse WAL left behind", drift: func(t *testing.T, dir string) {
			// A process that died before its checkpoint: DuckDB replays it.
			execWarehouse(t, dir, "PRAGMA disable_checkpoint_on_shutdown; SET wal_autocheckpoint = '1TB'; CREATE TABLE main.scratch AS SELECT 1 AS x")
			if _, err := os.Stat(filepath.Join(dir, "efmesh.duckdb.wal")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "warehouse deleted, its WAL left behind", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "PRAGMA disable_checkpoint_on_shutdown; SET wal_autocheckpoint = '1TB'; DROP TABLE "+physical["core.labeled"])
			if err := os.Remove(filepath.Join(dir, "efmesh.duckdb")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "another project's warehouse", drift: func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join(other, "efmesh.duckdb"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, "efmesh.duckdb", string(b))
		}},
		{name: "lake files deleted", drift: func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "lake")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "lake file truncated", drift: func(t *testing.T, dir string) {
			files, _ := filepath.Glob(filepath.Join(dir, "lake", "mart", "lake", "*", "data.parquet"))
			if len(files) != 1 {
				t.Fatalf("lake files: %v", files)
			}
			if err := os.Truncate(files[0], 0); err != nil {
				t.Fatal(err)
			}
		}},
		// The views over files (a parquet target's, a VIEW reading an
		// EXTERNAL model's files) name them by absolute path.
		{name: "project moved", moved: true, drift: func(t *testing.T, dir string) {}},
		{name: "env view re-pointed by hand", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "CREATE TABLE main.old_labeled AS SELECT * FROM "+physical["core.labeled"]+" WHERE id < 3; "+
				"CREATE OR REPLACE VIEW dev__core.labeled AS SELECT * FROM main.old_labeled")
		}},
		{name: "physical schema dropped", drift: func(t *testing.T, dir string) { execWarehouse(t, dir, "DROP SCHEMA _efmesh CASCADE") }},
		{name: "state truncated", unrecorded: []string{"dev", "prod"}, drift: func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, ".efmesh", "state.db"), 0); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "state not a database", fails: true, drift: func(t *testing.T, dir string) {
			writeFile(t, dir, ".efmesh/state.db", strings.Repeat("not a database\n", 400))
		}},
		{name: "seed value does not cast", files: true, fails: true, drift: func(t *testing.T, dir string) {
			editFile(t, dir, "seeds/ev.csv", func(s string) string { return s + "5,lots,2026-01-03T08:00:00\n" })
		}},
		{name: "state deleted", unrecorded: []string{"dev", "prod"}, drift: func(t *testing.T, dir string) {
			for _, f := range []string{"state.db", "state.db-wal", "state.db-shm"} {
				os.Remove(filepath.Join(dir, ".efmesh", f))
			}
		}},
		{name: "state deleted, WAL left behind", unrecorded: []string{"dev", "prod"}, drift: func(t *testing.T, dir string) {
			wal := staleStateWAL(t, dir)
			for _, f := range []string{"state.db", "state.db-wal", "state.db-shm"} {
				os.Remove(filepath.Join(dir, ".efmesh", f))
			}
			writeFile(t, dir, ".efmesh/state.db-wal", wal)
		}},
		{name: "another project's state", unrecorded: []string{"prod"}, drift: func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join(other, ".efmesh", "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, ".efmesh/state.db", string(b))
		}},
		{name: "external file deleted", files: true, fails: true, drift: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "data", "src.csv")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "external columns changed", files: true, fails: true, drift: func(t *testing.T, dir string) {
			writeFile(t, dir, "data/src.csv", "id,name\n1,a\n2,b\n3,a\n4,c\n")
		}},
		{name: "external rows changed", rows: func(before string) string {
			// The VIEW reads the source in place; the FULL model keeps
			// its rows until its cron refreshes it.
			return strings.Replace(before, "mart.src_view=[[1 a]", "mart.src_view=[[1 x]", 1)
		}, drift: func(t *testing.T, dir string) {
			writeFile(t, dir, "data/src.csv", "id,label\n1,x\n2,b\n3,a\n4,c\n")
		}},
		{name: "external file added to its glob", rows: func(before string) string {
			return strings.Replace(before, "[4 c]]\n", "[4 c] [5 e]]\n", 1)
		}, drift: func(t *testing.T, dir string) {
			writeFile(t, dir, "data/src_b.csv", "id,label\n5,e\n")
		}},
		{name: "seed changed", files: true, drift: func(t *testing.T, dir string) {
			editFile(t, dir, "seeds/ev.csv", func(s string) string { return s + "5,50,2026-01-03T08:00:00\n" })
		}},
		{name: "seed changed, same size, older mtime", files: true, drift: func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "seeds/ev.csv"))
			writeAt(t, dir, "seeds/ev.csv", strings.Replace(string(b), "1,10,", "1,19,", 1), past)
		}},
		// known: rows deleted by hand from a ledgered interval are not
		// looked for (the ledger is the truth of what is computed); plan,
		// status and run say nothing, and `restate` recomputes the range.
		{name: "incremental rows deleted", drift: func(t *testing.T, dir string) {
			execWarehouse(t, dir, "DELETE FROM "+physical["core.daily"]+" WHERE day = '2026-01-02'")
		}, known: "the interval ledger is the truth of what is computed (README): rows deleted by hand " +
			"from a ledgered interval are not looked for; restate the range"},
		{name: "clock went back", now: "2026-01-03T06:00:00Z", drift: func(t *testing.T, dir string) {}},
		{name: "files restored from git", drift: func(t *testing.T, dir string) { touchAll(t, dir, time.Now().Add(time.Minute)) }},
		{name: "branch switch", files: true, drift: func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "models/labeled.sql"))
			writeAt(t, dir, "models/labeled.sql", strings.Replace(string(b), "LEFT JOIN", "INNER JOIN", 1)[:len(b)], past)
			touchAll(t, dir, past)
		}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := work
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(dir, os.DirFS(tmpl)); err != nil {
				t.Fatal(err)
			}
			// The digest of the world before the drift.
			if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
				t.Fatalf("plan before the drift:\n%s", out)
			}
			if c.moved {
				dir = copyAll(t, work)
				if err := os.RemoveAll(work); err != nil {
					t.Fatal(err)
				}
			}
			c.drift(t, dir)
			if c.now != "" {
				t.Setenv("EFMESH_NOW", c.now)
			}
			want := before
			if c.files {
				want = cleanRows(t, dir)
			}
			served := before // what prod serves, healthy
			if c.rows != nil {
				want = c.rows(before)
				served = want
			}
			checkDrift(t, dir, c, served, want)
		})
	}
}

// cliDiagnostic is a positioned error as the CLI prints it.
var cliDiagnostic = regexp.MustCompile(`(?m)^(\S+):(\d+):\d+: error: (.*)$`)

// checkDrift compares what plan, status and the editor say with what
// apply and run do after the drift.
func checkDrift(t *testing.T, dir string, c driftCase, before, want string) {
	t.Helper()
	report := func(format string, args ...any) {
		t.Helper()
		if c.known != "" {
			t.Logf("known: "+format, args...)
			return
		}
		t.Errorf(format, args...)
	}
	plan1 := runRes(t, dir, "plan", "dev", "--log-level", "debug")
	fromDigest := strings.Contains(plan1.err, "answered from the no-op digest")
	plan2 := runRes(t, dir, "plan", "dev")
	if err := os.RemoveAll(filepath.Join(dir, ".efmesh", "cache")); err != nil {
		t.Fatal(err)
	}
	full := runRes(t, dir, "plan", "dev")
	t.Logf("plan (digest %v): exit %d\n%s", fromDigest, plan1.code, plan1)
	if plan1.code != full.code || plan1.out != full.out {
		report("plan after the drift (from the digest: %v) differs from the full plan:\n%s\nfull:\n%s", fromDigest, plan1, full)
	}
	if plan2.code != full.code || plan2.out != full.out {
		report("the second plan differs from the full plan:\n%s\nfull:\n%s", plan2, full)
	}
	status := runRes(t, dir, "status", "dev", "--check")
	t.Logf("status --check: exit %d\n%s", status.code, status)
	// The editor: the same plan, or the same refusal, and each positioned
	// error of the CLI's a diagnostic in the file at its line.
	var fileErrs []string
	for _, m := range cliDiagnostic.FindAllStringSubmatch(full.String(), -1) {
		fileErrs = append(fileErrs, m[1]+":"+m[2]+": "+m[3])
	}
	waitFor := ""
	if len(fileErrs) > 0 {
		waitFor = fileErrs[0][strings.Index(fileErrs[0], ": ")+2:]
	}
	editor, diags, editorErr := editorSession(t, dir, "dev", waitFor)
	switch {
	case full.code == ExitOK && (editorErr != nil || editor != full.out):
		report("the editor's plan differs from the CLI's:\n%s%v\ncli:\n%s", editor, editorErr, full.out)
	case full.code != ExitOK && editorErr == nil:
		report("the CLI's plan fails, the editor's does not:\n%s\ncli:\n%s", editor, full)
	}
	for _, want := range fileErrs {
		if !slices.Contains(diags, want) {
			report("the editor does not publish %q; it publishes %q", want, diags)
		}
	}
	noChanges := full.code == ExitOK && strings.Contains(full.out, "No changes")
	// A plan apply cannot make says so: it fails, or warns that apply
	// cannot make its changes.
	planFails := full.code != ExitOK || strings.Contains(full.out, "warning: read_only_warehouse: ") && strings.Contains(full.out, "apply cannot make these changes")
	repairs := strings.Contains(full.out, "missing →") || strings.Contains(full.out, "differs from its snapshot")
	if repairs && status.code == ExitOK {
		report("plan repairs the environment but status --check is healthy:\n%s\nstatus:\n%s", full, status)
	}
	if status.code != ExitOK && noChanges {
		report("status --check is unhealthy but plan has no changes:\n%s\nplan:\n%s", status, full)
	}

	stored := storedEnvs(t, dir)
	applyArgs := func(env string) []string {
		if slices.Contains(c.unrecorded, env) {
			return []string{"apply", env, "--yes", "--force"}
		}
		return []string{"apply", env, "--yes"}
	}
	if slices.Contains(c.unrecorded, "dev") {
		if !strings.Contains(full.out, "warning: unrecorded-relations: ") {
			report("the warehouse serves dev, unknown to the store, and the plan does not say so:\n%s", full)
		}
		if r := runRes(t, dir, "apply", "dev", "--yes"); r.code != ExitError || !strings.Contains(r.err, "--force") {
			report("apply over dev's unrecorded views without --force: exit %d, want 1 naming --force:\n%s", r.code, r)
		}
		if got := storedEnvs(t, dir); got != stored {
			report("a refused apply changed the state store:\n%s\nwas\n%s", got, stored)
		}
	}
	apply := runRes(t, dir, applyArgs("dev")...)
	t.Logf("apply: exit %d\n%s", apply.code, apply)
	if (apply.code == ExitOK) == planFails {
		report("plan exit %d but apply exit %d:\nplan:\n%s\napply:\n%s", full.code, apply.code, full, apply)
	}
	if c.fails != (apply.code != ExitOK) {
		report("apply: exit %d, want failure %v:\n%s", apply.code, c.fails, apply)
	}
	if apply.code != ExitOK {
		if status.code == ExitOK && !planFails {
			report("apply failed where plan and status saw nothing wrong:\n%s", apply)
		}
		if strings.Contains(apply.String(), "panic") {
			report("apply panicked:\n%s", apply)
		}
		// Refused before any action: the store is as it was.
		if got := storedEnvs(t, dir); got != stored {
			report("a failed apply changed the state store:\n%s\nwas\n%s", got, stored)
		}
		return
	}
	if noChanges && !strings.Contains(apply.out, "No changes") {
		report("plan said no changes, apply did something:\n%s", apply)
	}
	tick := runRes(t, dir, "run", "dev")
	if tick.code != ExitOK {
		report("run after the apply: exit %d\n%s", tick.code, tick)
	}
	if got := driftRows(t, dir, "dev"); got != want {
		report("dev serves after apply and run:\n%s\nwant\n%s", got, want)
	}
	if out := runRes(t, dir, "plan", "dev"); out.code != ExitOK || !strings.Contains(out.out, "No changes") {
		report("plan after the apply:\n%s", out)
	}
	if st := runRes(t, dir, "status", "dev", "--check"); st.code != ExitOK {
		report("status --check after the apply: exit %d\n%s", st.code, st)
	}

	// prod, which dev's apply may have repaired (a shared table) or not
	// (its views): healthy means it serves what it served before; apply
	// makes it dev's.
	if st := runRes(t, dir, "status", "prod", "--check"); st.code == ExitOK {
		if got := driftRows(t, dir, "prod"); got != before {
			report("status --check of prod is healthy, and prod serves:\n%s\nnot\n%s", got, before)
		}
	} else if p := runRes(t, dir, "plan", "prod"); p.code != ExitOK || strings.Contains(p.out, "No changes") {
		report("status --check of prod is unhealthy:\n%s\nplan prod:\n%s", st, p)
	}
	if ap := runRes(t, dir, applyArgs("prod")...); ap.code != ExitOK {
		report("apply prod: exit %d\n%s", ap.code, ap)
	} else if got := driftRows(t, dir, "prod"); got != want {
		report("prod after its apply:\n%s\nwant\n%s", got, want)
	}
}

// staleStateWAL is a write-ahead log of the project's state store, as a
// process that died mid-write leaves it.
func staleStateWAL(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, ".efmesh", "state.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0", "UPDATE environments SET env = env"} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	b, err := os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		t.Fatal("no WAL frame written")
	}
	return string(b)
}

// readOnly makes the file at path read-only, for root too (immutable),
// until the test ends; the test is skipped where that cannot be done.
func readOnly(t *testing.T, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("root cannot make %s read-only here: %v %s", path, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
}

// TestDriftLakeBeforeFirstInterval: an incremental parquet target with no
// interval due yet is an empty view that reads no file; it is not taken
// for a view made in another folder (the presence check reads the views'
// definitions): plan after apply has no changes, and the view reads its
// files once the first interval is computed.
func TestDriftLakeBeforeFirstInterval(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-05T06:00:00Z")
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":   "name: lake\nstart: 2026-01-05\n",
		"seeds/ev.csv":  "id,ts\n1,2026-01-05T10:00:00\n",
		"models/ev.sql": "MODEL (name raw.ev, kind SEED (path 'seeds/ev.csv'), columns (id INTEGER, ts TIMESTAMP));\n",
		"models/orders.sql": `MODEL (name core.orders, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), target parquet,
  columns (id INTEGER, ts TIMESTAMP));
SELECT id, ts FROM @ref(raw.ev) WHERE ts >= @start AND ts < @end
`,
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after an apply that computed no interval:\n%s", out)
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitOK {
		t.Fatalf("status --check: exit %d\n%s", code, out)
	}
	t.Setenv("EFMESH_NOW", "2026-01-06T06:00:00Z")
	runTick(t, dir, "dev", ExitOK)
	if got := query(t, dir, "SELECT count(*) FROM dev__core.orders"); got != "[[1]]" {
		t.Fatalf("dev__core.orders after the first interval: %s", got)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after the first interval:\n%s", out)
	}
}

// storedEnvs is storeState where the state store opens ("" where it does
// not: a file that is not a database).
func storedEnvs(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, ".efmesh", "state.db")
	if _, err := os.Stat(path); err != nil {
		return "none" // opening it would create it
	}
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return ""
	}
	st.Close()
	return storeState(t, dir)
}
