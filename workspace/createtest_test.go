package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreateTestSamplingRule: the first parent holding the model's key
// (its grain here, not its first column) is sampled by it, though another
// parent is referenced first; the parent sharing the key gives the rows of
// the sampled keys, the parent without it its first rows by its first
// column; the expectation is what the model returns.
func TestCreateTestSamplingRule(t *testing.T) {
	ctx := context.Background()
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": "name: rule\nstart: 2026-01-01\n",
		"models/a.sql": "MODEL (name raw.a, kind FULL);\n" +
			"SELECT * FROM (VALUES (9, 'c'), (8, 'a'), (7, 'e'), (6, 'b'), (5, 'd')) AS t(id, code)\n",
		"models/b.sql": "MODEL (name raw.b, kind FULL);\n" +
			"SELECT * FROM (VALUES ('a', 1), ('b', 2), ('c', 3), ('e', 5)) AS t(code, v)\n",
		"models/c.sql": "MODEL (name raw.c, kind FULL);\n" +
			"SELECT * FROM (VALUES (30, 'z'), (10, 'x'), (20, 'y')) AS t(n, tag)\n",
		"models/none.sql": "MODEL (name raw.none, kind FULL);\nSELECT 1 AS id WHERE false\n",
		"models/e.sql":    "MODEL (name mart.e, kind FULL);\nSELECT n.id FROM @ref(raw.none) AS n\n",
		"models/m.sql": "MODEL (name mart.m, kind FULL, grain (code));\n" +
			"SELECT a.id, a.code, b.v, (SELECT min(n) FROM @ref(raw.c)) AS low\n" +
			"FROM @ref(raw.a) AS a JOIN @ref(raw.b) AS b USING (code)\n",
	})
	w, err := Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Apply(ctx, "prod", ApplyRequest{}); err != nil {
		t.Fatal(err)
	}
	res, err := w.CreateTest(ctx, "mart.m", CreateTestOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := `# Sampled by efmesh create-test: rows of the parents of mart.m and what it returns for them.
sampled_mart_m:
  model: mart.m
  inputs:
    raw.a:
      - {id: 8, code: "a"}
      - {id: 6, code: "b"}
    raw.c:
      - {"n": 10, tag: "x"}
      - {"n": 20, tag: "y"}
    raw.b:
      - {code: "a", v: 1}
      - {code: "b", v: 2}
  expect:
    - {id: 6, code: "b", v: 2, low: 10}
    - {id: 8, code: "a", v: 1, low: 10}
`
	if res.YAML != want {
		t.Fatalf("got\n%s\nwant\n%s", res.YAML, want)
	}
	if strings.Join(res.Key, ",") != "code" || res.Expected != 2 || !res.Written {
		t.Fatalf("result %+v", res)
	}
	b, err := os.ReadFile(filepath.Join(dir, "tests", "mart.m.yaml"))
	if err != nil || string(b) != want {
		t.Fatalf("file: %v\n%s", err, b)
	}
	// A parent without rows gives an empty fixture and expectation.
	empty, err := w.CreateTest(ctx, "mart.e", CreateTestOptions{Dry: true})
	if err != nil || !strings.HasSuffix(empty.YAML, "    raw.none: []\n  expect: []\n") {
		t.Fatalf("empty parent: %v\n%v", err, empty)
	}
	if _, err := w.CreateTest(ctx, "mart.m", CreateTestOptions{}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("overwrite without force: %v", err)
	}
}
