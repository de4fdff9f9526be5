package cli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// storeDump renders the records of the state store that say what exists
// and what is computed: snapshots, the interval ledger, the environments'
// pointers and the promotions journal. The plans journal (which records
// failed attempts too) and locks are left out.
func storeDump(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, q := range []string{
		"SELECT fingerprint, name, physical_table, definition, coalesce(built_at, ''), coalesce(orphaned_at, '') FROM snapshots ORDER BY fingerprint",
		`SELECT fingerprint, "start", "end", status, updated_at FROM intervals ORDER BY fingerprint, "start"`,
		"SELECT env, model, fingerprint, updated_at FROM environments ORDER BY env, model",
		"SELECT id, env, plan_id, pointers FROM promotions ORDER BY id",
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			b.WriteString("\n")
		}
		rows.Close()
		b.WriteString("--\n")
	}
	return b.String()
}

// TestMetadataOnlyAuditBlocksApply: adding a blocking audit changes no
// fingerprint, so nothing is rebuilt; apply still runs the new audit on the
// data the environment serves, and a violation stops it before promotion:
// exit 1, the message names model, audit and count, the environment and
// the stored definition stay as they were.
func TestMetadataOnlyAuditBlocksApply(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":    "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/items.csv": "id,name\n1,a\n2,b\n2,c\n3,\n",
		"models/raw.sql": "MODEL (name raw.items, kind EXTERNAL (files 'data/items.csv', format csv, header true), columns (id INTEGER, name TEXT));\n",
		"models/items.sql": "MODEL (name core.items, kind FULL, columns (id INTEGER, name TEXT));\n" +
			"SELECT id, name FROM @ref(raw.items)\n",
		"models/events.sql": "MODEL (name core.events, kind INCREMENTAL_BY_TIME_RANGE (time_column ts, batch_size 1), columns (id INTEGER, ts TIMESTAMP));\n" +
			"SELECT id, TIMESTAMP '2026-01-01 10:00:00' + to_days(id - 1) AS ts FROM @ref(raw.items) WHERE ts >= @start AND ts < @end\n",
	})
	t.Setenv("EFMESH_NOW", "2026-01-05T00:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	before := storeDump(t, dir)

	// A whole-table audit on a FULL model.
	editFile(t, dir, "models/items.sql", func(s string) string {
		return strings.Replace(s, "columns (id INTEGER, name TEXT)", "columns (id INTEGER, name TEXT), audits (unique(id))", 1)
	})
	out := mustRun(t, dir, "plan", "dev", "--explain")
	if !strings.Contains(out, "metadata-only") || !strings.Contains(out, "unique(id) run on the existing data") {
		t.Fatalf("plan does not say the audit runs:\n%s", out)
	}
	code, out, errs := run(t, dir, "apply", "dev", "--yes")
	if code != ExitError || !strings.Contains(errs, "audit unique(id) of core.items: 1 violation(s)") {
		t.Fatalf("apply with a violated new audit: exit %d\n%s\n%s", code, out, errs)
	}
	if after := storeDump(t, dir); after != before {
		t.Fatalf("a refused metadata change changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// Still a metadata-only change to apply: the refusal recorded nothing.
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "metadata-only") {
		t.Fatalf("plan after the refusal:\n%s", out)
	}

	// An interval-scoped audit on an incremental model runs on each done
	// interval: ids 2 appear on one day twice.
	editFile(t, dir, "models/items.sql", func(s string) string { return strings.Replace(s, ", audits (unique(id))", "", 1) })
	editFile(t, dir, "models/events.sql", func(s string) string {
		return strings.Replace(s, "columns (id INTEGER, ts TIMESTAMP)", "columns (id INTEGER, ts TIMESTAMP), audits (not_null(id), unique(id))", 1)
	})
	code, _, errs = run(t, dir, "apply", "dev", "--yes")
	if code != ExitError || !strings.Contains(errs, "audit unique(id) of core.events: 1 violation(s) in [2026-01-02T00:00:00Z, 2026-01-03T00:00:00Z)") {
		t.Fatalf("apply with a violated interval audit: exit %d\n%s", code, errs)
	}
	if after := storeDump(t, dir); after != before {
		t.Fatalf("a refused metadata change changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// An audit the data meets is recorded (the duplicate stays in the
	// table until its interval is restated).
	editFile(t, dir, "models/events.sql", func(s string) string { return strings.Replace(s, ", unique(id)", "", 1) })
	out = mustRun(t, dir, "apply", "dev", "--yes")
	if !strings.Contains(out, "promoted 1") {
		t.Fatalf("apply after the fix:\n%s", out)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after the applied metadata change:\n%s", out)
	}
}

// TestBrokenSeedIsAPlanError: a seed is read whole when the project is
// checked; a row with the wrong number of fields or a value that does not
// cast is an error at its line, from plan and from apply before anything
// runs.
func TestBrokenSeedIsAPlanError(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":      "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"seeds/rates.csv":  "code,rate\na,1.5\nb,2.5,9\nc,lots\nd,4\n",
		"models/rates.sql": "MODEL (name ref.rates, kind SEED (path 'seeds/rates.csv'), columns (code TEXT, rate DOUBLE));\n",
		"models/other.sql": "MODEL (name core.other, kind FULL);\nSELECT 1 AS x\n",
	})
	for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
		code, out, errs := run(t, dir, args...)
		if code != ExitError {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
		for _, want := range []string{
			"seeds/rates.csv:3:1: error: Expected Number of Columns: 2 Found: 3",
			`seeds/rates.csv:4:1: error: Error when converting column "rate". Could not convert string "lots" to 'DOUBLE'`,
		} {
			if !strings.Contains(errs, want) {
				t.Fatalf("%v: no %q in\n%s", args, want, errs)
			}
		}
		// Two bad records are two errors: the model's line only points
		// at them (the editor shows it where the seed file is not open).
		if !strings.Contains(errs, "\n2 error(s)") || !strings.Contains(errs, "models/rates.sql:1:24: info: seed file seeds/rates.csv does not load: 2 bad record(s), at line 3, 4") {
			t.Fatalf("%v: the problems are counted twice or not pointed at:\n%s", args, errs)
		}
	}
	if objs := warehouseObjects(t, dir); objs != "<none>" && objs != "[]" {
		t.Fatalf("apply of a project with a broken seed built: %s", objs)
	}
	code, out, _ := run(t, dir, "--json", "plan", "dev")
	var p struct {
		Diagnostics []struct {
			File     string `json:"file"`
			Line     int    `json:"line"`
			Severity string `json:"severity"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &p); code != ExitError || err != nil {
		t.Fatalf("--json plan: exit %d, %v\n%s", code, err, out)
	}
	lines := []string{}
	for _, d := range p.Diagnostics {
		lines = append(lines, fmt.Sprintf("%s:%d:%s", d.File, d.Line, d.Severity))
	}
	if got := strings.Join(lines, " "); got != "models/rates.sql:1:info seeds/rates.csv:3:error seeds/rates.csv:4:error" {
		t.Fatalf("--json diagnostics: %s", got)
	}
}

// TestFailedBuildLeavesStoreAsBefore: a build that fails in the warehouse
// records nothing: no snapshot rows for the failed model nor for the models
// after it that never ran, and the store is exactly as before. A model
// built fine before the failure stays recorded as built, and the next plan
// reuses it.
func TestFailedBuildLeavesStoreAsBefore(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":    "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/items.csv": "id,code\n1,10\n2,20\n",
		"models/raw.sql": "MODEL (name raw.items, kind EXTERNAL (files 'data/items.csv', format csv, header true), columns (id INTEGER, code TEXT));\n",
		"models/a.sql":   "MODEL (name core.a, kind FULL);\nSELECT id, CAST(code AS INTEGER) AS code FROM @ref(raw.items)\n",
	})
	t.Setenv("EFMESH_NOW", "2026-01-05T00:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	before := storeDump(t, dir)
	objects := warehouseObjects(t, dir)

	// The cast fails on the data, not at plan; b reads a.
	writeFile(t, dir, "data/items.csv", "id,code\n1,10\n2,twenty\n")
	editFile(t, dir, "models/a.sql", func(s string) string { return strings.Replace(s, "AS code", "AS code, 1 AS one", 1) })
	writeFile(t, dir, "models/b.sql", "MODEL (name core.b, kind FULL);\nSELECT id FROM @ref(core.a)\n")
	writeFile(t, dir, "models/c.sql", "MODEL (name core.c, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), columns (id INTEGER, ts TIMESTAMP));\n"+
		"SELECT id, TIMESTAMP '2026-01-01' AS ts FROM @ref(core.a) WHERE ts >= @start AND ts < @end\n")
	code, out, errs := run(t, dir, "apply", "dev", "--yes", "--jobs", "1")
	if code != ExitError || !strings.Contains(errs, "build core.a") {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errs)
	}
	if after := storeDump(t, dir); after != before {
		t.Fatalf("a failed apply changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if got := warehouseObjects(t, dir); got != objects {
		t.Fatalf("warehouse after the failed apply:\n%s\nbefore:\n%s", got, objects)
	}

	// Partly successful: d (independent, first in order) builds, a fails.
	writeFile(t, dir, "models/0d.sql", "MODEL (name core.d, kind FULL);\nSELECT 1 AS x\n")
	code, _, errs = run(t, dir, "apply", "dev", "--yes", "--jobs", "1")
	if code != ExitError {
		t.Fatalf("apply: exit %d\n%s", code, errs)
	}
	after, _, _ := strings.Cut(storeDump(t, dir), "--\n") // the snapshots
	for _, name := range []string{"core.b", "core.c"} {
		if strings.Contains(after, "|"+name+"|") {
			t.Fatalf("%s, never built, has a snapshot row:\n%s", name, after)
		}
	}
	if strings.Count(after, "|core.a|") != 1 || !strings.Contains(after, "|core.d|") {
		t.Fatalf("snapshot rows after a partial apply:\n%s", after)
	}
	out = mustRun(t, dir, "plan", "dev")
	if !regexpMatch(`\+ core\.d\s+added\s+reuse `, out) || !regexpMatch(`~ core\.a\s+\S+\s+build `, out) {
		t.Fatalf("plan after a partial apply:\n%s", out)
	}
	// Fixed data: everything builds and promotes.
	writeFile(t, dir, "data/items.csv", "id,code\n1,10\n2,20\n")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT count(*) FROM dev__core.c"); got != "[[2]]" {
		t.Fatalf("c after the fix: %s", got)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// TestRestateAfterWholeAuditFailure: a blocking whole audit stops an apply
// after the incremental model's intervals were written; fixing the raw
// data is not enough (the intervals are done), and the model file is not
// edited: apply --restate recomputes the range in the snapshot the plan is
// about to promote, the audit passes and the environment moves.
func TestRestateAfterWholeAuditFailure(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/events.csv": "id,ts\n1,2026-01-01 10:00:00\n2,2026-01-02 10:00:00\n2,2026-01-03 10:00:00\n",
		"models/raw.sql":  "MODEL (name raw.events, kind EXTERNAL (files 'data/events.csv', format csv, header true), columns (id INTEGER, ts TIMESTAMP));\n",
		"models/events.sql": "MODEL (name core.events, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), columns (id INTEGER, ts TIMESTAMP), audits (whole(unique(id))));\n" +
			"SELECT id, ts FROM @ref(raw.events) WHERE ts >= @start AND ts < @end\n",
	})
	model, _ := os.ReadFile(filepath.Join(dir, "models/events.sql"))
	t.Setenv("EFMESH_NOW", "2026-01-04T00:00:00Z")
	code, _, errs := run(t, dir, "apply", "dev", "--yes")
	if code != ExitError || !strings.Contains(errs, "audit whole(unique(id)) of core.events: 1 violation(s)") {
		t.Fatalf("apply over a duplicate: exit %d\n%s", code, errs)
	}
	if ptrs := storeState(t, dir); strings.Contains(ptrs, "core.events") {
		t.Fatalf("promoted after a failed audit: %s", ptrs)
	}
	// The raw data is fixed; the written intervals still hold the duplicate.
	writeFile(t, dir, "data/events.csv", "id,ts\n1,2026-01-01 10:00:00\n2,2026-01-02 10:00:00\n3,2026-01-03 10:00:00\n")
	if code, _, errs := run(t, dir, "apply", "dev", "--yes"); code != ExitError || !strings.Contains(errs, "1 violation(s)") {
		t.Fatalf("apply without restating: exit %d\n%s", code, errs)
	}
	out := mustRun(t, dir, "plan", "dev", "--restate", "core.events", "--from", "2026-01-03", "--to", "2026-01-04", "--explain")
	if !strings.Contains(out, "intervals [2026-01-03") || !strings.Contains(out, "restated: [2026-01-03T00:00:00Z, 2026-01-04T00:00:00Z) is recomputed") {
		t.Fatalf("plan --restate:\n%s", out)
	}
	out = mustRun(t, dir, "apply", "dev", "--restate", "core.events", "--from", "2026-01-03", "--to", "2026-01-04", "--yes")
	if !strings.Contains(out, "promoted 1") { // raw.events is read in place
		t.Fatalf("apply --restate:\n%s", out)
	}
	if got := query(t, dir, "SELECT id FROM dev__core.events ORDER BY id"); got != "[[1] [2] [3]]" {
		t.Fatalf("events after the restate: %s", got)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "models/events.sql")); string(now) != string(model) {
		t.Fatal("the model file changed")
	}
	// Misuse is a clear error.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "dev", "--restate", "core.events", "--from", "2026-01-03"}, "needs --from and --to"},
		{[]string{"plan", "dev", "--restate", "raw.events", "--from", "2026-01-03", "--to", "2026-01-04"}, "only INCREMENTAL_BY_TIME_RANGE"},
		{[]string{"plan", "dev", "--restate", "core.events", "--from", "2026-01-03T05:00:00Z", "--to", "2026-01-04"}, "not aligned"},
		{[]string{"plan", "dev", "--from", "2026-01-03"}, "go with --restate"},
	} {
		if code, _, errs := run(t, dir, c.args...); code != ExitError || !strings.Contains(errs, c.want) {
			t.Fatalf("%v: exit %d\n%s", c.args, code, errs)
		}
	}
}

// TestSCD2HistoryIsNeverResetSilently: an upstream breaking change keeps
// the SCD_TYPE_2 history table and merges from now on; the model's own
// breaking change rebuilds history, which the plan says and apply refuses
// without --rebuild-history; with it, the history is rebuilt.
func TestSCD2HistoryIsNeverResetSilently(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":        "name: crm\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/customers.csv": "id,tier\n1,gold\n2,silver\n",
		"models/raw.sql":     "MODEL (name raw.customers, kind EXTERNAL (files 'data/customers.csv', format csv, header true), columns (id INTEGER, tier TEXT));\n",
		"models/clean.sql":   "MODEL (name core.customers, kind VIEW);\nSELECT id, tier FROM @ref(raw.customers)\n",
		"models/history.sql": "MODEL (name core.history, kind SCD_TYPE_2 (key (id)), columns (id INTEGER, tier TEXT));\n" +
			"SELECT id, tier FROM @ref(core.customers)\n",
	})
	history := func() string {
		return query(t, dir, `SELECT id, tier, strftime(valid_from, '%d'), coalesce(strftime(valid_to, '%d'), '-') FROM dev__core.history ORDER BY id, valid_from`)
	}
	t.Setenv("EFMESH_NOW", "2026-01-05T00:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	writeFile(t, dir, "data/customers.csv", "id,tier\n1,platinum\n2,silver\n")
	t.Setenv("EFMESH_NOW", "2026-01-06T00:00:00Z")
	runTick(t, dir, "dev", ExitOK)
	if got := history(); got != "[[1 gold 05 06] [1 platinum 06 -] [2 silver 05 -]]" {
		t.Fatalf("history before the parent change: %s", got)
	}

	// The parent's breaking change: the history is kept, merged from now.
	editFile(t, dir, "models/clean.sql", func(s string) string {
		return strings.Replace(s, "SELECT id, tier", "SELECT id, upper(tier) AS tier", 1)
	})
	t.Setenv("EFMESH_NOW", "2026-01-07T00:00:00Z")
	out := mustRun(t, dir, "plan", "dev")
	if !regexpMatch(`core\.history\s+forward-only\s+inherit _efmesh\.core__history__`, out) || strings.Contains(out, "rebuilds history") {
		t.Fatalf("plan after the parent's breaking change:\n%s", out)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := history(); got != "[[1 gold 05 06] [1 platinum 06 07] [1 PLATINUM 07 -] [2 silver 05 07] [2 SILVER 07 -]]" {
		t.Fatalf("history after the parent's breaking change: %s", got)
	}

	// Its own breaking change rebuilds history: said, and refused.
	editFile(t, dir, "models/history.sql", func(s string) string {
		return strings.Replace(s, "@ref(core.customers)", "@ref(core.customers) WHERE id > 1", 1)
	})
	t.Setenv("EFMESH_NOW", "2026-01-08T00:00:00Z")
	out = mustRun(t, dir, "plan", "dev")
	if !regexpMatch(`core\.history\s+breaking\s+build .*rebuilds history`, out) {
		t.Fatalf("plan of its own breaking change:\n%s", out)
	}
	_, out, _ = run(t, dir, "--json", "plan", "dev")
	if !regexpMatch(`"rebuildsHistory":\s*true`, out) {
		t.Fatalf("plan --json:\n%s", out)
	}
	before := storeDump(t, dir)
	code, _, errs := run(t, dir, "apply", "dev", "--yes")
	if code != ExitError || !strings.Contains(errs, "pass --rebuild-history core.history") {
		t.Fatalf("apply without --rebuild-history: exit %d\n%s", code, errs)
	}
	if after := storeDump(t, dir); after != before {
		t.Fatalf("a refused rebuild changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if got := history(); !strings.Contains(got, "[1 gold 05 06]") {
		t.Fatalf("history after the refusal: %s", got)
	}
	mustRun(t, dir, "apply", "dev", "--yes", "--rebuild-history", "core.history")
	if got := history(); got != "[[2 SILVER 08 -]]" {
		t.Fatalf("history after the rebuild: %s", got)
	}
	// The flag names SCD_TYPE_2 models only.
	if code, _, errs := run(t, dir, "plan", "dev", "--rebuild-history", "core.customers"); code != ExitError || !strings.Contains(errs, "only SCD_TYPE_2") {
		t.Fatalf("--rebuild-history of a FULL model: exit %d\n%s", code, errs)
	}
}

// TestSCD2HistoryOfAnotherEnvironmentIsNotMerged: prod and dev serve one
// SCD_TYPE_2 history table; an upstream change applied to dev keeps the
// history (copied into dev's new table) without merging dev's version into
// the table prod reads.
func TestSCD2HistoryOfAnotherEnvironmentIsNotMerged(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":        "name: crm\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/customers.csv": "id,tier\n1,gold\n2,silver\n",
		"models/raw.sql":     "MODEL (name raw.customers, kind EXTERNAL (files 'data/customers.csv', format csv, header true), columns (id INTEGER, tier TEXT));\n",
		"models/clean.sql":   "MODEL (name core.customers, kind VIEW);\nSELECT id, tier FROM @ref(raw.customers)\n",
		"models/history.sql": "MODEL (name core.history, kind SCD_TYPE_2 (key (id)), columns (id INTEGER, tier TEXT));\n" +
			"SELECT id, tier FROM @ref(core.customers)\n",
	})
	history := func(view string) string {
		return query(t, dir, `SELECT id, tier, strftime(valid_from, '%d'), coalesce(strftime(valid_to, '%d'), '-') FROM `+view+` ORDER BY id, valid_from`)
	}
	t.Setenv("EFMESH_NOW", "2026-01-05T00:00:00Z")
	mustRun(t, dir, "apply", "prod", "--yes")
	mustRun(t, dir, "apply", "dev", "--yes")
	prod := history("core.history")
	if prod != "[[1 gold 05 -] [2 silver 05 -]]" {
		t.Fatalf("prod history: %s", prod)
	}
	editFile(t, dir, "models/clean.sql", func(s string) string {
		return strings.Replace(s, "SELECT id, tier", "SELECT id, upper(tier) AS tier", 1)
	})
	t.Setenv("EFMESH_NOW", "2026-01-07T00:00:00Z")
	out := mustRun(t, dir, "plan", "dev")
	if !regexpMatch(`core\.history\s+forward-only\s+build _efmesh\.core__history__\w+, copies history from _efmesh\.core__history__`, out) ||
		strings.Contains(out, "rebuilds history") {
		t.Fatalf("plan of dev while prod serves the history table:\n%s", out)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := history("core.history"); got != prod {
		t.Fatalf("apply dev changed prod's history:\nbefore %s\nafter  %s", prod, got)
	}
	if got := history("dev__core.history"); got != "[[1 gold 05 07] [1 GOLD 07 -] [2 silver 05 07] [2 SILVER 07 -]]" {
		t.Fatalf("dev's history: %s", got)
	}
	// Alone on its table, dev merges in place again.
	editFile(t, dir, "models/clean.sql", func(s string) string {
		return strings.Replace(s, "upper(tier)", "lower(upper(tier))", 1)
	})
	t.Setenv("EFMESH_NOW", "2026-01-08T00:00:00Z")
	out = mustRun(t, dir, "plan", "dev")
	if !regexpMatch(`core\.history\s+forward-only\s+inherit _efmesh\.core__history__`, out) {
		t.Fatalf("plan of dev alone on its history table:\n%s", out)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := history("core.history"); got != prod {
		t.Fatalf("the second apply dev changed prod's history: %s", got)
	}
	if got := history("dev__core.history"); got != "[[1 gold 05 07] [1 GOLD 07 08] [1 gold 08 -] [2 silver 05 07] [2 SILVER 07 08] [2 silver 08 -]]" {
		t.Fatalf("dev's history after the second change: %s", got)
	}
}

// TestRestateRefreshesFullDescendants: apply --restate recomputes the
// incremental range and refills the FULL model that reads it, after it;
// the plan says so.
func TestRestateRefreshesFullDescendants(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-04T00:00:00Z")
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":   "name: inc\nstart: 2026-01-01\n",
		"data/ev.csv":   "id,ts\n1,2026-01-01T10:00:00\n2,2026-01-02T10:00:00\n",
		"models/ev.sql": "MODEL (name raw.ev, kind EXTERNAL (files 'data/ev.csv', format csv, header true), columns (id INTEGER, ts TIMESTAMP));\n",
		"models/daily.sql": `MODEL (name core.daily, kind INCREMENTAL_BY_TIME_RANGE (time_column day), interval day,
  columns (day TIMESTAMP, n BIGINT));
SELECT date_trunc('day', ts)::TIMESTAMP AS day, count(*) AS n FROM @ref(raw.ev) WHERE ts >= @start AND ts < @end GROUP BY ALL
`,
		"models/total.sql": "MODEL (name mart.total, kind FULL, cron '@monthly');\nSELECT sum(n) AS n FROM @ref(core.daily)\n",
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	writeFile(t, dir, "data/ev.csv", "id,ts\n1,2026-01-01T10:00:00\n2,2026-01-02T10:00:00\n3,2026-01-02T11:00:00\n")
	out := mustRun(t, dir, "plan", "dev", "--restate", "core.daily", "--from", "2026-01-01", "--to", "2026-01-03")
	if !regexpMatch(`mart\.total\s+unchanged\s+refill _efmesh\.mart__total__\w+  \(restated: core\.daily\)`, out) {
		t.Fatalf("plan --restate:\n%s", out)
	}
	mustRun(t, dir, "apply", "dev", "--yes", "--restate", "core.daily", "--from", "2026-01-01", "--to", "2026-01-03")
	if got := query(t, dir, "SELECT sum(n) FROM dev__core.daily"); got != "[[3]]" {
		t.Fatalf("daily after the restate: %s", got)
	}
	if got := query(t, dir, "SELECT n FROM dev__mart.total"); got != "[[3]]" {
		t.Fatalf("total after the restate: %s (it reads core.daily, which holds 3)", got)
	}
}
