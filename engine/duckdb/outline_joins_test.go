package duckdb

import (
	"fmt"
	"slices"
	"testing"
)

// TestOutlineJoins: how each relation joins the ones before it, the
// columns of USING, ON and WHERE, and every call, as the linter reads
// them. A comma and CROSS JOIN are the same to DuckDB's serializer.
func TestOutlineJoins(t *testing.T) {
	d, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c, err := d.Canonicalize(`SELECT a.id FROM a, b
JOIN c USING (id) JOIN d ON d.k = c.k CROSS JOIN e NATURAL JOIN f
WHERE a.x = b.y AND a.t < current_timestamp AND random() < (SELECT max(now()) FROM g)`)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Outline(c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range o.Query.From {
		got = append(got, fmt.Sprintf("%s:%s:%v:%d", s.Table, s.Join, s.Using, len(s.On)))
	}
	want := []string{"a::[]:0", "b:cross:[]:0", "c:regular:[id]:0", "d:regular:[]:2", "e:cross:[]:0", "f:natural:[]:0"}
	if !slices.Equal(got, want) {
		t.Errorf("from %q, want %q", got, want)
	}
	var where []string
	for _, r := range o.Query.Where {
		where = append(where, r.Qualifier+"."+r.Column)
	}
	// A bare current_timestamp is a column to the parser, a call to the
	// binder: Where has it as read, Calls as called.
	if want := []string{"a.x", "b.y", "a.t", ".current_timestamp"}; !slices.Equal(where, want) {
		t.Errorf("where %q, want %q", where, want)
	}
	if want := []string{"current_timestamp", "max", "now", "random"}; !slices.Equal(o.Calls, want) {
		t.Errorf("calls %q, want %q", o.Calls, want)
	}
}
