package analysis

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/project"
)

var update = flag.Bool("update", false, "rewrite golden files")

const (
	srcSeed   = "seeds/s.csv"
	seedData  = "id,name\n1,a\n2,b\n"
	seedModel = `MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, name TEXT));`
	base      = `MODEL (
  name m.base,
  kind FULL,
  grain (id),
  columns (id INTEGER, name TEXT, n BIGINT),
  description 'base',
  owner 'me',
  tags (a, b)
);

SELECT id, name, count(*) OVER (PARTITION BY name) AS n
FROM @ref(raw.s)
QUALIFY row_number() OVER (PARTITION BY id ORDER BY name) = 1
`
	child = `MODEL (name m.child, kind VIEW);
SELECT * EXCLUDE (n), upper(name) AS shout FROM @ref(m.base) GROUP BY ALL`
)

func fingerprints(t *testing.T, files map[string]string) map[string]string {
	t.Helper()
	a := analyzeFiles(t, files)
	mustClean(t, a)
	out := map[string]string{}
	for n, info := range a.Models {
		out[n] = info.Fingerprint
	}
	return out
}

func baseFiles() map[string]string {
	return map[string]string{
		srcSeed:        seedData,
		"models/s.sql": seedModel,
		"models/b.sql": base,
		"models/c.sql": child,
	}
}

// TestFingerprintGolden freezes fingerprints: a failure after a dependency
// upgrade means the canonical form drifted, which would rebuild every
// user's warehouse. That is a decision (bump FingerprintVersion), not an
// -update.
func TestFingerprintGolden(t *testing.T) {
	fps := fingerprints(t, baseFiles())
	var names []string
	for n := range fps {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s %s\n", n, fps[n])
	}
	golden := filepath.Join("testdata", "fingerprints.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update once and review the file)", err)
	}
	if b.String() != string(want) {
		t.Fatalf("fingerprints drifted:\n got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestFingerprintStability(t *testing.T) {
	orig := fingerprints(t, baseFiles())
	edit := func(file, old, new string) map[string]string {
		f := baseFiles()
		if !strings.Contains(f[file], old) {
			t.Fatalf("%s lacks %q", file, old)
		}
		f[file] = strings.Replace(f[file], old, new, 1)
		return fingerprints(t, f)
	}
	same := []struct{ name, file, old, new string }{
		{"body whitespace", "models/b.sql", "SELECT id, name,", "SELECT\n    id,\n    name,\n   "},
		{"keyword case", "models/b.sql", "QUALIFY row_number() OVER (PARTITION BY id ORDER BY name)", "qualify row_number() over (partition by id order by name)"},
		{"comments", "models/b.sql", "FROM @ref(raw.s)", "-- the source\nFROM /* here */ @ref(raw.s)"},
		{"header layout", "models/b.sql", "kind FULL,\n  grain (id),", "KIND   full ,   GRAIN(id) ,"},
		{"column type spacing", "models/b.sql", "n BIGINT", "n   bigint"},
		{"description", "models/b.sql", "description 'base'", "description 'another text'"},
		{"owner", "models/b.sql", "owner 'me'", "owner 'you'"},
		{"tags", "models/b.sql", "tags (a, b)", "tags (c)"},
		{"trailing semicolon", "models/b.sql", "= 1\n", "= 1;\n"},
	}
	for _, tc := range same {
		t.Run("same/"+tc.name, func(t *testing.T) {
			got := edit(tc.file, tc.old, tc.new)
			for n, fp := range orig {
				if got[n] != fp {
					t.Errorf("%s moved", n)
				}
			}
		})
	}
	moved := []struct{ name, file, old, new string }{
		{"expression", "models/b.sql", "PARTITION BY name)", "PARTITION BY id)"},
		{"literal", "models/b.sql", "= 1\n", "= 2\n"},
		{"column type", "models/b.sql", "n BIGINT", "n HUGEINT"},
		{"kind", "models/b.sql", "kind FULL", "kind VIEW"},
		{"grain", "models/b.sql", "grain (id)", "grain (id, name)"},
		{"seed content", srcSeed, "2,b", "2,c"},
	}
	for _, tc := range moved {
		t.Run("moved/"+tc.name, func(t *testing.T) {
			got := edit(tc.file, tc.old, tc.new)
			changedOne := tc.file
			if changedOne == srcSeed {
				if got["raw.s"] == orig["raw.s"] {
					t.Errorf("raw.s did not move")
				}
			} else if got["m.base"] == orig["m.base"] {
				t.Errorf("m.base did not move")
			}
			// A parent change moves every descendant.
			if got["m.child"] == orig["m.child"] {
				t.Errorf("m.child did not move with its parent")
			}
		})
	}
}

func TestQualifiedUnknownColumn(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"seeds/s.csv":  "id,name\n1,a\n",
		"models/s.sql": `MODEL (name raw.s, kind SEED (path 'seeds/s.csv'), columns (id INTEGER, name TEXT));`,
		"models/a.sql": "MODEL (name m.a);\nSELECT d.id, d.nme FROM @ref(raw.s) AS d",
	})
	if len(a.Diagnostics) != 1 {
		t.Fatalf("diagnostics = %v", a.Diagnostics)
	}
	d := a.Diagnostics[0]
	if d.Code != project.CodeUnknownColumn || d.Range.Start.Line != 2 || d.Range.Start.Column != 16 || d.Range.End.Column != 19 ||
		!strings.Contains(d.Message, `unknown column "nme"; did you mean "name"`) {
		t.Fatalf("diagnostic = %v (%d:%d-%d)", d, d.Range.Start.Line, d.Range.Start.Column, d.Range.End.Column)
	}
}

// TestFingerprintHistory: the older algorithms migrate recognizes stores
// by still compute what they computed. fingerprints-v1.golden holds what
// fingerprint version 1 gave for the golden project before version 2
// existed; it is history, never -update'd.
func TestFingerprintHistory(t *testing.T) {
	a := analyzeFiles(t, baseFiles())
	mustClean(t, a)
	for v := OldestFingerprintVersion; v <= FingerprintVersion; v++ {
		ids, err := FingerprintsAt(a, v)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for n := range ids {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "%s %s\n", n, ids[n].Fingerprint)
		}
		golden := filepath.Join("testdata", "fingerprints.golden")
		if v != FingerprintVersion {
			golden = filepath.Join("testdata", fmt.Sprintf("fingerprints-v%d.golden", v))
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("fingerprint version %d:\n got:\n%s\nwant:\n%s", v, b.String(), want)
		}
	}
	if _, err := FingerprintsAt(a, FingerprintVersion+1); err == nil {
		t.Error("FingerprintsAt of a future version succeeded")
	}
}
