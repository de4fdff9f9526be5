// Package archtest checks the import rules of docs/architecture.md: which
// efmesh package may import which, and where third-party drivers and parsers
// may appear. It has no code of its own, only this test.
package archtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/efmesh/efmesh"

// mayImport is the table "Import rules" of docs/architecture.md: the efmesh
// packages the non-test files of each package may import. Every package of
// the module must be here; a package listed here that does not exist yet is
// allowed (it is planned).
var mayImport = map[string][]string{
	"sqlscan":                 nil,
	"sqlread":                 {"sqlscan"},
	"macro":                   {"sqlscan"},
	"engine":                  {"sqlscan"},
	"project":                 {"sqlscan", "macro"},
	"state":                   nil,
	"jsonapi":                 nil,
	"engine/duckdb":           {"engine", "sqlscan"},
	"engine/postgres":         {"engine", "sqlscan"},
	"state/sqlite":            {"state"},
	"state/postgres":          {"state"},
	"state/statetest":         {"state"},
	"engine/enginetest":       {"engine"},
	"dbtimport":               {"project"},
	"sqlmeshimport":           {"project", "sqlscan", "sqlread", "macro"},
	"format":                  {"sqlscan", "sqlread"},
	"analysis":                {"engine", "project", "state", "sqlscan", "sqlread", "macro"},
	"planner":                 {"analysis", "engine", "project", "state", "sqlscan", "macro"},
	"lint":                    {"analysis", "engine", "project", "sqlscan", "sqlread", "macro"},
	"ops":                     {"planner", "analysis", "engine", "project", "state"},
	"connect":                 {"planner", "analysis", "engine", "engine/duckdb", "engine/postgres", "project", "state", "state/sqlite", "state/postgres"},
	"workspace/digest":        {"connect", "planner", "analysis", "engine", "project", "state"},
	"workspace":               {"workspace/digest", "connect", "ops", "lint", "planner", "analysis", "engine", "project", "state", "sqlscan", "sqlread", "macro", "format", "jsonapi"},
	"docsite":                 {"workspace", "ops", "planner", "analysis", "project", "state", "jsonapi"},
	"lsp":                     {"workspace", "workspace/digest", "connect", "ops", "lint", "planner", "analysis", "engine", "project", "state", "sqlscan", "sqlread", "macro", "format", "jsonapi"},
	"cmd/efmesh/cli":          {"lsp", "docsite", "workspace", "workspace/digest", "connect", "ops", "lint", "planner", "analysis", "engine", "project", "state", "sqlscan", "sqlread", "macro", "dbtimport", "sqlmeshimport", "format", "jsonapi", "docs"},
	"cmd/efmesh":              {"cmd/efmesh/cli"},
	"internal/gen":            nil,
	"internal/jsondoc":        {"jsonapi"},
	"internal/benchrun":       {"internal/gen", "workspace", "connect", "ops", "planner", "analysis", "engine", "engine/duckdb", "project", "state", "state/sqlite"},
	"internal/testkit":        nil,
	"internal/testkit/realdb": {"engine", "engine/duckdb", "engine/postgres", "state", "state/sqlite", "internal/testkit"},
	"internal/archtest":       nil,
	"docs":                    nil,
}

// testMayImport is what any package's tests may import besides what the
// package itself may: the real adapters and the test-support packages.
var testMayImport = []string{
	"engine/duckdb", "engine/postgres", "state/sqlite", "state/postgres",
	"state/statetest", "engine/enginetest", "internal/gen", "internal/testkit", "internal/testkit/realdb",
}

