package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/internal/testkit"
)

// TestPostgresShop32: the shared 32-model project on Postgres. Its SQL is
// portable; only its six SEED models are DuckDB's (Postgres reads no
// files), so the test loads each seed's rows into a table of the server
// and reads it through an EXTERNAL model of the same name, columns, tags
// and audits. Apply builds the 26 models below them, a second plan has
// nothing to do, and a report reads what its own query returns. (Its unit
// tests are not run: efmesh runs unit tests on DuckDB only.)
func TestPostgresShop32(t *testing.T) {
	dir, _ := postgresShop32(t)
	t.Setenv("EFMESH_NOW", "2026-01-03T00:00:00Z")

	var res struct {
		Built    []string `json:"built"`
		Promoted []string `json:"promoted"`
	}
	out := mustRun(t, dir, "apply", "dev", "--yes", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Built) != 26 {
		t.Fatalf("apply dev built %d: %v\n%s", len(res.Built), err, out)
	}
	if p := planJSONOf(t, dir, "dev"); p.HasChanges {
		t.Fatalf("second plan has changes: %v", changed(p))
	}
	query := func(sql string) string { return mustRun(t, dir, "query", sql, "--env", "dev") }
	got := query(`SELECT * FROM @ref(report.r_0) ORDER BY 1`)
	own := query(`SELECT a.id, a.amount - b.amount AS delta FROM @ref(mart.m_0) AS a JOIN @ref(mart.m_1) AS b USING (id) ORDER BY 1`)
	// m_0 = (src_0 + src_1) + (src_2 + src_3), m_1 = (src_1 + src_2) + (src_3 + src_4).
	if got != own || got != "id,delta\n1,-4\n2,-4\n" {
		t.Fatalf("report.r_0:\n%s\nits own query:\n%s", got, own)
	}
	// A non-breaking append to a core model builds it alone: its child
	// mart.m_1 keeps its table (views over it are made again, as on
	// DuckDB).
	editFile(t, dir, "models/core/c_1.sql", func(s string) string {
		return strings.Replace(s, "a.ts\n", "a.ts, a.amount AS own\n", 1)
	})
	out = mustRun(t, dir, "apply", "dev", "--yes", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Built {
		if m != "core.c_1" && !strings.HasPrefix(m, "report.") {
			t.Fatalf("append to core.c_1 built %v", res.Built)
		}
	}
	if got := query(`SELECT * FROM @ref(report.r_0) ORDER BY 1`); got != own {
		t.Fatalf("report.r_0 after the append:\n%s", got)
	}
	out = mustRun(t, dir, "apply", "prod", "--yes", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Built) != 0 || len(res.Promoted) != 26 {
		t.Fatalf("apply prod: built %v, promoted %d\n%s", res.Built, len(res.Promoted), out)
	}
}

// postgresShop32 writes the shared 32-model project for a fresh database
// of the test server: each SEED model becomes an EXTERNAL model of the
// same name, columns, tags and audits reading a table of the server
// loaded with the seed's rows. It returns the project folder and the
// database's URL.
func postgresShop32(t *testing.T) (string, string) {
	t.Helper()
	dir := testkit.Shop32(t)
	dbURL := freshDatabase(t)
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ddl := "CREATE SCHEMA src;\n"
	for i := range 6 {
		csv, err := os.ReadFile(filepath.Join(dir, "seeds", fmt.Sprintf("src_%d.csv", i)))
		if err != nil {
			t.Fatal(err)
		}
		ddl += fmt.Sprintf("CREATE TABLE src.src_%d (id int, amount int, ts timestamp);\n", i)
		for _, line := range strings.Split(strings.TrimSpace(string(csv)), "\n")[1:] {
			f := strings.Split(line, ",")
			ddl += fmt.Sprintf("INSERT INTO src.src_%d VALUES (%s, %s, '%s');\n", i, f[0], f[1], f[2])
		}
		writeFile(t, dir, fmt.Sprintf("models/raw/src_%d.sql", i), fmt.Sprintf(`MODEL (
  name raw.src_%d,
  kind EXTERNAL (table src.src_%d),
  columns (id INT, amount INT, ts TIMESTAMP),
  tags (raw),
  audits (not_null(id))
);
`, i, i))
	}
	if err := db.Exec(context.Background(), ddl); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "efmesh.yaml", fmt.Sprintf("name: shop\nstart: 2026-01-01\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL))
	return dir, dbURL
}
