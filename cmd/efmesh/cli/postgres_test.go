package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/project"
)

// freshDatabase creates a database for one test and returns its URL.
func freshDatabase(t *testing.T) string {
	t.Helper()
	return realdb.PostgresDatabase(t)
}

func pgQuery(t *testing.T, dbURL, sql string) string {
	t.Helper()
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return fmt.Sprint(rows.Values)
}

// pgProject is a hospital in Postgres: the raw moves are a table the test
// creates, the models read it through an EXTERNAL (table …).
func pgProject(t *testing.T, dbURL string) string {
	t.Helper()
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows []string
	for c := 1; c <= 12; c++ {
		for i, dept := range []string{"ER", "ICU", "therapy", "discharge"} {
			rows = append(rows, fmt.Sprintf("('m%d_%d', 'c%d', '%s', TIMESTAMP '2026-01-%02d 08:00' + interval '%d hours')", c, i, c, dept, c, i*(c+3)))
		}
	}
	if err := db.Exec(context.Background(), `CREATE SCHEMA src; CREATE TABLE src.moves (move_id text, case_id text, dept text, moved_at timestamp);
INSERT INTO src.moves VALUES `+strings.Join(rows, ", ")); err != nil {
		t.Fatal(err)
	}
	return writeProject(t, map[string]string{
		"efmesh.yaml": fmt.Sprintf("name: pghospital\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL),
		"models/raw/moves.sql": `MODEL (name raw.moves, kind EXTERNAL (table src.moves),
  columns (move_id TEXT, case_id TEXT, dept TEXT, moved_at TIMESTAMP));
`,
		"models/med/stays.sql": `MODEL (name med.stays, kind FULL, grain (stay_id),
  columns (stay_id TEXT, case_id TEXT, dept TEXT, started_at TIMESTAMP, ended_at TIMESTAMP));

WITH ordered AS (
  SELECT m.move_id, m.case_id, m.dept, m.moved_at,
         lead(m.moved_at) OVER (PARTITION BY m.case_id ORDER BY m.moved_at) AS next_at
  FROM @ref(raw.moves) AS m
)
SELECT move_id AS stay_id, case_id, dept, moved_at AS started_at, next_at AS ended_at
FROM ordered
WHERE dept <> 'discharge'
`,
		"models/med/by_dept.sql": `MODEL (name med.by_dept, kind VIEW);
SELECT dept, count(*) AS stays FROM @ref(med.stays) GROUP BY dept
`,
		"models/mart/top.sql": `MODEL (name mart.top, kind FULL);
SELECT dept, stays FROM @ref(med.by_dept) ORDER BY stays DESC, dept
`,
	})
}

// TestPostgresLifecycle runs the hospital scenario with Postgres as the
// engine and as the state store.
func TestPostgresLifecycle(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := pgProject(t, dbURL)

	// Three models in a chain over an EXTERNAL (read in place, never
	// built): --jobs builds them by the DAG.
	out := mustRun(t, dir, "apply", "dev", "--yes", "--json", "--jobs", "4")
	var res struct {
		Built    []string `json:"built"`
		Promoted []string `json:"promoted"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Built) != 3 {
		t.Fatalf("apply dev: %v\n%s", err, out)
	}
	if p := planJSONOf(t, dir, "dev"); p.HasChanges {
		t.Fatalf("second plan has changes: %v", changed(p))
	}
	out = mustRun(t, dir, "apply", "prod", "--yes", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Built) != 0 || len(res.Promoted) != 3 {
		t.Fatalf("apply prod: %s", out)
	}
	for _, rel := range []string{"med.stays", "med.by_dept", "mart.top"} {
		s, tb, _ := strings.Cut(rel, ".")
		dev := pgQuery(t, dbURL, fmt.Sprintf(`SELECT * FROM "dev__%s"."%s" ORDER BY 1, 2`, s, tb))
		prod := pgQuery(t, dbURL, fmt.Sprintf(`SELECT * FROM "%s"."%s" ORDER BY 1, 2`, s, tb))
		if dev != prod || len(dev) < 10 {
			t.Fatalf("%s: dev and prod differ:\n%.200s\n%.200s", rel, dev, prod)
		}
	}
	stays := pgQuery(t, dbURL, `SELECT count(*) FROM med.stays`)

	restore := editFile(t, dir, "models/med/stays.sql", func(s string) string {
		return strings.Replace(s, "WHERE dept <> 'discharge'", "WHERE dept <> 'discharge' AND dept <> 'ER'", 1)
	})
	want := []string{"mart.top:indirect:true", "med.by_dept:indirect:true", "med.stays:breaking:true"}
	if got := changed(planJSONOf(t, dir, "dev")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plan after edit: %v, want %v", got, want)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := pgQuery(t, dbURL, `SELECT count(*) FROM med.stays`); got != stays {
		t.Fatalf("prod changed before promotion: %s -> %s", stays, got)
	}
	if got := pgQuery(t, dbURL, `SELECT count(*) FROM dev__med.stays`); got == stays {
		t.Fatalf("dev did not change")
	}
	restore()
	for _, m := range planJSONOf(t, dir, "dev").Models {
		if m.Build {
			t.Fatalf("revert rebuilds %s", m.Name)
		}
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := pgQuery(t, dbURL, `SELECT count(*) FROM dev__med.stays`); got != stays {
		t.Fatalf("revert: dev has %s rows, want %s", got, stays)
	}

	// Problems are found without touching the server: an unknown column.
	editFile(t, dir, "models/mart/top.sql", func(s string) string { return strings.Replace(s, "SELECT dept, stays", "SELECT dept, stayz", 1) })
	code, _, errs := run(t, dir, "plan", "dev")
	if code != ExitError || !strings.Contains(errs, `models/mart/top.sql:2:14: error: unknown column "stayz"`) {
		t.Fatalf("unknown column on Postgres: exit %d\n%s", code, errs)
	}
}

// TestPostgresFeatureErrors: DuckDB-only features stop before any action.
func TestPostgresFeatureErrors(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":  fmt.Sprintf("name: pgf\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL),
		"seeds/s.csv":  "id\n1\n",
		"models/s.sql": "MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER));\n",
	})
	code, _, errs := run(t, dir, "apply", "dev", "--yes")
	if code != ExitError || !strings.Contains(errs, "raw.s uses SEED files, which the postgres engine does not support") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if got := pgQuery(t, dbURL, `SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE '%efmesh%'`); got != "[[0]]" {
		t.Fatalf("something was created: %s", got)
	}
}

// TestDuckDBWithPostgresState runs the hospital example on DuckDB with the
// state store in Postgres.
func TestDuckDBWithPostgresState(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := copyExample(t, "hospital")
	cfg, err := os.ReadFile(dir + "/efmesh.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfgText := strings.Replace(string(cfg), "state: {type: sqlite, path: .efmesh/state.db}", fmt.Sprintf("state: {type: postgres, url: %q}", dbURL), 1)
	if cfgText == string(cfg) {
		t.Fatal("the example's state line changed; update this test")
	}
	os.WriteFile(dir+"/efmesh.yaml", []byte(cfgText), 0o644)
	t.Setenv("EFMESH_NOW", "2026-02-01T06:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	if p := planJSONOf(t, dir, "dev"); p.HasChanges {
		t.Fatalf("second plan has changes: %v", changed(p))
	}
	out := mustRun(t, dir, "apply", "prod", "--yes", "--json")
	var res struct {
		Built []string `json:"built"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Built) != 0 {
		t.Fatalf("apply prod: %s", out)
	}
	if got := pgQuery(t, dbURL, `SELECT count(*) FROM efmesh_state.environments WHERE env = 'prod'`); got == "[[0]]" {
		t.Fatal("no prod pointers in the Postgres store")
	}
}

// TestPostgresConcurrentApplies: two processes against one Postgres state
// store; different environments both succeed, the same one is serialized.
func TestPostgresConcurrentApplies(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := pgProject(t, dbURL)
	mustRun(t, dir, "apply", "dev", "--yes") // build once; then promotions race
	runPair := func(envA, envB string) (codes [2]int, errs [2]string) {
		var wg sync.WaitGroup
		for i, env := range []string{envA, envB} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd, _, stderr := cliProcess(dir, "apply", env, "--yes")
				err := cmd.Run()
				codes[i] = cmd.ProcessState.ExitCode()
				if err != nil && codes[i] == 0 {
					codes[i] = -1
				}
				errs[i] = stderr.String()
			}()
		}
		wg.Wait()
		return codes, errs
	}
	codes, errs := runPair("stage", "prod")
	if codes != [2]int{0, 0} {
		t.Fatalf("different environments: exit %v\n%s\n%s", codes, errs[0], errs[1])
	}
	editFile(t, dir, "models/mart/top.sql", func(s string) string { return strings.Replace(s, "ORDER BY stays DESC, dept", "ORDER BY dept", 1) })
	codes, errs = runPair("qa", "qa")
	ok := 0
	for i, c := range codes {
		switch {
		case c == 0:
			ok++
		case c == ExitError && (strings.Contains(errs[i], "lock") || strings.Contains(errs[i], "changed since the plan")):
		default:
			t.Fatalf("same environment: exit %v\n%s\n%s", codes, errs[0], errs[1])
		}
	}
	if ok == 0 {
		t.Fatalf("neither apply succeeded:\n%s\n%s", errs[0], errs[1])
	}
	if p := planJSONOf(t, dir, "qa"); p.HasChanges {
		t.Fatalf("qa is not fully applied: %v", changed(p))
	}
}

