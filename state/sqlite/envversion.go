package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/efmesh/efmesh/state"
)

var _ state.EnvVersioned = (*Store)(nil)

// EnvironmentVersion is one read of aggregates over what a plan of env
// reads, each cheap (no column behind a snapshot's blobs is read). Each
// write that matters moves one of them: a promotion of env adds a
// promotions row and rewrites the pointers with a new updated_at; an apply
// of env, finished or failed, adds a plans row (so a definition or a built
// mark written by an apply that failed before promoting counts); a new
// snapshot moves the snapshots' count and maximum rowid, the janitor's
// deletions the count, a fingerprint migration that renames snapshots the
// maximum rowid; every interval write (apply, run, restate) the intervals'
// count or latest updated_at. Not seen: a migration that only restamps the
// fingerprint version of snapshots it keeps; it comes with another efmesh
// binary, which a cache of a plan must stamp itself.
func (s *Store) EnvironmentVersion(ctx context.Context, env string) (string, error) {
	var (
		promo, plans, ptrs, snaps, snapMax, intervals int64
		ptrAt, intervalAt                             sql.NullString
	)
	err := s.db.QueryRowContext(ctx, `
		SELECT
			(SELECT coalesce(max(id), 0) FROM promotions WHERE env = ?1),
			(SELECT count(*) FROM plans WHERE env = ?1),
			(SELECT count(*) FROM environments WHERE env = ?1),
			(SELECT max(updated_at) FROM environments WHERE env = ?1),
			(SELECT count(*) FROM snapshots),
			(SELECT coalesce(max(rowid), 0) FROM snapshots),
			(SELECT count(*) FROM intervals),
			(SELECT max(updated_at) FROM intervals)`, env).
		Scan(&promo, &plans, &ptrs, &ptrAt, &snaps, &snapMax, &intervals, &intervalAt)
	if err != nil {
		return "", fmt.Errorf("state: version of environment %s: %w", env, err)
	}
	return fmt.Sprintf("sqlite/%d/%d/%d/%s/%d/%d/%d/%s", promo, plans, ptrs, ptrAt.String, snaps, snapMax, intervals, intervalAt.String), nil
}
