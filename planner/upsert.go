package planner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
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

// refresh merges the whole query of a refreshed model into its table, in
// one engine transaction (retried like a batch: the merge is idempotent
// for a given query result and time).
func (b *builder) refresh(ctx context.Context, info *analysis.ModelInfo, opt backfillOptions, at time.Time) error {
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
	cols := analysis.Declared(m)
	if cols == nil {
		if cols, err = b.wh.Describe(ctx, q); err != nil {
			return err
		}
	}
	rel := analysis.PhysicalRelation(b.d, m, b.physFP(info))
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
	if err := b.uniqueKeys(ctx, m, keys, q); err != nil {
		return err
	}
	names := namesOf(cols)
	var stmts []string
	switch m.Kind.Name {
	case project.KindIncrementalByUniqueKey:
		stmts = append([]string{b.d.CreateTable(rel, cols)}, b.d.Upsert(rel, names, keys, q)...)
	case project.KindSCDType2:
		vf, vt := analysis.SCDColumns(m.Kind)
		ts := b.d.TimestampLiteral(at.UTC().Format(time.RFC3339Nano))
		create := b.d.CreateTable(rel, analysis.WithValidity(m, cols))
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
	stmts = b.aroundRebuild(m, rel, stmts)
	// The merge and the audits of the whole table are one transaction: a
	// blocking violation rolls the merge back, and the rows served before
	// stay.
	this := b.d.QuoteRelation(rel)
	return retry(ctx, opt.retries, opt.retryDelay, func() error {
		return b.writeAudited(ctx, m, stmts, b.wholeAudits(m), this, nil, opt.log)
	})
}

// copyOfHistory is the statement creating rel as a copy of the history
// table named by fingerprint from, in the columns of cols (a column the old
// table lacks is NULL in every old version) and the validity columns.
func (b *builder) copyOfHistory(ctx context.Context, m *project.Model, rel engine.Relation, from string, cols []engine.Column) (string, error) {
	src := b.d.QuoteRelation(analysis.PhysicalRelation(b.d, m, from))
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
	vf, vt := analysis.SCDColumns(m.Kind)
	sel = append(sel, b.d.Quote(vf), b.d.Quote(vt))
	return b.d.CreateTableAs(rel, "SELECT "+strings.Join(sel, ", ")+" FROM "+src), nil
}

// DuplicateKeyError is a refreshed model whose query yields several rows
// for one key: a merge would store them all (several open versions of a
// key in a history). Nothing was written.
type DuplicateKeyError struct {
	Model   string
	Key     []string
	Keys    int64    // how many keys have more than one row
	Samples []string // the first few, e.g. k=a (3 rows)
}

func (e *DuplicateKeyError) Error() string {
	s := fmt.Sprintf("%s: key (%s) is not unique in the query's rows: %d key(s) have several rows, e.g. %s", e.Model, strings.Join(e.Key, ", "), e.Keys, strings.Join(e.Samples, ", "))
	if e.Keys > int64(len(e.Samples)) {
		s += ", …"
	}
	return s + "; nothing was merged (make the query yield one row per key)"
}

// uniqueKeys checks that q yields at most one row per key, before any
// merge writes: it names up to three duplicated keys with their counts.
func (b *builder) uniqueKeys(ctx context.Context, m *project.Model, keys []string, q string) error {
	qk := make([]string, len(keys))
	for i, k := range keys {
		qk[i] = b.d.Quote(k)
	}
	list := strings.Join(qk, ", ")
	rows, err := b.wh.Query(ctx, "SELECT count(*) OVER () AS _efmesh_n, "+list+", count(*) AS _efmesh_rows FROM (\n"+q+"\n) AS _efmesh_q GROUP BY "+list+
		" HAVING count(*) > 1 ORDER BY count(*) DESC, "+list+" LIMIT 3")
	if err != nil {
		return err
	}
	if len(rows.Values) == 0 {
		return nil
	}
	e := &DuplicateKeyError{Model: m.Name, Key: keys, Keys: toInt64(rows.Values[0][0])}
	for _, row := range rows.Values {
		var parts []string
		for i, k := range keys {
			parts = append(parts, k+"="+formatValue(row[1+i]))
		}
		e.Samples = append(e.Samples, fmt.Sprintf("%s (%d rows)", strings.Join(parts, ", "), toInt64(row[len(row)-1])))
	}
	return e
}
