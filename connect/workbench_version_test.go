package connect

import (
	"context"
	"strings"
	"testing"
)

// TestWorkbenchVersion: both workbenches name the engine library that
// checks, which analysis puts in its check cache's key.
func TestWorkbenchVersion(t *testing.T) {
	for yaml, prefix := range map[string]string{
		"name: d\n": "duckdb v",
		"name: p\nengine:\n  type: postgres\n  url: postgres://localhost/x\n": "pg_query v6",
	} {
		wb, err := Workbench(loadProject(t, yaml))
		if err != nil {
			t.Fatal(err)
		}
		vw, ok := wb.(interface {
			Version(context.Context) (string, error)
		})
		if !ok {
			t.Fatalf("%T names no version", wb)
		}
		v, err := vw.Version(context.Background())
		wb.Close()
		if err != nil || !strings.HasPrefix(v, prefix) {
			t.Errorf("%T: version %q, %v; want %s…", wb, v, err, prefix)
		}
	}
}
