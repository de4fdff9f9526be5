package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitFromDbtSnapshots converts dbt snapshots into SCD_TYPE_2 models:
// strategy='check' with check_cols='all' and hard_deletes='invalidate'
// converts in full, and its history, after a change of the source, is the
// one dbt snapshot keeps (a changed row closes its version and opens one,
// a vanished key is closed, a new key opens); a timestamp strategy, named
// check_cols and dbt's default hard_deletes are written too but left to a
// human, each difference named at its config (exit 2).
func TestInitFromDbtSnapshots(t *testing.T) {
	dbt := filepath.Join(t.TempDir(), "dbt")
	if err := os.CopyFS(dbt, os.DirFS(dbtFixture("snapshots"))); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "p")
	code, out, errs := run(t, ".", "init", dir, "--from-dbt", dbt)
	if code != 2 {
		t.Fatalf("init --from-dbt: exit %d, want 2\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"snapshots.customers_history    SCD_TYPE_2",
		"! snapshots.customers_by_update  SCD_TYPE_2",
		"! history.prices                 SCD_TYPE_2",
		"snapshots/customers.sql:7:1: snapshot customers_by_update: strategy timestamp: dbt opens a version when updated_at advances, valid from that updated_at; efmesh's SCD_TYPE_2 opens one when any column of the row changes, valid from the refresh time",
		"snapshots/products.sql:2:1: snapshot prices: check_cols names columns: dbt opens a version only when one of them changes",
		"snapshots/products.sql:2:1: snapshot prices: dbt (hard_deletes='ignore', its default) leaves the version of a key the query no longer yields open",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "customers_history:") {
		t.Errorf("customers_history is reported:\n%s", out)
	}

	t.Setenv("EFMESH_NOW", "2026-01-05T00:00:00Z")
	planApplyReplan(t, dir)
	// Ada moves up a tier, Chloe leaves, Dmitri arrives.
	csv := "id,name,tier,updated_at\n1,Ada,platinum,2026-01-05 12:00:00\n2,Brian,silver,2026-01-01 09:00:00\n4,Dmitri,gold,2026-01-05 13:00:00\n"
	if err := os.WriteFile(filepath.Join(dbt, "data", "customers.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EFMESH_NOW", "2026-01-06T00:00:00Z")
	runTick(t, dir, "dev", ExitOK)
	got := mustRun(t, dir, "query", "--env", "dev", "--format", "csv", "--limit", "0",
		"SELECT id, name, tier, strftime(dbt_valid_from, '%d') AS since, coalesce(strftime(dbt_valid_to, '%d'), '-') AS until FROM @ref(snapshots.customers_history) ORDER BY id, dbt_valid_from")
	want := "id,name,tier,since,until\n1,Ada,gold,05,06\n1,Ada,platinum,06,-\n2,Brian,silver,05,-\n3,Chloe,bronze,05,06\n4,Dmitri,gold,06,-\n"
	if got != want {
		t.Errorf("customers_history:\n got %s\nwant %s", got, want)
	}
	got = mustRun(t, dir, "query", "--env", "dev", "--format", "csv", "--limit", "0", "SELECT id, tier FROM @ref(crm.current_tiers) ORDER BY id")
	if want := "id,tier\n1,platinum\n2,silver\n4,gold\n"; got != want {
		t.Errorf("current_tiers:\n got %s\nwant %s", got, want)
	}
}
