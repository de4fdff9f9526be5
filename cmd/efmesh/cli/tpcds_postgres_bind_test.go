package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
)

// TestTPCDSBindsWithoutServerAsPostgres holds the Postgres binder that
// checks without a server (the editor's) to the server itself over the 97
// TPC-DS queries, against empty tables of testdata/tpcds's columns: a
// query the server prepares, the binder takes (no error the server would
// not give), typing each column it types as the server does; a query the
// server refuses, the binder refuses with the same message at the same
// place.
func TestTPCDSBindsWithoutServerAsPostgres(t *testing.T) {
	dbURL := freshDatabase(t)
	ctx := context.Background()
	src := filepath.Join("..", "..", "..", "testdata", "tpcds")
	plain, err := duckdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	gen, err := os.ReadFile(filepath.Join(src, "generate.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Exec(ctx, string(gen)); err != nil {
		t.Fatal(err)
	}
	pg, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	rows, err := plain.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	rels := map[string][]engine.Column{}
	for _, r := range rows.Values {
		name := fmt.Sprint(r[0])
		cols, err := plain.Describe(ctx, "SELECT * FROM "+engine.QuoteIdent(name))
		if err != nil {
			t.Fatal(err)
		}
		decl := make([]string, len(cols))
		for i, c := range cols {
			decl[i] = engine.QuoteIdent(c.Name) + " " + c.Type
		}
		if err := pg.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (%s)", engine.QuoteIdent(name), strings.Join(decl, ", "))); err != nil {
			t.Fatal(err)
		}
		rels[name] = cols
	}
	queries, err := filepath.Glob(filepath.Join(src, "queries", "*.sql"))
	if err != nil || len(queries) != 97 {
		t.Fatalf("%d queries, want 97 (%v)", len(queries), err)
	}
	typed, refused := 0, 0
	for _, path := range queries {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		q := strings.TrimRight(strings.TrimSpace(string(b)), ";")
		want, serr := pg.Describe(ctx, q)
		got, berr := postgres.Parser{}.Bind(q, rels)
		var se, be *engine.SQLError
		errors.As(serr, &se)
		errors.As(berr, &be)
		switch {
		case serr == nil && berr != nil:
			t.Errorf("%s: the server prepares it, the binder refuses it: %v", name, berr)
		case serr != nil && se == nil:
			t.Errorf("%s: the server: %v", name, serr)
		case se != nil && be == nil:
			t.Errorf("%s: the server refuses it (%v), the binder takes it", name, serr)
		case se != nil:
			if firstLine(be.Message) != firstLine(se.Message) || be.Position != se.Position {
				t.Errorf("%s: the binder says %q at %d, the server %q at %d", name, firstLine(be.Message), be.Position, firstLine(se.Message), se.Position)
			}
			refused++
		default:
			if len(got) != len(want) {
				t.Errorf("%s: %d columns, the server %d", name, len(got), len(want))
				continue
			}
			for i := range got {
				if got[i].Name != want[i].Name || got[i].Type != "" && got[i].Type != want[i].Type {
					t.Errorf("%s: column %d: %v, the server %v", name, i+1, got[i], want[i])
				}
				if got[i].Type != "" {
					typed++
				}
			}
		}
	}
	t.Logf("%d columns typed as the server types them; %d queries refused as the server refuses them", typed, refused)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
