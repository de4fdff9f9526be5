package duckdb

import (
	"fmt"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

func TestOutlineEqualities(t *testing.T) {
	db := open(t)
	o := outline(t, db, `SELECT o.id FROM "raw"."o" AS o
LEFT JOIN "raw"."c" AS c ON o.cust = c.id + 1 AND c.name <> 'x' AND (o.a = c.a OR o.b = c.b)
JOIN "raw"."r" AS r USING (id), "raw"."s" AS s
WHERE s.k = o.k AND s.v > 0`)
	show := func(es []engine.Equality) string {
		var out string
		for _, e := range es {
			out += fmt.Sprintf("[%s.%s=%s.%s]", e.Left.Qualifier, e.Left.Column, e.Right.Qualifier, e.Right.Column)
		}
		return out
	}
	if got := show(o.Query.From[1].Equal); got != "[o.cust=c.id]" {
		t.Errorf("ON equalities = %s", got)
	}
	if got := show(o.Query.From[2].Equal); got != "" {
		t.Errorf("USING equalities = %s", got)
	}
	if got := show(o.Query.WhereEqual); got != "[s.k=o.k]" {
		t.Errorf("WHERE equalities = %s", got)
	}
}
