package analysis

import (
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
)

// mayReadFiles may answer true for a body that reads no file, never false
// for one whose outline names files: checked on DuckDB's own canonical
// forms.
func TestMayReadFilesNeverMissesAFile(t *testing.T) {
	db, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bodies := []string{
		`SELECT id, v FROM read_csv('data/x.csv')`,
		`SELECT * FROM 'data/x.csv'`,
		`SELECT * FROM "data/x.parquet"`,
		`SELECT * FROM read_parquet(['b/*.parquet', 'a.parquet'], union_by_name = true) JOIN read_json_auto('j.json') USING (id)`,
		`WITH c AS (SELECT * FROM read_csv_auto('c.csv')) SELECT * FROM c WHERE id IN (SELECT id FROM 'd.parquet')`,
		`SELECT (SELECT count(*) FROM parquet_scan('p.parquet')) AS n`,
		`SELECT * FROM core.f, range(3), read_csv('x.csv', header = true)`,
		`SELECT * FROM core.f`,
		`SELECT a.id, 'x.csv' AS s FROM "raw"."orders" a JOIN core.b USING (id)`,
		`SELECT * FROM 'Käufer données.csv'`,
	}
	for _, sql := range bodies {
		c, err := db.Canonicalize(sql)
		if err != nil {
			t.Fatal(err)
		}
		o, err := db.Outline(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Files) > 0 && !mayReadFiles(c) {
			t.Errorf("%s: reads %q, but mayReadFiles says no", sql, o.Files)
		}
		if len(o.Files) == 0 && sql == `SELECT * FROM core.f` && mayReadFiles(c) {
			t.Errorf("%s: reads no file, but mayReadFiles says it may (every model would be outlined)", sql)
		}
	}
}
