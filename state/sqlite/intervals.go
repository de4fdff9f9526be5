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
