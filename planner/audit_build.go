package planner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// --- where apply and run call audits ----------------------------------------

// intervalAudits are the audits of m checked on each written interval.
func (b *builder) intervalAudits(m *project.Model) []Audit {
	var audits []Audit
	for _, au := range ModelAudits(b.a.Project, m) {
		if au.onInterval(m) {
			audits = append(audits, au)
		}
	}
	return audits
}

// wholeAudits are the audits of m checked on its whole physical relation
// when it is written (every kind but INCREMENTAL_BY_TIME_RANGE, and whole
// audits of those).
func (b *builder) wholeAudits(m *project.Model) []Audit {
	var audits []Audit
	for _, au := range ModelAudits(b.a.Project, m) {
		if au.beforePromotion(m) {
			audits = append(audits, au)
		}
	}
	return audits
}

// writeAudited runs the statements of one write (an interval's batch, a
// merge, a refill) and the audits that guard it as one unit: the audits
// read this (the written relation, or the batch's slice of it) inside the
// write's transaction, and a blocking failure rolls the write back, so
// readers never see rows a blocking audit rejected. The error is then an
// *AuditFailure. An engine without CheckedTx commits first and audits
// after (the caller still refuses to count the write as done).
func (b *builder) writeAudited(ctx context.Context, m *project.Model, stmts []string, audits []Audit, this string, r *analysis.Range, log *slog.Logger) error {
	check := func(q engine.Querier) error {
		if len(audits) == 0 {
			return nil
		}
		ad := b.auditor(log)
		ad.wh = q
		_, err := ad.run(ctx, m, audits, this, r)
		return err
	}
	if ct, ok := b.wh.(engine.CheckedTx); ok && len(audits) > 0 {
		return ct.TxCheck(ctx, stmts, check)
	}
	var err error
	if len(stmts) == 1 {
		err = b.wh.Exec(ctx, stmts[0]) // one statement is one transaction
	} else {
		err = b.wh.Tx(ctx, stmts)
	}
	if err != nil {
		return err
	}
	return check(b.wh)
}

// auditInterval checks the audits of m scoped to written intervals on one
// interval (or batch) already written; this selects exactly its rows. The
// error is an *AuditFailure when a blocking audit failed: the caller marks
// the interval failed instead of done.
func (b *builder) auditInterval(ctx context.Context, info *analysis.ModelInfo, this string, r analysis.Range, log *slog.Logger) error {
	audits := b.intervalAudits(info.Model)
	if len(audits) == 0 {
		return nil
	}
	_, err := b.auditor(log).run(ctx, info.Model, audits, this, &r)
	return err
}

// auditFile is auditInterval over one written parquet partition.
func (b *builder) auditFile(ctx context.Context, info *analysis.ModelInfo, path string, r analysis.Range, log *slog.Logger) error {
	q, err := b.wh.(engine.FileReader).ReadFiles(engine.FileSpec{Paths: []string{path}, Format: "parquet"})
	if err != nil {
		return err
	}
	return b.auditInterval(ctx, info, "(\n"+q+"\n)", r, log)
}

func (b *builder) auditor(log *slog.Logger) *auditor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &auditor{proj: b.a.Project, wh: b.wh, d: b.d, log: log, ref: func(name string) (string, error) {
		pi := b.a.Models[name]
		if pi == nil {
			return "", fmt.Errorf("unknown model %s", name)
		}
		if pi.Model.Kind.Name.Virtual() {
			return b.inline(pi, map[string]bool{})
		}
		return b.d.QuoteRelation(analysis.PhysicalRelation(b.d, pi.Model, b.physFP(pi))), nil
	}}
}

// auditBuilt checks the whole-relation audits of a model right after it
// was built, for the writes that did not audit inside their own
// transaction (views, parquet targets), before it counts as built. The
// error is an *AuditFailure when a blocking audit failed.
func (b *builder) auditBuilt(ctx context.Context, info *analysis.ModelInfo, log *slog.Logger) error {
	m := info.Model
	audits := b.wholeAudits(m)
	if len(audits) == 0 {
		return nil
	}
	_, err := b.auditor(log).run(ctx, m, audits, b.d.QuoteRelation(analysis.PhysicalRelation(b.d, m, b.physFP(info))), nil)
	return err
}

