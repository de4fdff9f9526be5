package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
)

// execWarehouse runs statements in the project's DuckDB warehouse, as
// another tool writing the sources would.
func execWarehouse(t *testing.T, dir, sql string) {
	t.Helper()
	db, err := duckdb.Open(filepath.Join(dir, "efmesh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestExternalIsReadInPlace: an EXTERNAL model is never materialized and
// has no environment views; its consumers read the source directly with
// the declared columns enforced. So a model named like its source
// (raw.orders over table raw.orders) reaches prod, a VIEW consumer sees
// new source rows at once, and nothing efmesh does drops the source.
func TestExternalIsReadInPlace(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"models/orders.sql": `MODEL (
  name raw.orders,
  kind EXTERNAL (table raw.orders),
  columns (id INTEGER, amount DOUBLE)
);
`,
		"models/extra.sql": `MODEL (
  name raw.extra,
  kind EXTERNAL (table raw.extra),
  columns (x INTEGER)
);
`,
		"models/totals.sql": `MODEL (
  name mart.totals,
  kind FULL
);
SELECT count(*) AS n, sum(orders.amount) AS total FROM @ref(raw.orders)
`,
		"models/recent.sql": `MODEL (
  name mart.recent,
  kind VIEW
);
SELECT o.id, o.amount FROM @ref(raw.orders) AS o
`,
	})
	// The source has a column the model does not declare and an amount
	// stored as text: consumers see exactly the declared schema.
	execWarehouse(t, dir, `CREATE SCHEMA raw;
CREATE TABLE raw.orders (id INTEGER, amount VARCHAR, secret VARCHAR);
INSERT INTO raw.orders VALUES (1, '1.5', 's1'), (2, '2.5', 's2');
CREATE TABLE raw.extra (x INTEGER); INSERT INTO raw.extra VALUES (7);`)

	var plan struct {
		Models []struct {
			Name          string `json:"name"`
			Build         bool   `json:"build"`
			PhysicalTable string `json:"physicalTable"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "plan", "dev", "--json")), &plan); err != nil {
		t.Fatal(err)
	}
	for _, m := range plan.Models {
		if strings.HasPrefix(m.Name, "raw.") && (m.Build || m.PhysicalTable != "") {
			t.Fatalf("plan builds the EXTERNAL %s: build %v, physical table %q", m.Name, m.Build, m.PhysicalTable)
		}
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "2 to build, 2 to promote.") || !strings.Contains(out, "read in place") {
		t.Fatalf("plan dev counts the EXTERNAL models:\n%s", out)
	}
	var applied struct {
		Built    []string `json:"built"`
		Promoted []string `json:"promoted"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "apply", "dev", "--yes", "--json")), &applied); err != nil {
		t.Fatal(err)
	}
	slices.Sort(applied.Built)
	slices.Sort(applied.Promoted)
	if strings.Join(applied.Built, ",") != "mart.recent,mart.totals" || strings.Join(applied.Promoted, ",") != "mart.recent,mart.totals" {
		t.Fatalf("apply dev: built %v, promoted %v", applied.Built, applied.Promoted)
	}
	mustRun(t, dir, "apply", "prod", "--yes")

	// No object of efmesh's names an EXTERNAL model: no view in any
	// environment, nothing physical.
	objects := query(t, dir, "SELECT list(o ORDER BY o) FROM (SELECT table_schema || '.' || table_name || ':' || table_type AS o FROM information_schema.tables WHERE table_name IN ('orders', 'extra') OR starts_with(table_name, 'raw__'))")
	if objects != "[[[raw.extra:BASE TABLE raw.orders:BASE TABLE]]]" {
		t.Fatalf("objects named like the EXTERNAL models: %s", objects)
	}
	for _, env := range []string{"dev__mart", "mart"} {
		if got := query(t, dir, "SELECT n, total FROM "+env+".totals"); got != "[[2 4]]" {
			t.Fatalf("%s.totals: %s", env, got)
		}
		if got := query(t, dir, "SELECT list(c ORDER BY p) FROM (SELECT column_name || ' ' || data_type AS c, ordinal_position AS p FROM information_schema.columns WHERE table_schema = '"+env+"' AND table_name = 'recent')"); got != "[[[id INTEGER amount DOUBLE]]]" {
			t.Fatalf("%s.recent columns: %s", env, got)
		}
	}
	// A VIEW consumer reads the source itself: a new row is there at once.
	execWarehouse(t, dir, "INSERT INTO raw.orders VALUES (3, '3', 's3')")
	if got := query(t, dir, "SELECT count(*) FROM mart.recent"); got != "[[3]]" {
		t.Fatalf("mart.recent after a new source row: %s", got)
	}
	if out := mustRun(t, dir, "render", "mart.totals"); !strings.Contains(out, `FROM "raw"."orders"`) || !strings.Contains(out, `AS "orders"`) {
		t.Fatalf("render does not read the source in place:\n%s", out)
	}
	if out := mustRun(t, dir, "render", "mart.totals", "--env", "prod"); !strings.Contains(out, `CAST("amount" AS DOUBLE)`) {
		t.Fatalf("render --env prod does not enforce the declared columns:\n%s", out)
	}
	if out := mustRun(t, dir, "lineage", "mart.totals.total"); !strings.Contains(out, "raw.orders") {
		t.Fatalf("lineage of mart.totals.total:\n%s", out)
	}
	mustRun(t, dir, "diff", "dev", "prod", "--data")

	// Removing the EXTERNAL named like its source leaves the source alone.
	if err := os.Remove(filepath.Join(dir, "models", "extra.sql")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "apply", "prod", "--yes")
	mustRun(t, dir, "janitor", "--ttl", "0s")
	if got := query(t, dir, "SELECT x FROM raw.extra"); got != "[[7]]" {
		t.Fatalf("raw.extra after its model was removed: %s", got)
	}
	if got := query(t, dir, "SELECT count(*) FROM raw.orders"); got != "[[3]]" {
		t.Fatalf("raw.orders after the janitor: %s", got)
	}
}

