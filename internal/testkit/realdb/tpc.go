package realdb

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
)

// TPCSchemaProject is the files of an efmesh project over the published
// queries of testdata/<suite> (tpch, tpcds): each table generate.sql makes
// is an EXTERNAL model <suite>.<table> (table <suite>_src.<table>) that
// declares the columns DuckDB gives it, and each query of queries/ is a
// FULL model <suite>_q.<file> whose tables are @ref(<suite>.<table>)
// (RefTables). No data is written: the project is for what needs the
// queries and their parents' columns only (the check, lint, the editor).
// root is the module's root, relative to the test's directory.
func TPCSchemaProject(t testing.TB, root, suite string) map[string]string {
	t.Helper()
	src := filepath.Join(root, "testdata", suite)
	ctx := context.Background()
	db := DuckDB(t, "")
	gen, err := os.ReadFile(filepath.Join(src, "generate.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, string(gen)); err != nil {
		t.Fatalf("%s generate.sql: %v", suite, err)
	}
	rows, err := db.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"efmesh.yaml": "name: " + suite + "\nstart: 2024-01-01\n"}
	tables := map[string]bool{}
	for _, r := range rows.Values {
		name := fmt.Sprint(r[0])
		tables[name] = true
		cols, err := db.Describe(ctx, "SELECT * FROM "+engine.QuoteIdent(name))
		if err != nil {
			t.Fatal(err)
		}
		decl := make([]string, len(cols))
		for i, c := range cols {
			decl[i] = c.Name + " " + c.Type
		}
		files["models/"+suite+"/"+name+".sql"] = fmt.Sprintf("MODEL (\n  name %s.%s,\n  kind EXTERNAL (table %s_src.%s),\n  columns (%s)\n);\n",
			suite, name, suite, name, strings.Join(decl, ", "))
	}
	queries, err := filepath.Glob(filepath.Join(src, "queries", "*.sql"))
	if err != nil || len(queries) == 0 {
		t.Fatalf("%s: no queries (%v)", suite, err)
	}
	for _, path := range queries {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".sql")
		files["models/"+suite+"_q/"+name+".sql"] = fmt.Sprintf("MODEL (name %s_q.%s, kind FULL);\n\n%s", suite, name, RefTables(t, db, string(b), tables, suite))
	}
	return files
}

// RefTables returns q with each table DuckDB's parser reads whose name is
// in tables (unqualified, and not a CTE of the same name) replaced by
// @ref(schema.name). What remains of the query — aliases, CTE names,
// columns, strings — is left byte for byte.
func RefTables(t testing.TB, db *duckdb.DB, q string, tables map[string]bool, schema string) string {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT CAST(json_serialize_sql("+engine.QuoteString(q)+") AS VARCHAR)")
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal([]byte(fmt.Sprint(rows.Values[0][0])), &tree); err != nil {
		t.Fatal(err)
	}
	if m, ok := tree.(map[string]any); !ok || m["error"] == true {
		t.Fatalf("DuckDB does not parse the query: %v\n%s", tree, q)
	}
	ctes := map[string]bool{}
	var at []int
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if cm, ok := x["cte_map"].(map[string]any); ok {
				entries, _ := cm["map"].([]any)
				for _, e := range entries {
					if em, ok := e.(map[string]any); ok {
						if k, ok := em["key"].(string); ok {
							ctes[strings.ToLower(k)] = true
						}
					}
				}
			}
			if x["type"] == "BASE_TABLE" && x["schema_name"] == "" && x["catalog_name"] == "" {
				name, _ := x["table_name"].(string)
				loc, _ := x["query_location"].(float64)
				if tables[strings.ToLower(name)] {
					if !strings.EqualFold(q[int(loc):min(len(q), int(loc)+len(name))], name) {
						t.Fatalf("the parser reads table %s at byte %d, where the query has %q", name, int(loc), q[int(loc):])
					}
					at = append(at, int(loc))
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(tree)
	sort.Sort(sort.Reverse(sort.IntSlice(at)))
	out := q
	for _, loc := range at {
		end := loc
		for end < len(out) && (out[end] == '_' || out[end] >= 'a' && out[end] <= 'z' || out[end] >= 'A' && out[end] <= 'Z' || out[end] >= '0' && out[end] <= '9') {
			end++
		}
		name := strings.ToLower(out[loc:end])
		if ctes[name] {
			continue
		}
		out = out[:loc] + "@ref(" + schema + "." + name + ")" + out[end:]
	}
	if len(at) == 0 {
		t.Fatalf("the query reads none of the tables:\n%s", q)
	}
	return out
}
