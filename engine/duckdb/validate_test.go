package duckdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/engine"
)

// TestValidateFilesCancelled: a validation cut short by its context (an
// editor's check superseded by the next keystroke) returns the context's
// error, never a problem of the file saying "context canceled" — which a
// caller would report, and cache, as what the file holds.
func TestValidateFilesCancelled(t *testing.T) {
	db, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	path := filepath.Join(t.TempDir(), "big.csv")
	var b strings.Builder
	b.WriteString("id,label,amount\n")
	for i := range 400_000 {
		fmt.Fprintf(&b, "%d,label %d,%d.%02d\n", i, i%97, i%1000, i%100)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := engine.FileSpec{Paths: []string{path}, Format: "csv"}
	if problems, err := db.ValidateFiles(context.Background(), spec); err != nil || len(problems) > 0 {
		t.Fatalf("the file does not load: %v %v", problems, err)
	}
	cut := 0
	for _, after := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(after, cancel)
		problems, err := db.ValidateFiles(ctx, spec)
		cancel()
		if len(problems) > 0 {
			t.Fatalf("cancelled after %v: the file's problems %v", after, problems)
		}
		if err != nil {
			cut++
		}
	}
	if cut == 0 {
		t.Fatal("no validation was cut short: the test proves nothing")
	}
}
