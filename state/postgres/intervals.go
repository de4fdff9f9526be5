package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/state"
)

// Intervals returns the ledger of fp ordered by start.
func (s *Store) Intervals(ctx context.Context, fp string) ([]state.Interval, error) {
	rows, err := s.pool.Query(ctx, s.q(`
		SELECT "start", "end", status, updated_at FROM {s}.intervals
		WHERE fingerprint = $1 ORDER BY "start"`), fp)
	if err != nil {
		return nil, fmt.Errorf("state store: intervals %s: %w", fp, err)
	}
	defer rows.Close()
	var out []state.Interval
	for rows.Next() {
		var iv state.Interval
		if err := rows.Scan(&iv.Start, &iv.End, &iv.Status, &iv.UpdatedAt); err != nil {
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
// Times are kept to the microsecond: starts that differ by less are one
// record, the last one given winning, as one start replaces another.
func (s *Store) MarkIntervals(ctx context.Context, fp string, ivs []state.Interval, status string, at time.Time) error {
	if status != state.IntervalDone && status != state.IntervalFailed {
		return fmt.Errorf("state store: mark intervals %s: bad status %q", fp, status)
	}
	if len(ivs) == 0 {
		return nil
	}
	// One row per start: ON CONFLICT cannot update a row twice in one
	// statement.
	var starts, ends []time.Time
	index := map[time.Time]int{}
	for _, iv := range ivs {
		start, end := iv.Start.Truncate(time.Microsecond).UTC(), iv.End.Truncate(time.Microsecond).UTC()
		if !end.After(start) {
			return fmt.Errorf("state store: mark intervals %s: empty interval [%s, %s)", fp, iv.Start.UTC().Format(time.RFC3339Nano), iv.End.UTC().Format(time.RFC3339Nano))
		}
		if i, ok := index[start]; ok {
			ends[i] = end
			continue
		}
		index[start] = len(starts)
		starts, ends = append(starts, start), append(ends, end)
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, s.q(`SELECT 1 FROM {s}.snapshots WHERE fingerprint = $1`), fp).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("snapshot %w", state.ErrNotFound)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, s.q(`
			INSERT INTO {s}.intervals (fingerprint, "start", "end", status, updated_at)
			SELECT $1, iv."start", iv."end", $2, $3
			FROM unnest($4::timestamptz[], $5::timestamptz[]) AS iv ("start", "end")
			ON CONFLICT (fingerprint, "start") DO UPDATE
			SET "end" = excluded."end", status = excluded.status, updated_at = excluded.updated_at`),
			fp, status, nowIfZero(at), starts, ends)
		return err
	})
	if err != nil {
		return fmt.Errorf("state store: mark intervals %s: %w", fp, err)
	}
	return nil
}

// ClearIntervals deletes the records of fp overlapping [from, to).
func (s *Store) ClearIntervals(ctx context.Context, fp string, from, to time.Time) (int, error) {
	tag, err := s.exec(ctx, s.q(`
		DELETE FROM {s}.intervals WHERE fingerprint = $1 AND "start" < $2 AND "end" > $3`),
		fp, to, from)
	if err != nil {
		return 0, fmt.Errorf("state store: clear intervals %s: %w", fp, err)
	}
	return int(tag.RowsAffected()), nil
}

// RecordBuilds writes the records of bs in one transaction and one round
// trip for the writes.
func (s *Store) RecordBuilds(ctx context.Context, bs []state.BuildRecord) error {
	if len(bs) == 0 {
		return nil
	}
	fps := make([]string, 0, len(bs))
	var b pgx.Batch
	for _, r := range bs {
		fps = append(fps, r.Fingerprint)
		at := nowIfZero(r.At)
		if r.ClearTo.After(r.ClearFrom) {
			b.Queue(s.q(`DELETE FROM {s}.intervals WHERE fingerprint = $1 AND "start" < $2 AND "end" > $3`),
				r.Fingerprint, r.ClearTo, r.ClearFrom)
		}
		for _, iv := range r.Done {
			start, end := iv.Start.Truncate(time.Microsecond).UTC(), iv.End.Truncate(time.Microsecond).UTC()
			if !end.After(start) {
				return fmt.Errorf("state store: record build %s: empty interval [%s, %s)", r.Fingerprint,
					iv.Start.UTC().Format(time.RFC3339Nano), iv.End.UTC().Format(time.RFC3339Nano))
			}
			b.Queue(s.q(`
				INSERT INTO {s}.intervals (fingerprint, "start", "end", status, updated_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (fingerprint, "start") DO UPDATE
				SET "end" = excluded."end", status = excluded.status, updated_at = excluded.updated_at`),
				r.Fingerprint, start, end, state.IntervalDone, at)
		}
		if r.Built {
			b.Queue(s.q(`UPDATE {s}.snapshots SET built_at = $1 WHERE fingerprint = $2`), at, r.Fingerprint)
		}
	}
	fps = state.Unique(fps)
	err := s.write(ctx, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, s.q(`SELECT count(*) FROM {s}.snapshots WHERE fingerprint = ANY($1)`), fps).Scan(&n); err != nil {
			return err
		}
		if n != len(fps) {
			rows, err := tx.Query(ctx, s.q(`SELECT fingerprint FROM {s}.snapshots WHERE fingerprint = ANY($1)`), fps)
			if err != nil {
				return err
			}
			have, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			known := map[string]bool{}
			for _, fp := range have {
				known[fp] = true
			}
			for _, fp := range fps {
				if !known[fp] {
					return fmt.Errorf("%s: snapshot %w", fp, state.ErrNotFound)
				}
			}
		}
		if b.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, &b).Close()
	})
	if err != nil {
		return fmt.Errorf("state store: record builds: %w", err)
	}
	return nil
}
