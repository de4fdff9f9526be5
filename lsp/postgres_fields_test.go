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

// TestPostgresCompositeFieldHover: hover on a composite column's field
// read as (p.np).first names the field and its column; the field's type is
// the server's (a composite type's fields are in its catalog only), given
// when the editor binds in the server (bindInServer) and left out when it
// checks without one.
func TestPostgresCompositeFieldHover(t *testing.T) {
	ctx := context.Background()
	db := realdb.PostgresDatabase(t)
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range []string{
		`CREATE TYPE inner_t AS (n numeric(10,2), d date)`,
		`CREATE TYPE name_t AS (first text, last varchar(20), inner_v inner_t)`,
		`CREATE SCHEMA src`,
		`CREATE TABLE src.people (id int, np name_t)`,
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	for rel, src := range map[string]string{
		"efmesh.yaml":    fmt.Sprintf("name: pg\nengine: {type: postgres, url: %q}\n", db),
		"models/raw.sql": "MODEL (name raw.people, kind EXTERNAL (table src.people), columns (id INT, np name_t));\n",
		"models/x.sql": "MODEL (name mart.x, kind VIEW);\n" +
			"SELECT (p.np).first AS first_name, (np).last AS last_name, (p.np).inner_v.d AS d\n" +
			"FROM @ref(raw.people) AS p\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, inServer := range []bool{false, true} {
		t.Run(fmt.Sprintf("bindInServer=%v", inServer), func(t *testing.T) {
			c := newTestClient(t, root, clientOptions{initOptions: map[string]any{"bindInServer": inServer}})
			defer c.shutdown()
			c.open("models/x.sql")
			c.waitIdle()
			if d := c.diagnostics("models/x.sql"); len(d) > 0 {
				t.Fatalf("diagnostics: %+v", d)
			}
			typed := func(name, typ string) string {
				if !inServer {
					return "**" + name + "** · field of the composite column raw.people.np"
				}
				return "**" + name + "** `" + typ + "` · field of the composite column raw.people.np"
			}
			for marker, want := range map[string]string{
				"(p.np).fi|rst":     typed("np.first", "text"),
				"(np).la|st":        typed("np.last", "character varying(20)"),
				"(p.np).inner_|v.d": typed("np.inner_v", "inner_t"),
				"inner_v.|d AS":     typed("np.inner_v.d", "date"),
			} {
				var h *protocol.Hover
				c.mustCall("textDocument/hover", c.docPos("models/x.sql", marker), &h)
				if h == nil || h.Contents.Value != want {
					t.Errorf("hover %s: want %q, got %+v", marker, want, h)
				}
			}
		})
	}
}
