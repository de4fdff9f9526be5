package cli

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// missingPlan is the part of plan --json the presence tests read.
type missingPlan struct {
	HasChanges bool `json:"hasChanges"`
	Models     []struct {
		Name          string     `json:"name"`
		Change        string     `json:"change"`
		Build         bool       `json:"build"`
		PhysicalTable string     `json:"physicalTable"`
		Backfill      [][]string `json:"backfill"`
		Missing       bool       `json:"missing"`
		Reason        string     `json:"reason"`
	} `json:"models"`
}

func missingPlanOf(t *testing.T, dir, env string) missingPlan {
	t.Helper()
	out := mustRun(t, dir, "plan", env, "--json")
	var p missingPlan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return p
}

// missingOf lists the plan's models marked missing, with build=true as "+build".
func missingOf(p missingPlan) []string {
	var out []string
	for _, m := range p.Models {
		if m.Missing {
			s := m.Name
			if m.Build {
				s += "+build"
			}
			out = append(out, s)
		}
	}
	return out
}

func removeWarehouse(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"efmesh.duckdb", "efmesh.duckdb.wal"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// statusCheck runs status --check and returns its exit code and output.
func statusCheck(t *testing.T, dir, env string, args ...string) (int, string) {
	t.Helper()
	code, out, errs := run(t, dir, append([]string{"status", env, "--check"}, args...)...)
	return code, out + errs
}

// TestMissingWarehouse: a warehouse file deleted, or replaced by an empty
// one, behind efmesh's back: plan says every relation is missing and why,
// status --check is unhealthy naming them, apply rebuilds them.
func TestMissingWarehouse(t *testing.T) {
	for _, replace := range []bool{false, true} {
		dir := writeProject(t, threeLevels())
		mustRun(t, dir, "apply", "dev", "--yes")
		removeWarehouse(t, dir)
		if replace { // a new, empty database in its place
			query(t, dir, "SELECT 1")
		}

		p := missingPlanOf(t, dir, "dev")
		if got := strings.Join(missingOf(p), " "); !p.HasChanges || got != "raw.s+build m.mid+build m.top+build" {
			t.Fatalf("plan over a lost warehouse (replaced %v): hasChanges=%v missing %s\n%+v", replace, p.HasChanges, got, p.Models)
		}
		for _, m := range p.Models {
			if m.Change != "unchanged" || !strings.Contains(m.Reason, m.PhysicalTable+" is missing from the warehouse") {
				t.Fatalf("%s: change %s, reason %q", m.Name, m.Change, m.Reason)
			}
		}
		out := mustRun(t, dir, "plan", "dev")
		if !strings.Contains(out, "! m.top  unchanged     missing → rebuild _efmesh.m__top__") || !strings.Contains(out, "is missing from the warehouse") ||
			!strings.Contains(out, "3 to build") {
			t.Fatalf("human plan over a lost warehouse:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(dir, "efmesh.duckdb")); err == nil != replace {
			t.Fatalf("plan created or removed the warehouse file (replaced %v): %v", replace, err)
		}

		code, out := statusCheck(t, dir, "dev")
		if code != ExitError || !strings.Contains(out, "m.top: the physical relation _efmesh.m__top__") ||
			!strings.Contains(out, "m.top: the view dev__m.top is missing") || strings.Contains(out, "Healthy.") {
			t.Fatalf("status --check over a lost warehouse: exit %d\n%s", code, out)
		}
		code, out, _ = run(t, dir, "status", "dev", "--json")
		var s struct {
			Healthy bool `json:"healthy"`
			Missing []struct {
				Model    string `json:"model"`
				Relation string `json:"relation"`
				Physical bool   `json:"physical"`
			} `json:"missing"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil || code != ExitOK || s.Healthy || len(s.Missing) != 6 {
			t.Fatalf("status --json over a lost warehouse: exit %d %v\n%s", code, err, out)
		}

		out = mustRun(t, dir, "apply", "dev", "--yes")
		if !strings.Contains(out, "Applied to dev: built 3") {
			t.Fatalf("apply over a lost warehouse:\n%s", out)
		}
		if got := query(t, dir, "SELECT count(*) FROM dev__m.top"); got != "[[3]]" {
			t.Fatalf("dev__m.top after the rebuild: %s", got)
		}
		if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
			t.Fatalf("plan after the rebuild:\n%s", out)
		}
		if code, out := statusCheck(t, dir, "dev"); code != ExitOK || !strings.Contains(out, "Healthy.") {
			t.Fatalf("status --check after the rebuild: exit %d\n%s", code, out)
		}
	}
}

// TestMissingDroppedByHand: one physical table or one environment view
// dropped by hand is that model's line alone; apply rebuilds the table or
// recreates the view.
func TestMissingDroppedByHand(t *testing.T) {
	dir := writeProject(t, threeLevels())
	mustRun(t, dir, "apply", "dev", "--yes")
	mid := ""
	for _, m := range missingPlanOf(t, dir, "dev").Models {
		if m.Name == "m.mid" {
			mid = m.PhysicalTable
		}
	}
	query(t, dir, "DROP TABLE "+mid)
	p := missingPlanOf(t, dir, "dev")
	if got := strings.Join(missingOf(p), " "); got != "m.mid+build" {
		t.Fatalf("plan after DROP TABLE %s: missing %s", mid, got)
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitError || !strings.Contains(out, "m.mid: the physical relation "+mid+" is missing") {
		t.Fatalf("status --check after DROP TABLE: exit %d\n%s", code, out)
	}
	if out := mustRun(t, dir, "apply", "dev", "--yes"); !strings.Contains(out, "built 1") {
		t.Fatalf("apply after DROP TABLE:\n%s", out)
	}
	if got := query(t, dir, "SELECT count(*) FROM dev__m.top"); got != "[[3]]" {
		t.Fatalf("dev__m.top after the rebuild: %s", got)
	}

	query(t, dir, "DROP VIEW dev__m.top")
	p = missingPlanOf(t, dir, "dev")
	if got := strings.Join(missingOf(p), " "); !p.HasChanges || got != "m.top" {
		t.Fatalf("plan after DROP VIEW: missing %s", got)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "missing → recreate the view") || !strings.Contains(out, "the view dev__m.top is missing") {
		t.Fatalf("human plan after DROP VIEW:\n%s", out)
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitError || !strings.Contains(out, "m.top: the view dev__m.top is missing") {
		t.Fatalf("status --check after DROP VIEW: exit %d\n%s", code, out)
	}
	if out := mustRun(t, dir, "apply", "dev", "--yes"); !strings.Contains(out, "built 0") {
		t.Fatalf("apply after DROP VIEW:\n%s", out)
	}
	if got := query(t, dir, "SELECT count(*) FROM dev__m.top"); got != "[[3]]" {
		t.Fatalf("dev__m.top after the view came back: %s", got)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after the view came back:\n%s", out)
	}
}

// TestMissingIncremental: an incremental model's lost table is rebuilt
// from an empty ledger: its whole history is backfilled again.
func TestMissingIncremental(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-06T00:00:00Z")
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":   "name: inc\nstart: 2026-01-01\n",
		"seeds/ev.csv":  "id,ts\n1,2026-01-01T10:00:00\n2,2026-01-02T10:00:00\n3,2026-01-02T11:00:00\n4,2026-01-04T09:00:00\n",
		"models/ev.sql": "MODEL (name raw.ev, kind SEED (path 'seeds/ev.csv'), columns (id INTEGER, ts TIMESTAMP));\n",
		"models/daily.sql": `MODEL (name core.daily, kind INCREMENTAL_BY_TIME_RANGE (time_column day), interval day,
  columns (day TIMESTAMP, n BIGINT));
SELECT date_trunc('day', ts)::TIMESTAMP AS day, count(*) AS n FROM @ref(raw.ev) WHERE ts >= @start AND ts < @end GROUP BY ALL
`,
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	want := query(t, dir, "SELECT * FROM dev__core.daily ORDER BY ALL")
	if got := ledgerOf(t, dir, "dev", "core.daily"); got != "5 done, failed []" {
		t.Fatalf("ledger after the first apply: %s", got)
	}
	table := ""
	for _, m := range missingPlanOf(t, dir, "dev").Models {
		if m.Name == "core.daily" {
			table = m.PhysicalTable
		}
	}
	query(t, dir, "DROP TABLE "+table)
	p := missingPlanOf(t, dir, "dev")
	for _, m := range p.Models {
		if m.Name == "core.daily" && (!m.Missing || !m.Build || len(m.Backfill) != 1 || m.Backfill[0][0] != "2026-01-01T00:00:00Z" || m.Backfill[0][1] != "2026-01-06T00:00:00Z") {
			t.Fatalf("plan of a lost incremental table: %+v", m)
		}
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT * FROM dev__core.daily ORDER BY ALL"); got != want {
		t.Fatalf("core.daily after the rebuild:\n got %s\nwant %s", got, want)
	}
	if got := ledgerOf(t, dir, "dev", "core.daily"); got != "5 done, failed []" {
		t.Fatalf("ledger after the rebuild: %s", got)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after the rebuild:\n%s", out)
	}
}

// TestMissingNeverExternal: an EXTERNAL model is read in place; whatever
// the warehouse holds for it, it is never missing.
func TestMissingNeverExternal(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-03T00:00:00Z")
	dir := eventsProject(t)
	editFile(t, dir, "data/events.csv", func(s string) string { return strings.Replace(s, ",boom,", ",ok,", 1) })
	mustRun(t, dir, "apply", "dev", "--yes")
	rels := query(t, dir, "SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE table_name LIKE '%events%'")
	for _, r := range strings.Fields(strings.NewReplacer("[", "", "]", "").Replace(rels)) {
		query(t, dir, "DROP VIEW "+r)
	}
	if rels == "[]" {
		t.Log("the external model has no relations to drop")
	}
	if p := missingPlanOf(t, dir, "dev"); p.HasChanges || len(missingOf(p)) > 0 {
		t.Fatalf("plan without the external's relations: %v %v", p.HasChanges, missingOf(p))
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitOK {
		t.Fatalf("status --check without the external's relations: exit %d\n%s", code, out)
	}
}

// TestStatusNeverApplied: an environment nobody applied is not healthy.
func TestStatusNeverApplied(t *testing.T) {
	dir := writeProject(t, threeLevels())
	mustRun(t, dir, "apply", "dev", "--yes")
	code, out := statusCheck(t, dir, "qa")
	if code != ExitError || !strings.Contains(out, "environment qa was never applied") || strings.Contains(out, "Healthy.") {
		t.Fatalf("status --check of a never-applied environment: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, dir, "status", "qa", "--json")
	var s struct {
		Healthy  bool     `json:"healthy"`
		Applied  *bool    `json:"applied"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != ExitOK || s.Healthy || s.Applied == nil || *s.Applied ||
		strings.Join(s.Problems, "|") != "environment qa was never applied" {
		t.Fatalf("status --json of a never-applied environment: exit %d %v\n%s", code, err, out)
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitOK || !strings.Contains(out, "Healthy.") {
		t.Fatalf("status --check of dev: exit %d\n%s", code, out)
	}
}

// TestMissingUnreadableWarehouse: a warehouse file that cannot be opened
// stops the plan and makes status unhealthy, instead of trusting the store.
func TestMissingUnreadableWarehouse(t *testing.T) {
	dir := writeProject(t, threeLevels())
	mustRun(t, dir, "apply", "dev", "--yes")
	removeWarehouse(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "efmesh.duckdb"), []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, dir, "plan", "dev"); code != ExitError || !strings.Contains(errs, "the warehouse, which the state store is checked against, cannot be opened") {
		t.Fatalf("plan over an unreadable warehouse: exit %d\n%s%s", code, out, errs)
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitError || !strings.Contains(out, "cannot be opened") {
		t.Fatalf("status --check over an unreadable warehouse: exit %d\n%s", code, out)
	}
}

// TestMissingLakeFiles: a parquet target's relation is a view over files;
// files deleted from the lake are missing too, and rebuilt.
func TestMissingLakeFiles(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-04T00:00:00Z")
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":   "name: lake\nstart: 2026-01-01\nlake: lake\n",
		"seeds/ev.csv":  "id,amount,ts\n1,10,2026-01-01T10:00:00\n2,20,2026-01-02T10:00:00\n3,30,2026-01-02T11:00:00\n",
		"models/ev.sql": "MODEL (name raw.ev, kind SEED (path 'seeds/ev.csv'), columns (id INTEGER, amount INTEGER, ts TIMESTAMP));\n",
		"models/orders.sql": `MODEL (name core.orders, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), target parquet,
  columns (id INTEGER, amount INTEGER, ts TIMESTAMP));
SELECT id, amount, ts FROM @ref(raw.ev) WHERE ts >= @start AND ts < @end
`,
		"models/totals.sql": `MODEL (name mart.totals, kind FULL, target parquet, columns (amount BIGINT));
SELECT sum(amount)::BIGINT AS amount FROM @ref(core.orders)
`,
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	if err := os.RemoveAll(filepath.Join(dir, "lake")); err != nil {
		t.Fatal(err)
	}
	p := missingPlanOf(t, dir, "dev")
	if got := strings.Join(missingOf(p), " "); got != "core.orders+build mart.totals+build" {
		t.Fatalf("plan without the lake: missing %s", got)
	}
	for _, m := range p.Models {
		if m.Missing && !strings.Contains(m.Reason, "parquet files of "+m.PhysicalTable) {
			t.Fatalf("%s: reason %q", m.Name, m.Reason)
		}
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitError || !strings.Contains(out, "core.orders: the parquet files of") {
		t.Fatalf("status --check without the lake: exit %d\n%s", code, out)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT amount FROM dev__mart.totals"); got != "[[60]]" {
		t.Fatalf("dev__mart.totals after the rebuild: %s", got)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after the rebuild:\n%s", out)
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitOK {
		t.Fatalf("status --check after the rebuild: exit %d\n%s", code, out)
	}
}

// physicalOf returns the physical table the plan names for model.
func physicalOf(t *testing.T, dir, env, model string) string {
	t.Helper()
	for _, m := range missingPlanOf(t, dir, env).Models {
		if m.Name == model {
			return m.PhysicalTable
		}
	}
	t.Fatalf("no %s in the plan of %s", model, env)
	return ""
}

// TestRunBlockedByMissingTable: a run tick checks the warehouse as plan
// does. An incremental table or an SCD_TYPE_2 history dropped by hand
// blocks the tick (exit 2, awaiting a human, naming the relation and the
// apply that rebuilds it) instead of re-creating it empty under a ledger
// that says every interval is done; the apply then rebuilds it whole.
func TestRunBlockedByMissingTable(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-01-06T00:00:00Z")
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":   "name: inc\nstart: 2026-01-01\n",
		"seeds/ev.csv":  "id,ts\n1,2026-01-01T10:00:00\n2,2026-01-02T10:00:00\n3,2026-01-02T11:00:00\n4,2026-01-04T09:00:00\n5,2026-01-06T09:00:00\n",
		"models/ev.sql": "MODEL (name raw.ev, kind SEED (path 'seeds/ev.csv'), columns (id INTEGER, ts TIMESTAMP));\n",
		"models/daily.sql": `MODEL (name core.daily, kind INCREMENTAL_BY_TIME_RANGE (time_column day), interval day,
  columns (day TIMESTAMP, n BIGINT));
SELECT date_trunc('day', ts)::TIMESTAMP AS day, count(*) AS n FROM @ref(raw.ev) WHERE ts >= @start AND ts < @end GROUP BY ALL
`,
		"models/hist.sql": "MODEL (name core.hist, kind SCD_TYPE_2 (key (id)), columns (id INTEGER, ts TIMESTAMP));\n" +
			"SELECT id, ts FROM @ref(raw.ev)\n",
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	t.Setenv("EFMESH_NOW", "2026-01-07T00:00:00Z")
	for _, model := range []string{"core.daily", "core.hist"} {
		table := physicalOf(t, dir, "dev", model)
		query(t, dir, "DROP TABLE "+table)
		r := runTick(t, dir, "dev", ExitAwaiting)
		if r.Outcome != "awaiting-human" || len(r.BlockedBy) != 1 || !strings.HasPrefix(r.BlockedBy[0], model+": ") ||
			!strings.Contains(r.BlockedBy[0], table+" is missing") || !strings.Contains(r.BlockedBy[0], "efmesh apply dev rebuilds it") {
			t.Fatalf("run after %s was dropped: %+v", table, r)
		}
		_, _, errs := run(t, dir, "run", "dev")
		if !strings.Contains(errs, table+" is missing") || !strings.Contains(errs, "efmesh apply dev") {
			t.Fatalf("run's message after %s was dropped:\n%s", table, errs)
		}
		s, n, _ := strings.Cut(table, ".")
		if got := query(t, dir, "SELECT count(*) FROM information_schema.tables WHERE table_schema = '"+s+"' AND table_name = '"+n+"'"); got != "[[0]]" {
			t.Fatalf("the run re-created %s: %s", table, got)
		}
		if p := missingPlanOf(t, dir, "dev"); strings.Join(missingOf(p), " ") != model+"+build" {
			t.Fatalf("plan after the blocked run: missing %v", missingOf(p))
		}
		mustRun(t, dir, "apply", "dev", "--yes")
		runTick(t, dir, "dev", ExitOK)
	}
	if got := query(t, dir, "SELECT count(*) FROM dev__core.daily"); got != "[[4]]" {
		t.Errorf("dev__core.daily after the rebuild: %s rows, want 4 days", got)
	}
	if got := query(t, dir, "SELECT count(*) FROM dev__core.hist"); got != "[[5]]" {
		t.Errorf("dev__core.hist after the rebuild: %s rows, want 5", got)
	}
}

// TestPresenceStoredName: the store names each built snapshot's physical
// table as it was built; an older efmesh named them otherwise (or did not
// shorten long Postgres names). Plan and status expect the stored name,
// never the one efmesh would give the model today: such a table is
// present, not missing and rebuilt from an empty ledger.
func TestPresenceStoredName(t *testing.T) {
	dir := writeProject(t, threeLevels())
	mustRun(t, dir, "apply", "dev", "--yes")
	table := physicalOf(t, dir, "dev", "m.top")
	legacy := "_efmesh.legacy_m_top__" + table[strings.LastIndex(table, "__")+2:]
	// What an older naming left: the table under its name, the view over
	// it, and the store saying so.
	execWarehouse(t, dir, "CREATE TABLE "+legacy+" AS SELECT * FROM "+table+"; CREATE OR REPLACE VIEW dev__m.top AS SELECT * FROM "+legacy+"; DROP TABLE "+table)
	db, err := sql.Open("sqlite", filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := db.Exec("UPDATE snapshots SET physical_table = ? WHERE physical_table = ?", legacy, table); err != nil {
		t.Fatal(err)
	} else if n, _ := r.RowsAffected(); n != 1 {
		t.Fatalf("snapshots of %s: %d", table, n)
	}
	db.Close()

	if p := missingPlanOf(t, dir, "dev"); p.HasChanges || len(missingOf(p)) > 0 {
		t.Fatalf("plan over a table of an older naming: hasChanges=%v missing %v", p.HasChanges, missingOf(p))
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitOK {
		t.Fatalf("status --check over a table of an older naming: exit %d\n%s", code, out)
	}
	// Gone under its stored name, it is missing in both.
	query(t, dir, "DROP TABLE "+legacy)
	if p := missingPlanOf(t, dir, "dev"); strings.Join(missingOf(p), " ") != "m.top+build" || !strings.Contains(p.Models[2].Reason, legacy+" is missing") {
		t.Fatalf("plan after the legacy table was dropped: missing %v\n%+v", missingOf(p), p.Models)
	}
	if code, out := statusCheck(t, dir, "dev"); code != ExitError || !strings.Contains(out, legacy+" is missing") {
		t.Fatalf("status --check after the legacy table was dropped: exit %d\n%s", code, out)
	}
}
