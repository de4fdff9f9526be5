package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/efmesh/efmesh/state"
)

// Intervals returns the ledger of fp ordered by start. Times are stored in
// timeFormat, so text order is time order.
func (s *Store) Intervals(ctx context.Context, fp string) ([]state.Interval, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT "start", "end", status, updated_at FROM intervals
		WHERE fingerprint = ? ORDER BY "start"`, fp)
	if err != nil {
		return nil, fmt.Errorf("state store: intervals %s: %w", fp, err)
	}
	defer rows.Close()
	var out []state.Interval
	for rows.Next() {
		var (
			iv                  state.Interval
			start, end, updated string
		)
		if err := rows.Scan(&start, &end, &iv.Status, &updated); err != nil {
			return nil, fmt.Errorf("state store: intervals %s: %w", fp, err)
		}
		if iv.Start, err = parseTime(start); err == nil {
			if iv.End, err = parseTime(end); err == nil {
				iv.UpdatedAt, err = parseTime(updated)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("state store: intervals %s: %w", fp, err)
		}
		out = append(out, iv)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: intervals %s: %w", fp, err)
	}
	return out, nil
}

// MarkIntervals upserts the records of ivs with status in one transaction.
func (s *Store) MarkIntervals(ctx context.Context, fp string, ivs []state.Interval, status string, at time.Time) error {
	if status != state.IntervalDone && status != state.IntervalFailed {
		return fmt.Errorf("state store: mark intervals %s: bad status %q", fp, status)
	}
	if len(ivs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("state store: mark intervals %s: %w", fp, err)
	}
	defer tx.Rollback() // no-op after Commit
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM snapshots WHERE fingerprint = ?`, fp).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("state store: mark intervals %s: snapshot %w", fp, state.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("state store: mark intervals %s: %w", fp, err)
	}
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO intervals (fingerprint, "start", "end", status, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (fingerprint, "start") DO UPDATE
		SET "end" = excluded."end", status = excluded.status, updated_at = excluded.updated_at`)
	if err != nil {
		return fmt.Errorf("state store: mark intervals %s: %w", fp, err)
	}
	defer stmt.Close()
	when := formatTime(nowIfZero(at))
	for _, iv := range ivs {
		if !iv.End.After(iv.Start) {
			return fmt.Errorf("state store: mark intervals %s: empty interval [%s, %s)", fp, formatTime(iv.Start), formatTime(iv.End))
		}
		if _, err := stmt.ExecContext(ctx, fp, formatTime(iv.Start), formatTime(iv.End), status, when); err != nil {
			return fmt.Errorf("state store: mark intervals %s: %w", fp, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("state store: mark intervals %s: %w", fp, err)
	}
	return nil
}

// ClearIntervals deletes the records of fp overlapping [from, to).
func (s *Store) ClearIntervals(ctx context.Context, fp string, from, to time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, `
		DELETE FROM intervals WHERE fingerprint = ? AND "start" < ? AND "end" > ?`,
		fp, formatTime(to), formatTime(from))
	if err != nil {
		return 0, fmt.Errorf("state store: clear intervals %s: %w", fp, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("state store: clear intervals %s: %w", fp, err)
	}
	return int(n), nil
}

// RecordBuilds writes the records of bs in one transaction.
func (s *Store) RecordBuilds(ctx context.Context, bs []state.BuildRecord) error {
	if len(bs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("state store: record builds: %w", err)
	}
	defer tx.Rollback() // no-op after Commit
	var clear, mark, built *sql.Stmt
	prepare := func(to **sql.Stmt, query string) error {
		if *to != nil {
			return nil
		}
		st, err := tx.PrepareContext(ctx, query)
		if err != nil {
			return err
		}
		*to = st
		return nil
	}
	defer func() {
		for _, st := range []*sql.Stmt{clear, mark, built} {
			if st != nil {
				st.Close()
			}
		}
	}()
	exists, err := tx.PrepareContext(ctx, `SELECT 1 FROM snapshots WHERE fingerprint = ?`)
	if err != nil {
		return fmt.Errorf("state store: record builds: %w", err)
	}
	defer exists.Close()
	for _, b := range bs {
		fail := func(err error) error { return fmt.Errorf("state store: record build %s: %w", b.Fingerprint, err) }
		var one int
		err := exists.QueryRowContext(ctx, b.Fingerprint).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fail(fmt.Errorf("snapshot %w", state.ErrNotFound))
		}
		if err != nil {
			return fail(err)
		}
		when := formatTime(nowIfZero(b.At))
		if b.ClearTo.After(b.ClearFrom) {
			if err := prepare(&clear, `DELETE FROM intervals WHERE fingerprint = ? AND "start" < ? AND "end" > ?`); err != nil {
				return fail(err)
			}
			if _, err := clear.ExecContext(ctx, b.Fingerprint, formatTime(b.ClearTo), formatTime(b.ClearFrom)); err != nil {
				return fail(err)
			}
		}
		for _, iv := range b.Done {
			if !iv.End.After(iv.Start) {
				return fail(fmt.Errorf("empty interval [%s, %s)", formatTime(iv.Start), formatTime(iv.End)))
			}
			if err := prepare(&mark, `
				INSERT INTO intervals (fingerprint, "start", "end", status, updated_at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (fingerprint, "start") DO UPDATE
				SET "end" = excluded."end", status = excluded.status, updated_at = excluded.updated_at`); err != nil {
				return fail(err)
			}
			if _, err := mark.ExecContext(ctx, b.Fingerprint, formatTime(iv.Start), formatTime(iv.End), state.IntervalDone, when); err != nil {
				return fail(err)
			}
		}
		if b.Built {
			if err := prepare(&built, `UPDATE snapshots SET built_at = ? WHERE fingerprint = ?`); err != nil {
				return fail(err)
			}
			if _, err := built.ExecContext(ctx, when, b.Fingerprint); err != nil {
				return fail(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("state store: record builds: %w", err)
	}
	return nil
}
