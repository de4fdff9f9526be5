package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/efmesh/efmesh/state"
)

// Environment returns env's pointers keyed by model; empty for an unknown env.
func (s *Store) Environment(ctx context.Context, env string) (map[string]state.Pointer, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT model, fingerprint, updated_at FROM environments WHERE env = ?`, env)
	if err != nil {
		return nil, fmt.Errorf("state store: environment %s: %w", env, err)
	}
	defer rows.Close()
	out := map[string]state.Pointer{}
	for rows.Next() {
		var (
			p       state.Pointer
			updated string
		)
		if err := rows.Scan(&p.Model, &p.Fingerprint, &updated); err != nil {
			return nil, fmt.Errorf("state store: environment %s: %w", env, err)
		}
		if p.UpdatedAt, err = parseTime(updated); err != nil {
			return nil, fmt.Errorf("state store: environment %s: %s: %w", env, p.Model, err)
		}
		out[p.Model] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: environment %s: %w", env, err)
	}
	return out, nil
}

// Environments lists, sorted, the environments that have a pointer.
func (s *Store) Environments(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT env FROM environments ORDER BY env`)
	if err != nil {
		return nil, fmt.Errorf("state store: environments: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var env string
		if err := rows.Scan(&env); err != nil {
			return nil, fmt.Errorf("state store: environments: %w", err)
		}
		out = append(out, env)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: environments: %w", err)
	}
	return out, nil
}

// Promote replaces env's pointers and journals the promotion in one
// transaction: readers see the old set or the new one, never a mix.
func (s *Store) Promote(ctx context.Context, p state.Promotion) error {
	if p.Env == "" {
		return fmt.Errorf("state store: promote: empty environment name")
	}
	if err := s.promote(ctx, p); err != nil {
		return fmt.Errorf("state store: promote %s: %w", p.Env, err)
	}
	return nil
}

func (s *Store) promote(ctx context.Context, p state.Promotion) error {
	pointers := p.Pointers
	if pointers == nil {
		pointers = map[string]string{}
	}
	journal, err := json.Marshal(pointers) // encoding/json sorts the keys
	if err != nil {
		return err
	}
	at := formatTime(nowIfZero(p.At))

	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // no-op after Commit

	if _, err := tx.ExecContext(ctx, `DELETE FROM environments WHERE env = ?`, p.Env); err != nil {
		return err
	}
	// One statement for every pointer (the journal's JSON, expanded by
	// json_each), not a round trip per model. Joining snapshots inserts
	// nothing for an unknown fingerprint: a clearer error than the
	// foreign key's, naming the first such model in name order.
	res, err := tx.ExecContext(ctx, `
		INSERT INTO environments (env, model, fingerprint, updated_at)
		SELECT ?, p.key, s.fingerprint, ? FROM json_each(?) AS p JOIN snapshots AS s ON s.fingerprint = p.value`,
		p.Env, at, string(journal))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != int64(len(pointers)) {
		var model, fp string
		if err := tx.QueryRowContext(ctx, `
			SELECT p.key, p.value FROM json_each(?) AS p
			WHERE NOT EXISTS (SELECT 1 FROM snapshots AS s WHERE s.fingerprint = p.value)
			ORDER BY p.key LIMIT 1`, string(journal)).Scan(&model, &fp); err != nil {
			return fmt.Errorf("%d of %d pointers name no stored snapshot: %w", int64(len(pointers))-n, len(pointers), err)
		}
		return fmt.Errorf("%s -> %s: snapshot %w", model, fp, state.ErrNotFound)
	}
	// The orphan marks: what env points at now is referenced; what lost
	// its last pointer starts the janitor's ttl now. Only referenced
	// snapshots have no mark, so the second statement looks at those.
	if _, err := tx.ExecContext(ctx, `
		UPDATE snapshots SET orphaned_at = NULL
		WHERE fingerprint IN (SELECT fingerprint FROM environments WHERE env = ?)`, p.Env); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `
		UPDATE snapshots SET orphaned_at = ?
		WHERE orphaned_at IS NULL
		  AND NOT EXISTS (SELECT 1 FROM environments e WHERE e.fingerprint = snapshots.fingerprint)`, at); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO promotions (env, plan_id, applied_by, at, pointers) VALUES (?, ?, ?, ?, ?)`,
		p.Env, p.PlanID, p.AppliedBy, at, string(journal)); err != nil {
		return err
	}
	if p.Record != nil {
		if err := recordPlan(ctx, tx, *p.Record); err != nil {
			return err
		}
	}
	return tx.Commit()
}
