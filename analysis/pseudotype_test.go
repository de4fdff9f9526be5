package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// TestPseudoTypedColumn: a model yielding a column of a type no table or
// view column can have (PostgreSQL's record) is an error at the item that
// yields it, where the build's CREATE would fail; a cast of it is fine. So
// is a table's column named as a system column (xmin), which a view (or
// another spelling, "XMAX") may have.
func TestPseudoTypedColumn(t *testing.T) {
	dir := testkit.WriteProject(t, map[string]string{
		"efmesh.yaml":  "name: t\nstart: 2026-01-01\nengine: {type: postgres, url: \"postgres://nobody@127.0.0.1:1/none\"}\n",
		"models/o.sql": "MODEL (name raw.o, kind EXTERNAL (table src.o), columns (id INT, city TEXT));",
		"models/t.sql": "MODEL (name core.t, kind FULL);\nSELECT id, row(id, city) AS pair FROM @ref(raw.o)",
		"models/v.sql": "MODEL (name core.v, kind VIEW);\nSELECT id, row(id, city) FROM @ref(raw.o)",
		"models/c.sql": "MODEL (name core.c, kind FULL);\nSELECT id, row(id, city)::text AS pair FROM @ref(raw.o)",
		"models/d.sql": "MODEL (name core.d, kind FULL);\nSELECT DISTINCT ON (id, city) id, row(city) FROM @ref(raw.o) ORDER BY id, city",
		"models/x.sql": "MODEL (name core.x, kind FULL);\nSELECT id, id AS xmin, id + 1 AS \"XMAX\" FROM @ref(raw.o)",
		"models/y.sql": "MODEL (name core.y, kind FULL, columns (id INT, ctid INT));\nSELECT id, id + 1 AS ctid FROM @ref(raw.o)",
		"models/z.sql": "MODEL (name core.z, kind VIEW);\nSELECT id AS xmin, id AS xmax FROM @ref(raw.o)",
	})
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(context.Background(), p, pgParserBench{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range a.Diagnostics {
		for _, m := range p.Models {
			if m.File == d.File {
				got = append(got, d.File+": "+string(m.Source[d.Range.Start.Offset:d.Range.End.Offset])+": "+d.Message)
			}
		}
	}
	want := []string{
		`models/d.sql: row(city): column "row" has pseudo-type record, which no table or view column can have: cast it, or take its fields apart`,
		`models/t.sql: pair: column "pair" has pseudo-type record, which no table or view column can have: cast it, or take its fields apart`,
		`models/v.sql: row(id, city): column "row" has pseudo-type record, which no table or view column can have: cast it, or take its fields apart`,
		`models/x.sql: xmin: column name "xmin" conflicts with a system column name: every table of the engine has one; name it otherwise (AS …)`,
		`models/y.sql: ctid INT: column name "ctid" conflicts with a system column name: every table of the engine has one; name it otherwise (AS …)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
