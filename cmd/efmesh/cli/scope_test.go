package cli

import (
	"strings"
	"testing"
)

// scopedProject has a healthy chain (raw.events -> core.good, tested by
// good_test) beside problems in other files: a model whose body names an
// unknown column, its child, a model whose header is broken, and a unit
// test file that is not YAML.
func scopedProject(t *testing.T) string {
	return writeProject(t, map[string]string{
		"efmesh.yaml":     "name: scoped\nmodels: [\"models/**/*.sql\"]\ntests: [\"tests/*.yaml\"]\n",
		"data/events.csv": "id,n\na,1\nb,2\n",
		"models/raw.sql": `MODEL (name raw.events, kind EXTERNAL (files 'data/events.csv', format csv, header true),
  columns (id TEXT, n INTEGER));
`,
		"models/good.sql": `MODEL (name core.good, kind FULL);
SELECT id, n * 2 AS n2 FROM @ref(raw.events)
`,
		"models/broken.sql": `MODEL (name core.broken, kind FULL);
SELECT id, nope FROM @ref(raw.events)
`,
		"models/child.sql": `MODEL (name core.child, kind VIEW);
SELECT id FROM @ref(core.broken)
`,
		"models/header.sql": `MODEL (name core.header, kind NOPE);
SELECT 1 AS x
`,
		"tests/good.yaml": `good_test:
  model: core.good
  inputs:
    raw.events: [{id: a, n: 1}]
  expect: [{id: a, n2: 2}]
`,
		"tests/bad.yaml": "bad_test: [\n",
	})
}

// TestScopedCommands: render, lineage, graph and test of healthy models
// work (exit 0, a warning on stderr) while other files have errors; a
// request that reads a broken file prints that file's diagnostics only and
// exits 1; plan still refuses the broken project.
func TestScopedCommands(t *testing.T) {
	dir := scopedProject(t)
	ok := func(args ...string) string {
		t.Helper()
		code, out, errs := run(t, dir, args...)
		if code != ExitOK {
			t.Fatalf("efmesh %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
		if !strings.Contains(errs, "warning: ") || !strings.Contains(errs, "models/header.sql") {
			t.Fatalf("efmesh %s: no warning about the other files:\n%s", strings.Join(args, " "), errs)
		}
		return out
	}
	fails := func(wantIn []string, wantOut []string, args ...string) {
		t.Helper()
		code, out, errs := run(t, dir, args...)
		if code != ExitError {
			t.Fatalf("efmesh %s: exit %d, want 1\n%s%s", strings.Join(args, " "), code, out, errs)
		}
		for _, w := range wantIn {
			if !strings.Contains(errs, w) {
				t.Fatalf("efmesh %s: stderr lacks %q:\n%s", strings.Join(args, " "), w, errs)
			}
		}
		for _, w := range wantOut {
			if strings.Contains(errs, w) {
				t.Fatalf("efmesh %s: stderr names %q, which it does not read:\n%s", strings.Join(args, " "), w, errs)
			}
		}
	}

	if out := ok("render", "core.good"); !strings.Contains(out, `AS "events"`) || !strings.Contains(out, "n * 2") {
		t.Fatalf("render: %s", out)
	}
	if out := ok("lineage", "core.good.n2"); !strings.Contains(out, "raw.events.n (EXTERNAL)") {
		t.Fatalf("lineage: %s", out)
	}
	if out := ok("graph", "core.good"); out != "raw.events (EXTERNAL)\ncore.good (FULL) <- raw.events\n" {
		t.Fatalf("graph core.good: %q", out)
	}
	if out := ok("test", "good_test"); !strings.Contains(out, "PASS good_test") || !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("test good_test: %s", out)
	}

	// What a request reads is checked: its own file, its ancestors'.
	fails([]string{"models/broken.sql:2:12: error:"}, []string{"models/header.sql", "tests/bad.yaml"}, "render", "core.broken")
	fails([]string{"models/broken.sql:2:12: error:"}, []string{"models/header.sql", "tests/bad.yaml"}, "lineage", "core.child")
	fails([]string{"models/header.sql:1:"}, []string{"tests/bad.yaml", "models/broken.sql"}, "graph")
	fails([]string{"tests/bad.yaml:"}, []string{"models/header.sql", "models/broken.sql"}, "test")
	fails([]string{"models/header.sql:1:", "tests/bad.yaml:"}, nil, "plan", "dev")
	fails([]string{"models/header.sql:1:", "tests/bad.yaml:"}, nil, "apply", "dev", "--yes")
	// With the loader's problems fixed, the checker's one still stops plan.
	editFile(t, dir, "models/header.sql", func(s string) string { return strings.Replace(s, "NOPE", "FULL", 1) })
	editFile(t, dir, "tests/bad.yaml", func(string) string { return "" })
	fails([]string{"models/broken.sql:2:12"}, nil, "plan", "dev")
}
