package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreateTestAwkwardTypes: dates, timestamps (with and without zone),
// decimals, doubles, NULLs, non-ASCII and quoted text, newlines, structs,
// lists and blobs sampled from a warehouse come back through the YAML as
// they were, so efmesh test passes on the written file; a second run
// writes the same bytes.
func TestCreateTestAwkwardTypes(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml": "name: odd\nstart: 2026-01-01\n",
		"models/things.sql": `MODEL (name raw.things, kind FULL);
SELECT * FROM (VALUES
  (1, DATE '2026-03-01', TIMESTAMP '2026-03-01 10:15:30.123456', TIMESTAMPTZ '2026-03-01 10:00:00+02',
   CAST(12.30 AS DECIMAL(10, 2)), 0.1::DOUBLE, 'Zoë Ångström 東京', {'a': 1, 'b': 'x, y'}, [1, 2, NULL], '\xAA\x00'::BLOB, TRUE),
  (2, NULL, NULL, NULL, NULL, NULL, 'say "hi"' || chr(10) || 'it''s \ back', NULL, [], NULL, NULL),
  (3, DATE '1999-12-31', TIMESTAMP '2026-01-01 00:00:00', TIMESTAMPTZ '2026-01-01 00:00:00+00',
   CAST(-0.01 AS DECIMAL(10, 2)), -1.5e300::DOUBLE, '', {'a': NULL, 'b': 'é'}, [3], ''::BLOB, FALSE)
) AS t(id, d, ts, tz, price, ratio, label, info, nums, raw, flag)
`,
		"models/extra.sql": `MODEL (name raw.extra, kind FULL);
SELECT * FROM (VALUES (1, 'one'), (3, 'three'), (4, 'four')) AS t(id, note)
`,
		"models/joined.sql": `MODEL (name mart.joined, kind FULL, grain (id));
SELECT t.id, t.d, t.ts, t.tz, t.price * 2 AS price2, t.ratio, t.label, t.info, t.nums, t.raw, t.flag,
  e.note, t.info.b AS b, len(t.nums) AS n
FROM @ref(raw.things) AS t LEFT JOIN @ref(raw.extra) AS e USING (id)
`,
	})
	mustRun(t, dir, "apply", "prod", "--yes")
	out := mustRun(t, dir, "create-test", "mart.joined", "--limit", "3")
	if !strings.Contains(out, "raw.things: 3 row(s), raw.extra: 2 row(s); 3 expected row(s)") {
		t.Fatalf("create-test said:\n%s", out)
	}
	path := filepath.Join(dir, "tests", "mart.joined.yaml")
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Zoë Ångström 東京"`, `"say \"hi\"\nit's \\ back"`, `"12.30"`, `tz: null`, `"\\xAA\\x00"`, `{'a': 1, 'b': 'x, y'}`, `"n": 3`} {
		if !strings.Contains(string(first), want) {
			t.Errorf("the test file lacks %s:\n%s", want, first)
		}
	}
	if code, out, errs := run(t, dir, "test"); code != 0 || !strings.Contains(out, "PASS sampled_mart_joined") {
		t.Fatalf("efmesh test: exit %d\n%s%s\nfile:\n%s", code, out, errs, first)
	}
	mustRun(t, dir, "create-test", "mart.joined", "--limit", "3", "--force")
	second, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != string(second) {
		t.Fatalf("a second run wrote other bytes:\n%s\n---\n%s", first, second)
	}
}