// auditMetadataOnly runs the audits a metadata-only change adds or changes
// (or a promotion of a built snapshot stored with other audits) on the
// data the model's snapshot already holds, nothing having been
// rebuilt: an audit checked on the whole relation runs on it, one checked
// on written intervals (INCREMENTAL_BY_TIME_RANGE) runs on each batch of
// the done intervals of the ledger. A blocking violation is an
// *AuditFailure naming the model, the audit and the count: the apply
// stops before promotion.
func auditMetadataOnly(ctx context.Context, p *Plan, b *builder, st state.Reader, log *slog.Logger) error {
	var failed []AuditResult
	collect := func(err error) error {
		var af *AuditFailure
		if errors.As(err, &af) {
			failed = append(failed, af.Results...)
			return nil
		}
		return err
	}
	for _, mp := range p.Models {
		texts := p.newAudits[mp.Name]
		info := p.analysis.Models[mp.Name]
		if len(texts) == 0 || info == nil || info.Model.Kind.Name == project.KindEmbedded {
			continue // embedded models are audited before promotion
		}
		m := info.Model
		var whole, intervals []Audit
		for _, au := range ModelAudits(p.analysis.Project, m) {
			switch {
			case !slices.Contains(texts, au.Text):
			case au.onInterval(m):
				intervals = append(intervals, au)
			default:
				whole = append(whole, au)
			}
		}
		this := b.d.QuoteRelation(analysis.PhysicalRelation(b.d, m, b.physFP(info)))
		if m.Kind.Name == project.KindExternal {
			q, err := b.Query(info)
			if err != nil {
				return &BuildError{Model: mp.Name, File: m.File, Err: err}
			}
			this = "(\n" + q + "\n)"
		}
		if len(whole) > 0 {
			if _, err := b.auditor(log).run(ctx, m, whole, this, nil); collect(err) != nil {
				return err
			}
		}
		if len(intervals) == 0 {
			continue
		}
		done, err := st.Intervals(ctx, mp.Fingerprint)
		if err != nil {
			return err
		}
		g := analysis.GrainOf(m)
		for _, r := range doneRanges(done) {
			for _, batch := range g.Batches(r, m.Kind.BatchSize) {
				start, end := b.d.TimestampLiteral(batch.Start.UTC().Format(time.RFC3339)), b.d.TimestampLiteral(batch.End.UTC().Format(time.RFC3339))
				slice := "(SELECT * FROM " + this + " WHERE " + engine.RangeCondition(m.Kind.TimeColumn, start, end) + ")"
				if _, err := b.auditor(log).run(ctx, m, intervals, slice, &batch); collect(err) != nil {
					return err
				}
			}
		}
	}
	if len(failed) > 0 {
		return &AuditFailure{Results: failed}
	}
	return nil
}

// doneRanges merges the done intervals of a ledger into maximal ranges.
func doneRanges(ivs []state.Interval) []analysis.Range {
	var out []analysis.Range
	for _, iv := range ivs {
		if iv.Status != state.IntervalDone {
			continue
		}
		if n := len(out); n > 0 && !iv.Start.After(out[n-1].End) {
			if iv.End.After(out[n-1].End) {
				out[n-1].End = iv.End
			}
			continue
		}
		out = append(out, analysis.Range{Start: iv.Start, End: iv.End})
	}
	return out
}

// beforePromotion is what stands between a successful build and the view
// swap of an apply. Built models were audited as they were built; virtual
// models (EMBEDDED, EXTERNAL), which are never built, are audited here as
// the subquery their consumers inline, when their version changes. Then every snapshot the
// environment will point at is reserved against the janitor.
func beforePromotion(ctx context.Context, p *Plan, b *builder, st state.Store, res *ApplyResult, log *slog.Logger) error {
	var failed []AuditResult
	for _, mp := range p.Models {
		info := p.analysis.Models[mp.Name]
		if mp.Change == Removed || mp.Change == Unchanged || info == nil || !info.Model.Kind.Name.Virtual() {
			continue
		}
		audits := ModelAudits(p.analysis.Project, info.Model)
		if len(audits) == 0 {
			continue
		}
		q, err := b.Query(info)
		if err != nil {
			return &BuildError{Model: mp.Name, File: info.Model.File, Err: err}
		}
		_, err = b.auditor(log).run(ctx, info.Model, audits, "(\n"+q+"\n)", nil)
		var af *AuditFailure
		switch {
		case errors.As(err, &af):
			failed = append(failed, af.Results...)
		case err != nil:
			return err
		}
	}
	if len(failed) > 0 {
		return &AuditFailure{Results: failed}
	}
	// The janitor's claim and this reservation exclude each other (see
	// janitor.go): past this point no snapshot of the plan can be removed.
	var fps []string
	for _, mp := range p.Models {
		if mp.Change != Removed {
			fps = append(fps, mp.Fingerprint)
		}
	}
	if err := st.Reserve(ctx, fps, b.now.Add(ReserveLease)); err != nil {
		if errors.Is(err, state.ErrNotFound) {
			return fmt.Errorf("the janitor removed a snapshot of this plan while it was applied; plan again: %w", err)
		}
		return err
	}
	return nil
}
