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
