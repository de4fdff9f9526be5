package planner

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestRunDAG(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/a.sql": "MODEL (name m.a);\nSELECT 1 AS x",
		"models/b.sql": "MODEL (name m.b);\nSELECT x FROM @ref(m.a)",
		"models/c.sql": "MODEL (name m.c);\nSELECT x FROM @ref(m.a)",
		"models/d.sql": "MODEL (name m.d);\nSELECT b.x FROM @ref(m.b) AS b JOIN @ref(m.c) AS c USING (x)",
		"models/e.sql": "MODEL (name m.e);\nSELECT 2 AS y",
	})
	mustClean(t, a)
	p := &Plan{analysis: a}
	var todo []ModelPlan
	for _, m := range a.Project.Models {
		todo = append(todo, ModelPlan{Name: m.Name})
	}

	var mu sync.Mutex
	finished := map[string]time.Time{}
	started := map[string]time.Time{}
	running, peak := 0, 0
	f := func(fail string) func(context.Context, ModelPlan) error {
		return func(ctx context.Context, mp ModelPlan) error {
			mu.Lock()
			started[mp.Name] = time.Now()
			running++
			peak = max(peak, running)
			mu.Unlock()
			time.Sleep(30 * time.Millisecond)
			mu.Lock()
			running--
			finished[mp.Name] = time.Now()
			mu.Unlock()
			if mp.Name == fail {
				return errors.New("boom")
			}
			return nil
		}
	}
	if err := runDAG(context.Background(), p, todo, 3, f("")); err != nil {
		t.Fatal(err)
	}
	for child, parents := range map[string][]string{"m.b": {"m.a"}, "m.c": {"m.a"}, "m.d": {"m.b", "m.c"}} {
		for _, parent := range parents {
			if started[child].Before(finished[parent]) {
				t.Errorf("%s started before its parent %s finished", child, parent)
			}
		}
	}
	if peak < 2 {
		t.Errorf("independent models never ran side by side (peak %d)", peak)
	}

	// A failure stops what depends on it.
	finished, started = map[string]time.Time{}, map[string]time.Time{}
	err := runDAG(context.Background(), p, todo, 3, f("m.b"))
	if err == nil || err.Error() != "boom" {
		t.Fatalf("err = %v", err)
	}
	if _, ran := started["m.d"]; ran {
		t.Error("m.d ran although its parent m.b failed")
	}
}
