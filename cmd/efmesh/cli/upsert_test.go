package cli

import (
	"strings"
	"testing"
)

// TestUniqueKeyAndSCD2: apply builds both from the source; each run tick
// merges the source again: the unique-key table upserts, the SCD_TYPE_2
// table closes changed and vanished rows and opens new versions, and an
// identical row keeps its valid_from.
func TestUniqueKeyAndSCD2(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":        "name: crm\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/customers.csv": "id,name,tier\n1,ann,gold\n2,bob,silver\n3,cy,bronze\n",
		"models/raw.sql": `MODEL (
  name raw.customers,
  kind EXTERNAL (files 'data/customers.csv', format csv, header true),
  columns (id INTEGER, name TEXT, tier TEXT)
);
`,
		"models/latest.sql": `MODEL (
  name core.customers,
  kind INCREMENTAL_BY_UNIQUE_KEY (key (id)),
  columns (id INTEGER, name TEXT, tier TEXT)
);
SELECT id, name, tier FROM @ref(raw.customers)
`,
		"models/history.sql": `MODEL (
  name core.customers_history,
  kind SCD_TYPE_2 (key (id), valid_to until),
  columns (id INTEGER, name TEXT, tier TEXT)
);
SELECT id, name, tier FROM @ref(raw.customers)
`,
		// A child binds the history's validity columns.
		"models/current.sql": `MODEL (
  name mart.current_tiers,
  kind VIEW,
  columns (id INTEGER, tier TEXT, since TIMESTAMP)
);
SELECT id, tier, valid_from AS since FROM @ref(core.customers_history) WHERE "until" IS NULL
`,
	})
	t.Setenv("EFMESH_NOW", "2026-01-05T00:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT id, tier FROM dev__core.customers ORDER BY id"); got != "[[1 gold] [2 silver] [3 bronze]]" {
		t.Fatalf("unique key after build: %s", got)
	}

	editFile(t, dir, "data/customers.csv", func(string) string { return "id,name,tier\n1,ann,platinum\n2,bob,silver\n4,dee,gold\n" })
	t.Setenv("EFMESH_NOW", "2026-01-06T00:00:00Z")
	if r := runTick(t, dir, "dev", ExitOK); strings.Join(r.Processed, ",") != "core.customers,core.customers_history" {
		t.Fatalf("run: %+v", r)
	}
	// A second tick without source changes changes nothing.
	t.Setenv("EFMESH_NOW", "2026-01-07T00:00:00Z")
	runTick(t, dir, "dev", ExitOK)

	if got := query(t, dir, "SELECT id, tier FROM dev__core.customers ORDER BY id"); got != "[[1 platinum] [2 silver] [3 bronze] [4 gold]]" {
		t.Fatalf("unique key after upsert: %s", got)
	}
	got := query(t, dir, `SELECT id, tier, strftime(valid_from, '%d'), coalesce(strftime("until", '%d'), '-')
		FROM dev__core.customers_history ORDER BY id, valid_from`)
	want := "[[1 gold 05 06] [1 platinum 06 -] [2 silver 05 -] [3 bronze 05 06] [4 gold 06 -]]"
	if got != want {
		t.Fatalf("history:\n got %s\nwant %s", got, want)
	}
	if got := query(t, dir, "SELECT id, tier, strftime(since, '%d') FROM dev__mart.current_tiers ORDER BY id"); got != "[[1 platinum 06] [2 silver 05] [4 gold 06]]" {
		t.Fatalf("current tiers: %s", got)
	}
	code, _, errs := run(t, dir, "restate", "dev", "--model", "core.customers_history", "--from", "2026-01-01", "--to", "2026-01-02")
	if code != ExitError || !strings.Contains(errs, "SCD_TYPE_2") {
		t.Fatalf("restate of an SCD_TYPE_2 model: exit %d\n%s", code, errs)
	}
}
