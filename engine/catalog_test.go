package engine

import (
	"fmt"
	"testing"
)

// TestRelationsOf: catalog rows become relations as the catalog spells
// them; only those asked for (without case) keep their columns, in order.
func TestRelationsOf(t *testing.T) {
	rows := &Rows{Values: [][]any{
		{"S", "A.b", false, "x", "INTEGER"},
		{"S", "A.b", false, "Y", "TEXT"},
		{"S", "c\"d", true, "z", "INTEGER"},
		{"S", "e", false, nil, nil},
		{"t", "A.b", false, "w", "DATE"},
	}}
	got := RelationsOf(rows, []Relation{{Schema: "s", Name: "a.B"}, {Schema: "S", Name: "E"}, {Schema: "u", Name: "c\"d"}})
	var s string
	for _, l := range got {
		s += fmt.Sprintf("%q.%q:%v%v ", l.Schema, l.Name, l.View, l.Columns)
	}
	want := `"S"."A.b":false[{x INTEGER} {Y TEXT}] "S"."c\"d":true[] "S"."e":false[] "t"."A.b":false[] `
	if s != want {
		t.Fatalf("RelationsOf =\n%s\nwant\n%s", s, want)
	}
	if s := fmt.Sprint(ColumnSchemas([]string{"S", "t", "u"}, []Relation{{Schema: "s", Name: "x"}, {Schema: "U", Name: "y"}})); s != "[S u]" {
		t.Fatalf("ColumnSchemas = %s", s)
	}
	if s := InList("x", nil); s != "FALSE" {
		t.Fatalf("InList of none = %s", s)
	}
	if s := InList("x", []string{"a'b", "c"}); s != "x IN ('a''b', 'c')" {
		t.Fatalf("InList = %s", s)
	}
}
