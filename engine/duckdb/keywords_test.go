package duckdb

import (
	"context"
	"testing"

	"github.com/efmesh/efmesh/sqlscan"
)

// TestReservedWords checks sqlscan's list of words that are quoted when
// they name a column against duckdb_keywords(): every keyword that is not
// unreserved is on it, IsReservedKeyword is exactly its reserved and
// type_function keywords, and every keyword, written by sqlscan.WriteIdent, reads
// back as itself as an alias, a column and a struct field.
func TestReservedWords(t *testing.T) {
	db, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	rows, err := db.Query(ctx, "SELECT keyword_name, keyword_category FROM duckdb_keywords()")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Values) < 400 {
		t.Fatalf("only %d keywords", len(rows.Values))
	}
	for _, r := range rows.Values {
		word, cat := r[0].(string), r[1].(string)
		if cat != "unreserved" && !sqlscan.NeedsQuotes(word) {
			t.Errorf("%s keyword %q is not quoted by sqlscan", cat, word)
		}
		if reserved := cat == "reserved" || cat == "type_function"; reserved != sqlscan.IsReservedKeyword(word) {
			t.Errorf("%s keyword %q: sqlscan.IsReservedKeyword = %v", cat, word, !reserved)
		}
		id := sqlscan.WriteIdent(word)
		q := "SELECT u." + id + ", " + id + " FROM (SELECT 1 AS " + id + ") AS u"
		got, err := db.Query(ctx, q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if got.Columns[0].Name != word {
			t.Errorf("%s yields column %q", q, got.Columns[0].Name)
		}
	}
	for _, name := range []string{"Mixed Case", `dq"q`, "Région", "a1"} {
		id := sqlscan.WriteIdent(name)
		got, err := db.Query(ctx, "SELECT "+id+" FROM (SELECT 1 AS "+id+")")
		if err != nil || got.Columns[0].Name != name {
			t.Errorf("%s: %v %v", id, got, err)
		}
	}
}
