package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/state/sqlite"
)

// run runs the CLI in-process, as a user would from a non-terminal.
func run(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"-C", dir}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	code, out, errs := run(t, dir, args...)
	if code != 0 {
		t.Fatalf("efmesh %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// The helpers these tests share with other packages' (internal/testkit),
// under the names the tests here use.
var (
	// copyExample copies examples/<name> into a fresh temporary folder.
	copyExample = testkit.Example
	// copyTree copies a project into a fresh temporary folder, leaving out
	// what a run leaves behind.
	copyTree = testkit.CopyProject
	// writeProject writes files (slash path → content) into a new folder.
	writeProject = testkit.WriteProject
	writeFile    = testkit.WriteFile
	// openState opens the project's state store until the test ends.
	openState = realdb.ProjectState
	// query runs sql on the project's warehouse, closing it again.
	query = realdb.Query
)

// warehouseObjects lists every table and view in the warehouse.
func warehouseObjects(t *testing.T, dir string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "efmesh.duckdb")); err != nil {
		return "<none>"
	}
	return query(t, dir, "SELECT table_schema, table_name, table_type FROM information_schema.tables ORDER BY ALL")
}

// storeState summarizes the state store: pointers of dev and prod and the
// plans journal length.
func storeState(t *testing.T, dir string) string {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var b strings.Builder
	for _, env := range []string{"dev", "prod"} {
		ptrs, err := st.Environment(context.Background(), env)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for n, p := range ptrs {
			names = append(names, n+"="+p.Fingerprint)
		}
		sort.Strings(names)
		plans, _ := st.Plans(context.Background(), env, 1000)
		fmt.Fprintf(&b, "%s: %v plans=%d\n", env, names, len(plans))
	}
	return b.String()
}

type planOut struct {
	APIVersion int    `json:"apiVersion"`
	Env        string `json:"env"`
	HasChanges bool   `json:"hasChanges"`
	Models     []struct {
		Name        string `json:"name"`
		Change      string `json:"change"`
		Build       bool   `json:"build"`
		Fingerprint string `json:"fingerprint"`
	} `json:"models"`
}

func planJSONOf(t *testing.T, dir, env string) planOut {
	t.Helper()
	out := mustRun(t, dir, "plan", env, "--json")
	var p planOut
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan --json is not JSON: %v\n%s", err, out)
	}
	if p.APIVersion != 1 {
		t.Fatalf("apiVersion = %d", p.APIVersion)
	}
	return p
}

// changed returns "name:change:build" for every model that is not unchanged.
func changed(p planOut) []string {
	var out []string
	for _, m := range p.Models {
		if m.Change != "unchanged" || m.Build {
			out = append(out, fmt.Sprintf("%s:%s:%v", m.Name, m.Change, m.Build))
		}
	}
	sort.Strings(out)
	return out
}

