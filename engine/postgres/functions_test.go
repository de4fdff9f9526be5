package postgres

import (
	"context"
	"strings"
	"testing"
)

func TestFunctions(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	v, err := db.Version(ctx)
	if err != nil || !strings.HasPrefix(v, "postgres ") {
		t.Fatalf("Version = %q, %v", v, err)
	}
	fns, err := db.Functions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var sigs []string
	for _, f := range fns {
		if f.Returns == "cstring" || f.Returns == "internal" {
			t.Errorf("listed the engine's own %s", f.Signature())
		}
		if f.Name == "date_trunc" {
			sigs = append(sigs, f.Signature())
			if f.Description == "" {
				t.Errorf("date_trunc has no description")
			}
		}
	}
	if !strings.Contains(strings.Join(sigs, "\n"), "date_trunc(text, timestamp without time zone) -> timestamp without time zone") {
		t.Errorf("date_trunc signatures:\n%s", strings.Join(sigs, "\n"))
	}
}
