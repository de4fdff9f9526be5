package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/internal/testkit/realdb"
)

// TestPostgresFieldsAgainstServer: on a real PostgreSQL, a model that
// reads a composite column's fields ((p.np).first, (np).last) and table
// functions (unnest, jsonb_array_elements unaliased, generate_series) is
// bound by the server without error, and hover follows each output
// column to the field or the list it comes from.
func TestPostgresFieldsAgainstServer(t *testing.T) {
	ctx := context.Background()
	db := realdb.PostgresDatabase(t)
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range []string{
		`CREATE TYPE name_t AS (first text, last text)`,
		`CREATE SCHEMA src`,
		`CREATE TABLE src.people (id int, np name_t, names text[], tags jsonb)`,
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}

	root := t.TempDir()
	for rel, src := range map[string]string{
		"efmesh.yaml":    fmt.Sprintf("name: pg\nengine: {type: postgres, url: %q}\n", db),
		"models/raw.sql": "MODEL (name raw.people, kind EXTERNAL (table src.people), columns (id INT, np name_t, names TEXT[], tags JSONB));\n",
		"models/x.sql": "MODEL (name mart.x, kind VIEW);\n" +
			"SELECT (p.np).first AS first_name, (np).last AS last_name, u.n AS one_name, value AS tag, g AS k\n" +
			"FROM @ref(raw.people) AS p, unnest(p.names) AS u(n), jsonb_array_elements(p.tags), generate_series(1, p.id) AS g\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newTestClient(t, root, clientOptions{})
	defer c.shutdown()
	c.open("models/x.sql")
	c.waitIdle()
	if d := c.diagnostics("models/x.sql"); len(d) > 0 {
		t.Fatalf("diagnostics on a query the server binds: %+v", d)
	}
	for marker, want := range map[string]string{
		"AS first_na|me": "from: raw.people.np.first",
		"AS last_na|me":  "from: raw.people.np.last",
		"AS one_na|me":   "from: raw.people.names",
		"AS t|ag":        "from: raw.people.tags",
		"AS |k":          "from: raw.people.id",
	} {
		var h *protocol.Hover
		c.mustCall("textDocument/hover", c.docPos("models/x.sql", marker), &h)
		if h == nil || !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover %s: want %q in %+v", marker, want, h)
		}
	}
}
