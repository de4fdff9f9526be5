package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/efmesh/efmesh/state"
)

// TryLock takes l in one write transaction: the read of the current holder
// and the takeover cannot interleave with another process's (every write
// transaction takes SQLite's write lock when it begins).
func (s *Store) TryLock(ctx context.Context, l state.Lock, stale func(held state.Lock) bool) (state.Lock, bool, error) {
	l.AcquiredAt = nowIfZero(l.AcquiredAt)
	if l.Name == "" || l.Holder == "" {
		return state.Lock{}, false, fmt.Errorf("state store: lock: empty name or holder")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return state.Lock{}, false, fmt.Errorf("state store: lock %s: %w", l.Name, err)
	}
	defer tx.Rollback() // no-op after Commit
	var (
		held              state.Lock
		acquired, expires string
	)
	err = tx.QueryRowContext(ctx, `SELECT name, holder, host, pid, acquired_at, expires_at FROM locks WHERE name = ?`, l.Name).
		Scan(&held.Name, &held.Holder, &held.Host, &held.PID, &acquired, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return state.Lock{}, false, fmt.Errorf("state store: lock %s: %w", l.Name, err)
	default:
		if held.AcquiredAt, err = parseTime(acquired); err == nil {
			held.ExpiresAt, err = parseTime(expires)
		}
		if err != nil {
			return state.Lock{}, false, fmt.Errorf("state store: lock %s: %w", l.Name, err)
		}
		free := held.Holder == l.Holder || !held.ExpiresAt.After(l.AcquiredAt) || stale != nil && stale(held)
		if !free {
			return held, false, nil
		}
		if held.Holder == l.Holder {
			l.AcquiredAt = held.AcquiredAt
		}
	}
	_, err = tx.ExecContext(ctx, `
		INSERT INTO locks (name, holder, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, host = excluded.host, pid = excluded.pid,
			acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
		l.Name, l.Holder, l.Host, l.PID, formatTime(l.AcquiredAt), formatTime(l.ExpiresAt))
	if err != nil {
		return state.Lock{}, false, fmt.Errorf("state store: lock %s: %w", l.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return state.Lock{}, false, fmt.Errorf("state store: lock %s: %w", l.Name, err)
	}
	return l, true, nil
}

// RefreshLock moves the expiry of name if holder holds it.
func (s *Store) RefreshLock(ctx context.Context, name, holder string, expires time.Time) error {
	res, err := s.db.ExecContext(ctx, `UPDATE locks SET expires_at = ? WHERE name = ? AND holder = ?`,
		formatTime(expires), name, holder)
	return lockResult(res, err, "refresh", name)
}

// Unlock releases name if holder holds it.
func (s *Store) Unlock(ctx context.Context, name, holder string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM locks WHERE name = ? AND holder = ?`, name, holder)
	return lockResult(res, err, "unlock", name)
}

func lockResult(res sql.Result, err error, op, name string) error {
	if err != nil {
		return fmt.Errorf("state store: %s %s: %w", op, name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("state store: %s %s: %w", op, name, err)
	}
	if n == 0 {
		return fmt.Errorf("state store: %s %s: %w", op, name, state.ErrLockLost)
	}
	return nil
}
