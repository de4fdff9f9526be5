package cli

import (
	"context"
	"testing"
	"time"
)

// TestLostLedgerWriteNeverDuplicates: the ledger is written after the
// warehouse commits (data and state never share a transaction), so a
// process that dies between the two leaves rows the ledger does not know.
// The next tick computes them again: an INCREMENTAL_BY_TIME_RANGE interval
// is replaced (DELETE of its range and INSERT, one transaction), and an
// INCREMENTAL_BY_UNIQUE_KEY merge replaces the keys it writes, so neither
// counts a row twice.
func TestLostLedgerWriteNeverDuplicates(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": "name: shop\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"data/orders.csv": "id,amount,ts\n1,10,2026-01-01 10:00:00\n2,20,2026-01-02 10:00:00\n3,30,2026-01-03 10:00:00\n" +
			"4,40,2026-01-05 09:00:00\n5,50,2026-01-05 11:00:00\n",
		"models/raw.sql": `MODEL (name raw.orders, kind EXTERNAL (files 'data/orders.csv', format csv, header true),
  columns (id INTEGER, amount INTEGER, ts TIMESTAMP));
`,
		"models/daily.sql": `MODEL (name core.orders, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), grain (id));
SELECT id, amount, ts FROM @ref(raw.orders) WHERE ts >= @start AND ts < @end
`,
		"models/latest.sql": `MODEL (name core.latest, kind INCREMENTAL_BY_UNIQUE_KEY (key (id)), grain (id));
SELECT id, amount FROM @ref(raw.orders)
`,
	})
	t.Setenv("EFMESH_NOW", "2026-01-05T06:00:00Z")
	mustRun(t, dir, "apply", "dev", "--yes")
	t.Setenv("EFMESH_NOW", "2026-01-06T06:00:00Z")
	runTick(t, dir, "dev", ExitOK) // commits 01-05: orders 4 and 5
	const counts = "SELECT (SELECT count(*) FROM dev__core.orders), (SELECT count(DISTINCT id) FROM dev__core.orders), " +
		"(SELECT count(*) FROM dev__core.latest), (SELECT count(DISTINCT id) FROM dev__core.latest)"
	if got := query(t, dir, counts); got != "[[5 5 5 5]]" {
		t.Fatalf("after the tick: %s", got)
	}
	if got := ledgerOf(t, dir, "dev", "core.orders"); got != "5 done, failed []" {
		t.Fatalf("ledger after the tick: %s", got)
	}

	// The tick died after the warehouse committed 01-05 and before the
	// ledger recorded it: the ledger lacks the interval the table holds.
	st := openState(t, dir)
	ptrs, err := st.Environment(context.Background(), "dev")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	if n, err := st.ClearIntervals(context.Background(), ptrs["core.orders"].Fingerprint, day, day.AddDate(0, 0, 1)); err != nil || n != 1 {
		t.Fatalf("clear the ledger of 01-05: %d %v", n, err)
	}
	if got := backfillOf(t, dir, "dev", "core.orders"); got != "[[2026-01-05T00:00:00Z 2026-01-06T00:00:00Z]]" {
		t.Fatalf("plan after the lost ledger write: %s", got)
	}

	// The next tick computes 01-05 again and merges core.latest again:
	// the same rows, each once.
	if r := runTick(t, dir, "dev", ExitOK); r.Intervals != 1 {
		t.Fatalf("the next tick: %+v", r)
	}
	if got := query(t, dir, counts); got != "[[5 5 5 5]]" {
		t.Fatalf("after the tick that recomputed the lost interval: %s", got)
	}
	if got := ledgerOf(t, dir, "dev", "core.orders"); got != "5 done, failed []" {
		t.Fatalf("ledger after the recomputation: %s", got)
	}
	if got := backfillOf(t, dir, "dev", "core.orders"); got != "[]" {
		t.Fatalf("plan after the recomputation: %s", got)
	}
}
