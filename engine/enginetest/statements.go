// Package enginetest holds checks every engine adapter runs against its
// own database, so that the statements the planner issues behave the same
// on each.
package enginetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// Statements runs the Dialect's statements in schema (which exists and is
// empty) of eng and checks what they leave.
func Statements(t *testing.T, eng engine.Engine, schema string) {
	t.Helper()
	ctx := context.Background()
	d := eng.Dialect()
	exec := func(stmts ...string) {
		t.Helper()
		if err := eng.Tx(ctx, stmts); err != nil {
			t.Fatalf("%s: %v", strings.Join(stmts, "; "), err)
		}
	}
	rows := func(q string) string {
		t.Helper()
		r, err := eng.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for _, v := range r.Values {
			f := make([]string, len(v))
			for i, x := range v {
				f[i] = fmt.Sprint(x)
			}
			out = append(out, strings.Join(f, " "))
		}
		return strings.Join(out, "; ")
	}
	ts := func(s string) string { return d.TimestampLiteral(s + "T00:00:00Z") }
	values := func(cols string, rows ...string) string {
		return "SELECT * FROM (VALUES " + strings.Join(rows, ", ") + ") AS v(" + cols + ")"
	}
	cols := []engine.Column{{Name: "k", Type: "VARCHAR"}, {Name: "V", Type: "VARCHAR"}, {Name: "ts", Type: "TIMESTAMP"}}
	names := []string{"k", "V", "ts"}
	r := engine.Relation{Schema: schema, Name: "Batches"}
	rel := d.QuoteRelation(r)

	// A batch replaces its range only, and repeating it changes nothing.
	exec(d.CreateTable(r, cols))
	exec(d.CreateTable(r, cols))
	exec("INSERT INTO " + rel + " VALUES ('old', 'x', " + ts("2024-01-01") + "), ('gone', 'x', " + ts("2024-01-02") + ")")
	batch := values(`k, "V", ts`, "('new', 'y', "+ts("2024-01-02")+")", "('late', 'y', "+ts("2024-01-03")+")")
	for range 2 {
		exec(d.ReplaceRange(r, names, "ts", ts("2024-01-02"), ts("2024-01-03"), batch)...)
	}
	if got, want := rows(`SELECT k, "V" FROM `+rel+" ORDER BY k"), "new y; old x"; got != want {
		t.Errorf("ReplaceRange: %s, want %s", got, want)
	}
	slice := "SELECT k FROM " + rel + " WHERE " + engine.RangeCondition("ts", ts("2024-01-01"), ts("2024-01-02"))
	if got := rows(slice); got != "old" {
		t.Errorf("RangeCondition: %s, want old", got)
	}

	// Every row replaced, the table kept.
	exec(d.ReplaceRows(r, names, values(`k, "V", ts`, "('only', 'z', "+ts("2024-02-01")+")"))...)
	if got := rows(`SELECT k, "V" FROM ` + rel); got != "only z" {
		t.Errorf("ReplaceRows: %s", got)
	}

	// An upsert replaces the rows of the keys it yields; a NULL key is a key.
	u := engine.Relation{Schema: schema, Name: "upserted"}
	kv := []engine.Column{{Name: "k", Type: "VARCHAR"}, {Name: "V", Type: "VARCHAR"}}
	exec(d.CreateTable(u, kv))
	exec(d.Upsert(u, []string{"k", "V"}, []string{"k"}, values(`k, "V"`, "('a', '1')", "('b', '2')", "(NULL, '0')"))...)
	exec(d.Upsert(u, []string{"k", "V"}, []string{"k"}, values(`k, "V"`, "('b', '3')", "('c', '4')", "(NULL, '5')"))...)
	if got, want := rows(`SELECT coalesce(k, '-'), "V" FROM `+d.QuoteRelation(u)+" ORDER BY 1"), "- 5; a 1; b 3; c 4"; got != want {
		t.Errorf("Upsert: %s, want %s", got, want)
	}

	// A history closes changed and vanished keys and opens new versions.
	h := engine.Relation{Schema: schema, Name: "history"}
	exec(d.CreateTable(h, append(kv, engine.Column{Name: "from", Type: "TIMESTAMP"}, engine.Column{Name: "to", Type: "TIMESTAMP"})))
	merge := func(at string, rows ...string) {
		t.Helper()
		exec(d.MergeHistory(h, []string{"k", "V"}, []string{"k"}, "from", "to", ts(at), values(`k, "V"`, rows...))...)
	}
	merge("2024-01-01", "('a', '1')", "('b', '2')")
	merge("2024-01-02", "('a', '1')", "('b', '3')")
	merge("2024-01-02", "('a', '1')", "('b', '3')") // a repeated merge changes nothing
	merge("2024-01-03", "('a', '1')")
	got := rows(`SELECT k, "V", CAST("from" AS VARCHAR), coalesce(CAST("to" AS VARCHAR), 'open') FROM ` + d.QuoteRelation(h) + ` ORDER BY k, "from"`)
	want := "a 1 2024-01-01 00:00:00 open; b 2 2024-01-01 00:00:00 2024-01-02 00:00:00; b 3 2024-01-02 00:00:00 2024-01-03 00:00:00"
	if got != want {
		t.Errorf("MergeHistory:\n got %s\nwant %s", got, want)
	}

	// A copy, once; a new column, NULL in the rows there are.
	c := engine.Relation{Schema: schema, Name: "copy"}
	exec(d.CreateTableAs(c, "SELECT k, \"V\" FROM "+d.QuoteRelation(u)))
	exec(d.CreateTableAs(c, "SELECT k FROM "+d.QuoteRelation(u)))
	exec(d.AddColumn(c, engine.Column{Name: "Added", Type: "INTEGER"}))
	if got := rows(`SELECT count(*), count("V"), count("Added") FROM ` + d.QuoteRelation(c)); got != "4 4 0" {
		t.Errorf("CreateTableAs, AddColumn: %s, want 4 4 0", got)
	}
}
