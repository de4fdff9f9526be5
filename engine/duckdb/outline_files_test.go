package duckdb

import (
	"slices"
	"testing"
)

func TestOutlineFiles(t *testing.T) {
	db := open(t)
	cases := []struct {
		sql  string
		want []string
	}{
		{`SELECT id, v FROM read_csv('data/x.csv')`, []string{"data/x.csv"}},
		{`SELECT * FROM 'data/x.csv'`, []string{"data/x.csv"}},
		{`SELECT * FROM read_parquet(['b/*.parquet', 'a.parquet'], union_by_name = true) JOIN read_json_auto('j.json') USING (id)`,
			[]string{"a.parquet", "b/*.parquet", "j.json"}},
		{`WITH c AS (SELECT * FROM read_csv_auto('c.csv')) SELECT * FROM c WHERE id IN (SELECT id FROM 'd.parquet')`,
			[]string{"c.csv", "d.parquet"}},
		{`SELECT * FROM core.f, range(3), read_csv('x.csv', header = true), read_csv('x.csv')`, []string{"x.csv"}},
		{`SELECT * FROM core.f`, nil},
	}
	for _, c := range cases {
		if got := outline(t, db, c.sql).Files; !slices.Equal(got, c.want) {
			t.Errorf("%s: files %q, want %q", c.sql, got, c.want)
		}
	}
}
