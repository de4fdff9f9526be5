package planner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
)

// Every path that reports an unknown model suggests by the same rule
// (project.DidYouMean): render and lineage once suggested names three
// edits away that the audit path did not.
func TestUnknownModelSuggestsAlike(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/a/b.sql":        "MODEL (name a.b, kind VIEW);\nSELECT 1 AS x",
		"models/mart/daily.sql": "MODEL (name mart.daily, kind VIEW);\nSELECT 1 AS x",
	})
	mustClean(t, a)
	paths := map[string]func(name string) error{
		"render": func(name string) error {
			_, err := Render(a, nil, name, "", time.Now())
			return err
		},
		"lineage": func(name string) error {
			_, err := analysis.Lineage(a, name, "x")
			return err
		},
		"audit": func(name string) error {
			_, err := AuditEnvironment(context.Background(), a.Project, nil, nil, map[string]string{"a.b": "fp"}, "prod", []string{name}, nil)
			return err
		},
	}
	for name, want := range map[string]string{
		"mart.dialy":  `; did you mean "mart.daily"?`, // a transposition
		"Mart.Daily":  `; did you mean "mart.daily"?`, // case
		"x.y":         "",                             // two edits of three letters: no likely typo
		"mart.hourly": "",                             // five edits: another name, not a typo
	} {
		for path, run := range paths {
			err := run(name)
			if err == nil {
				t.Fatalf("%s %s: no error", path, name)
			}
			msg := err.Error()
			switch {
			case want == "" && strings.Contains(msg, "did you mean"):
				t.Errorf("%s %s: %s; want no suggestion", path, name, msg)
			case want != "" && !strings.HasSuffix(msg, want):
				t.Errorf("%s %s: %s; want it to end with %s", path, name, msg, want)
			}
		}
	}
}
