package postgres

import (
	"context"
	"fmt"

	"github.com/efmesh/efmesh/state"
)

var _ state.EnvVersioned = (*Store)(nil)

// EnvironmentVersion is one read of aggregates over what a plan of env
// reads, as the SQLite store's: a promotion of env adds a promotions row
// and rewrites the pointers with a new updated_at; an apply of env,
// finished or failed, adds a plans row; the snapshots' count, the hash of
// their fingerprints, versions, built and orphaned marks move with a new
// snapshot, a deletion, a renaming migration, a restamped version or a
// built mark (PostgreSQL has no rowid to stand for them, and the server
// reads a few thousand short columns in a millisecond); every interval
// write the intervals' count or latest updated_at. Nothing of a
// snapshot's blobs is read.
func (s *Store) EnvironmentVersion(ctx context.Context, env string) (string, error) {
	var (
		promo, plans, ptrs, snaps, intervals int64
		ptrAt, intervalAt, snapHash          string
	)
	err := s.pool.QueryRow(ctx, s.q(`
		SELECT
			(SELECT coalesce(max(id), 0) FROM {s}.promotions WHERE env = $1),
			(SELECT count(*) FROM {s}.plans WHERE env = $1),
			(SELECT count(*) FROM {s}.environments WHERE env = $1),
			(SELECT coalesce(max(updated_at)::text, '') FROM {s}.environments WHERE env = $1),
			(SELECT count(*) FROM {s}.snapshots),
			(SELECT md5(coalesce(string_agg(fingerprint || ':' || fingerprint_version || ':' ||
				coalesce(built_at::text, '') || ':' || coalesce(orphaned_at::text, ''), ',' ORDER BY fingerprint), ''))
				FROM {s}.snapshots),
			(SELECT count(*) FROM {s}.intervals),
			(SELECT coalesce(max(updated_at)::text, '') FROM {s}.intervals)`), env).
		Scan(&promo, &plans, &ptrs, &ptrAt, &snaps, &snapHash, &intervals, &intervalAt)
	if err != nil {
		return "", fmt.Errorf("state: version of environment %s: %w", env, err)
	}
	return fmt.Sprintf("postgres/%d/%d/%d/%s/%d/%s/%d/%s", promo, plans, ptrs, ptrAt, snaps, snapHash, intervals, intervalAt), nil
}
