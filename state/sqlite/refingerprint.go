package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/efmesh/efmesh/state"
)

var _ state.FingerprintMigrator = (*Store)(nil)

// FingerprintVersions lists the distinct fingerprint versions stored.
func (s *Store) FingerprintVersions(ctx context.Context) ([]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT fingerprint_version FROM snapshots ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("state store: fingerprint versions: %w", err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("state store: fingerprint versions: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Refingerprint renames snapshots in one transaction: a new row is the old
// one under its new identity, pointers and ledger records move to it, the
// old row goes.
func (s *Store) Refingerprint(ctx context.Context, rs []state.Refingerprint) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("state store: refingerprint: %w", err)
	}
	defer tx.Rollback() // no-op after Commit
	for _, r := range rs {
		parents := r.Parents
		if parents == nil {
			parents = map[string]string{}
		}
		pj, err := json.Marshal(parents)
		if err != nil {
			return fmt.Errorf("state store: refingerprint %s: %w", r.From, err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM snapshots WHERE fingerprint = ?`, r.From).Scan(&n); err != nil {
			return fmt.Errorf("state store: refingerprint %s: %w", r.From, err)
		} else if n == 0 {
			return fmt.Errorf("state store: refingerprint %s: snapshot %w", r.From, state.ErrNotFound)
		}
		if r.To == r.From {
			if _, err := tx.ExecContext(ctx, `UPDATE snapshots SET fingerprint_version = ?, own_hash = ?, parents = ? WHERE fingerprint = ?`,
				r.Version, r.OwnHash, string(pj), r.From); err != nil {
				return fmt.Errorf("state store: refingerprint %s: %w", r.From, err)
			}
			continue
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM snapshots WHERE fingerprint = ?`, r.To).Scan(&n); err != nil {
			return fmt.Errorf("state store: refingerprint %s: %w", r.From, err)
		} else if n > 0 {
			return fmt.Errorf("state store: refingerprint %s: %s is stored already", r.From, r.To)
		}
		for _, stmt := range []struct {
			q    string
			args []any
		}{
			{`INSERT INTO snapshots (fingerprint, fingerprint_version, name, kind, physical_table, own_hash,
			                         parents, canonical, definition, created_at, built_at, orphaned_at)
			  SELECT ?, ?, name, kind, physical_table, ?, ?, canonical, definition, created_at, built_at, orphaned_at
			  FROM snapshots WHERE fingerprint = ?`, []any{r.To, r.Version, r.OwnHash, string(pj), r.From}},
			{`UPDATE environments SET fingerprint = ? WHERE fingerprint = ?`, []any{r.To, r.From}},
			{`UPDATE intervals SET fingerprint = ? WHERE fingerprint = ?`, []any{r.To, r.From}},
			{`DELETE FROM snapshots WHERE fingerprint = ?`, []any{r.From}},
		} {
			if _, err := tx.ExecContext(ctx, stmt.q, stmt.args...); err != nil {
				return fmt.Errorf("state store: refingerprint %s: %w", r.From, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("state store: refingerprint: %w", err)
	}
	return nil
}

// Backup copies the store to a new file at path (consistent, WAL content
// included); an existing file at path is an error, never overwritten.
func (s *Store) Backup(ctx context.Context, path string) error {
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("back up %s to %s: %w", s.path, path, err)
	}
	return nil
}
