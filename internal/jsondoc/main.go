// Command jsondoc writes docs/json.md, the reference of efmesh's --json
// payloads, and the checked-in schema of the current apiVersion
// (internal/jsondoc/testdata/schema-v<N>.txt), both from package jsonapi:
// the shapes by reflection, the meanings from the types' doc comments.
// Run it with go generate ./jsonapi. Its test fails when either file is
// out of date, and tells a change that needs a new apiVersion from one
// that does not.
//
// It refuses to record a breaking change under the same apiVersion: a
// field removed, renamed, retyped or made optional needs jsonapi.Version
// bumped first.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/efmesh/efmesh/jsonapi"
)

// payload is one --json output: the command that prints it and its type.
type payload struct {
	command string
	typ     reflect.Type
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// payloads lists every --json output, in the order docs/json.md shows
// them. A type of package jsonapi reached from none of them fails the
// test: a new payload is listed here on purpose.
var payloads = []payload{
	{"efmesh plan <env>", typeOf[jsonapi.Plan]()},
	{"efmesh apply <env>", typeOf[jsonapi.Apply]()},
	{"efmesh run <env>", typeOf[jsonapi.Run]()},
	{"efmesh status <env>", typeOf[jsonapi.Status]()},
	{"efmesh restate <env>", typeOf[jsonapi.Restate]()},
	{"efmesh audit <env>", typeOf[jsonapi.Audit]()},
	{"efmesh test", typeOf[jsonapi.Test]()},
	{"efmesh lint", typeOf[jsonapi.Lint]()},
	{"efmesh lint --rules", typeOf[jsonapi.LintRules]()},
	{"efmesh format", typeOf[jsonapi.Format]()},
	{"efmesh diff <envA> <envB>", typeOf[jsonapi.Diff]()},
	{"efmesh passport <env>", typeOf[jsonapi.Passports]()},
	{"efmesh lineage <model[.column]>", typeOf[jsonapi.Lineage]()},
	{"efmesh lineage --select <selector>", typeOf[jsonapi.LineageSelected]()},
	{"efmesh render <model>", typeOf[jsonapi.Render]()},
	{"efmesh render --select <selector>", typeOf[jsonapi.RenderSelected]()},
	{"efmesh graph", typeOf[jsonapi.Graph]()},
	{"efmesh query <sql>, efmesh show <model> (--format json)", typeOf[jsonapi.Query]()},
	{"efmesh create-test <model>", typeOf[jsonapi.CreateTest]()},
	{"efmesh create-external", typeOf[jsonapi.External]()},
	{"efmesh env list", typeOf[jsonapi.EnvList]()},
	{"efmesh env delete <env>", typeOf[jsonapi.EnvDelete]()},
	{"efmesh janitor", typeOf[jsonapi.Janitor]()},
	{"efmesh compact", typeOf[jsonapi.Compact]()},
	{"efmesh migrate", typeOf[jsonapi.Migrate]()},
	{"efmesh schedule <env>", typeOf[jsonapi.Schedule]()},
	{"efmesh init", typeOf[jsonapi.Init]()},
	{"efmesh init --from-dbt", typeOf[jsonapi.InitDBT]()},
	{"efmesh init --from-sqlmesh", typeOf[jsonapi.InitSQLMesh]()},
	{"efmesh version", typeOf[jsonapi.VersionInfo]()},
	{"efmesh man --out <dir>", typeOf[jsonapi.Man]()},
	{"efmesh state adopt", typeOf[jsonapi.Adopt]()},
	{"any command, when the warehouse file is damaged", typeOf[jsonapi.Corrupt]()},
	{"any command, when the project has errors", typeOf[jsonapi.Problems]()},
	{"any command, when it fails otherwise", typeOf[jsonapi.Error]()},
}

// editor lists the JSON the language server sends of its own: its
// commands' results and its notifications' values.
var editor = []payload{
	{"efmesh.plan", typeOf[jsonapi.EditorPlan]()},
	{"efmesh.apply", typeOf[jsonapi.EditorApply]()},
	{"efmesh.preview", typeOf[jsonapi.EditorPreview]()},
	{"efmesh.test", typeOf[jsonapi.EditorTest]()},
	{"efmesh.lineage", typeOf[jsonapi.EditorLineage]()},
	{"efmesh.models", typeOf[jsonapi.EditorModels]()},
	{"efmesh.environments", typeOf[[]jsonapi.EditorEnvironment]()},
	{"efmesh.render (the model's SQL)", typeOf[string]()},
	{"$/progress, kind begin", typeOf[jsonapi.ProgressBegin]()},
	{"$/progress, kind report", typeOf[jsonapi.ProgressReport]()},
	{"$/progress, kind end", typeOf[jsonapi.ProgressEnd]()},
}

func main() {
	root, err := moduleRoot()
	if err == nil {
		err = write(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "jsondoc:", err)
		os.Exit(1)
	}
}

// write regenerates docs/json.md and the current version's schema under
// root, refusing a breaking change to an existing schema.
func write(root string) error {
	api, err := readAPI(root)
	if err != nil {
		return err
	}
	md, err := api.markdown()
	if err != nil {
		return err
	}
	schema := api.schema()
	path := schemaPath(root, jsonapi.Version)
	if old, err := os.ReadFile(path); err == nil {
		if breaking, err := compareSchema(string(old), schema); breaking {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(root, "docs", "json.md"), md, 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(schema), 0o644)
}

// compareSchema compares the recorded schema of the current version with
// the types' (now): nil when they are the same; otherwise an error that
// says what to do, and whether the change is breaking (a recorded line is
// gone) rather than an addition.
func compareSchema(recorded, now string) (breaking bool, err error) {
	if recorded == now {
		return false, nil
	}
	if removed := removedLines(recorded, now); len(removed) > 0 {
		return true, breakingError(removed)
	}
	return false, fmt.Errorf("the --json payloads gained fields or payloads: additions keep apiVersion %d (docs/json.md, Compatibility); run %s to record them in %s",
		jsonapi.Version, regenerate, filepath.Base(schemaPath("", jsonapi.Version)))
}

// regenerate is the command that rewrites both files.
const regenerate = "go generate ./jsonapi"

func breakingError(removed []string) error {
	return fmt.Errorf("the --json payloads changed in a way readers of apiVersion %d can trip on; these lines of %s are gone or changed:\n\t%s\n"+
		"bump jsonapi.Version to %d and run %s (additions alone keep the version: docs/json.md, Compatibility)",
		jsonapi.Version, filepath.Base(schemaPath("", jsonapi.Version)), strings.Join(removed, "\n\t"), jsonapi.Version+1, regenerate)
}

func schemaPath(root string, version int) string {
	return filepath.Join(root, "internal", "jsondoc", "testdata", fmt.Sprintf("schema-v%d.txt", version))
}

// removedLines are the lines of old that now is missing.
func removedLines(old, now string) []string {
	have := map[string]bool{}
	for _, l := range strings.Split(now, "\n") {
		have[l] = true
	}
	var out []string
	for _, l := range strings.Split(old, "\n") {
		if !have[l] {
			out = append(out, l)
		}
	}
	return out
}

// moduleRoot is the folder of go.mod above the working folder.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working folder")
		}
		dir = parent
	}
}