// thirdParty is the table of modules whose types must not leak out of the
// packages that wrap them (non-test files only).
var thirdParty = map[string][]string{
	"github.com/duckdb/duckdb-go":      {"engine/duckdb"},
	"github.com/pganalyze/pg_query_go": {"engine/postgres"},
	"google.golang.org/protobuf":       {"engine/postgres"},
	"github.com/jackc/pgx":             {"engine/postgres", "state/postgres"},
	"modernc.org/sqlite":               {"state/sqlite"},
	"go.lsp.dev":                       {"lsp"},
	"github.com/spf13/cobra":           {"cmd/efmesh/cli"},
}

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// listPackages runs go list over the whole module.
func listPackages(t *testing.T, root string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,Error", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// rel is path relative to the module ("" for the root, ok=false outside).
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

func TestImportRules(t *testing.T) {
	pkgs := listPackages(t, moduleRoot(t))
	seen := map[string]bool{}
	for _, p := range pkgs {
		name, _ := rel(p.ImportPath)
		seen[name] = true
		allowed, known := mayImport[name]
		if !known {
			t.Errorf("package %s is not in docs/architecture.md: give it a layer and the packages it may import (and add it to internal/archtest)", name)
			continue
		}
		for _, imp := range p.Imports {
			if dep, ok := rel(imp); ok {
				if !slices.Contains(allowed, dep) {
					t.Errorf("%s imports %s: not allowed by docs/architecture.md (it may import %s)", name, dep, list(allowed))
				}
				continue
			}
			for mod, only := range thirdParty {
				if (imp == mod || strings.HasPrefix(imp, mod+"/")) && !slices.Contains(only, name) {
					t.Errorf("%s imports %s: only %s may (docs/architecture.md)", name, imp, list(only))
				}
			}
		}
		for _, imp := range append(slices.Clone(p.TestImports), p.XTestImports...) {
			dep, ok := rel(imp)
			if !ok || dep == name || slices.Contains(allowed, dep) || slices.Contains(testMayImport, dep) {
				continue
			}
			if _, known := mayImport[dep]; !known {
				continue // reported above as an unclassified package
			}
			t.Errorf("tests of %s import %s: a test may import what its package may, the adapters and the test-support packages (docs/architecture.md)", name, dep)
		}
	}
	var planned []string
	for name := range mayImport {
		if !seen[name] {
			planned = append(planned, name)
		}
	}
	sort.Strings(planned)
	if len(planned) > 0 {
		t.Logf("in the rules but not in the module (yet): %s", strings.Join(planned, ", "))
	}
}

// TestDocMatchesRules keeps the tables of docs/architecture.md and of this
// test the same, so neither can drift from the other.
func TestDocMatchesRules(t *testing.T) {
	f, err := os.Open(filepath.Join(moduleRoot(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tables := map[string]map[string][]string{} // heading → first cell → other cells' code spans
	var heading string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if h, ok := strings.CutPrefix(line, "## "); ok {
			heading = h
			continue
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		key := strings.Trim(strings.TrimSpace(cells[0]), "`")
		var vals []string
		for _, c := range cells[1:] {
			vals = append(vals, codeSpans(c)...)
		}
		if tables[heading] == nil {
			tables[heading] = map[string][]string{}
		}
		if _, dup := tables[heading][key]; dup {
			t.Errorf("docs/architecture.md, %s: %s is listed twice", heading, key)
		}
		// A row of the "Import rules" section is either a package's imports or a module's packages.
		if heading == "Import rules" && strings.Contains(key, ".") {
			key = "module " + key
		}
		tables[heading][key] = vals
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	inMap := tables["Package map"]
	rules := tables["Import rules"]
	for name, allowed := range mayImport {
		if _, ok := inMap[name]; !ok {
			t.Errorf("docs/architecture.md: the package map lacks %s", name)
		}
		doc, ok := rules[name]
		if !ok {
			t.Errorf("docs/architecture.md: the import rules lack %s", name)
			continue
		}
		if !sameSet(doc, allowed) {
			t.Errorf("%s may import %s in docs/architecture.md but %s in internal/archtest", name, list(doc), list(allowed))
		}
	}
	for name := range inMap {
		if _, ok := mayImport[name]; !ok {
			t.Errorf("docs/architecture.md maps %s, which internal/archtest does not know", name)
		}
	}
	for key, doc := range rules {
		if mod, ok := strings.CutPrefix(key, "module "); ok {
			if only, known := thirdParty[mod]; !known || !sameSet(doc, only) {
				t.Errorf("module %s: only %s in docs/architecture.md, %s in internal/archtest", mod, list(doc), list(thirdParty[mod]))
			}
			continue
		}
		if _, ok := mayImport[key]; !ok {
			t.Errorf("docs/architecture.md has import rules for %s, which internal/archtest does not know", key)
		}
	}
	for mod := range thirdParty {
		if _, ok := rules["module "+mod]; !ok {
			t.Errorf("docs/architecture.md lacks the module %s", mod)
		}
	}
}

// codeSpans returns the `…` spans of a table cell.
func codeSpans(cell string) []string {
	var out []string
	parts := strings.Split(cell, "`")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func list(s []string) string {
	if len(s) == 0 {
		return "nothing of efmesh"
	}
	return strings.Join(s, ", ")
}

// moduleRoot is the folder holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not inside the module")
	}
	return filepath.Dir(gomod)
}
