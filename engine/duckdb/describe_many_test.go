package duckdb

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

// TestDescribeManyMatchesDescribe checks that DescribeMany answers every
// query, columns or error, exactly as Describe does one by one.
func TestDescribeManyMatchesDescribe(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.Exec(ctx, describeSchema); err != nil {
		t.Fatal(err)
	}
	qs := slices.Concat(describeAnswered, describeDeferred)
	// Enough queries for several connections.
	for len(qs) < 300 {
		qs = append(qs, qs[:min(len(qs), 300-len(qs))]...)
	}
	got, gerrs := db.DescribeMany(ctx, qs)
	for i, q := range qs {
		want, werr := db.Describe(ctx, q)
		if !reflect.DeepEqual(got[i], want) || !reflect.DeepEqual(gerrs[i], werr) {
			t.Errorf("%q:\n got %v, %#v\nwant %v, %#v", q, got[i], gerrs[i], want, werr)
		}
	}
	rows, err := db.Query(ctx, "SELECT count(*) FROM u")
	if err != nil || rows.Values[0][0].(int64) != 1 {
		t.Fatalf("describing ran a statement: %v, %v", rows, err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, errs := db.DescribeMany(canceled, []string{"select 1"}); errs[0] == nil {
		t.Fatal("canceled: no error")
	}
}
