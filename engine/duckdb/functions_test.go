package duckdb

import (
	"context"
	"strings"
	"testing"
)

func TestFunctions(t *testing.T) {
	db, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	v, err := db.Version(ctx)
	if err != nil || !strings.HasPrefix(v, "duckdb v") {
		t.Fatalf("Version = %q, %v", v, err)
	}
	fns, err := db.Functions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) < 500 {
		t.Fatalf("only %d functions", len(fns))
	}
	var sigs []string
	kinds := map[string]bool{}
	for _, f := range fns {
		kinds[f.Kind] = true
		if strings.HasPrefix(f.Name, "__") || strings.ContainsAny(f.Name, "+-*/~") {
			t.Errorf("listed %q, which no query calls by name", f.Name)
		}
		if f.Name == "date_trunc" {
			sigs = append(sigs, f.Signature())
			if f.Description == "" {
				t.Errorf("date_trunc has no description")
			}
		}
	}
	if !strings.Contains(strings.Join(sigs, "\n"), "date_trunc(part VARCHAR, timestamp TIMESTAMP) -> TIMESTAMP") {
		t.Errorf("date_trunc signatures:\n%s", strings.Join(sigs, "\n"))
	}
	for _, k := range []string{"scalar", "aggregate", "table", "macro"} {
		if !kinds[k] {
			t.Errorf("no %s function listed", k)
		}
	}
}

// TestFunctionsSpecialForms: the forms DuckDB's parser reads itself, which
// duckdb_functions() lacks, are listed once each, with their syntax; a
// form the catalog has (nullif) keeps the catalog's entry.
func TestFunctionsSpecialForms(t *testing.T) {
	db, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fns, err := db.Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sig := map[string][]string{}
	for _, f := range fns {
		sig[f.Name] = append(sig[f.Name], f.Signature())
	}
	for name, want := range map[string]string{
		"coalesce": "coalesce(value ANY, ANY...) -> ANY",
		"cast":     "CAST(value AS type) -> type",
		"try_cast": "TRY_CAST(value AS type) -> type",
		"extract":  "EXTRACT(part FROM value) -> BIGINT",
		"case":     "CASE [value] WHEN condition THEN result [...] [ELSE result] END -> ANY",
		"if":       "if(condition BOOLEAN, then ANY, otherwise ANY) -> ANY",
	} {
		if len(sig[name]) != 1 || sig[name][0] != want {
			t.Errorf("%s: %q, want [%q]", name, sig[name], want)
		}
	}
	if len(sig["nullif"]) == 0 || strings.Contains(sig["nullif"][0], "value ANY, other") {
		t.Errorf("nullif: %q, want the catalog's", sig["nullif"])
	}
	// A form the catalog gains one day is not listed twice.
	for _, f := range specialForms {
		if n := len(sig[f.Name]); f.Name != "nullif" && n != 1 {
			t.Errorf("%s listed %d times", f.Name, n)
		}
	}
}
