package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/planner"
)

// The shape check of a file source remembers the files' column names by
// their stamps for the life of the process: a file rewritten with the same
// size and a renamed column, with a new modification time, is read again
// by the next plan, which refuses it as a fresh process would.
func TestPlanRereadsChangedSourceFile(t *testing.T) {
	ctx := context.Background()
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":    "name: shop\n",
		"data/ev.csv":    "id,k,v\n1,a,10\n",
		"models/ev.sql":  "MODEL (\n  name r.ev,\n  kind EXTERNAL (files 'data/ev.csv', format csv, header true),\n  columns (id INT, k TEXT, v INT)\n);\n",
		"models/top.sql": "MODEL (name mart.top, kind VIEW);\nSELECT id, k FROM @ref(r.ev)\n",
	})
	csv := filepath.Join(dir, "data", "ev.csv")
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(csv, t0, t0); err != nil {
		t.Fatal(err)
	}
	plan := func() error {
		w, err := Open(ctx, dir, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		_, err = w.Plan(ctx, "dev")
		return err
	}
	if err := plan(); err != nil {
		t.Fatal(err)
	}
	if err := plan(); err != nil {
		t.Fatalf("the same files again: %v", err)
	}
	if err := os.WriteFile(csv, []byte("id,q,v\n1,a,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t1 := t0.Add(time.Second)
	if err := os.Chtimes(csv, t1, t1); err != nil {
		t.Fatal(err)
	}
	err := plan()
	var pe *planner.ProblemsError
	if !errors.As(err, &pe) || len(pe.Diagnostics) != 1 || !strings.Contains(pe.Diagnostics[0].Message, "data/ev.csv has no column k (it has q)") {
		t.Fatalf("plan after k was renamed q: %v, want the file's missing column", err)
	}
}
