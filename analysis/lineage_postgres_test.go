package analysis

import (
	"context"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// pgParserBench checks a Postgres project without a server.
type pgParserBench struct{ postgres.Parser }

func (pgParserBench) Dialect() engine.Dialect { return postgres.Dialect{} }
func (pgParserBench) Close() error            { return nil }

// TestWholeRowLineage: a relation's name alone reads the whole row — a
// model's every column (to_jsonb(s)), a table function's value (the
// jsonb_array_elements aliased item, read as item ->> 'sku').
func TestWholeRowLineage(t *testing.T) {
	dir := testkit.WriteProject(t, map[string]string{
		"efmesh.yaml":  "name: t\nstart: 2026-01-01\nengine: {type: postgres, url: \"postgres://nobody@127.0.0.1:1/none\"}\n",
		"models/o.sql": "MODEL (name raw.o, kind EXTERNAL (table src.o), columns (id INT, doc JSONB, qty INT));",
		"models/i.sql": `MODEL (name core.i, kind FULL);
SELECT o.id, item ->> 'sku' AS sku, to_jsonb(o) ->> 'qty' AS qty_text
FROM @ref(raw.o) o CROSS JOIN LATERAL jsonb_array_elements(o.doc -> 'items') AS item`,
	})
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(context.Background(), p, pgParserBench{})
	if err != nil {
		t.Fatal(err)
	}
	mustClean(t, a)
	for col, want := range map[string]string{
		"sku":      "[{raw.o doc items}]",
		"qty_text": "[{raw.o doc} {raw.o id} {raw.o qty}]",
	} {
		if got := refsText(FieldSources(a, "core.i", col, "")); got != want {
			t.Errorf("core.i.%s: got %s, want %s", col, got, want)
		}
	}
	n, err := Lineage(a, "core.i", "sku")
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Sources) != 1 || n.Sources[0].Model != "raw.o" || n.Sources[0].Column != "doc" {
		var got []string
		for _, s := range n.Sources {
			got = append(got, s.Model+"."+s.Column)
		}
		t.Errorf("lineage of core.i.sku: %v, want raw.o.doc", got)
	}
}
