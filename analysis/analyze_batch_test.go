package analysis

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// oneByOne is a DuckDB workbench without its batches: every body is
// canonicalized and bound on its own, as before levels were batched.
type oneByOne struct {
	engine.Engine
	engine.Outliner
	db *duckdb.DB
}

func (o oneByOne) Canonicalize(sql string) ([]byte, error) { return o.db.Canonicalize(sql) }

// counted is a DuckDB workbench binding by levels (DescribeMany, no
// queue), counting the bodies it binds in batches.
type counted struct {
	engine.Engine
	engine.Outliner
	db *duckdb.DB
	n  *int
}

func (c counted) Canonicalize(sql string) ([]byte, error) { return c.db.Canonicalize(sql) }
func (c counted) CanonicalizeAll(sqls []string) ([][]byte, []error) {
	return c.db.CanonicalizeAll(sqls)
}

func (c counted) DescribeMany(ctx context.Context, qs []string) ([][]engine.Column, []error) {
	*c.n += len(qs)
	return c.db.DescribeMany(ctx, qs)
}

// queued is the DuckDB workbench as it is, binding along the DAG's
// frontier (DescribeQueue), counting the bodies submitted to its queue.
type queued struct {
	*duckdb.DB
	n *int
}

func (q queued) DescribeQueue(ctx context.Context) engine.DescribeQueue {
	return countedQueue{q.DB.DescribeQueue(ctx), q.n}
}

type countedQueue struct {
	engine.DescribeQueue
	n *int
}

func (c countedQueue) Submit(query string) engine.PendingColumns {
	*c.n++
	return c.DescribeQueue.Submit(query)
}

// batchProject has levels of several models each, with every kind of
// finding a body can have among well-formed siblings: a binder error, a
// contract mismatch, a syntax error, a duplicate column, a child of a
// broken model, children of models of every shape.
func batchProject() map[string]string {
	files := map[string]string{
		"efmesh.yaml":             "name: t\nstart: 2026-01-01\n",
		"models/r.sql":            "MODEL (name s.r, kind FULL, columns (id BIGINT, v TEXT, ts TIMESTAMP));\nSELECT 1::BIGINT AS id, 'x' AS v, TIMESTAMP '2026-01-01' AS ts\n",
		"models/bad_col.sql":      "MODEL (name s.bad_col, kind FULL);\nSELECT idd, v FROM @ref(s.r)\n",
		"models/bad_contract.sql": "MODEL (name s.bad_contract, kind FULL, columns (id TEXT, w TEXT));\nSELECT id, v FROM @ref(s.r)\n",
		"models/bad_syntax.sql":   "MODEL (name s.bad_syntax, kind FULL);\nSELECT id, FROM FROM @ref(s.r)\n",
		"models/dup.sql":          "MODEL (name s.dup, kind FULL);\nSELECT id, id FROM @ref(s.r)\n",
		"models/child_bad.sql":    "MODEL (name s.child_bad, kind FULL);\nSELECT * FROM @ref(s.bad_col)\n",
		"models/inc.sql":          "MODEL (name s.inc, kind INCREMENTAL_BY_TIME_RANGE (time_column ts));\nSELECT id, v, ts FROM @ref(s.r) WHERE ts BETWEEN @start AND @end\n",
		"models/two.sql":          "MODEL (name s.two, kind FULL);\nSELECT a.id, b.n FROM @ref(s.g0) AS a JOIN @ref(s.g1) AS b USING (id)\n",
	}
	for i := range 6 {
		files[fmt.Sprintf("models/g%d.sql", i)] = fmt.Sprintf("MODEL (name s.g%d, kind FULL);\nSELECT id, v, id * %d AS n FROM @ref(s.r)\n", i, i)
		files[fmt.Sprintf("models/h%d.sql", i)] = fmt.Sprintf("MODEL (name s.h%d, kind FULL);\nSELECT n + 1 AS m, v FROM @ref(s.g%d) WHERE id > %d\n", i, i, i)
	}
	return files
}

// TestBatchedCheckIsOneByOne checks that binding a level's bodies in one
// batch, and binding bodies along the DAG's frontier while other models
// are checked, conclude exactly what binding each alone does: columns,
// fingerprints, findings and their places.
func TestBatchedCheckIsOneByOne(t *testing.T) {
	t.Run("levels", func(t *testing.T) { testBatchedCheck(t, false) })
	t.Run("frontier", func(t *testing.T) { testBatchedCheck(t, true) })
}

func testBatchedCheck(t *testing.T, frontier bool) {
	dir := testkit.WriteProject(t, batchProject())
	ctx := context.Background()
	inBatches := 0
	analyze := func(batched bool) *Analysis {
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		db, err := duckdb.Open("")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		var wb Workbench = counted{Engine: db, Outliner: db, db: db, n: &inBatches}
		if frontier {
			wb = queued{db, &inBatches}
		}
		if !batched {
			wb = oneByOne{Engine: db, Outliner: db, db: db}
		}
		a, err := Analyze(ctx, p, wb)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	batched, alone := analyze(true), analyze(false)
	if !batched.BoundInEngine() || !alone.BoundInEngine() {
		t.Fatal("not bound in the engine")
	}
	if len(batched.Models) != len(alone.Models) {
		t.Fatalf("%d models, want %d", len(batched.Models), len(alone.Models))
	}
	for name, want := range alone.Models {
		got := batched.Models[name]
		if got.Fingerprint != want.Fingerprint || got.Broken != want.Broken ||
			!reflect.DeepEqual(got.Columns, want.Columns) || !reflect.DeepEqual(got.Inferred, want.Inferred) ||
			!reflect.DeepEqual(got.Diagnostics, want.Diagnostics) || string(got.Canonical) != string(want.Canonical) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
	if !reflect.DeepEqual(batched.Diagnostics, alone.Diagnostics) {
		t.Errorf("diagnostics:\n got %v\nwant %v", batched.Diagnostics, alone.Diagnostics)
	}
	if !reflect.DeepEqual(batched.Checked, alone.Checked) {
		t.Errorf("checked %v, want %v", batched.Checked, alone.Checked)
	}
	// The findings are there: the comparison above is not of two empty
	// results.
	for _, name := range []string{"s.bad_col", "s.bad_contract", "s.bad_syntax", "s.dup"} {
		if len(batched.Models[name].Diagnostics) == 0 {
			t.Errorf("%s: no finding", name)
		}
	}
	// Every body whose parents are shaped, broken ones included (they are
	// bound again alone): level 1 but the syntax error (10), then the 6
	// children of g… and s.two, not s.child_bad (7); along the frontier,
	// s.r too (a level of one model is not batched, a queue takes it).
	want := 17
	if frontier {
		want = 18
	}
	if inBatches != want {
		t.Errorf("%d bodies bound in batches, want %d", inBatches, want)
	}
	if batched.Models["s.h5"].Columns == nil || batched.Models["s.two"].Fingerprint == "" {
		t.Errorf("the second level was not bound: %+v", batched.Models["s.h5"])
	}
}
