package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// chain is a, b reading a, c reading b, and e alone.
var chain = map[string]string{
	"efmesh.yaml":  "name: chain\n",
	"models/a.sql": "MODEL (name raw.a, kind FULL);\nSELECT 1 AS id, 10 AS v\n",
	"models/b.sql": "MODEL (name mid.b, kind FULL);\nSELECT id, v FROM @ref(raw.a)\n",
	"models/c.sql": "MODEL (name top.c, kind VIEW);\nSELECT id, v FROM @ref(mid.b)\n",
	"models/e.sql": "MODEL (name raw.e, kind FULL);\nSELECT 5 AS id\n",
}

// planLines is a plan's changed models and left-out changes, one string.
func planLines(p *planner.Plan) string {
	var out []string
	for _, m := range p.Models {
		if m.Change != planner.Unchanged {
			out = append(out, m.Name+"="+string(m.Change))
		}
	}
	for _, l := range p.LeftOut {
		out = append(out, "-"+l.Name+"="+string(l.Change))
	}
	return strings.Join(out, " ")
}

// TestPlanSelection: a plan of a selection takes the selected direct
// changes and what lies below them; an unselected direct change is left
// out, its model kept at the environment's version, and a selected child
// is planned (and built) against that version.
func TestPlanSelection(t *testing.T) {
	ctx := context.Background()
	dir := writeProject(t, chain)
	w, err := Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Apply(ctx, "dev", ApplyRequest{}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// a and b change, d is new (reading a), e is deleted.
	for rel, body := range map[string]string{
		"models/a.sql": "MODEL (name raw.a, kind FULL);\nSELECT 1 AS id, 20 AS v\n",
		"models/b.sql": "MODEL (name mid.b, kind FULL);\nSELECT id, v + 1 AS v FROM @ref(raw.a)\n",
		"models/d.sql": "MODEL (name top.d, kind VIEW);\nSELECT id FROM @ref(raw.a)\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "models/e.sql")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		selects, excludes []string
		want              string
	}{
		{nil, nil, "raw.a=breaking mid.b=breaking top.c=indirect top.d=added raw.e=removed"},
		{[]string{"mid.b"}, nil, "mid.b=breaking top.c=indirect -raw.a=breaking -raw.e=removed -top.d=added"},
		{[]string{"raw.a"}, nil, "raw.a=breaking mid.b=indirect top.c=indirect -mid.b=breaking -raw.e=removed -top.d=added"},
		{[]string{"raw.e"}, nil, "raw.e=removed -mid.b=breaking -raw.a=breaking -top.d=added"},
		{[]string{"raw.a+"}, nil, "raw.a=breaking mid.b=breaking top.c=indirect top.d=added -raw.e=removed"},
		// top.d is new: it comes, reading raw.a as dev has it.
		{nil, []string{"raw.a"}, "mid.b=breaking top.c=indirect top.d=added raw.e=removed -raw.a=breaking"},
		{[]string{"top.c"}, nil, "-mid.b=breaking -raw.a=breaking -raw.e=removed -top.d=added"},
	} {
		t.Run(fmt.Sprint(tc.selects, tc.excludes), func(t *testing.T) {
			w, err := Open(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.Selection = Selection{Selects: tc.selects, Excludes: tc.excludes}
			p, err := w.Plan(ctx, "dev")
			if err != nil {
				t.Fatal(err)
			}
			if got := planLines(p); got != tc.want {
				t.Errorf("plan:\n got  %s\n want %s", got, tc.want)
			}
		})
	}

	// Bad selections: a selector mistake, a new parent left out.
	w, err = Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Selection = Selection{Selects: []string{"mid.b tag:"}}
	var se *project.SelectorError
	if _, err := w.Plan(ctx, "dev"); !errors.As(err, &se) || se.Col != 7 {
		t.Fatalf("bad selector: %v", err)
	}
	w.Selection = Selection{Selects: []string{"top.d"}}
	if p, err := w.Plan(ctx, "dev"); err != nil || planLines(p) != "top.d=added -mid.b=breaking -raw.a=breaking -raw.e=removed" {
		t.Fatalf("top.d alone, on the old raw.a: %v", err)
	}
	// A selected new model reading a new model left out.
	if err := os.WriteFile(filepath.Join(dir, "models/f.sql"), []byte("MODEL (name top.f, kind VIEW);\nSELECT id FROM @ref(top.d)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wf, err := Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wf.Selection = Selection{Selects: []string{"top.f"}}
	var pe *planner.UnselectedParentError
	if _, err := wf.Plan(ctx, "dev"); !errors.As(err, &pe) || pe.Model != "top.f" || pe.Parent != "top.d" || !pe.Added {
		t.Fatalf("top.f without top.d: %v", err)
	}
	wf.Close()
	if err := os.Remove(filepath.Join(dir, "models/f.sql")); err != nil {
		t.Fatal(err)
	}

	// Apply of mid.b alone builds it on the old raw.a (10, not 20).
	w.Selection = Selection{Selects: []string{"mid.b"}}
	res, err := w.Apply(ctx, "dev", ApplyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Built, ",") != "mid.b,top.c" {
		t.Fatalf("built %v", res.Built)
	}
	wh, err := connect.ReadWarehouse(ctx, w.Project)
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	rows, err := wh.Query(ctx, `SELECT v FROM dev__mid.b`)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows.Values); got != "[[11]]" {
		t.Fatalf("mid.b in dev: %s, want [[11]] (old raw.a + 1)", got)
	}
	// The rest is still to do.
	w.Selection = Selection{}
	p, err := w.Plan(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if got := planLines(p); got != "raw.a=breaking mid.b=indirect top.c=indirect top.d=added raw.e=removed" {
		t.Fatalf("after the selected apply: %s", got)
	}
}
