package analysis

import (
	"reflect"
	"testing"

	"github.com/efmesh/efmesh/project"
)

// TestDefinitionSource: a definition written back as a model file loads
// as the same definition, for every kind and header property a snapshot
// records.
func TestDefinitionSource(t *testing.T) {
	for _, src := range []string{
		"MODEL (name a.full, kind FULL);\nSELECT 1 AS x\n",
		"MODEL (name a.inc, kind INCREMENTAL_BY_TIME_RANGE (time_column ts, batch_size 7, lookback 2), interval hour, start '2026-01-01 06:00:00',\n" +
			"  grain (id), columns (id INT, ts TIMESTAMP), audits (not_null(id), warn(unique(id))), description 'it''s', owner 'ops', tags (a, b));\n" +
			"SELECT 1 AS id, now() AS ts WHERE ts >= @start AND ts < @end\n",
		"MODEL (name a.uk, kind INCREMENTAL_BY_UNIQUE_KEY (key (id, day)), cron '@hourly');\nSELECT 1 AS id, 2 AS day\n",
		"MODEL (name a.scd, kind SCD_TYPE_2 (key (id), valid_from vf, valid_to vt));\nSELECT 1 AS id\n",
		"MODEL (name a.seed, kind SEED (path 'seeds/x.csv'), columns (id INT));\n",
		"MODEL (name a.ext, kind EXTERNAL (files 'data/*.csv', format csv, union_by_name true, delim ';'), columns (id INT));\n",
		"MODEL (name a.tab, kind EXTERNAL (table src.t), columns (id INT));\n",
		"MODEL (name a.pq, kind FULL, target parquet, answerable sampled, caveats ('one', 'two'));\nSELECT 1 AS x\n",
		"MODEL (name a.emb, kind EMBEDDED);\nSELECT 1 AS x\n",
	} {
		m, ds := project.ParseModel("models/x.sql", []byte(src))
		if project.HasErrors(ds) {
			t.Fatalf("%s: %v", src, ds)
		}
		want := DefinitionOf(m)
		back, ds := project.ParseModel("models/x.sql", want.Source())
		if project.HasErrors(ds) {
			t.Fatalf("%s written back:\n%s\n%v", m.Name, want.Source(), ds)
		}
		got := DefinitionOf(back)
		for i := range got.Columns { // positions differ, by design
			got.Columns[i].Range, want.Columns[i].Range = project.Range{}, project.Range{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s written back:\n%s\ngot  %+v\nwant %+v", m.Name, want.Source(), got, want)
		}
	}
}
