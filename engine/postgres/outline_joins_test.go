package postgres

import (
	"fmt"
	"slices"
	"testing"
)

// TestOutlineJoins: how each relation joins the ones before it, the
// columns of USING, ON and WHERE, and every call (bare CURRENT_TIMESTAMP
// included), as the linter reads them.
func TestOutlineJoins(t *testing.T) {
	o := outline(t, `SELECT a.id FROM a, b
JOIN c USING (id) JOIN d ON d.k = c.k CROSS JOIN e NATURAL JOIN f
WHERE a.x = b.y AND a.t < CURRENT_TIMESTAMP AND random() < (SELECT max(now()) FROM g)`)
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
	if want := []string{"a.x", "b.y", "a.t"}; !slices.Equal(where, want) {
		t.Errorf("where %q, want %q", where, want)
	}
	if want := []string{"current_timestamp", "max", "now", "random"}; !slices.Equal(o.Calls, want) {
		t.Errorf("calls %q, want %q", o.Calls, want)
	}
}