// api is package jsonapi: its types, reached from the payloads in order,
// with their doc comments.
type api struct {
	types    []reflect.Type // the named struct types, in order of first reach
	typeDocs map[string]string
	// fieldDocs maps "Type.Field" to the field's doc comment.
	fieldDocs map[string]string
	// declared are the struct types of the package's source.
	declared []string
	pkgDoc   string
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
	pkgPath  = reflect.TypeFor[jsonapi.Plan]().PkgPath()
)

func readAPI(root string) (*api, error) {
	fset := token.NewFileSet()
	dir := filepath.Join(root, "jsonapi")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, pkgPath)
	if err != nil {
		return nil, err
	}
	a := &api{typeDocs: map[string]string{}, fieldDocs: map[string]string{}, pkgDoc: p.Doc}
	for _, t := range p.Types {
		a.typeDocs[t.Name] = t.Doc
		for _, spec := range t.Decl.Specs {
			ts, ok := spec.(*ast.TypeSpec)
			if !ok {
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			a.declared = append(a.declared, ts.Name.Name)
			for _, f := range st.Fields.List {
				text := f.Doc.Text()
				if text == "" {
					text = f.Comment.Text()
				}
				for _, n := range f.Names {
					a.fieldDocs[ts.Name.Name+"."+n.Name] = text
				}
			}
		}
	}
	seen := map[reflect.Type]bool{}
	var reach func(t reflect.Type)
	reach = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() != pkgPath || seen[t] {
			return
		}
		seen[t] = true
		a.types = append(a.types, t)
		for i := range t.NumField() {
			reach(t.Field(i).Type)
		}
	}
	for _, p := range slices.Concat(payloads, editor) {
		reach(p.typ)
	}
	return a, a.check()
}

