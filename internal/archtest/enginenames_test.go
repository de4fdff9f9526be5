package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// engineNames are the words that name an engine or one of its own
// catalogs and functions. Above engine/… and connect, code asks an
// engine.Kind's Capabilities instead of spelling them: a string literal or
// an identifier holding one of them (any case) is a dialect if in the
// wrong room. Comments may name engines.
var engineNames = regexp.MustCompile(`(?i)duckdb|postgres|pg_catalog|read_parquet|information_schema`)

// mayNameEngines are the packages whose non-test files may name engines:
// the engine, its adapters and the wiring that opens them.
func mayNameEngines(pkg string) bool {
	return pkg == "engine" || strings.HasPrefix(pkg, "engine/") || pkg == "connect"
}

// engineNameAllowance is an exception to the rule, with its reason.
type engineNameAllowance struct {
	// path is a package, or a file of one (with .go).
	path string
	// proseOnly allows only prose: a string literal holding a space or a
	// line break (a help text, a printed sentence). A bare word ("duckdb")
	// and an identifier still fail, so no comparison hides there.
	proseOnly bool
	why       string
}

// engineNameAllowances is the whole list of exceptions. Each must still
// be needed: an entry nothing uses fails the test, so the list only
// shrinks by accident.
var engineNameAllowances = []engineNameAllowance{
	{path: "state/postgres", why: "the Postgres state store's adapter: naming its database (its package name, its catalog) is its job, as for an engine adapter"},
	{path: "project/backendtypes.go", why: "the words a user writes after type: in efmesh.yaml, checked with positions at load; connect turns the engine's into an engine.Kind and tests that the lists agree"},
	{path: "dbtimport", why: "converts a dbt project, whose profiles and adapter.dispatch macros (duckdb__x) name engines, into efmesh.yaml's words"},
	{path: "sqlmeshimport", why: "converts a sqlmesh project, whose gateways name engines by connection type, into efmesh.yaml's words"},
	{path: "internal/gen", why: "writes the benchmark projects' efmesh.yaml, in the user's words"},
	{path: "internal/benchrun", why: "the benchmark measures efmesh against DuckDB's own floor, on a DuckDB it opens itself"},
	{path: "internal/testkit", why: "test support (imported by _test.go files only): the Postgres test server's settings"},
	{path: "internal/testkit/realdb", why: "test support (imported by _test.go files only): opens the real databases tests run on"},
	{path: "cmd/efmesh/cli", proseOnly: true, why: "help text and printed sentences say which engine a command runs on (\"an in-memory DuckDB\")"},
}

// engineNameUse is one string literal or identifier that names an engine.
type engineNameUse struct {
	pos   token.Position
	text  string // as written
	prose bool   // a string literal with a space or a line break
}

// engineNameUses lists the string literals and identifiers of the Go
// source src that name an engine. Import paths are left to
// TestImportRules; comments are not code.
func engineNameUses(fset *token.FileSet, file string, src []byte) ([]engineNameUse, error) {
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []engineNameUse
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			if n.Name != nil && engineNames.MatchString(n.Name.Name) {
				out = append(out, engineNameUse{pos: fset.Position(n.Name.Pos()), text: n.Name.Name})
			}
			return false
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil {
				s = n.Value
			}
			if engineNames.MatchString(s) {
				out = append(out, engineNameUse{pos: fset.Position(n.Pos()), text: n.Value, prose: strings.ContainsAny(s, " \n")})
			}
		case *ast.Ident:
			if engineNames.MatchString(n.Name) {
				out = append(out, engineNameUse{pos: fset.Position(n.Pos()), text: n.Name})
			}
		}
		return true
	})
	return out, nil
}

// allowance is the entry of engineNameAllowances that covers file of
// package pkg, if one does.
func allowance(pkg, file string) (int, bool) {
	for i, a := range engineNameAllowances {
		if a.path == pkg || a.path == pkg+"/"+file || (pkg == "" && a.path == file) {
			return i, true
		}
	}
	return -1, false
}

// TestNoEngineNamesAbove keeps the engine's name out of the packages above
// engine/… and connect (docs/architecture.md, "Engines are asked, not
// named"): they hold an engine.Kind and ask its Capabilities.
func TestNoEngineNamesAbove(t *testing.T) {
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,GoFiles,CgoFiles,IgnoredGoFiles", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	used := make([]bool, len(engineNameAllowances))
	dec := json.NewDecoder(bytes.NewReader(out))
	files := 0
	for {
		var p struct {
			ImportPath                        string
			Dir                               string
			GoFiles, CgoFiles, IgnoredGoFiles []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name, _ := rel(p.ImportPath)
		if mayNameEngines(name) {
			continue
		}
		all := slices.Concat(p.GoFiles, p.CgoFiles, p.IgnoredGoFiles)
		sort.Strings(all)
		for _, f := range all {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			files++
			src, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			uses, err := engineNameUses(token.NewFileSet(), f, src)
			if err != nil {
				t.Fatal(err)
			}
			i, allowed := allowance(name, f)
			for _, u := range uses {
				if allowed && (!engineNameAllowances[i].proseOnly || u.prose) {
					used[i] = true
					continue
				}
				where, _ := filepath.Rel(root, u.pos.Filename)
				if where == "" || strings.HasPrefix(where, "..") {
					where = filepath.ToSlash(filepath.Join(name, f))
				}
				t.Errorf("%s:%d:%d: %s names an engine: above engine/… and connect, ask an engine.Kind's Capabilities (docs/architecture.md)", filepath.ToSlash(where), u.pos.Line, u.pos.Column, u.text)
			}
		}
	}
	if files == 0 {
		t.Fatal("go list found no Go file to check")
	}
	for i, a := range engineNameAllowances {
		if !used[i] {
			t.Errorf("the allowance for %s names no engine any more: remove it from engineNameAllowances", a.path)
		}
	}
}

// The scanner behind TestNoEngineNamesAbove finds names in literals and
// identifiers, in any case, and not in comments; prose is told from words.
func TestEngineNameUses(t *testing.T) {
	src := `package p

import duckdbx "example.com/duckdb"

// Comments may say DuckDB and postgres.
func f(kind string) bool {
	/* read_parquet in a block comment */
	var usePostgres = kind == "postgres"
	help := "runs on an in-memory DuckDB"
	q := ` + "`SELECT * FROM information_schema.tables`" + `
	_, _ = help, q
	_ = duckdbx.X
	return usePostgres || kind == "DuckDB" || kind == "sqlite"
}
`
	uses, err := engineNameUses(token.NewFileSet(), "p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range uses {
		got = append(got, fmt.Sprintf("%d:%s:%v", u.pos.Line, u.text, u.prose))
	}
	want := []string{
		"3:duckdbx:false",
		"8:usePostgres:false",
		`8:"postgres":false`,
		`9:"runs on an in-memory DuckDB":true`,
		"10:`SELECT * FROM information_schema.tables`:true",
		"12:duckdbx:false",
		"13:usePostgres:false",
		`13:"DuckDB":false`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("engineNameUses found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
