package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/efmesh/efmesh/state"
)

// Environment returns env's pointers keyed by model; empty for an unknown env.
func (s *Store) Environment(ctx context.Context, env string) (map[string]state.Pointer, error) {
	rows, err := s.pool.Query(ctx, s.q(`
		SELECT model, fingerprint, updated_at FROM {s}.environments WHERE env = $1`), env)
	if err != nil {
		return nil, fmt.Errorf("state store: environment %s: %w", env, err)
	}
	defer rows.Close()
	out := map[string]state.Pointer{}
	for rows.Next() {
		var p state.Pointer
		if err := rows.Scan(&p.Model, &p.Fingerprint, &p.UpdatedAt); err != nil {
			return nil, fmt.Errorf("state store: environment %s: %w", env, err)
		}
		out[p.Model] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: environment %s: %w", env, err)
	}
	return out, nil
}

// Environments lists, sorted bytewise as in the SQLite store, the
// environments that have a pointer.
func (s *Store) Environments(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, s.q(`SELECT DISTINCT env COLLATE "C" AS env FROM {s}.environments ORDER BY 1`))
	if err != nil {
		return nil, fmt.Errorf("state store: environments: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("state store: environments: %w", err)
	}
	return out, nil
}

// Promote replaces env's pointers and journals the promotion in one
// transaction: readers see the old set or the new one, never a mix.
// Promotions of one environment queue on a transaction-scoped advisory lock,
// so that two of them at once both apply, one after the other, as in the
// SQLite store (without it, the second one's inserts would collide with the
// first one's rows, which its delete did not see).
func (s *Store) Promote(ctx context.Context, p state.Promotion) error {
	if p.Env == "" {
		return fmt.Errorf("state store: promote: empty environment name")
	}
	if err := s.write(ctx, func(tx pgx.Tx) error { return s.promote(ctx, tx, p) }); err != nil {
		// A snapshot the janitor removed while this promotion waited on its
		// row: the foreign key says so.
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23503" {
			return fmt.Errorf("state store: promote %s: snapshot %w (removed meanwhile)", p.Env, state.ErrNotFound)
		}
		return fmt.Errorf("state store: promote %s: %w", p.Env, err)
	}
	return nil
}

func (s *Store) promote(ctx context.Context, tx pgx.Tx, p state.Promotion) error {
	pointers := p.Pointers
	if pointers == nil {
		pointers = map[string]string{}
	}
	models := slices.Sorted(maps.Keys(pointers))
	fps := make([]string, len(models))
	for i, m := range models {
		fps[i] = pointers[m]
	}
	at := nowIfZero(p.At)

	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
		fmt.Sprintf("efmesh promote %s/%s", s.schema, p.Env)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, s.q(`DELETE FROM {s}.environments WHERE env = $1`), p.Env); err != nil {
		return err
	}
	// Joining snapshots inserts nothing for an unknown fingerprint: a
	// clearer error than the foreign key's, found below.
	tag, err := tx.Exec(ctx, s.q(`
		INSERT INTO {s}.environments (env, model, fingerprint, updated_at)
		SELECT $1, m.model, sn.fingerprint, $2
		FROM unnest($3::text[], $4::text[]) AS m (model, fingerprint)
		JOIN {s}.snapshots sn ON sn.fingerprint = m.fingerprint`),
		p.Env, at, models, fps)
	if err != nil {
		return err
	}
	if int(tag.RowsAffected()) != len(models) {
		return s.missingSnapshot(ctx, tx, models, fps)
	}
	// The orphan marks: what env points at now is referenced; what lost
	// its last pointer starts the janitor's ttl now. Only referenced
	// snapshots have no mark, so the second statement looks at those.
	if _, err := tx.Exec(ctx, s.q(`
		UPDATE {s}.snapshots SET orphaned_at = NULL
		WHERE fingerprint = ANY ($1) AND orphaned_at IS NOT NULL`), fps); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, s.q(`
		UPDATE {s}.snapshots sn SET orphaned_at = $1
		WHERE sn.orphaned_at IS NULL
		  AND NOT EXISTS (SELECT 1 FROM {s}.environments e WHERE e.fingerprint = sn.fingerprint)`), at); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, s.q(`
		INSERT INTO {s}.promotions (env, plan_id, applied_by, at, pointers) VALUES ($1, $2, $3, $4, $5)`),
		p.Env, p.PlanID, p.AppliedBy, at, pointers); err != nil {
		return err
	}
	if p.Record != nil {
		return s.recordPlan(ctx, tx, *p.Record)
	}
	return nil
}

// missingSnapshot reports the first model, in sorted order as in the SQLite
// store, whose fingerprint names no stored snapshot.
func (s *Store) missingSnapshot(ctx context.Context, tx pgx.Tx, models, fps []string) error {
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
	for i, fp := range fps {
		if !known[fp] {
			return fmt.Errorf("%s -> %s: snapshot %w", models[i], fp, state.ErrNotFound)
		}
	}
	return fmt.Errorf("inserted fewer pointers than the %d given", len(models)) // cannot happen
}