// check reports what the documentation would lack: a declared type no
// payload reaches, a type or field without a doc comment, a field
// without a JSON name.
func (a *api) check() error {
	var errs []string
	reached := map[string]bool{}
	for _, t := range a.types {
		reached[t.Name()] = true
	}
	payloadType := reflect.TypeFor[jsonapi.Payload]()
	for _, p := range payloads {
		if !p.typ.Implements(payloadType) {
			errs = append(errs, fmt.Sprintf("%s is listed as the payload of %s but is no jsonapi.Payload: add its method in jsonapi/payload.go", p.typ.Name(), p.command))
		}
	}
	for _, name := range a.declared {
		if !reached[name] {
			errs = append(errs, fmt.Sprintf("type %s is in no payload: list the payload that holds it in internal/jsondoc (payloads or editor)", name))
		}
	}
	for _, t := range a.types {
		if a.typeDocs[t.Name()] == "" {
			errs = append(errs, fmt.Sprintf("type %s has no doc comment", t.Name()))
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if name, _ := jsonName(f); name == "" {
				errs = append(errs, fmt.Sprintf("field %s.%s has no json tag", t.Name(), f.Name))
			}
			if a.fieldDocs[t.Name()+"."+f.Name] == "" && f.Name != "APIVersion" {
				errs = append(errs, fmt.Sprintf("field %s.%s has no doc comment: say what it means", t.Name(), f.Name))
			}
		}
	}
	if len(errs) > 0 {
		return errors.New("package jsonapi cannot be documented:\n\t" + strings.Join(errs, "\n\t"))
	}
	return nil
}

// jsonName is a field's JSON name and its tag's options.
func jsonName(f reflect.StructField) (string, string) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	return name, opts
}