func editFile(t *testing.T, dir, rel string, edit func(string) string) (restore func()) {
	t.Helper()
	path := filepath.Join(dir, rel)
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	nw := edit(string(old))
	if nw == string(old) {
		t.Fatalf("edit of %s changed nothing", rel)
	}
	if err := os.WriteFile(path, []byte(nw), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() { os.WriteFile(path, old, 0o644) }
}

func TestHospitalLifecycle(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-02-01T06:00:00Z") // med.moves_daily is due through January
	dir := copyExample(t, "hospital")

	// A non-terminal apply with changes and no --yes waits for a human.
	code, out, _ := run(t, dir, "apply", "dev")
	if code != ExitAwaiting || !strings.Contains(out, "med.stays") {
		t.Fatalf("apply without --yes: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, dir, "apply", "dev", "--json")
	var awaiting map[string]any
	if code != ExitAwaiting || json.Unmarshal([]byte(out), &awaiting) != nil || awaiting["applied"] != false || awaiting["apiVersion"] != 1.0 {
		t.Fatalf("apply --json without --yes: exit %d\n%s", code, out)
	}
	if got := warehouseObjects(t, dir); got != "<none>" {
		t.Fatalf("a refused apply touched the warehouse: %s", got)
	}

	out = mustRun(t, dir, "apply", "dev", "--yes", "--json")
	var applied struct {
		Applied  bool     `json:"applied"`
		Built    []string `json:"built"`
		Promoted []string `json:"promoted"`
	}
	if err := json.Unmarshal([]byte(out), &applied); err != nil || !applied.Applied {
		t.Fatalf("apply dev: %v\n%s", err, out)
	}
	if len(applied.Built) != 8 { // every model but the embedded and the external one
		t.Fatalf("built %v", applied.Built)
	}
	if p := planJSONOf(t, dir, "dev"); p.HasChanges {
		t.Fatalf("second plan has changes: %v", changed(p))
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan dev: %s", out)
	}

	// Promotion to prod builds nothing: views only.
	out = mustRun(t, dir, "apply", "prod", "--yes", "--json")
	if err := json.Unmarshal([]byte(out), &applied); err != nil || len(applied.Built) != 0 || len(applied.Promoted) != 8 {
		t.Fatalf("apply prod: %s", out)
	}
	for _, rel := range []string{"med.moves_daily", "med.cases", "ref.departments_history", "med.stays", "med.stays_by_dept", "mart.daily_census", "mart.longest_stays", "ref.departments"} {
		s, tb, _ := strings.Cut(rel, ".")
		dev := query(t, dir, fmt.Sprintf(`SELECT * FROM "dev__%s"."%s" ORDER BY ALL`, s, tb))
		prod := query(t, dir, fmt.Sprintf(`SELECT * FROM "%s"."%s" ORDER BY ALL`, s, tb))
		if dev != prod || len(dev) < 10 {
			t.Fatalf("%s: dev and prod differ or are empty:\n%.200s\n%.200s", rel, dev, prod)
		}
	}
	stays := query(t, dir, `SELECT count(*) FROM med.stays`)

	// A real change rebuilds the model and its descendants, nothing else.
	restore := editFile(t, dir, "models/med/stays.sql", func(s string) string {
		return strings.Replace(s, "WHERE dept <> 'discharge'", "WHERE dept <> 'discharge' AND dept <> 'ER'", 1)
	})
	p := planJSONOf(t, dir, "dev")
	want := []string{"mart.daily_census:indirect:true", "mart.longest_stays:indirect:true", "med.stays:breaking:true", "med.stays_by_dept:indirect:true"}
	if got := changed(p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plan after edit:\n got %v\nwant %v", got, want)
	}
	mustRun(t, dir, "apply", "dev", "--yes", "--skip-tests")
	if got := query(t, dir, `SELECT count(*) FROM med.stays`); got != stays {
		t.Fatalf("prod changed before promotion: %s -> %s", stays, got)
	}
	if got := query(t, dir, `SELECT count(*) FROM dev__med.stays`); got == stays {
		t.Fatalf("dev did not change: %s", got)
	}

	// Reformatting (whitespace, keyword case, comments) changes nothing.
	editFile(t, dir, "models/med/stays.sql", func(s string) string {
		s = strings.Replace(s, "SELECT\n  move_id AS stay_id,", "select   move_id as stay_id, -- the move starts the stay\n", 1)
		return strings.Replace(s, "FROM ordered", "from\n\n   ordered", 1)
	})
	if p := planJSONOf(t, dir, "dev"); p.HasChanges {
		t.Fatalf("reformatting produced changes: %v", changed(p))
	}

	// Reverting reuses the old snapshots: no rebuild.
	restore()
	p = planJSONOf(t, dir, "dev")
	for _, m := range p.Models {
		if m.Build {
			t.Fatalf("revert rebuilds %s", m.Name)
		}
	}
	if len(changed(p)) != 4 {
		t.Fatalf("revert plan: %v", changed(p))
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, `SELECT count(*) FROM dev__med.stays`); got != stays {
		t.Fatalf("revert: dev has %s rows, want %s", got, stays)
	}
}

func TestProblemsChangeNothing(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-02-01T06:00:00Z")
	dir := copyExample(t, "hospital")
	mustRun(t, dir, "apply", "dev", "--yes")
	before, beforeStore := warehouseObjects(t, dir), storeState(t, dir)

	cases := []struct {
		name, file   string
		edit         func(string) string
		wantLocation string // file:line:col
		wantCode     string
	}{
		{"unknown ref", "models/med/stays_by_dept.sql",
			func(s string) string { return strings.Replace(s, "@ref(med.stays)", "@ref(med.stayz)", 1) },
			"models/med/stays_by_dept.sql:9:11", "unknown-ref"},
		{"cycle", "models/raw/moves.sql", nil, "", "cycle"},
		{"duplicate name", "models/mart/longest_stays.sql",
			func(s string) string {
				return strings.Replace(s, "name mart.longest_stays", "name mart.daily_census", 1)
			},
			"models/mart/longest_stays.sql:2:8", "duplicate-model"},
		{"unknown property", "models/med/stays.sql",
			func(s string) string { return strings.Replace(s, "  owner 'analytics',", "  ownr 'analytics',", 1) },
			"models/med/stays.sql:7:3", "unknown-property"},
		{"contract type family", "models/med/stays.sql",
			func(s string) string { return strings.Replace(s, "hours DOUBLE", "hours TIMESTAMP", 1) },
			"models/med/stays.sql:5:", "contract-mismatch"},
		{"syntax error", "models/mart/longest_stays.sql",
			func(s string) string { return strings.Replace(s, "WHERE ended_at", "WHERE WHERE ended_at", 1) },
			"models/mart/longest_stays.sql:9:7", "syntax-error"},
		{"unknown column", "models/mart/longest_stays.sql",
			func(s string) string { return strings.Replace(s, "ORDER BY hours", "ORDER BY hourz", 1) },
			"models/mart/longest_stays.sql:10:10", "unknown-column"},
		{"unknown key in efmesh.yaml", "efmesh.yaml",
			func(s string) string { return s + "modles: [x]\n" }, "efmesh.yaml:8:1", "config-unknown-key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var restore func()
			if tc.name == "cycle" {
				// raw.moves becomes a model that reads from its grandchild.
				restore = editFile(t, dir, "models/med/moves_clean.sql", func(s string) string {
					return strings.Replace(s, "FROM @ref(raw.moves)", "FROM @ref(raw.moves) JOIN @ref(med.stays) USING (case_id)", 1)
				})
				tc.wantLocation = "models/med/moves_clean.sql:8:27"
			} else {
				restore = editFile(t, dir, tc.file, tc.edit)
			}
			defer restore()
			for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}} {
				code, out, errs := run(t, dir, args...)
				if code != ExitError {
					t.Fatalf("%v: exit %d, want 1\n%s%s", args, code, out, errs)
				}
				if !strings.Contains(errs, tc.wantLocation) {
					t.Fatalf("%v: stderr lacks %q:\n%s", args, tc.wantLocation, errs)
				}
				if !regexp.MustCompile(`(?m)^[^:\s]+:\d+:\d+: error: `).MatchString(errs) {
					t.Fatalf("%v: not file:line:col: error:\n%s", args, errs)
				}
			}
			code, out, _ := run(t, dir, "plan", "dev", "--json")
			var diag struct {
				APIVersion  int `json:"apiVersion"`
				Diagnostics []struct {
					File string `json:"file"`
					Line int    `json:"line"`
					Code string `json:"code"`
				} `json:"diagnostics"`
			}
			if code != ExitError || json.Unmarshal([]byte(out), &diag) != nil || len(diag.Diagnostics) == 0 {
				t.Fatalf("plan --json: exit %d\n%s", code, out)
			}
			found := false
			for _, d := range diag.Diagnostics {
				found = found || d.Code == tc.wantCode
			}
			if !found {
				t.Fatalf("no %s diagnostic in %s", tc.wantCode, out)
			}
			if got := warehouseObjects(t, dir); got != before {
				t.Fatalf("the warehouse changed:\n%s\n%s", before, got)
			}
			if got := storeState(t, dir); got != beforeStore {
				t.Fatalf("the store changed:\n%s\n%s", beforeStore, got)
			}
		})
	}
}

