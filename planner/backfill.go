package planner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// IntervalsError reports the intervals of a model whose write failed after
// every retry. They are marked failed in the ledger; the others of the
// same backfill were still computed.
type IntervalsError struct {
	Model  string
	Failed []analysis.Range
	Err    error // the first failure
}

func (e *IntervalsError) Error() string {
	return fmt.Sprintf("%s: %d interval(s) failed: %s: %v", e.Model, len(e.Failed), e.ranges(), e.Err)
}

// ranges lists the failed intervals.
func (e *IntervalsError) ranges() string {
	// Adjacent failures read as one range, and a long list is cut: a
	// year of failed days is one line, not a screenful.
	failed := slices.SortedFunc(slices.Values(e.Failed), func(a, b analysis.Range) int { return a.Start.Compare(b.Start) })
	var merged []analysis.Range
	for _, r := range failed {
		if n := len(merged); n > 0 && !r.Start.After(merged[n-1].End) {
			if r.End.After(merged[n-1].End) {
				merged[n-1].End = r.End
			}
			continue
		}
		merged = append(merged, r)
	}
	const most = 5
	var rs []string
	for i, r := range merged {
		if i == most {
			rs = append(rs, fmt.Sprintf("and %d more range(s)", len(merged)-most))
			break
		}
		rs = append(rs, r.String())
	}
	return strings.Join(rs, ", ")
}

func (e *IntervalsError) Unwrap() error { return e.Err }

// backfillOptions are the parts of ApplyOptions a backfill uses.
type backfillOptions struct {
	retries    int
	retryDelay time.Duration
	progress   func(model string, batch, batches int, r analysis.Range)
	failed     func(model string, r analysis.Range, err error)
	now        func() time.Time
	log        *slog.Logger // audit warnings
	// jobs is how many batches of one model run at once, each its own
	// transaction on its own connection (batches cover disjoint ranges).
	jobs int
}

// report tells the caller how a settled batch went: progress for a
// committed one, failed for one marked failed.
func (opt backfillOptions) report(model string, k, n int, r analysis.Range, err error) {
	switch {
	case err == nil && opt.progress != nil:
		opt.progress(model, k, n, r)
	case err != nil && opt.failed != nil:
		opt.failed(model, r, err)
	}
}

// forEachBatch runs f over batches, on up to jobs goroutines, in order
// when jobs <= 1. The first error stops what has not started and is
// returned once the running batches are done.
func forEachBatch(ctx context.Context, batches []analysis.Range, jobs int, f func(analysis.Range) error) error {
	if jobs <= 1 || len(batches) <= 1 {
		for _, r := range batches {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := f(r); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan analysis.Range)
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range min(jobs, len(batches)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				if err := f(r); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
	fed := 0
feed:
	for _, r := range batches {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- r:
			fed++
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	if fed < len(batches) {
		return ctx.Err()
	}
	return nil
}

// backfill computes ranges of an INCREMENTAL_BY_TIME_RANGE snapshot: it
// creates the physical table when missing, then writes batch by batch, each
// batch one engine transaction that deletes the batch's range and inserts
// the query's rows of that range (so a batch re-run after a crash never
// duplicates). The ledger records each interval done after its batch
// commits, or failed when the write failed after every retry; the other
// batches go on.
func (b *builder) backfill(ctx context.Context, st state.Store, info *analysis.ModelInfo, ranges []analysis.Range, opt backfillOptions) error {
	m := info.Model
	rel := analysis.PhysicalRelation(b.d, m, b.physFP(info))
	q, err := b.Query(info)
	if err != nil {
		return err
	}
	if err := b.checkContract(ctx, info, q); err != nil {
		return err
	}
	cols, err := b.columns(ctx, m, q)
	if err != nil {
		return err
	}
	if err := hasTimeColumn(m, cols); err != nil {
		return err
	}
	if err := b.wh.Tx(ctx, b.aroundRebuild(m, rel, []string{b.d.CreateTable(rel, cols)})); err != nil {
		return fmt.Errorf("create %s: %w", rel, err)
	}

	g := analysis.GrainOf(m)
	var batches []analysis.Range
	for _, r := range ranges {
		batches = append(batches, g.Batches(r, m.Kind.BatchSize)...)
	}
	names := namesOf(cols)
	audits := b.intervalAudits(m)
	committed, err := doneBefore(ctx, st, info.Fingerprint)
	if err != nil {
		return err
	}
	ie := &IntervalsError{Model: m.Name}
	var mu sync.Mutex // guards ie and the progress count
	finished := 0
	one := func(batch analysis.Range) error {
		bb := *b
		bb.interval = &batch
		bq, err := bb.Query(info)
		if err != nil {
			return err
		}
		start, end := b.d.TimestampLiteral(batch.Start.Format(time.RFC3339)), b.d.TimestampLiteral(batch.End.Format(time.RFC3339))
		stmts := b.d.ReplaceRange(rel, names, m.Kind.TimeColumn, start, end, bq)
		// The batch and its audits are one transaction: a blocking
		// violation rolls the batch back (the rows served before stay),
		// and the interval is marked failed instead of done.
		slice := "(SELECT * FROM " + b.d.QuoteRelation(rel) + " WHERE " + engine.RangeCondition(m.Kind.TimeColumn, start, end) + ")"
		err = retry(ctx, opt.retries, opt.retryDelay, func() error {
			return b.writeAudited(ctx, m, stmts, audits, slice, &batch, opt.log)
		})
		mu.Lock()
		defer mu.Unlock()
		if err := settle(ctx, st, info.Fingerprint, intervalsOf(g, batch), batch, err, ie, opt, committed); err != nil {
			return err
		}
		finished++
		opt.report(m.Name, finished, len(batches), batch, err)
		return nil
	}
	if err := forEachBatch(ctx, batches, opt.jobs, one); err != nil {
		return err
	}
	if len(ie.Failed) > 0 {
		return ie
	}
	return nil
}

// namesOf lists the names of cols.
func namesOf(cols []engine.Column) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names
}

func intervalsOf(g analysis.Grain, r analysis.Range) []state.Interval {
	var out []state.Interval
	for _, iv := range g.Intervals(r) {
		out = append(out, state.Interval{Start: iv.Start, End: iv.End})
	}
	return out
}

// retry runs fn, and again up to retries times after a failure, waiting
// delay, then twice as long each time. It stops early when ctx is done.
// A blocking audit's failure is not retried: the same data fails again.
func retry(ctx context.Context, retries int, delay time.Duration, fn func() error) error {
	err := fn()
	var af *AuditFailure
	for i := 0; err != nil && i < retries && !errors.As(err, &af); i++ {
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay << i):
		}
		err = fn()
	}
	return err
}

