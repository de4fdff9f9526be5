package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
)

func TestLoad(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"efmesh.yaml":                "models: ['models/**/*.sql', 'extra/*.sql', models/a.sql]\nengine: {type: duckdb, pathh: x}\n",
		"models/a.sql":               model("raw.a"),
		"models/med/b.sql":           model("med.b", "raw.a"),
		"models/med/deep/er/c.sql":   model("med.c", "med.b", "med.x"),
		"models/.hidden/h.sql":       model("med.h"),
		"models/med/.#b.sql":         "editor lock file",
		"models/med/notes.md":        "not a model",
		"extra/d.sql":                model("med.d"),
		"extra/sub/e.sql":            model("med.e"), // deeper than extra/*.sql
		"tests/t.yaml":               "{}",
		"seeds/models/ignored.sql":   "not under models/",
		"models/med/deep/broken.sql": "MODEL (name med.broken, kind SEED (path 'x.csv'));\nSELECT 1",
	})
	p, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != root || p.Config.Name != filepath.Base(root) {
		t.Errorf("root %q name %q", p.Root, p.Config.Name)
	}
	var files []string
	for _, m := range p.Models {
		files = append(files, m.File)
	}
	wantFiles := []string{"models/med/deep/broken.sql", "extra/d.sql", "models/a.sql", "models/med/b.sql", "models/med/deep/er/c.sql"}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files in order = %v\nwant %v", files, wantFiles)
	}
	var got []string
	for _, d := range p.Diagnostics {
		got = append(got, d.File+":"+strings.TrimPrefix(d.String(), d.File+":"))
	}
	want := []string{
		`efmesh.yaml:2:24: error: unknown key "pathh" in engine (known: type, path, url, lock_timeout, memory_limit, threads)`,
		`models/med/deep/broken.sql:2:1: error: a SEED model has no SELECT body: its rows come from path`,
		`models/med/deep/er/c.sql:4:11: error: unknown model "med.x" in @ref; did you mean "med.b"?`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// FindRoot walks up from a model folder.
	found, err := FindRoot(filepath.Join(root, "models", "med", "deep"))
	if err != nil || found != root {
		t.Errorf("FindRoot = %q, %v", found, err)
	}
}

func TestLoadWithOverlay(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"efmesh.yaml":  "name: p\n",
		"models/a.sql": model("s.a"),
		"models/b.sql": model("s.b", "s.a"),
	})
	p, err := LoadWith(root, map[string][]byte{
		filepath.Join(root, "models", "b.sql"):        []byte(model("s.b", "s.c")),
		filepath.Join(root, "models", "new", "c.sql"): []byte(model("s.c")),
		filepath.Join(root, "elsewhere.sql"):          []byte(model("s.z")),
		filepath.Join(root, ConfigFile):               []byte("name: from-overlay\n"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", p.Diagnostics)
	}
	if p.Config.Name != "from-overlay" {
		t.Errorf("config name %q", p.Config.Name)
	}
	if got := modelNames(p.Models); !reflect.DeepEqual(got, []string{"s.a", "s.c", "s.b"}) {
		t.Errorf("models = %v", got)
	}
	if p.Model("s.c").File != "models/new/c.sql" {
		t.Errorf("file of s.c = %q", p.Model("s.c").File)
	}
}

func TestLoadNoConfig(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir)
	if !errors.Is(err, ErrNoConfig) || err.Error() != "no efmesh.yaml in "+dir {
		t.Errorf("Load: %v", err)
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := FindRoot(sub); !errors.Is(err, ErrNoConfig) || err.Error() != "no efmesh.yaml in "+sub+" or any parent" {
		// A temp dir may sit below a stray efmesh.yaml; only the message
		// shape matters when none is found.
		if err != nil {
			t.Errorf("FindRoot: %v", err)
		}
	}
}

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"models/**/*.sql", "models/a.sql", true},
		{"models/**/*.sql", "models/x/y/a.sql", true},
		{"models/**/*.sql", "models/x/y/a.sql.bak", false},
		{"models/**/*.sql", "other/a.sql", false},
		{"models/**/*.sql", "models/.git/a.sql", false},
		{"models/**/*.sql", "models/.a.sql", false},
		{"models/.cache/*.sql", "models/.cache/a.sql", true},
		{"./models//*.sql", "models/a.sql", true},
		{"models/*.sql", "models/x/a.sql", false},
		{"**", "a/b/c", true},
		{"**/b/**", "a/b/c", true},
		{"**/b/**", "a/c", false},
		{"m?dels/[ab].sql", "models/a.sql", true},
	}
	for _, tt := range tests {
		if got := MatchGlob(tt.pattern, tt.name); got != tt.want {
			t.Errorf("MatchGlob(%q, %q) = %v", tt.pattern, tt.name, got)
		}
	}
}

// BenchmarkLoad loads a generated project of 2,000 models in chains of 5,
// the shape of the plan benchmark (DESIGN §9).
func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	files := map[string]string{"efmesh.yaml": "name: bench\n"}
	const n = 2000
	for i := range n {
		name := fmt.Sprintf("s.m%04d", i)
		var refs []string
		if i%5 != 0 {
			refs = append(refs, fmt.Sprintf("s.m%04d", i-1))
		}
		files[fmt.Sprintf("models/g%02d/m%04d.sql", i/100, i)] = model(name, refs...)
	}
	testkit.WriteFiles(b, root, files)
	b.ResetTimer()
	for b.Loop() {
		p, err := Load(root)
		if err != nil || len(p.Models) != n || len(p.Diagnostics) != 0 {
			b.Fatalf("%v: %d models, %v", err, len(p.Models), p.Diagnostics)
		}
	}
}
