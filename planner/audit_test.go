package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
)

func TestModelAudits(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/x.sql": `MODEL (name a.x, kind INCREMENTAL_BY_TIME_RANGE (time_column t),
  audits (not_null(id), warn(per_interval(unique(id))), assert_no_gaps(t), whole(warn(soft)), hard, warn(hard)));
SELECT 1 AS id, TIMESTAMP '2026-01-01' AS t WHERE t >= @start AND t < @end`,
		"audits/soft.sql": "AUDIT (name soft, blocking false);\nSELECT * FROM @this WHERE id < 0",
		"audits/hard.sql": "AUDIT (name hard);\nSELECT * FROM @this WHERE id > 100",
	})
	mustClean(t, a)
	m := a.Project.ByName["a.x"]
	var got []string
	for _, au := range ModelAudits(a.Project, m) {
		got = append(got, fmt.Sprintf("%s:%s blocking=%v scope=%q interval=%v promotion=%v", au.Text, au.Name, au.Blocking, au.Scope, au.onInterval(m), au.beforePromotion(m)))
	}
	want := []string{
		`not_null(id):not_null blocking=true scope="" interval=true promotion=false`,
		`warn(per_interval(unique(id))):unique blocking=false scope="per_interval" interval=true promotion=false`,
		`assert_no_gaps(t):assert_no_gaps blocking=true scope="whole" interval=false promotion=true`,
		`whole(warn(soft)):soft blocking=false scope="whole" interval=false promotion=true`,
		`hard:hard blocking=true scope="" interval=true promotion=false`,
		`warn(hard):hard blocking=false scope="" interval=true promotion=false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audits:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckAuditColumns(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/x.sql": `MODEL (name a.x, audits (not_null(id, nope), unique(id), accepted(kind, 'a'), assert_contiguous(t), assert_no_gaps(id), assert_no_gaps(t, hour), assert_contiguous(id)));
SELECT 1 AS id, 'a' AS kind, TIMESTAMP '2026-01-01' AS t`,
	})
	var got []string
	for _, d := range a.Diagnostics {
		got = append(got, d.String())
	}
	want := []string{
		`models/x.sql:1:26: error: audit not_null: a.x has no column "nope" (it has id, kind, t)`,
		`models/x.sql:1:79: error: assert_contiguous needs an integer column; t is TIMESTAMP`,
		`models/x.sql:1:101: error: assert_no_gaps needs a date or timestamp column; id is INTEGER`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diagnostics:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAuditQueries evaluates every built-in and a custom audit over a small
// relation, as a subquery and as a table.
func TestAuditQueries(t *testing.T) {
	ctx := context.Background()
	a := analyzeFiles(t, map[string]string{
		"models/x.sql": `MODEL (name a.x, kind FULL);
SELECT 1 AS id`,
		"audits/big.sql":   "AUDIT (name big);\nSELECT id FROM @this WHERE id > 3",
		"audits/alias.sql": "AUDIT (name alias);\nSELECT s.id FROM @this s WHERE s.id IN (SELECT id FROM @this WHERE id = 2)",
	})
	wh, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if err := wh.Exec(ctx, `CREATE TABLE t AS SELECT * FROM (VALUES
		(1, 'a', DATE '2026-01-01', TIMESTAMP '2026-01-01 10:00'),
		(2, 'b', DATE '2026-01-02', TIMESTAMP '2026-01-01 11:00'),
		(2, NULL, DATE '2026-01-04', TIMESTAMP '2026-01-01 14:00'),
		(5, 'z', DATE '2026-01-07', NULL)) v(id, kind, d, ts)`); err != nil {
		t.Fatal(err)
	}
	ad := &auditor{proj: a.Project, wh: wh, d: wh.Dialect()}
	m := a.Project.ByName["a.x"]
	for _, c := range []struct {
		au   Audit
		n    int64
		want string
	}{
		{Audit{Name: "not_null", Args: []string{"kind", "ts"}}, 2, "e.g. (id=2, kind=NULL"},
		{Audit{Name: "unique", Args: []string{"id"}}, 1, "e.g. (id=2, copies=2)"},
		{Audit{Name: "unique", Args: []string{"id", "kind"}}, 0, ""},
		{Audit{Name: "accepted", Args: []string{"kind", "a", "b"}}, 1, "kind=z"},
		{Audit{Name: "assert_contiguous", Args: []string{"id"}}, 1, "covered through 2, resumes at 5"},
		{Audit{Name: "assert_no_gaps", Args: []string{"d", "day"}}, 2, "covered through 2026-01-02, resumes at 2026-01-04 (and 1 further gap(s))"},
		{Audit{Name: "assert_no_gaps", Args: []string{"ts", "hour"}}, 1, "covered through 2026-01-01T11:00, resumes at 2026-01-01T14:00"},
		{Audit{Name: "big", custom: a.Project.Audit("big")}, 1, "e.g. (id=5)"},
		{Audit{Name: "alias", custom: a.Project.Audit("alias")}, 2, "e.g. (id=2)"},
	} {
		for _, this := range []string{`"t"`, "(SELECT * FROM t)"} {
			n, detail, err := ad.eval(ctx, m, c.au, this)
			if err != nil || n != c.n || !strings.Contains(detail, c.want) {
				t.Errorf("%s(%v) over %s = %d %q, %v; want %d %q", c.au.Name, c.au.Args, this, n, detail, err, c.n, c.want)
			}
		}
	}
}