// hasTimeColumn checks that the model's time column is among its columns:
// every interval's DELETE and filter rely on it.
func hasTimeColumn(m *project.Model, cols []engine.Column) error {
	for _, c := range cols {
		if strings.EqualFold(c.Name, m.Kind.TimeColumn) {
			return nil
		}
	}
	return fmt.Errorf("time_column %s is not a column of %s's query", m.Kind.TimeColumn, m.Name)
}

// doneBefore is the set of fp's intervals the ledger holds done (by start,
// in Unix seconds) before a backfill writes any: a failed batch rolls back
// to them, so they stay done (settle).
func doneBefore(ctx context.Context, st state.Store, fp string) (map[int64]bool, error) {
	ivs, err := st.Intervals(ctx, fp)
	if err != nil {
		return nil, err
	}
	done := make(map[int64]bool, len(ivs))
	for _, iv := range ivs {
		if iv.Status == state.IntervalDone {
			done[iv.Start.Unix()] = true
		}
	}
	return done, nil
}

// settle records one batch's outcome in the ledger: done, or failed and
// collected in ie so the other batches go on. Only a cancelled context (or
// a ledger that cannot be written) stops the backfill.
//
// A failed batch is rolled back, so the warehouse still holds what it held
// before: the intervals of the batch that were done before (committed; a
// lookback or a restate recomputing them) keep their rows and stay done;
// only the others are marked failed. The ledger never says less, nor more,
// than the warehouse holds.
func settle(ctx context.Context, st state.Store, fp string, marks []state.Interval, r analysis.Range, err error, ie *IntervalsError, opt backfillOptions, committed map[int64]bool) error {
	if err == nil {
		// The batch committed: it counts even when the backfill is being
		// stopped, so the ledger never lags behind the table.
		return st.MarkIntervals(context.WithoutCancel(ctx), fp, marks, state.IntervalDone, opt.now().UTC())
	}
	if ctx.Err() != nil {
		return err
	}
	var lost []state.Interval
	for _, iv := range marks {
		if !committed[iv.Start.Unix()] {
			lost = append(lost, iv)
		}
	}
	if len(lost) > 0 {
		_ = st.MarkIntervals(context.WithoutCancel(ctx), fp, lost, state.IntervalFailed, opt.now().UTC())
	}
	ie.Failed = append(ie.Failed, r)
	if ie.Err == nil {
		ie.Err = err
	}
	return nil
}
