package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/state"
)

// Usage lists every snapshot with its orphan mark, ordered by fingerprint
// bytewise, as in the SQLite store.
func (s *Store) Usage(ctx context.Context) ([]state.SnapshotUsage, error) {
	rows, err := s.pool.Query(ctx, s.q(`
		SELECT fingerprint, name, kind, physical_table, parents, created_at, orphaned_at
		FROM {s}.snapshots ORDER BY fingerprint COLLATE "C"`))
	if err != nil {
		return nil, fmt.Errorf("state store: usage: %w", err)
	}
	defer rows.Close()
	var out []state.SnapshotUsage
	for rows.Next() {
		var (
			u        state.SnapshotUsage
			orphaned *time.Time
		)
		if err := rows.Scan(&u.Fingerprint, &u.Name, &u.Kind, &u.PhysicalTable, &u.Parents, &u.CreatedAt, &orphaned); err != nil {
			return nil, fmt.Errorf("state store: usage: %w", err)
		}
		u.OrphanedAt = orZero(orphaned)
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: usage: %w", err)
	}
	return out, nil
}

// Reserve moves the orphan mark of the unreferenced snapshots among fps to
// until, in one transaction that fails on a missing fingerprint. The
// update locks the rows: a janitor's claim waits for it and then sees the
// new mark; a reservation that waited on a claim finds the row gone.
func (s *Store) Reserve(ctx context.Context, fps []string, until time.Time) error {
	if len(fps) == 0 {
		return nil
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, s.q(`
			UPDATE {s}.snapshots SET orphaned_at = greatest(orphaned_at, $2)
			WHERE fingerprint = ANY ($1) AND orphaned_at IS NOT NULL`), fps, nowIfZero(until)); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, s.q(`SELECT fingerprint FROM {s}.snapshots WHERE fingerprint = ANY ($1)`), fps)
		if err != nil {
			return err
		}
		stored, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		known := make(map[string]bool, len(stored))
		for _, fp := range stored {
			known[fp] = true
		}
		for _, fp := range fps {
			if !known[fp] {
				return fmt.Errorf("%s: snapshot %w", fp, state.ErrNotFound)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("state store: reserve: %w", err)
	}
	return nil
}

// RemoveSnapshots claims and deletes, in one transaction, the snapshots
// among fps still unreferenced and orphaned at or before cutoff. The rows
// are locked first (a promotion pointing at one holds a key-share lock on
// it until it commits), then the delete re-checks, in a statement that
// sees what committed meanwhile, that nothing points at them.
func (s *Store) RemoveSnapshots(ctx context.Context, fps []string, cutoff time.Time) ([]string, error) {
	removed := []string{}
	if len(fps) == 0 {
		return removed, nil
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, s.q(`
			SELECT fingerprint FROM {s}.snapshots
			WHERE fingerprint = ANY ($1) AND orphaned_at IS NOT NULL AND orphaned_at <= $2
			ORDER BY fingerprint FOR UPDATE`), fps, cutoff)
		if err != nil {
			return err
		}
		locked, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(locked) == 0 {
			return nil
		}
		rows, err = tx.Query(ctx, s.q(`
			DELETE FROM {s}.snapshots sn
			WHERE sn.fingerprint = ANY ($1) AND sn.orphaned_at IS NOT NULL AND sn.orphaned_at <= $2
			  AND NOT EXISTS (SELECT 1 FROM {s}.environments e WHERE e.fingerprint = sn.fingerprint)
			RETURNING sn.fingerprint`), locked, cutoff)
		if err != nil {
			return err
		}
		removed, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("state store: remove snapshots: %w", err)
	}
	if removed == nil {
		removed = []string{}
	}
	return removed, nil
}