// schema is the shape of every payload, one line per fact, sorted within
// each type as declared: what a reader of this apiVersion relies on. A
// line that disappears is a breaking change; a new line is an addition.
func (a *api) schema() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The --json shapes of apiVersion %d, written by %s; compared by internal/jsondoc's test.\n", jsonapi.Version, regenerate)
	for _, p := range slices.Concat(payloads, editor) {
		fmt.Fprintf(&b, "payload %q %s\n", p.command, goType(p.typ))
	}
	for _, t := range a.types {
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts := jsonName(f)
			line := fmt.Sprintf("%s.%s %q %s", t.Name(), f.Name, name, goType(f.Type))
			if opts != "" {
				line += " " + opts
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// goType is t as Go writes it, without the package's own qualifier.
func goType(t reflect.Type) string {
	return strings.ReplaceAll(t.String(), "jsonapi.", "")
}

// jsonType is t as a reader of the JSON sees it, with links to the types
// of the package.
func jsonType(t reflect.Type) string {
	switch {
	case t == timeType:
		return "time"
	case t == rawType:
		return "JSON value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jsonType(t.Elem()) + " or null"
	case reflect.Slice:
		return "array of " + jsonType(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("array of %d %s", t.Len(), jsonType(t.Elem()))
	case reflect.Map:
		return "object of " + jsonType(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Interface:
		return "any"
	case reflect.Struct:
		if t.PkgPath() == pkgPath {
			return fmt.Sprintf("[%s](#%s)", t.Name(), strings.ToLower(t.Name()))
		}
	}
	return t.String()
}

// presence says when a field is in the output.
func presence(t reflect.Type, opts string) string {
	switch {
	case strings.Contains(opts, "omitzero"):
		return "when set (then even if empty)"
	case !strings.Contains(opts, "omitempty"):
		return "always"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "when true"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "when not 0"
	case reflect.Pointer:
		return "when not null"
	}
	return "when not empty"
}

// oneLine is a doc comment as one table cell: one sentence or more,
// capitalized, ending with a period.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

func (a *api) markdown() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `# JSON output

<!-- Generated from package jsonapi by %s (internal/jsondoc). Do not edit: change the types' doc comments and regenerate. -->

Every efmesh command takes `+"`--json`"+`: it then prints one JSON document on
stdout (logs and warnings stay on stderr) and exits with the same code as
without it. Each document is a type of the Go package
`+"`github.com/efmesh/efmesh/jsonapi`"+`, so a Go program decodes it with
`+"`encoding/json`"+` into that type; any other reader follows the tables below.

Keys come in the order the tables give. A field is always present unless
its row says otherwise: "when true", "when not 0", "when not empty" and
"when not null" leave it out when it is false, 0, "" or an empty list, or
null; "when set" leaves it out unless in the situation its meaning names,
and then writes it even as an empty list. Times of type "time" are RFC
3339 with the zone they were recorded in; times written as strings are RFC
3339 in UTC, "" when there is none.

## apiVersion and compatibility

Every payload but efmesh schedule's carries `+"`apiVersion`"+`, today **%d**
(`+"`jsonapi.Version`"+`). The rule:

- **Additions keep the version.** A new field, a new payload or a new value
  of a field documented as a set of words may appear in any release. A
  reader ignores keys it does not know.
- **Anything else bumps it.** A field removed, renamed or retyped, a field
  that becomes optional (or "when set" becomes "when not empty"), a Go type
  or field renamed: the version goes up by one, and the release notes say
  what changed.

The shapes of each version are recorded in
`+"`internal/jsondoc/testdata/schema-v<N>.txt`"+`, one line per field. A test
compares them with the types: a line that disappeared fails it with "bump
jsonapi.Version", a line that was added fails it until the file is
regenerated, and `+"`%s`"+` refuses to rewrite a version's file for a
change that is not an addition. The same test fails when this page is out
of date with the types.

`, regenerate, jsonapi.Version, regenerate)
	b.WriteString("## Commands\n\n| command | payload |\n|---|---|\n")
	for _, p := range payloads {
		fmt.Fprintf(&b, "| `%s` | %s |\n", p.command, jsonType(p.typ))
	}
	b.WriteString("\n## Editor\n\nThe language server's own commands (`workspace/executeCommand`) answer with these\n" +
		"results, and its progress reports carry these values. They carry no `apiVersion`,\n" +
		"and change under the same rule as the payloads.\n\n| method | result |\n|---|---|\n")
	for _, p := range editor {
		fmt.Fprintf(&b, "| `%s` | %s |\n", p.command, jsonType(p.typ))
	}
	b.WriteString("\n## Types\n")
	for _, t := range a.types {
		fmt.Fprintf(&b, "\n### %s\n\n%s\n\n| field | type | present | meaning |\n|---|---|---|---|\n", t.Name(), strings.TrimSpace(a.typeDocs[t.Name()]))
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts := jsonName(f)
			meaning := a.fieldDocs[t.Name()+"."+f.Name]
			if f.Name == "APIVersion" && meaning == "" {
				meaning = fmt.Sprintf("The version of this shape: %d.", jsonapi.Version)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, jsonType(f.Type), presence(f.Type, opts), oneLine(meaning))
		}
	}
	return b.Bytes(), nil
}
