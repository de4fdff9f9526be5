package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/efmesh/efmesh/state"
)

// TryLock takes l in one transaction. A held lock's row is read FOR UPDATE,
// so the check of its holder (and stale's verdict) and the takeover cannot
// interleave with another process's, on this machine or another; a free
// lock is inserted with ON CONFLICT DO NOTHING, so of two processes
// inserting it at once one wins and the other reads the winner's row on its
// next pass. Rules as in the SQLite store: re-entry by the holder moves the
// expiry; an expired lock, or one whose holder stale reports gone, is taken
// over. Expiry compares the callers' clocks (l.AcquiredAt against the
// ExpiresAt the holder wrote), never the server's.
func (s *Store) TryLock(ctx context.Context, l state.Lock, stale func(held state.Lock) bool) (state.Lock, bool, error) {
	l.AcquiredAt = nowIfZero(l.AcquiredAt)
	if l.Name == "" || l.Holder == "" {
		return state.Lock{}, false, fmt.Errorf("state store: lock: empty name or holder")
	}
	// Each pass that neither finds nor inserts the row lost a race with an
	// insert and an unlock between its two statements; a few are plenty.
	const passes = 10
	for range passes {
		var (
			held state.Lock
			ok   bool
			done bool
		)
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			var err error
			held, ok, done, err = s.tryLock(ctx, tx, l, stale)
			return err
		})
		if err != nil {
			return state.Lock{}, false, fmt.Errorf("state store: lock %s: %w", l.Name, err)
		}
		if done {
			return held, ok, nil
		}
	}
	return state.Lock{}, false, fmt.Errorf("state store: lock %s: still contended after %d attempts", l.Name, passes)
}

// tryLock is one pass of TryLock; done is false when it must be retried.
// The transaction commits whatever the outcome: a refusal wrote nothing.
func (s *Store) tryLock(ctx context.Context, tx pgx.Tx, l state.Lock, stale func(state.Lock) bool) (held state.Lock, ok, done bool, err error) {
	err = tx.QueryRow(ctx, s.q(`
		SELECT name, holder, host, pid, acquired_at, expires_at FROM {s}.locks WHERE name = $1 FOR UPDATE`), l.Name).
		Scan(&held.Name, &held.Holder, &held.Host, &held.PID, &held.AcquiredAt, &held.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		tag, err := tx.Exec(ctx, s.q(`
			INSERT INTO {s}.locks (name, holder, host, pid, acquired_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (name) DO NOTHING`),
			l.Name, l.Holder, l.Host, l.PID, l.AcquiredAt, l.ExpiresAt)
		if err != nil {
			return state.Lock{}, false, false, err
		}
		return l, true, tag.RowsAffected() == 1, nil
	}
	if err != nil {
		return state.Lock{}, false, false, err
	}
	free := held.Holder == l.Holder || !held.ExpiresAt.After(l.AcquiredAt) || stale != nil && stale(held)
	if !free {
		return held, false, true, nil
	}
	if held.Holder == l.Holder {
		l.AcquiredAt = held.AcquiredAt
	}
	_, err = tx.Exec(ctx, s.q(`
		UPDATE {s}.locks SET holder = $2, host = $3, pid = $4, acquired_at = $5, expires_at = $6 WHERE name = $1`),
		l.Name, l.Holder, l.Host, l.PID, l.AcquiredAt, l.ExpiresAt)
	if err != nil {
		return state.Lock{}, false, false, err
	}
	return l, true, true, nil
}

// RefreshLock moves the expiry of name if holder holds it.
func (s *Store) RefreshLock(ctx context.Context, name, holder string, expires time.Time) error {
	tag, err := s.pool.Exec(ctx, s.q(`UPDATE {s}.locks SET expires_at = $1 WHERE name = $2 AND holder = $3`),
		expires, name, holder)
	return lockResult(tag, err, "refresh", name)
}

// Unlock releases name if holder holds it.
func (s *Store) Unlock(ctx context.Context, name, holder string) error {
	tag, err := s.pool.Exec(ctx, s.q(`DELETE FROM {s}.locks WHERE name = $1 AND holder = $2`), name, holder)
	return lockResult(tag, err, "unlock", name)
}

func lockResult(tag pgconn.CommandTag, err error, op, name string) error {
	if err != nil {
		return fmt.Errorf("state store: %s %s: %w", op, name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("state store: %s %s: %w", op, name, state.ErrLockLost)
	}
	return nil
}
