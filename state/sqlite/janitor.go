package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/efmesh/efmesh/state"
)

// Usage lists every snapshot with its orphan mark, ordered by fingerprint.
func (s *Store) Usage(ctx context.Context) ([]state.SnapshotUsage, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT fingerprint, name, kind, physical_table, parents, created_at, orphaned_at
		FROM snapshots ORDER BY fingerprint`)
	if err != nil {
		return nil, fmt.Errorf("state store: usage: %w", err)
	}
	defer rows.Close()
	var out []state.SnapshotUsage
	for rows.Next() {
		var (
			u                state.SnapshotUsage
			parents, created string
			orphaned         sql.NullString
		)
		if err := rows.Scan(&u.Fingerprint, &u.Name, &u.Kind, &u.PhysicalTable, &parents, &created, &orphaned); err != nil {
			return nil, fmt.Errorf("state store: usage: %w", err)
		}
		if err := json.Unmarshal([]byte(parents), &u.Parents); err != nil {
			return nil, fmt.Errorf("state store: usage: snapshot %s: parents: %w", u.Fingerprint, err)
		}
		if u.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("state store: usage: snapshot %s: %w", u.Fingerprint, err)
		}
		if orphaned.Valid {
			if u.OrphanedAt, err = parseTime(orphaned.String); err != nil {
				return nil, fmt.Errorf("state store: usage: snapshot %s: %w", u.Fingerprint, err)
			}
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: usage: %w", err)
	}
	return out, nil
}

// Reserve moves the orphan mark of the unreferenced snapshots among fps to
// until, in one transaction that fails on a missing fingerprint. Two set
// statements over fps as a JSON array (json_each), not a round trip per
// snapshot: a promotion reserves thousands at once.
func (s *Store) Reserve(ctx context.Context, fps []string, until time.Time) error {
	if len(fps) == 0 {
		return nil
	}
	fps = state.Unique(fps)
	list, err := json.Marshal(fps)
	if err != nil {
		return fmt.Errorf("state store: reserve: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("state store: reserve: %w", err)
	}
	defer tx.Rollback() // no-op after Commit
	var n int
	if err := tx.QueryRowContext(ctx, `
		SELECT count(*) FROM snapshots WHERE fingerprint IN (SELECT value FROM json_each(?))`, string(list)).Scan(&n); err != nil {
		return fmt.Errorf("state store: reserve: %w", err)
	}
	if n != len(fps) {
		var missing string
		if err := tx.QueryRowContext(ctx, `
			SELECT p.value FROM json_each(?) AS p
			WHERE NOT EXISTS (SELECT 1 FROM snapshots AS s WHERE s.fingerprint = p.value)
			ORDER BY p.key LIMIT 1`, string(list)).Scan(&missing); err != nil {
			return fmt.Errorf("state store: reserve: %d of %d snapshots are not stored: %w", len(fps)-n, len(fps), err)
		}
		return fmt.Errorf("state store: reserve %s: snapshot %w", missing, state.ErrNotFound)
	}
	if _, err := tx.ExecContext(ctx, `
		UPDATE snapshots SET orphaned_at = max(orphaned_at, ?)
		WHERE orphaned_at IS NOT NULL AND fingerprint IN (SELECT value FROM json_each(?))`,
		formatTime(nowIfZero(until)), string(list)); err != nil {
		return fmt.Errorf("state store: reserve: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("state store: reserve: %w", err)
	}
	return nil
}

// RemoveSnapshots deletes, in one transaction, the snapshots among fps that
// are still unreferenced and orphaned at or before cutoff. The ledger goes
// with them (ON DELETE CASCADE); a referenced one could not go anyway (the
// environments' foreign key).
func (s *Store) RemoveSnapshots(ctx context.Context, fps []string, cutoff time.Time) ([]string, error) {
	removed := []string{}
	if len(fps) == 0 {
		return removed, nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("state store: remove snapshots: %w", err)
	}
	defer tx.Rollback() // no-op after Commit
	limit := formatTime(cutoff)
	for len(fps) > 0 {
		chunk := fps[:min(len(fps), maxParams)]
		fps = fps[len(chunk):]
		args := []any{limit}
		for _, fp := range chunk {
			args = append(args, fp)
		}
		rows, err := tx.QueryContext(ctx, `
			DELETE FROM snapshots
			WHERE orphaned_at IS NOT NULL AND orphaned_at <= ?
			  AND fingerprint IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)
			  AND NOT EXISTS (SELECT 1 FROM environments e WHERE e.fingerprint = snapshots.fingerprint)
			RETURNING fingerprint`, args...)
		if err != nil {
			return nil, fmt.Errorf("state store: remove snapshots: %w", err)
		}
		for rows.Next() {
			var fp string
			if err := rows.Scan(&fp); err != nil {
				rows.Close()
				return nil, fmt.Errorf("state store: remove snapshots: %w", err)
			}
			removed = append(removed, fp)
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("state store: remove snapshots: %w", err)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("state store: remove snapshots: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("state store: remove snapshots: %w", err)
	}
	return removed, nil
}