func TestInitStarterWorks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shop")
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"init", dir}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("init: %d %s", code, errb.String())
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT count(*) FROM dev__shop.daily_revenue"); got != "[[3]]" {
		t.Fatalf("daily_revenue rows = %s", got)
	}
	if out := mustRun(t, dir, "render", "shop.daily_revenue"); !strings.Contains(out, `"_efmesh"."shop__orders__`) {
		t.Fatalf("render: %s", out)
	}
	if out := mustRun(t, dir, "render", "shop.daily_revenue", "--env", "dev"); !strings.Contains(out, `"dev__shop"."orders"`) {
		t.Fatalf("render --env: %s", out)
	}
	out2 := mustRun(t, dir, "graph", "--json")
	var g map[string]any
	if err := json.Unmarshal([]byte(out2), &g); err != nil || len(g["models"].([]any)) != 4 {
		t.Fatalf("graph --json: %s", out2)
	}
	if out := mustRun(t, dir, "lineage", "shop.daily_revenue.revenue"); !strings.Contains(out, "shop.orders.amount (SEED)") {
		t.Fatalf("lineage: %s", out)
	}
	if code, _, errs := run(t, dir, "lineage", "shop.daily_revenue.nope"); code != ExitError || !strings.Contains(errs, "no column") {
		t.Fatalf("lineage of an unknown column: %d %s", code, errs)
	}
	if code, _, _ := run(t, dir, "init"); code != ExitError {
		t.Fatal("init over an existing project succeeded")
	}
}

