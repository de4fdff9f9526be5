package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
	"github.com/efmesh/efmesh/project"
)

// TestPostgresStoreIsNotCreated: the editor reads a Postgres state store
// when there is one and never creates it in the team's database, however
// many checks and plan hints run.
func TestPostgresStoreIsNotCreated(t *testing.T) {
	ctx := context.Background()
	db := realdb.PostgresDatabase(t)

	root := t.TempDir()
	for rel, src := range map[string]string{
		"efmesh.yaml":     fmt.Sprintf("name: pg\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", db, db),
		"models/raw.sql":  "MODEL (name raw.t, kind EXTERNAL (table src.t), columns (id INT, v TEXT));\n",
		"models/mart.sql": "MODEL (name mart.m, kind FULL);\nSELECT id, v FROM @ref(raw.t)\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newTestClient(t, root, clientOptions{})
	defer c.shutdown()
	c.open("models/mart.sql")
	c.waitIdle()
	c.replace("models/mart.sql", "SELECT id, v", "SELECT v, id")
	c.waitIdle()

	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'efmesh%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the editor created %d efmesh schema(s) (%v)", n, err)
	}
}

// TestStoreBackoff: a store that failed is not tried again by background
// plans for a while, but a cancelled read is no failure, and a plan the user
// asks for always tries.
func TestStoreBackoff(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "efmesh.yaml"), []byte("name: t\nstate: {type: postgres, url: \"postgres://nobody@127.0.0.1:1/none?connect_timeout=1\"}\n"), 0o644)
	p, err := project.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var r storeReader
	defer r.close()
	ctx := context.Background()

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := r.reader(cancelled, p); err == nil {
		t.Fatal("a cancelled read succeeded")
	}
	if r.failure != nil {
		t.Fatalf("a cancelled read was recorded as the store's failure: %v", r.failure)
	}
	if _, _, err := r.reader(ctx, p); err == nil || r.failure == nil {
		t.Fatalf("an unreachable store: %v, recorded %v", err, r.failure)
	}
	first := r.failed
	if _, _, err := r.reader(ctx, p); err == nil || !r.failed.Equal(first) {
		t.Fatalf("a background read tried the failed store again")
	}
	if _, _, err := r.reader(explicitly(ctx), p); err == nil || r.failed.Equal(first) {
		t.Fatalf("an explicit read did not try the store again")
	}
}

// TestPostgresEditorBindsWithServer: with initializationOptions.bindInServer
// the editor checks a Postgres project's bodies with its server, as plan
// does: what the server refuses is a diagnostic at its place.
func TestPostgresEditorBindsWithServer(t *testing.T) {
	server := testkit.PostgresURL(t)
	root := t.TempDir()
	files := map[string]string{
		"efmesh.yaml":             fmt.Sprintf("name: pg\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", server, server),
		"models/raw/customer.sql": "MODEL (name raw.customer, kind EXTERNAL (table src.customer), columns (c_id INT, c_name TEXT, c_nation TEXT));\n",
		"models/q/ok.sql":         "MODEL (name q.ok, kind FULL);\nSELECT DISTINCT ON (c_nation) c_nation, count(*) FILTER (WHERE c_id > 1) OVER () AS n FROM @ref(raw.customer) ORDER BY c_nation\n",
	}
	want := map[string]string{
		"grp":    "SELECT c_name, count(*) AS n FROM @ref(raw.customer) GROUP BY c_nation|1:7|neither grouped nor aggregated",
		"grpkey": "SELECT c_nation, c_name FROM @ref(raw.customer) GROUP BY c_id|1:7|neither grouped nor aggregated|2", // both columns
		"plus":   "SELECT c_name + 1 AS x FROM @ref(raw.customer)|1:14|operator does not exist: text + integer",
		"eq":     "SELECT c_id FROM @ref(raw.customer) WHERE c_name = 5|1:49|operator does not exist: text = integer",
		"sum":    "SELECT sum(c_name) AS s FROM @ref(raw.customer)|1:7|function sum(text) does not exist",
		"nofunc": "SELECT foo_bar(c_id) AS f FROM @ref(raw.customer)|1:7|function foo_bar(integer) does not exist",
		"window": "SELECT c_id FROM @ref(raw.customer) WHERE row_number() OVER () = 1|1:42|window functions are not allowed in WHERE",
		"aggwhr": "SELECT c_id FROM @ref(raw.customer) WHERE count(*) > 1|1:42|aggregate functions are not allowed in WHERE",
	}
	for name, w := range want {
		body, _, _ := strings.Cut(w, "|")
		files["models/q/"+name+".sql"] = "MODEL (name q." + name + ", kind FULL);\n" + body + "\n"
	}
	for rel, src := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newTestClient(t, root, clientOptions{initOptions: map[string]any{"bindInServer": true}})
	defer c.shutdown()
	c.open("models/q/ok.sql")
	for name := range want {
		c.open("models/q/" + name + ".sql")
	}
	c.waitIdle()
	if d := c.diagnostics("models/q/ok.sql"); len(d) != 0 {
		t.Errorf("ok.sql: %v", d)
	}
	for name, w := range want {
		parts := strings.Split(w, "|")
		ds := c.diagnostics("models/q/" + name + ".sql")
		got := ""
		for _, d := range ds {
			got += fmt.Sprintf("%d:%d %s\n", d.Range.Start.Line, d.Range.Start.Character, d.Message)
		}
		n := 1
		if len(parts) > 3 {
			n, _ = strconv.Atoi(parts[3])
		}
		if len(ds) != n || !strings.Contains(got, parts[1]+" ") || !strings.Contains(got, parts[2]) {
			t.Errorf("%s: got\n%swant %s %s", name, got, parts[1], parts[2])
		}
	}
}
