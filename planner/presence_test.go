package planner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/state/sqlite"
)

// countingCatalog is the real DuckDB warehouse, counting its catalog
// listings.
type countingCatalog struct {
	*duckdb.DB
	calls   int
	schemas []string
}

func (c *countingCatalog) Relations(ctx context.Context, schemas []string) ([]engine.Listed, error) {
	c.calls++
	c.schemas = schemas
	return c.DB.Relations(ctx, schemas)
}

// TestPresenceOneCatalogQuery: however many models, plan and status ask
// the warehouse's catalog once.
func TestPresenceOneCatalogQuery(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"seeds/s.csv":  "id\n1\n2\n",
		"models/s.sql": `MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER));`,
	}
	for i := range 12 {
		files[fmt.Sprintf("models/m%d.sql", i)] = fmt.Sprintf("MODEL (name m%d.t%d, kind FULL);\nSELECT id + %d AS id FROM @ref(raw.s)\n", i%3, i, i)
	}
	a := analyzeFiles(t, files)
	mustClean(t, a)
	db, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wh := &countingCatalog{DB: db}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	p, err := MakePlan(ctx, a, st, "dev", WithWarehouse(wh))
	if err != nil {
		t.Fatal(err)
	}
	if wh.calls != 0 { // nothing built yet: nothing to look for
		t.Fatalf("catalog queries of a first plan: %d", wh.calls)
	}
	if _, err := Apply(ctx, p, wh, st, ApplyOptions{Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, `DROP TABLE `+db.Dialect().QuoteRelation(PhysicalRelation(db.Dialect(), a.Models["m1.t4"].Model, a.Models["m1.t4"].Fingerprint))); err != nil {
		t.Fatal(err)
	}
	p, err = MakePlan(ctx, a, st, "dev", WithWarehouse(wh))
	if err != nil {
		t.Fatal(err)
	}
	if wh.calls != 1 || strings.Join(wh.schemas, " ") != "_efmesh dev__m0 dev__m1 dev__m2 dev__raw" {
		t.Fatalf("plan: %d catalog queries over %v", wh.calls, wh.schemas)
	}
	var missing []string
	for _, m := range p.Models {
		if m.Missing {
			missing = append(missing, m.Name)
		}
	}
	if fmt.Sprint(missing) != "[m1.t4]" {
		t.Fatalf("missing %v", missing)
	}
	s, err := GetStatus(ctx, st, a.Project.Config, "dev", now, 5, StatusWarehouse(wh, a.Project.Root))
	if err != nil {
		t.Fatal(err)
	}
	if wh.calls != 2 || len(s.Missing) != 1 || s.Missing[0].Model != "m1.t4" || s.Healthy() {
		t.Fatalf("status: %d catalog queries, missing %+v", wh.calls, s.Missing)
	}
}

// TestCatalogKey: a stored name is looked up as the engine's catalog lists
// it: Postgres cuts identifiers over 63 bytes (on a character boundary),
// DuckDB does not; case does not matter.
func TestCatalogKey(t *testing.T) {
	long := "raw__" + strings.Repeat("a", 60) + "__1a2b3c4d" // 75 bytes, stored before efmesh shortened names
	accented := strings.Repeat("é", 40)                      // 80 bytes
	for _, c := range []struct {
		d    engine.Dialect
		in   engine.Relation
		want engine.Relation
	}{
		{postgres.Dialect{}, engine.Relation{Schema: "_efmesh", Name: long}, engine.Relation{Schema: "_efmesh", Name: long[:63]}},
		{postgres.Dialect{}, engine.Relation{Schema: "_efmesh", Name: accented}, engine.Relation{Schema: "_efmesh", Name: accented[:62]}},
		{postgres.Dialect{}, engine.Relation{Schema: "Dev__Raw", Name: "Orders"}, engine.Relation{Schema: "dev__raw", Name: "orders"}},
		{duckdb.Dialect{}, engine.Relation{Schema: "_efmesh", Name: long}, engine.Relation{Schema: "_efmesh", Name: long}},
		{nil, engine.Relation{Schema: "_efmesh", Name: long}, engine.Relation{Schema: "_efmesh", Name: long}},
	} {
		if got := catalogKey(c.d, c.in); got != c.want {
			t.Errorf("catalogKey(%T, %s) = %s, want %s", c.d, c.in, got, c.want)
		}
	}
}
