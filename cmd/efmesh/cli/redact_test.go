package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedactedEnvironment: in a redacted environment a model with a policy
// gets its own physical table, in which the redacted column does not exist
// (the engine's catalog says so, not a view); its parquet files lack it
// too; a model with no policy upstream keeps sharing physics.
func TestRedactedEnvironment(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":     "name: people\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\nlake: lake\nenvironments: {safe: {redacted: true}}\n",
		"data/people.csv": "id,name,ssn\n1,Ada,111-22-3333\n2,Bob,444-55-6666\n",
		"models/raw.sql": `MODEL (
  name raw.people,
  kind EXTERNAL (files 'data/people.csv', format csv, header true),
  columns (id INTEGER, name TEXT, ssn TEXT)
);
`,
		"models/people.sql": `MODEL (
  name core.people,
  kind FULL,
  grain (id),
  redact (ssn),
  columns (id INTEGER, name TEXT, ssn TEXT),
  audits (not_null(id), not_null(ssn))
);
SELECT id, name, ssn FROM @ref(raw.people)
`,
		"models/people_files.sql": `MODEL (
  name core.people_files,
  kind FULL,
  target parquet,
  redact (ssn)
);
SELECT id, name, ssn FROM @ref(raw.people)
`,
		"models/names.sql": `MODEL (
  name mart.names,
  kind FULL
);
SELECT name FROM @ref(core.people)
`,
		"models/other.sql": `MODEL (
  name mart.ids,
  kind FULL
);
SELECT id FROM @ref(raw.people)
`,
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	if out := mustRun(t, dir, "plan", "safe"); !strings.Contains(out, "(without ssn: redacted)") {
		t.Fatalf("plan safe does not say what is redacted:\n%s", out)
	}
	mustRun(t, dir, "apply", "safe", "--yes")

	tables := func(env string) map[string]string {
		var p struct {
			Models []struct {
				Name          string   `json:"name"`
				PhysicalTable string   `json:"physicalTable"`
				Redacted      []string `json:"redacted"`
			} `json:"models"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "plan", env, "--json")), &p); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, m := range p.Models {
			out[m.Name] = m.PhysicalTable
			if want := env == "safe" && strings.HasPrefix(m.Name, "core.people"); want != (fmt.Sprint(m.Redacted) == "[ssn]") {
				t.Fatalf("plan %s: %s redacted %v", env, m.Name, m.Redacted)
			}
		}
		return out
	}
	for _, env := range []string{"dev", "safe"} {
		if out := mustRun(t, dir, "plan", env); !strings.Contains(out, "No changes") {
			t.Fatalf("plan %s after apply:\n%s", env, out)
		}
		runTick(t, dir, env, ExitOK)
	}
	mustRun(t, dir, "audit", "safe")
	mustRun(t, dir, "diff", "dev", "safe", "--data")
	dev, safe := tables("dev"), tables("safe")
	for _, shared := range []string{"raw.people", "mart.ids"} {
		if dev[shared] != safe[shared] {
			t.Fatalf("%s does not share physics: dev %s, safe %s", shared, dev[shared], safe[shared])
		}
	}
	for _, own := range []string{"core.people", "core.people_files", "mart.names"} {
		if dev[own] == safe[own] {
			t.Fatalf("%s shares physics with the redacted environment: %s", own, dev[own])
		}
	}
	columns := func(physical string) string {
		schema, table, _ := strings.Cut(physical, ".")
		return query(t, dir, "SELECT list(column_name ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema = '"+
			strings.Trim(schema, `"`)+"' AND table_name = '"+strings.Trim(table, `"`)+"'")
	}
	if got := columns(dev["core.people"]); got != "[[[id name ssn]]]" {
		t.Fatalf("dev's physical table: %s", got)
	}
	if got := columns(safe["core.people"]); got != "[[[id name]]]" {
		t.Fatalf("safe's physical table holds: %s", got)
	}
	if got := query(t, dir, "SELECT table_type FROM information_schema.tables WHERE table_schema = '_efmesh' AND table_name = '"+
		strings.Trim(strings.SplitN(safe["core.people"], ".", 2)[1], `"`)+"'"); got != "[[BASE TABLE]]" {
		t.Fatalf("safe's core.people physics is not a table: %s", got)
	}
	// The environment serves no relation holding a redacted column: every
	// relation of its schemas, as the engine's catalog lists them (the
	// EXTERNAL raw.people, read in place, has no view to leak ssn).
	if got := query(t, dir, "SELECT count(DISTINCT table_schema || '.' || table_name) FROM information_schema.columns WHERE starts_with(table_schema, 'safe__')"); got == "[[0]]" {
		t.Fatal("safe serves no relation at all")
	}
	if got := query(t, dir, "SELECT table_schema, table_name FROM information_schema.columns WHERE starts_with(table_schema, 'safe__') AND lower(column_name) = 'ssn'"); got != "[]" {
		t.Fatalf("safe serves the redacted column ssn in %s", got)
	}
	if got := query(t, dir, "SELECT * FROM safe__mart.names ORDER BY ALL"); got != "[[Ada] [Bob]]" {
		t.Fatalf("safe__mart.names: %s", got)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "lake", "core", "people_files", "fp=*", "data.parquet"))
	if len(files) != 2 {
		t.Fatalf("people_files versions: %v", files)
	}
	withSSN := 0
	for _, f := range files {
		if strings.Contains(query(t, dir, "SELECT list(name) FROM parquet_schema('"+f+"')"), "ssn") {
			withSSN++
		}
	}
	if withSSN != 1 {
		t.Fatalf("%d of the 2 parquet versions hold ssn, want 1 (dev's)", withSSN)
	}
	manifests, _ := filepath.Glob(filepath.Join(dir, "lake", "core", "people_files", "fp=*", "manifest.json"))
	redacted := []string{}
	for _, f := range manifests {
		data, _ := os.ReadFile(f)
		var m struct {
			Redacted []string `json:"redacted"`
			Schema   []struct {
				Name string `json:"name"`
			} `json:"schema"`
		}
		if err := json.Unmarshal(data, &m); err != nil || m.Redacted == nil {
			t.Fatalf("%s: %v\n%s", f, err, data)
		}
		if len(m.Redacted) > 0 {
			redacted = append(redacted, fmt.Sprint(m.Redacted, len(m.Schema)))
		}
	}
	if fmt.Sprint(redacted) != "[[ssn] 2]" {
		t.Fatalf("manifests' redacted columns: %v", redacted)
	}
}

