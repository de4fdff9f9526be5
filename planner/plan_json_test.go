package planner

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/efmesh/efmesh/analysis"
)

// TestModelPlanJSON: a plan line's parts (Incremental, Edit, Inheritance,
// History, Refilling, Presence, Coverage) are one flat JSON object in the
// order of the --json contract, ranges as RFC 3339 pairs; a line without
// a backfill says so with an empty list; the JSON reads back into the
// same line (the no-op digest keeps plans so).
func TestModelPlanJSON(t *testing.T) {
	full := ModelPlan{Name: "m.a", Kind: "INCREMENTAL_BY_TIME_RANGE", Change: ForwardOnly, Fingerprint: "f2", Previous: "f1", Build: false, PhysicalTable: "_efmesh.m__a__f1",
		Incremental: Incremental{Backfill: []analysis.Range{{Start: day(1), End: day(3)}}, Intervals: 2},
		Cause:       []string{"m.p"}, Explain: []string{"why"},
		Edit:             Edit{Diff: []analysis.ClauseChange{{Clause: "SELECT", Old: "a", New: "a, b"}}, Paths: []string{"select[1]"}, Rebinds: []string{"m.c: *"}},
		Inheritance:      Inheritance{ReusedFrom: "f1", AddsColumns: []string{"b"}, Retyped: []Retype{{Column: "c", From: "INTEGER", To: "BIGINT"}}, SharedWith: []string{"prod"}},
		ReclassifiedFrom: NonBreaking, Warnings: []Warning{{Code: "w", Message: "m"}},
		History:   History{RebuildsHistory: true, CopiesHistoryFrom: "_efmesh.m__a__f0"},
		Refilling: Refilling{Refill: []string{"m.r"}, RefillWhy: RefillRestated},
		Redacted:  []string{"ssn"},
		Presence:  Presence{Missing: true, Reason: "gone", Differs: true, StaleView: "dev__m.a"},
		Coverage:  Coverage{Covered: []analysis.Range{{Start: day(3), End: day(5)}}, CoveredIn: []string{"qa"}},
	}
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"m.a","kind":"INCREMENTAL_BY_TIME_RANGE","change":"forward-only","fingerprint":"f2","previous":"f1","build":false,"physicalTable":"_efmesh.m__a__f1",` +
		`"backfill":[["2026-01-01T00:00:00Z","2026-01-03T00:00:00Z"]],"intervals":2,"cause":["m.p"],"explain":["why"],` +
		`"diff":[{"clause":"SELECT","old":"a","new":"a, b"}],"paths":["select[1]"],"rebinds":["m.c: *"],` +
		`"reusedFrom":"f1","addsColumns":["b"],"retyped":[{"column":"c","from":"INTEGER","to":"BIGINT"}],"sharedWith":["prod"],` +
		`"reclassifiedFrom":"non-breaking","warnings":[{"code":"w","message":"m"}],"rebuildsHistory":true,"copiesHistoryFrom":"_efmesh.m__a__f0",` +
		`"refill":["m.r"],"refillWhy":"restated","redacted":["ssn"],"missing":true,"reason":"gone","differs":true,"staleView":"dev__m.a",` +
		`"covered":[["2026-01-03T00:00:00Z","2026-01-05T00:00:00Z"]],"coveredIn":["qa"]}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	var back ModelPlan
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, full) {
		t.Errorf("read back %+v (%v)", back, err)
	}

	b, err = json.Marshal(ModelPlan{Name: "m.b", Change: Unchanged, Explain: []string{}})
	if err != nil || string(b) != `{"name":"m.b","kind":"","change":"unchanged","fingerprint":"","build":false,"backfill":[],"explain":[]}` {
		t.Errorf("a line without a backfill: %s (%v)", b, err)
	}
}
