package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/efmesh/efmesh/state"
)

var _ state.EnvVersioned = (*Store)(nil)

// EnvironmentVersion is one read of aggregates over what a plan of env
// reads. Each write the store makes moves one of them: a promotion adds a
// promotions row; an apply of env, finished or failed, a plans row (so a
// definition rewritten by an apply that failed before promoting counts); pointers are rewritten with a new updated_at (a
// fingerprint migration changes the snapshots' versions); a built mark, a
// definition or a new snapshot moves the snapshots' count, maximum rowid,
// built marks or versions; the janitor's deletions the counts; every
// interval write a count or the latest updated_at.
func (s *Store) EnvironmentVersion(ctx context.Context, env string) (string, error) {
	var (
		promo, plans, ptrs, snaps, snapMax, built, intervals int64
		ptrAt, builtAt, intervalAt                           sql.NullString
		fpMin, fpMax                                         sql.NullInt64
	)
	err := s.db.QueryRowContext(ctx, `
		SELECT
			(SELECT coalesce(max(id), 0) FROM promotions WHERE env = ?1),
			(SELECT count(*) FROM plans WHERE env = ?1),
			(SELECT count(*) FROM environments WHERE env = ?1),
			(SELECT max(updated_at) FROM environments WHERE env = ?1),
			(SELECT count(*) FROM snapshots),
			(SELECT coalesce(max(rowid), 0) FROM snapshots),
			(SELECT count(built_at) FROM snapshots),
			(SELECT max(built_at) FROM snapshots),
			(SELECT min(fingerprint_version) FROM snapshots),
			(SELECT max(fingerprint_version) FROM snapshots),
			(SELECT count(*) FROM intervals),
			(SELECT max(updated_at) FROM intervals)`, env).
		Scan(&promo, &plans, &ptrs, &ptrAt, &snaps, &snapMax, &built, &builtAt, &fpMin, &fpMax, &intervals, &intervalAt)
	if err != nil {
		return "", fmt.Errorf("state: version of environment %s: %w", env, err)
	}
	return fmt.Sprintf("sqlite/%d/%d/%d/%s/%d/%d/%d/%s/%d-%d/%d/%s", promo, plans, ptrs, ptrAt.String, snaps, snapMax, built,
		builtAt.String, fpMin.Int64, fpMax.Int64, intervals, intervalAt.String), nil
}