// TestRedactedColumnReadByChild: what plan accepts, apply builds. A child
// reading a redacted column (directly, in WHERE or a JOIN, or through a
// SELECT * child) is refused by plan and by apply of the redacted
// environment, positioned at the column and naming the policy; children
// that do not read it plan and apply, and other environments are untouched.
func TestRedactedColumnReadByChild(t *testing.T) {
	files := map[string]string{
		"efmesh.yaml":     "name: people\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\nenvironments: {safe: {redacted: true}}\n",
		"data/people.csv": "id,name,ssn\n1,Ada,111-22-3333\n2,Bob,444-55-6666\n",
		"models/m/people.sql": `MODEL (
  name m.people,
  kind SEED (path 'data/people.csv'),
  redact (ssn)
);
`,
		"models/m/uses.sql": `MODEL (name m.uses, kind FULL);
SELECT id, ssn FROM @ref(m.people)
`,
		"models/m/star.sql": `MODEL (name m.star, kind FULL);
SELECT * FROM @ref(m.people)
`,
		"models/m/grand.sql": `MODEL (name m.grand, kind FULL);
SELECT id,
       ssn AS secret
FROM @ref(m.star)
`,
		"models/m/filter.sql": `MODEL (name m.filter, kind FULL);
SELECT p.id FROM @ref(m.people) AS p
JOIN @ref(m.star) AS s ON s.id = p.id
WHERE p.ssn IS NOT NULL
`,
		"models/m/joined.sql": `MODEL (name m.joined, kind FULL);
SELECT a.id FROM @ref(m.people) AS a
JOIN @ref(m.star) AS b ON b.id = a.id AND b.ssn = a.name
`,
		"models/m/typed.sql": `MODEL (name m.typed, kind FULL, columns (id BIGINT, name TEXT, ssn TEXT));
SELECT * FROM @ref(m.star)
`,
		"models/m/names.sql": `MODEL (name m.names, kind FULL);
SELECT s.id, s.name FROM @ref(m.star) AS s JOIN @ref(m.people) AS p USING (id)
`,
	}
	dir := writeProject(t, files)
	mustRun(t, dir, "apply", "dev", "--yes")
	for _, cmd := range [][]string{{"plan", "safe"}, {"apply", "safe", "--yes"}} {
		code, out, errs := run(t, dir, cmd...)
		if code != 1 {
			t.Fatalf("efmesh %s: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", strings.Join(cmd, " "), code, out, errs)
		}
		for _, want := range []string{
			"models/m/uses.sql:2:12: error: column ssn is redacted in environment safe (m.people redact (ssn))",
			"models/m/grand.sql:3:8: error: column ssn is redacted in environment safe (m.people redact (ssn))",
			"models/m/filter.sql:4:9: error: column ssn is redacted in environment safe (m.people redact (ssn))",
			"models/m/joined.sql:3:45: error: column ssn is redacted in environment safe (m.people redact (ssn))",
			`models/m/typed.sql:1:64: error: column "ssn" is declared but the query does not produce it (it produces id, name) (in environment safe, where m.people redact (ssn))`,
		} {
			if !strings.Contains(errs, want) {
				t.Fatalf("efmesh %s does not say %q:\n%s", strings.Join(cmd, " "), want, errs)
			}
		}
		for _, fine := range []string{"star.sql", "names.sql", "people.sql", "Binder Error"} {
			if strings.Contains(errs, fine) {
				t.Fatalf("efmesh %s reports %s:\n%s", strings.Join(cmd, " "), fine, errs)
			}
		}
	}
	if got := query(t, dir, "SELECT count(*) FROM information_schema.schemata WHERE starts_with(schema_name, 'safe__')"); got != "[[0]]" {
		t.Fatalf("apply safe built something before refusing: %s", got)
	}
	// dev is not redacted: the same project plans there as before.
	if out := mustRun(t, dir, "plan", "dev"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan dev:\n%s", out)
	}
	// Without the readers, safe plans and applies; the SELECT * child and
	// the child reading other columns are built over the redacted data.
	for _, f := range []string{"models/m/uses.sql", "models/m/grand.sql", "models/m/filter.sql", "models/m/joined.sql", "models/m/typed.sql"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, dir, "plan", "safe")
	mustRun(t, dir, "apply", "safe", "--yes")
	if got := query(t, dir, "SELECT * FROM safe__m.star ORDER BY ALL"); got != "[[1 Ada] [2 Bob]]" {
		t.Fatalf("safe__m.star: %s", got)
	}
	if got := query(t, dir, "SELECT * FROM safe__m.names ORDER BY ALL"); got != "[[1 Ada] [2 Bob]]" {
		t.Fatalf("safe__m.names: %s", got)
	}
}