// pgEventsProject is an incremental model over a Postgres table of 90 days
// of events, one batch a day, plus a child that reads it by range.
func pgEventsProject(t *testing.T, dbURL string) string {
	t.Helper()
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A few events per day, some of them late in the evening, one with a
	// non-ASCII kind: the day boundaries are what the batches split on.
	if err := db.Exec(context.Background(), `CREATE SCHEMA src;
CREATE TABLE src.events AS
SELECT 'e' || g AS id,
       (ARRAY['click', 'view', 'café'])[1 + g % 3] AS kind,
       TIMESTAMP '2026-01-01' + g * interval '97 minutes' AS ts
FROM generate_series(0, 1330) AS g`); err != nil {
		t.Fatal(err)
	}
	return writeProject(t, map[string]string{
		"efmesh.yaml": fmt.Sprintf("name: pgevents\nstart: 2026-01-01\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL),
		"models/raw/events.sql": `MODEL (name raw.events, kind EXTERNAL (table src.events),
  columns (id TEXT, kind TEXT, ts TIMESTAMP));
`,
		"models/core/daily.sql": `MODEL (
  name core.daily,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day, batch_size 1),
  interval day,
  columns (day TIMESTAMP, kind TEXT, events BIGINT, last_id TEXT)
);
SELECT date_trunc('day', ts) AS day, kind, count(*) AS events, max(id) AS last_id
FROM @ref(raw.events)
WHERE ts >= @start AND ts < @end
GROUP BY 1, 2
`,
		"models/core/per_day.sql": `MODEL (
  name core.per_day,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day, batch_size 7),
  interval day,
  columns (day TIMESTAMP, events BIGINT, kinds TEXT)
);
SELECT day, sum(events)::BIGINT AS events, string_agg(kind, ',' ORDER BY kind) AS kinds
FROM @ref(core.daily)
WHERE day >= @start AND day < @end
GROUP BY day
`,
	})
}

// TestPostgresBackfillJobs: an incremental backfill with --jobs 4 runs its
// batches side by side on the pool and writes the same rows as --jobs 1.
func TestPostgresBackfillJobs(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-03-31T12:00:00Z")
	one, four := freshDatabase(t), freshDatabase(t)
	dirOne, dirFour := pgEventsProject(t, one), pgEventsProject(t, four)

	mustRun(t, dirOne, "apply", "prod", "--yes", "--jobs", "1")
	out := mustRun(t, dirFour, "apply", "prod", "--yes", "--jobs", "4", "--json")
	if !strings.Contains(out, `"core.daily"`) {
		t.Fatalf("apply --jobs 4: %s", out)
	}
	for _, q := range []string{
		`SELECT * FROM core.daily ORDER BY day, kind`,
		`SELECT * FROM core.per_day ORDER BY day`,
		`SELECT count(*), sum(events) FROM core.daily`,
	} {
		a, b := pgQuery(t, one, q), pgQuery(t, four, q)
		if a != b || len(a) < 10 {
			t.Fatalf("%s:\n--jobs 1: %.300s\n--jobs 4: %.300s", q, a, b)
		}
	}
	// 89 whole days of three kinds each; of the 1,331 events, those before
	// 2026-03-31 (every 97 minutes: 0..1321).
	if got := pgQuery(t, four, `SELECT count(*), sum(events) FROM core.daily`); got != "[[267 1322]]" {
		t.Fatalf("core.daily totals: %s", got)
	}
	// The ledgers agree: every interval recorded once, done.
	ledger := `SELECT s.name, i.status, count(*), min(i."start"), max(i."end")
FROM efmesh_state.intervals i JOIN efmesh_state.snapshots s USING (fingerprint)
GROUP BY 1, 2 ORDER BY 1, 2`
	if a, b := pgQuery(t, one, ledger), pgQuery(t, four, ledger); a != b || !strings.Contains(b, "core.daily done 89 ") {
		t.Fatalf("ledgers:\n--jobs 1: %s\n--jobs 4: %s", a, b)
	}

	// Two days later the nightly tick computes what came due, the same way.
	t.Setenv("EFMESH_NOW", "2026-04-02T03:00:00Z")
	mustRun(t, dirOne, "run", "prod", "--jobs", "1")
	mustRun(t, dirFour, "run", "prod", "--jobs", "4")
	if a, b := pgQuery(t, one, ledger), pgQuery(t, four, ledger); a != b || !strings.Contains(b, "core.daily done 91 ") {
		t.Fatalf("ledgers after run:\n--jobs 1: %s\n--jobs 4: %s", a, b)
	}
	if a, b := pgQuery(t, one, `SELECT * FROM core.daily ORDER BY day, kind`), pgQuery(t, four, `SELECT * FROM core.daily ORDER BY day, kind`); a != b {
		t.Fatalf("core.daily after run differs")
	}
}

// TestPostgresBackfillJobsFailure: with --jobs 4, a batch that fails is
// marked failed while the others go on; once the data is fixed, the next
// apply computes only that interval and the table equals a clean run.
func TestPostgresBackfillJobsFailure(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-03-31T12:00:00Z")
	clean, broken := freshDatabase(t), freshDatabase(t)
	dirClean, dir := pgEventsProject(t, clean), pgEventsProject(t, broken)

	// One event of 2026-02-10 makes core.daily divide by zero.
	rename := func(from, to string) {
		db, err := postgres.Open(context.Background(), broken)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Exec(context.Background(), `UPDATE src.events SET id = '`+to+`' WHERE id = '`+from+`'`); err != nil {
			t.Fatal(err)
		}
	}
	checked := func(s string) string {
		s = strings.Replace(s, "max(id) AS last_id", "max(id) AS last_id, sum(1 / CASE WHEN id = 'poison' THEN 0 ELSE 1 END) AS checked", 1)
		return strings.Replace(s, "last_id TEXT)", "last_id TEXT, checked BIGINT)", 1)
	}
	editFile(t, dir, "models/core/daily.sql", checked)
	editFile(t, dirClean, "models/core/daily.sql", checked)
	mustRun(t, dirClean, "apply", "prod", "--yes", "--jobs", "1")
	restore := strings.Trim(pgQuery(t, broken, `SELECT min(id) FROM src.events WHERE ts >= '2026-02-10' AND ts < '2026-02-11'`), "[]")
	rename(restore, "poison")

	code, out, errs := run(t, dir, "apply", "prod", "--yes", "--jobs", "4")
	if code != ExitError || !strings.Contains(errs, "core.daily: 1 interval(s) failed: [2026-02-10T00:00:00Z, 2026-02-11T00:00:00Z)") ||
		!strings.Contains(errs, "division by zero") {
		t.Fatalf("apply --jobs 4 with a failing batch: exit %d\n%s%s", code, out, errs)
	}
	ledger := `SELECT i.status, count(*) FROM efmesh_state.intervals i JOIN efmesh_state.snapshots s USING (fingerprint)
WHERE s.name = 'core.daily' GROUP BY 1 ORDER BY 1`
	if got := pgQuery(t, broken, ledger); got != "[[done 88] [failed 1]]" {
		t.Fatalf("ledger after the failure: %s", got)
	}

	rename("poison", restore)
	mustRun(t, dir, "apply", "prod", "--yes", "--jobs", "4")
	if got := pgQuery(t, broken, ledger); got != "[[done 89]]" {
		t.Fatalf("ledger after the fix: %s", got)
	}
	for _, q := range []string{`SELECT * FROM core.daily ORDER BY day, kind`, `SELECT * FROM core.per_day ORDER BY day`} {
		if a, b := pgQuery(t, clean, q), pgQuery(t, broken, q); a != b {
			t.Fatalf("%s after the fix:\nclean: %.300s\ngot:   %.300s", q, a, b)
		}
	}
}

// TestPostgresLongNames: Postgres keeps identifiers of at most 63 bytes and
// silently truncates longer ones. A model with a 60-character name gets a
// physical table per version all the same: the readable part is cut, the
// fingerprint suffix stays whole, so two versions are two tables, each
// holding its own data. A long environment's view schema of a long
// model schema is cut and hashed.
func TestPostgresLongNames(t *testing.T) {
	dbURL := freshDatabase(t)
	table := "a_model_with_a_very_long_name_that_goes_on_and_on_for_ever"
	name := "s." + table
	if len(name) != 60 {
		t.Fatalf("the name is %d characters", len(name))
	}
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     fmt.Sprintf("name: pglong\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL),
		"models/long.sql": "MODEL (name " + name + ", kind FULL);\nSELECT 1 AS version\n",
	})
	physical := func(env string) string {
		var p struct {
			Models []struct {
				PhysicalTable string `json:"physicalTable"`
				Fingerprint   string `json:"fingerprint"`
			} `json:"models"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "plan", env, "--json")), &p); err != nil || len(p.Models) != 1 {
			t.Fatalf("plan: %v", err)
		}
		pt := p.Models[0].PhysicalTable
		if _, tb, _ := strings.Cut(pt, "."); len(tb) > 63 || !strings.HasSuffix(tb, "__"+p.Models[0].Fingerprint[:8]) {
			t.Fatalf("physical table %s does not fit 63 bytes with its whole fingerprint suffix", pt)
		}
		return pt
	}
	v1 := physical("dev")
	mustRun(t, dir, "apply", "dev", "--yes")
	if err := os.WriteFile(filepath.Join(dir, "models", "long.sql"), []byte("MODEL (name "+name+", kind FULL);\nSELECT 2 AS version\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v2 := physical("dev")
	if v1 == v2 {
		t.Fatalf("two versions share %s", v1)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := pgQuery(t, dbURL, "SELECT count(*) FROM pg_tables WHERE schemaname = '_efmesh'"); got != "[[2]]" {
		t.Fatalf("physical tables: %s", got)
	}
	for want, pt := range map[string]string{"[[1]]": v1, "[[2]]": v2} {
		s, tb, _ := strings.Cut(pt, ".")
		if got := pgQuery(t, dbURL, fmt.Sprintf(`SELECT version FROM %q.%q`, s, tb)); got != want {
			t.Fatalf("%s holds %s, want %s", pt, got, want)
		}
	}
	if got := pgQuery(t, dbURL, `SELECT version FROM dev__s."`+table+`"`); got != "[[2]]" {
		t.Fatalf("dev's view: %s", got)
	}

	// An environment of the longest name, whose <env>__<schema> passes 63
	// bytes for a long model schema: that view schema is cut and hashed.
	env := "long_env_" + strings.Repeat("x", project.MaxEnvName-len("long_env_"))
	wide := "a_schema_long_enough_to_pass_the_limit"
	writeFile(t, dir, "models/wide.sql", "MODEL (name "+wide+".w, kind FULL);\nSELECT 3 AS version\n")
	mustRun(t, dir, "apply", env, "--yes")
	schemas := pgQuery(t, dbURL, "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'long_env_%' AND schema_name <> '"+env+"__s'")
	if !strings.HasPrefix(schemas, "[["+env+"__a_schema") || len(schemas) != len("[[]]")+63 {
		t.Fatalf("the environment's schema: %s", schemas)
	}
	sch := strings.TrimSuffix(strings.TrimPrefix(schemas, "[["), "]]")
	if got := pgQuery(t, dbURL, fmt.Sprintf(`SELECT version FROM %q.w`, sch)); got != "[[3]]" {
		t.Fatalf("%s's view of %s.w: %s", env, wide, got)
	}
	if got := pgQuery(t, dbURL, fmt.Sprintf(`SELECT version FROM %q.%q`, env+"__s", table)); got != "[[2]]" {
		t.Fatalf("%s's view: %s", env, got)
	}
	mustRun(t, dir, "audit", env)
}

// TestPostgresImplicitAlias: on Postgres too, a ref without an alias stays
// reachable by its model's table name, whatever it renders to: an EXTERNAL
// table of another name, a physical table, an EMBEDDED model's subquery
// (which PostgreSQL 15 refuses without an alias).
func TestPostgresImplicitAlias(t *testing.T) {
	dbURL := freshDatabase(t)
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Exec(context.Background(), `CREATE SCHEMA src;
CREATE TABLE src.orders_export (id int, customer_id int, amount numeric(10,2));
CREATE TABLE src.customers_export (id int, name text);
INSERT INTO src.orders_export VALUES (1, 1, 5), (2, 1, 20), (3, 2, 30);
INSERT INTO src.customers_export VALUES (1, 'Ada'), (2, 'Grace')`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": fmt.Sprintf("name: pgalias\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL),
		"models/raw/orders.sql": `MODEL (name raw.orders, kind EXTERNAL (table src.orders_export),
  columns (id INTEGER, customer_id INTEGER, amount NUMERIC(10,2)));
`,
		"models/raw/customers.sql": `MODEL (name raw.customers, kind EXTERNAL (table src.customers_export),
  columns (id INTEGER, name TEXT));
`,
		"models/core/orders.sql": `MODEL (name core.orders, kind FULL);
SELECT orders.id, orders.customer_id, orders.amount FROM @ref(raw.orders)
`,
		"models/core/enriched.sql": `MODEL (name core.enriched, kind FULL);
SELECT orders.id, customers.name, orders.amount
FROM @ref(core.orders), @ref(raw.customers) -- no aliases
WHERE orders.customer_id = customers.id
`,
		"models/core/big.sql": `MODEL (name core.big, kind EMBEDDED);
SELECT enriched.id, enriched.name FROM @ref(core.enriched) WHERE enriched.amount > 10
`,
		"models/mart/report.sql": `MODEL (name mart.report, kind VIEW);
SELECT big.id, big.name FROM @ref(core.big) ORDER BY big.id
`,
		// Two tables named orders in one FROM, as plain SQL may join
		// raw.orders and core.orders: no alias is given twice.
		"models/mart/both.sql": `MODEL (name mart.both, kind FULL);
SELECT id, amount FROM @ref(raw.orders) JOIN @ref(core.orders) USING (id, customer_id, amount)
`,
	})
	mustRun(t, dir, "plan", "dev")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := pgQuery(t, dbURL, "SELECT id, name FROM dev__mart.report ORDER BY id"); got != "[[2 Ada] [3 Grace]]" {
		t.Errorf("dev__mart.report: %s", got)
	}
	if got := pgQuery(t, dbURL, "SELECT count(*) FROM dev__mart.both"); got != "[[3]]" {
		t.Errorf("dev__mart.both: %s", got)
	}
}

// TestPostgresMissingRelation: a physical table dropped by hand in a
// Postgres warehouse is noticed (one pg_class query) and rebuilt.
func TestPostgresMissingRelation(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := pgProject(t, dbURL)
	mustRun(t, dir, "apply", "dev", "--yes")
	table := ""
	for _, m := range missingPlanOf(t, dir, "dev").Models {
		if m.Name == "mart.top" {
			table = m.PhysicalTable
		}
	}
	pgQuery(t, dbURL, "DROP TABLE "+table+" CASCADE") // the view dev__mart.top goes with it
	p := missingPlanOf(t, dir, "dev")
	if got := strings.Join(missingOf(p), " "); got != "mart.top+build" {
		t.Fatalf("plan after DROP TABLE: missing %s", got)
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitError || !strings.Contains(out, "mart.top: the physical relation "+table+" is missing") ||
		!strings.Contains(out, "mart.top: the view dev__mart.top is missing") {
		t.Fatalf("status --check after DROP TABLE: exit %d\n%s", code, out)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := pgQuery(t, dbURL, "SELECT count(*) FROM dev__mart.top"); got != "[[3]]" {
		t.Fatalf("dev__mart.top after the rebuild: %s", got)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after the rebuild:\n%s", out)
	}
}
