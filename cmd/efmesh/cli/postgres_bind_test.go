package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/postgres"
)

// pgBindProject is a Postgres project over src.customer: good models that
// use Postgres's own SQL, and (when bad) one model per query the server's
// binder refuses.
func pgBindProject(t *testing.T, dbURL string, bad bool) string {
	t.Helper()
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(context.Background(), `CREATE SCHEMA IF NOT EXISTS src;
CREATE TABLE IF NOT EXISTS src.customer (c_id int, c_name text, c_nation text);
TRUNCATE src.customer;
INSERT INTO src.customer VALUES (1, 'Ann', 'DE'), (2, 'Bob', 'DE'), (3, 'Cid', 'FR')`); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"efmesh.yaml":             fmt.Sprintf("name: pgbind\nengine: {type: postgres, url: %q}\nstate: {type: postgres, url: %q}\n", dbURL, dbURL),
		"models/raw/customer.sql": "MODEL (name raw.customer, kind EXTERNAL (table src.customer), columns (c_id INT, c_name TEXT, c_nation TEXT));\n",
		"models/ok/ord.sql":       "MODEL (name ok.ord, kind FULL);\nSELECT c.c_id, t.x, t.n FROM @ref(raw.customer) AS c, unnest(ARRAY[1, 2]) WITH ORDINALITY AS t(x, n)\n",
		"models/ok/first.sql":     "MODEL (name ok.first, kind FULL);\nSELECT DISTINCT ON (c_nation) c_nation, c_name FROM @ref(raw.customer) ORDER BY c_nation, c_id\n",
		"models/ok/filt.sql":      "MODEL (name ok.filt, kind FULL);\nSELECT c_nation, count(*) FILTER (WHERE c_id > 1) AS n FROM @ref(raw.customer) GROUP BY c_nation\n",
		"models/ok/sets.sql":      "MODEL (name ok.sets, kind FULL);\nSELECT c_nation, c_name, count(*) AS n FROM @ref(raw.customer) GROUP BY GROUPING SETS ((c_nation), (c_name))\n",
		"models/ok/whole.sql":     "MODEL (name ok.whole, kind FULL);\nSELECT c_id, customer::text AS whole FROM @ref(raw.customer)\n",
		"models/ok/kaeufer.sql":   "MODEL (name ok.kaeufer, kind FULL, columns (\"Käufer\" TEXT, \"Straße\" INT));\nSELECT c_name AS \"Käufer\", c_id AS \"Straße\" FROM @ref(raw.customer)\n",
		"models/ok/kaeufer2.sql":  "MODEL (name ok.kaeufer2, kind VIEW);\nSELECT \"Käufer\", \"Straße\" + 1 AS next FROM @ref(ok.kaeufer)\n",
	}
	// A name past PostgreSQL's 63 bytes: the server cuts it where it is
	// created and where it is read alike.
	files["models/ok/long.sql"] = "MODEL (name ok.long, kind FULL, columns (c_id INT, \"" + pgLongName + "\" TEXT));\nSELECT c_id, c_name AS \"" + pgLongName + "\" FROM @ref(raw.customer)\n"
	files["models/ok/long_child.sql"] = "MODEL (name ok.long_child, kind FULL);\nSELECT c_id, \"" + pgLongName + "\" AS buyer FROM @ref(ok.long)\n"
	if bad {
		for name, body := range pgBadBodies {
			files["models/bad/"+name+".sql"] = "MODEL (name bad." + name + ", kind FULL);\n" + body + "\n"
		}
	}
	return writeProject(t, files)
}

var pgLongName = "Käufer_" + strings.Repeat("a", 70)

// pgBadBodies are the queries the server refuses (each model's line 2).
var pgBadBodies = map[string]string{
	"grp":     "SELECT c_name, count(*) AS n FROM @ref(raw.customer) GROUP BY c_nation",
	"grpkey":  "SELECT c_nation, c_name FROM @ref(raw.customer) GROUP BY c_id",
	"plus":    "SELECT c_name + 1 AS x FROM @ref(raw.customer)",
	"eq":      "SELECT c_id FROM @ref(raw.customer) WHERE c_name = 5",
	"sum":     "SELECT sum(c_name) AS s FROM @ref(raw.customer)",
	"nofunc":  "SELECT foo_bar(c_id) AS f FROM @ref(raw.customer)",
	"window":  "SELECT c_id FROM @ref(raw.customer) WHERE row_number() OVER () = 1",
	"aggwher": "SELECT c_id FROM @ref(raw.customer) WHERE count(*) > 1",
}

// TestPostgresPlanBindsWithTheServer: plan reports, at its place in the
// file, every query the Postgres server would refuse at apply; valid
// Postgres SQL plans and applies.
func TestPostgresPlanBindsWithTheServer(t *testing.T) {
	dbURL := freshDatabase(t)
	dir := pgBindProject(t, dbURL, true)
	// A server-less check first (render binds without the server) fills
	// the check cache; plan must not take its word.
	if code, out, errs := run(t, dir, "render", "ok.ord"); code != 0 {
		t.Fatalf("render: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".efmesh")); err != nil {
		t.Fatalf("no check cache: %v", err)
	}
	code, out, errs := run(t, dir, "plan", "dev")
	if code != 1 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, errs)
	}
	want := map[string]string{
		"grp":     "2:8: error: column \"c_name\" is neither grouped nor aggregated",
		"grpkey":  "2:8: error: column \"c_nation\" is neither grouped nor aggregated",
		"plus":    "2:15: error: operator does not exist: text + integer",
		"eq":      "2:50: error: operator does not exist: text = integer",
		"sum":     "2:8: error: function sum(text) does not exist",
		"nofunc":  "2:8: error: function foo_bar(integer) does not exist",
		"window":  "2:43: error: window functions are not allowed in WHERE",
		"aggwher": "2:43: error: aggregate functions are not allowed in WHERE",
	}
	for name, w := range want {
		line := filepath.FromSlash("models/bad/"+name+".sql") + ":" + w
		if !strings.Contains(errs, line) {
			t.Errorf("plan does not report %q:\n%s", line, errs)
		}
	}
	if strings.Contains(errs, "models/ok/") || strings.Contains(errs, "Binder Error") {
		t.Errorf("plan:\n%s", errs)
	}

	if err := os.RemoveAll(filepath.Join(dir, "models", "bad")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := pgQuery(t, dbURL, `SELECT "Käufer", next FROM dev__ok.kaeufer2 ORDER BY 2`); got != "[[Ann 2] [Bob 3] [Cid 4]]" {
		t.Fatalf("kaeufer2: %s", got)
	}
	if got := pgQuery(t, dbURL, `SELECT buyer FROM dev__ok.long_child ORDER BY 1`); got != "[[Ann] [Bob] [Cid]]" {
		t.Fatalf("long_child: %s", got)
	}
}
