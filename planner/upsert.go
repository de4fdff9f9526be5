package planner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// Refreshed kinds have no intervals: their query is computed whole (from
// the project's start to now) and merged into the table by key. A build
// creates the table and merges once; every run tick merges again.
//
//   - INCREMENTAL_BY_UNIQUE_KEY: an upsert. Rows of the query replace the
//     table's rows of the same key; keys the query no longer yields stay.
//   - SCD_TYPE_2: a history. The current version of a key (valid_to NULL)
//     is closed at the refresh time when the query's row for the key
//     differs or the key is gone; a new or changed row opens a version
//     valid from the refresh time. An identical row keeps its version and
//     its valid_from.

func refreshed(k project.KindName) bool {
	return k == project.KindIncrementalByUniqueKey || k == project.KindSCDType2
}

// scdColumns returns the names of an SCD_TYPE_2 model's validity columns.
func scdColumns(k project.Kind) (from, to string) {
	from, to = k.ValidFrom, k.ValidTo
	if from == "" {
		from = "valid_from"
	}
	if to == "" {
		to = "valid_to"
	}
	return from, to
}

// refresh merges the whole query of a refreshed model into its table, in
// one engine transaction (retried like a batch: the merge is idempotent
// for a given query result and time).
func (b *builder) refresh(ctx context.Context, info *ModelInfo, opt backfillOptions, at time.Time) error {
	m := info.Model
	if len(m.Kind.Key) == 0 {
		return fmt.Errorf("%s has no key", m.Name)
	}
	q, err := b.Query(info)
	if err != nil {
		return err
	}
	if err := b.checkContract(ctx, info, q); err != nil {
		return err
	}
	cols := declared(m)
	if cols == nil {
		if cols, err = b.wh.Describe(ctx, q); err != nil {
			return err
		}
	}
	rel := PhysicalRelation(b.d, m, b.physFP(info))
	isKey := map[string]bool{}
	for _, k := range m.Kind.Key {
		isKey[strings.ToLower(k)] = true
	}
	var keys []string // the key's columns, spelled as the query yields them
	for _, c := range cols {
		if isKey[strings.ToLower(c.Name)] {
			keys = append(keys, c.Name)
		}
	}
	if len(keys) != len(m.Kind.Key) {
		return fmt.Errorf("%s: key (%s) is not among the query's columns", m.Name, strings.Join(m.Kind.Key, ", "))
	}
	names := namesOf(cols)
	var stmts []string
	switch m.Kind.Name {
	case project.KindIncrementalByUniqueKey:
		stmts = append([]string{b.d.CreateTable(rel, cols)}, b.d.Upsert(rel, names, keys, q)...)
	case project.KindSCDType2:
		vf, vt := scdColumns(m.Kind)
		ts := b.d.TimestampLiteral(at.UTC().Format(time.RFC3339Nano))
		create := b.d.CreateTable(rel, withValidity(m, cols))
		if from, ok := b.copyHistory[m.Name]; ok {
			// The history another environment serves, copied in the
			// transaction of the first merge: a failed merge leaves no copy.
			if create, err = b.copyOfHistory(ctx, m, rel, from, cols); err != nil {
				return err
			}
		}
		stmts = append([]string{create}, b.d.MergeHistory(rel, names, keys, vf, vt, ts, q)...)
	default:
		return &engine.FeatureError{Engine: b.d.Name(), Feature: "refreshing " + string(m.Kind.Name) + " models"}
	}
	return retry(ctx, opt.retries, opt.retryDelay, func() error { return b.wh.Tx(ctx, stmts) })
}

// copyOfHistory is the statement creating rel as a copy of the history
// table named by fingerprint from, in the columns of cols (a column the old
// table lacks is NULL in every old version) and the validity columns.
func (b *builder) copyOfHistory(ctx context.Context, m *project.Model, rel engine.Relation, from string, cols []engine.Column) (string, error) {
	src := b.d.QuoteRelation(PhysicalRelation(b.d, m, from))
	have, err := b.wh.Describe(ctx, "SELECT * FROM "+src)
	if err != nil {
		return "", fmt.Errorf("read the history to copy from %s: %w", src, err)
	}
	has := map[string]bool{}
	for _, c := range have {
		has[strings.ToLower(c.Name)] = true
	}
	var sel []string
	for _, c := range cols {
		n := b.d.Quote(c.Name)
		if has[strings.ToLower(c.Name)] {
			sel = append(sel, n)
		} else {
			sel = append(sel, "CAST(NULL AS "+c.Type+") AS "+n)
		}
	}
	vf, vt := scdColumns(m.Kind)
	sel = append(sel, b.d.Quote(vf), b.d.Quote(vt))
	return b.d.CreateTableAs(rel, "SELECT "+strings.Join(sel, ", ")+" FROM "+src), nil
}

// withValidity appends an SCD_TYPE_2 model's validity columns to the
// columns its children see (its table has them; its query does not).
func withValidity(m *project.Model, cols []engine.Column) []engine.Column {
	if m.Kind.Name != project.KindSCDType2 || cols == nil {
		return cols
	}
	vf, vt := scdColumns(m.Kind)
	out := append([]engine.Column{}, cols...)
	return append(out, engine.Column{Name: vf, Type: "TIMESTAMP"}, engine.Column{Name: vt, Type: "TIMESTAMP"})
}
