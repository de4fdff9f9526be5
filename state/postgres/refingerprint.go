package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/state"
)

var _ state.FingerprintMigrator = (*Store)(nil)

// FingerprintVersions lists the distinct fingerprint versions stored.
func (s *Store) FingerprintVersions(ctx context.Context) ([]int, error) {
	rows, err := s.pool.Query(ctx, s.q(`SELECT DISTINCT fingerprint_version FROM {s}.snapshots ORDER BY 1`))
	if err != nil {
		return nil, fmt.Errorf("state store: fingerprint versions: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, fmt.Errorf("state store: fingerprint versions: %w", err)
	}
	return out, nil
}

// Refingerprint renames snapshots in one transaction: a new row is the old
// one under its new identity, pointers and ledger records move to it, the
// old row goes.
func (s *Store) Refingerprint(ctx context.Context, rs []state.Refingerprint) error {
	err := s.write(ctx, func(tx pgx.Tx) error {
		for _, r := range rs {
			parents := r.Parents
			if parents == nil {
				parents = map[string]string{}
			}
			var n int
			if err := tx.QueryRow(ctx, s.q(`SELECT count(*) FROM {s}.snapshots WHERE fingerprint = $1`), r.From).Scan(&n); err != nil {
				return err
			} else if n == 0 {
				return fmt.Errorf("%s: snapshot %w", r.From, state.ErrNotFound)
			}
			if r.To == r.From {
				if _, err := tx.Exec(ctx, s.q(`UPDATE {s}.snapshots SET fingerprint_version = $1, own_hash = $2, parents = $3 WHERE fingerprint = $4`),
					r.Version, r.OwnHash, parents, r.From); err != nil {
					return err
				}
				continue
			}
			if err := tx.QueryRow(ctx, s.q(`SELECT count(*) FROM {s}.snapshots WHERE fingerprint = $1`), r.To).Scan(&n); err != nil {
				return err
			} else if n > 0 {
				return fmt.Errorf("%s: %s is stored already", r.From, r.To)
			}
			for _, stmt := range []struct {
				q    string
				args []any
			}{
				{`INSERT INTO {s}.snapshots (fingerprint, fingerprint_version, name, kind, physical_table, own_hash,
				                             parents, canonical, definition, created_at, built_at, orphaned_at)
				  SELECT $1, $2, name, kind, physical_table, $3, $4, canonical, definition, created_at, built_at, orphaned_at
				  FROM {s}.snapshots WHERE fingerprint = $5`, []any{r.To, r.Version, r.OwnHash, parents, r.From}},
				{`UPDATE {s}.environments SET fingerprint = $1 WHERE fingerprint = $2`, []any{r.To, r.From}},
				{`UPDATE {s}.intervals SET fingerprint = $1 WHERE fingerprint = $2`, []any{r.To, r.From}},
				{`DELETE FROM {s}.snapshots WHERE fingerprint = $1`, []any{r.From}},
			} {
				if _, err := tx.Exec(ctx, s.q(stmt.q), stmt.args...); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("state store: refingerprint: %w", err)
	}
	return nil
}
