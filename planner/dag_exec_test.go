package planner

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
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
	if err := runDAG(context.Background(), p, todo, 3, nil, f("")); err != nil {
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
	err := runDAG(context.Background(), p, todo, 3, nil, f("m.b"))
	if err == nil || err.Error() != "boom" {
		t.Fatalf("err = %v", err)
	}
	if _, ran := started["m.d"]; ran {
		t.Error("m.d ran although its parent m.b failed")
	}

	// A run tick keeps going: what does not read the failed model runs,
	// what does is skipped and names it.
	finished, started = map[string]time.Time{}, map[string]time.Time{}
	keep := &runOutcome{}
	if err := runDAG(context.Background(), p, todo, 3, keep, f("m.b")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"m.a", "m.c", "m.e"} {
		if _, ran := finished[name]; !ran {
			t.Errorf("%s did not run although it does not read m.b", name)
		}
	}
	if _, ran := started["m.d"]; ran {
		t.Error("m.d ran although its parent m.b failed")
	}
	if len(keep.Failed) != 1 || keep.Failed[0].Model != "m.b" || keep.Failed[0].Error != "boom" {
		t.Errorf("failed = %+v", keep.Failed)
	}
	if len(keep.Skipped) != 1 || keep.Skipped[0] != (SkippedModel{Model: "m.d", Parent: "m.b"}) {
		t.Errorf("skipped = %+v", keep.Skipped)
	}
}

func TestForEachBatch(t *testing.T) {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var batches []analysis.Range
	for i := range 12 {
		batches = append(batches, analysis.Range{Start: day.AddDate(0, 0, i), End: day.AddDate(0, 0, i+1)})
	}

	// Four workers: the first four batches are in flight together (each
	// waits until all four have started), and every batch runs once.
	var mu sync.Mutex
	seen := map[time.Time]int{}
	inFlight := make(chan struct{}, len(batches))
	all4 := make(chan struct{})
	var once sync.Once
	err := forEachBatch(context.Background(), batches, 4, func(r analysis.Range) error {
		mu.Lock()
		seen[r.Start]++
		mu.Unlock()
		inFlight <- struct{}{}
		if len(inFlight) >= 4 {
			once.Do(func() { close(all4) })
		}
		select {
		case <-all4:
		case <-time.After(10 * time.Second):
			return errors.New("batches did not run side by side")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(batches) {
		t.Fatalf("%d batches ran, want %d", len(seen), len(batches))
	}
	for s, n := range seen {
		if n != 1 {
			t.Fatalf("batch %s ran %d times", s, n)
		}
	}

	// A failure stops the batches not yet started and is returned.
	boom := errors.New("boom")
	ran := 0
	err = forEachBatch(context.Background(), batches, 2, func(r analysis.Range) error {
		mu.Lock()
		ran++
		mu.Unlock()
		if r.Start.Equal(batches[1].Start) {
			return boom
		}
		time.Sleep(time.Millisecond)
		return nil
	})
	if !errors.Is(err, boom) || ran >= len(batches) {
		t.Fatalf("after a failure: err %v, %d of %d batches ran", err, ran, len(batches))
	}

	// One job: in order.
	var order []time.Time
	if err := forEachBatch(context.Background(), batches, 1, func(r analysis.Range) error {
		order = append(order, r.Start)
		return nil
	}); err != nil || len(order) != len(batches) || !order[0].Equal(day) || !order[11].Equal(batches[11].Start) {
		t.Fatalf("sequential: %v %v", err, order)
	}
}
