package duckdb

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/efmesh/efmesh/engine"
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

// TestDescribeQueueFence checks that a query submitted after Fence sees a
// table created after the queue's connections began their transactions,
// and that a queue answers as Describe does.
func TestDescribeQueueFence(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if err := db.Exec(ctx, "CREATE TABLE a (x INTEGER, y VARCHAR)"); err != nil {
		t.Fatal(err)
	}
	q := db.DescribeQueue(ctx)
	defer q.Close()
	// Enough queries that every connection holds a transaction open.
	var first []engine.PendingColumns
	for range 200 {
		first = append(first, q.Submit("SELECT y, x + 1 AS z FROM a"))
	}
	want := []engine.Column{{Name: "y", Type: "VARCHAR"}, {Name: "z", Type: "INTEGER"}}
	for _, p := range first {
		if cols, err := p.Wait(); err != nil || !reflect.DeepEqual(cols, want) {
			t.Fatalf("got %v, %v; want %v", cols, err, want)
		}
	}
	for i := range 5 {
		table := fmt.Sprintf("b%d", i)
		if err := db.Exec(ctx, "CREATE TABLE "+table+" (d DATE)"); err != nil {
			t.Fatal(err)
		}
		q.Fence()
		var ps []engine.PendingColumns
		for range 20 {
			ps = append(ps, q.Submit("SELECT d FROM "+table))
		}
		for _, p := range ps {
			if cols, err := p.Wait(); err != nil || !reflect.DeepEqual(cols, []engine.Column{{Name: "d", Type: "DATE"}}) {
				t.Fatalf("after the fence: %v, %v", cols, err)
			}
		}
	}
	_, err := q.Submit("SELECT nope FROM a").Wait()
	want2, werr := db.Describe(ctx, "SELECT nope FROM a")
	if err == nil || !reflect.DeepEqual(err, werr) || want2 != nil {
		t.Fatalf("error %#v, want %#v", err, werr)
	}
}

// TestDescribeQueueCancelled checks that a cancelled queue answers what
// it did not bind with the context's error, and that Close returns.
func TestDescribeQueueCancelled(t *testing.T) {
	db := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	q := db.DescribeQueue(ctx)
	cancel()
	p := q.Submit("SELECT 1 AS one")
	q.Close()
	if _, err := p.Wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the context's error", err)
	}
}
