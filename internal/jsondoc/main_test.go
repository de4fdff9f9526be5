package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/jsonapi"
)

// root is the module's root, from this package's folder.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDocUpToDate fails when docs/json.md is not what the types of
// package jsonapi generate.
func TestDocUpToDate(t *testing.T) {
	a, err := readAPI(root(t))
	if err != nil {
		t.Fatal(err)
	}
	want, err := a.markdown()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root(t), "docs", "json.md"))
	if err != nil {
		t.Fatalf("%v: run %s", err, regenerate)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/json.md is out of date with package jsonapi: run %s", regenerate)
	}
}

// TestSchemaOfVersion fails when a payload's shape differs from the one
// recorded for jsonapi.Version: with "bump jsonapi.Version" when a
// recorded field is gone or changed, with "run go generate" when fields
// were only added.
func TestSchemaOfVersion(t *testing.T) {
	a, err := readAPI(root(t))
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := os.ReadFile(schemaPath(root(t), jsonapi.Version))
	if err != nil {
		t.Fatalf("no recorded schema of apiVersion %d (%v): run %s", jsonapi.Version, err, regenerate)
	}
	if _, err := compareSchema(string(recorded), a.schema()); err != nil {
		t.Fatal(err)
	}
}

// TestCompareSchema: a line gone is breaking and says to bump the
// version; a line added is not, and says to regenerate.
func TestCompareSchema(t *testing.T) {
	const old = "payload \"efmesh plan <env>\" Plan\nPlan.Env \"env\" string\nPlan.Models \"models\" []ModelPlan\n"
	for _, c := range []struct {
		name, now string
		breaking  bool
		says      string
	}{
		{"same", old, false, ""},
		{"added", old + "Plan.Extra \"extra\" string omitempty\n", false, "additions keep apiVersion"},
		{"removed", "payload \"efmesh plan <env>\" Plan\nPlan.Env \"env\" string\n", true, "bump jsonapi.Version"},
		{"renamed", strings.Replace(old, `"env"`, `"environment"`, 1), true, "bump jsonapi.Version"},
		{"retyped", strings.Replace(old, "Plan.Env \"env\" string", "Plan.Env \"env\" int", 1), true, "bump jsonapi.Version"},
		{"made optional", strings.Replace(old, "Plan.Env \"env\" string", "Plan.Env \"env\" string omitempty", 1), true, "Plan.Env \"env\" string"},
	} {
		breaking, err := compareSchema(old, c.now)
		switch {
		case c.says == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.says)
		case breaking != c.breaking:
			t.Errorf("%s: breaking %v, want %v", c.name, breaking, c.breaking)
		}
	}
}

// TestGenerateRefusesABreakingChange runs the generator on a copy of the
// module's jsonapi package whose recorded schema has a field the types
// lack: it writes nothing and says to bump the version. With a recorded
// schema that lacks a field (an addition), it rewrites both files.
func TestGenerateRefusesABreakingChange(t *testing.T) {
	tmp := t.TempDir()
	for _, dir := range []string{"jsonapi", "docs", filepath.Join("internal", "jsondoc", "testdata")} {
		if err := os.MkdirAll(filepath.Join(tmp, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files, err := filepath.Glob(filepath.Join(root(t), "jsonapi", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, "jsonapi", filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := readAPI(tmp)
	if err != nil {
		t.Fatal(err)
	}
	schema := a.schema()
	path := schemaPath(tmp, jsonapi.Version)
	doc := filepath.Join(tmp, "docs", "json.md")

	gone := schema + "Plan.Gone \"gone\" string\n"
	if err := os.WriteFile(path, []byte(gone), 0o644); err != nil {
		t.Fatal(err)
	}
	err = write(tmp)
	if err == nil || !strings.Contains(err.Error(), "bump jsonapi.Version") || !strings.Contains(err.Error(), `Plan.Gone "gone" string`) {
		t.Fatalf("write with a field gone: %v, want a refusal naming it and saying to bump the version", err)
	}
	if b, _ := os.ReadFile(path); string(b) != gone {
		t.Fatal("a refused write rewrote the recorded schema")
	}
	if _, err := os.Stat(doc); err == nil {
		t.Fatal("a refused write wrote docs/json.md")
	}

	lines := strings.SplitAfter(schema, "\n")
	fewer := strings.Join(append(lines[:len(lines)-2:len(lines)-2], lines[len(lines)-1]), "")
	if err := os.WriteFile(path, []byte(fewer), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(tmp); err != nil {
		t.Fatalf("write with a field added: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != schema {
		t.Fatal("an addition was not recorded")
	}
	if _, err := os.Stat(doc); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFindsUndocumented: a field without a doc comment or a type no
// payload reaches stops the generator, naming them.
func TestCheckFindsUndocumented(t *testing.T) {
	a, err := readAPI(root(t))
	if err != nil {
		t.Fatal(err)
	}
	a.fieldDocs["Plan.Env"] = ""
	a.declared = append(a.declared, "Orphan")
	err = a.check()
	if err == nil || !strings.Contains(err.Error(), "field Plan.Env has no doc comment") || !strings.Contains(err.Error(), "type Orphan is in no payload") {
		t.Fatalf("check: %v", err)
	}
}

// TestPayloadsDecode: every payload type decodes what it encodes, key for
// key (a Go user reads efmesh's output with the same types), and every
// field's JSON name is unique within its type.
func TestPayloadsDecode(t *testing.T) {
	a, err := readAPI(root(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range a.types {
		names := map[string]bool{}
		for i := range typ.NumField() {
			name, _ := jsonName(typ.Field(i))
			if names[name] {
				t.Errorf("%s: two fields are named %q in JSON", typ.Name(), name)
			}
			names[name] = true
		}
		v := reflect.New(typ)
		fill(v.Elem(), 2)
		b, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatalf("%s: %v", typ.Name(), err)
		}
		back := reflect.New(typ)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(back.Interface()); err != nil {
			t.Fatalf("%s: decoding %s: %v", typ.Name(), b, err)
		}
		again, _ := json.Marshal(back.Interface())
		if !bytes.Equal(again, b) {
			t.Errorf("%s: decoded and encoded again\n%s\nwant\n%s", typ.Name(), again, b)
		}
	}
}

// fill sets every field of v to a value that is not zero, depth levels of
// nested values deep.
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		if depth > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), depth-1)
		}
	case reflect.Slice:
		if v.Type() == rawType {
			v.SetBytes([]byte(`{"a":1}`))
			return
		}
		if depth > 0 {
			s := reflect.MakeSlice(v.Type(), 1, 1)
			fill(s.Index(0), depth-1)
			v.Set(s)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), depth)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, depth-1)
		m.SetMapIndex(reflect.ValueOf("k"), e)
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf("x"))
	case reflect.Struct:
		if v.Type() == timeType {
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i), depth)
		}
	}
}