// TestExternalStaleViews: an environment applied by an earlier efmesh has
// views for its EXTERNAL models. The plan finds them with its catalog
// query and lists their drops as changes: plan shows them and touches
// nothing, apply needs confirmation and drops them (whether the plan has
// other changes or not), never the source itself.
func TestExternalStaleViews(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"models/orders.sql": `MODEL (
  name raw.orders,
  kind EXTERNAL (table raw.orders),
  columns (id INTEGER)
);
`,
		"models/ids.sql": `MODEL (
  name mart.ids,
  kind FULL
);
SELECT id FROM @ref(raw.orders)
`,
	})
	execWarehouse(t, dir, "CREATE SCHEMA raw; CREATE TABLE raw.orders (id INTEGER, secret TEXT); INSERT INTO raw.orders VALUES (1, 's')")
	mustRun(t, dir, "apply", "dev", "--yes")
	mustRun(t, dir, "apply", "prod", "--yes")
	// What an earlier efmesh left: a view per environment.
	stale := "CREATE SCHEMA IF NOT EXISTS dev__raw; CREATE VIEW dev__raw.orders AS SELECT * FROM raw.orders"
	views := func() string {
		return query(t, dir, "SELECT count(*) FROM information_schema.tables WHERE table_type = 'VIEW' AND table_name = 'orders'")
	}
	execWarehouse(t, dir, stale)

	out := mustRun(t, dir, "plan", "dev")
	if !strings.Contains(out, "- raw.orders") || !strings.Contains(out, "drop stale view dev__raw.orders") ||
		!strings.Contains(out, "1 stale view(s) to drop") || strings.Contains(out, "No changes") {
		t.Fatalf("plan dev over a stale view:\n%s", out)
	}
	type line struct {
		Name      string `json:"name"`
		StaleView string `json:"staleView"`
	}
	var p struct {
		HasChanges bool   `json:"hasChanges"`
		Models     []line `json:"models"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "plan", "dev", "--json")), &p); err != nil || !p.HasChanges ||
		!slices.Contains(p.Models, line{Name: "raw.orders", StaleView: "dev__raw.orders"}) {
		t.Fatalf("plan --json over a stale view: %v %+v", err, p)
	}
	// prod's raw.orders is the source: never a stale view.
	if out := mustRun(t, dir, "plan", "prod"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan prod:\n%s", out)
	}
	// Without --yes and a terminal, apply changes nothing.
	if code, out, errs := run(t, dir, "apply", "dev"); code != ExitAwaiting || !strings.Contains(out, "drop stale view dev__raw.orders") {
		t.Fatalf("apply dev without --yes: exit %d\n%s%s", code, out, errs)
	}
	if got := views(); got != "[[1]]" {
		t.Fatalf("apply without --yes dropped the stale view: %s", got)
	}
	if out := mustRun(t, dir, "apply", "dev", "--yes"); !strings.Contains(out, "Dropped the stale view(s) dev__raw.orders") {
		t.Fatalf("apply dev:\n%s", out)
	}
	if got := views(); got != "[[0]]" {
		t.Fatalf("the stale view survived the apply: %s", got)
	}
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after the drop:\n%s", out)
	}

	execWarehouse(t, dir, stale)
	restore := editFile(t, dir, "models/ids.sql", func(s string) string { return strings.Replace(s, "SELECT id", "SELECT id, id + 1 AS next", 1) })
	defer restore()
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := views(); got != "[[0]]" {
		t.Fatalf("the stale view survived an apply: %s", got)
	}
	if got := query(t, dir, "SELECT * FROM raw.orders"); got != "[[1 s]]" {
		t.Fatalf("the source after apply: %s", got)
	}
}