func TestUnitTests(t *testing.T) {
	dir := copyExample(t, "hospital")
	if out := mustRun(t, dir, "test"); !strings.Contains(out, "2 passed, 0 failed") {
		t.Fatalf("test: %s", out)
	}
	out := mustRun(t, dir, "test", "stays_are_stitched", "--json")
	var res struct {
		Passed int `json:"passed"`
		Tests  []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
		} `json:"tests"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Passed != 1 || len(res.Tests) != 1 {
		t.Fatalf("test --json: %v\n%s", err, out)
	}

	// A broken expectation fails with a row diff.
	restore := editFile(t, dir, "tests/stays.yaml", func(s string) string { return strings.Replace(s, "hours: 24}", "hours: 25}", 1) })
	code, out, _ := run(t, dir, "test")
	if code != ExitError || !strings.Contains(out, "expected, not produced:\n    stay_id=m2  dept=ICU  hours=25.0") ||
		!strings.Contains(out, "produced, not expected:\n    stay_id=m2  dept=ICU  hours=24.0") {
		t.Fatalf("broken expectation: exit %d\n%s", code, out)
	}
	restore()

	// A fixture with an unknown column names the file, the test and the row.
	restore = editFile(t, dir, "tests/stays.yaml", func(s string) string {
		return strings.Replace(s, "{move_id: m4, case_id: c2", "{move_id: m4, case_idd: c2", 1)
	})
	code, _, errs := run(t, dir, "test")
	if code != ExitError || !strings.Contains(errs, `tests/stays.yaml:11:23: error: test stays_are_stitched, inputs of raw.moves, row 4: raw.moves has no column "case_idd"`) {
		t.Fatalf("unknown fixture column: exit %d\n%s", code, errs)
	}
	restore()

	// A value that does not cast to the declared type names the row.
	editFile(t, dir, "tests/stays.yaml", func(s string) string {
		return strings.Replace(s, "moved_at: '2026-01-01T10:00:00'", "moved_at: yesterday", 1)
	})
	code, out, _ = run(t, dir, "test")
	if code != ExitError || !strings.Contains(out, "tests/stays.yaml:8:9: inputs of raw.moves, row 1 does not fit the model's columns") {
		t.Fatalf("bad fixture value: exit %d\n%s", code, out)
	}
}
