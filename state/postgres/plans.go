package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/state"
)

// RecordPlan appends r to the plans journal.
func (s *Store) RecordPlan(ctx context.Context, r state.PlanRecord) error {
	if err := s.write(ctx, func(tx pgx.Tx) error { return s.recordPlan(ctx, tx, r) }); err != nil {
		return fmt.Errorf("state store: %w", err)
	}
	return nil
}

// recordPlan inserts r into the plans journal in tx: alone, or in a
// promotion's transaction.
func (s *Store) recordPlan(ctx context.Context, tx pgx.Tx, r state.PlanRecord) error {
	if r.ID == "" {
		return fmt.Errorf("record plan for %s: empty id", r.Env)
	}
	_, err := tx.Exec(ctx, s.q(`
		INSERT INTO {s}.plans (id, env, applied_by, created_at, status, summary, error)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`),
		r.ID, r.Env, r.AppliedBy, nowIfZero(r.CreatedAt), r.Status, r.Summary, r.Error)
	if err != nil {
		return fmt.Errorf("record plan %s: %w", r.ID, err)
	}
	return nil
}

// Plans returns env's journal, newest first; plans recorded at the same
// instant come newest-recorded first.
func (s *Store) Plans(ctx context.Context, env string, limit int) ([]state.PlanRecord, error) {
	rows, err := s.pool.Query(ctx, s.q(`
		SELECT id, env, applied_by, created_at, status, summary, error
		FROM {s}.plans WHERE env = $1
		ORDER BY created_at DESC, seq DESC
		LIMIT $2`), env, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("state store: plans %s: %w", env, err)
	}
	defer rows.Close()
	var out []state.PlanRecord
	for rows.Next() {
		var r state.PlanRecord
		if err := rows.Scan(&r.ID, &r.Env, &r.AppliedBy, &r.CreatedAt, &r.Status, &r.Summary, &r.Error); err != nil {
			return nil, fmt.Errorf("state store: plans %s: %w", env, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: plans %s: %w", env, err)
	}
	return out, nil
}

// limitArg is the LIMIT parameter for limit: NULL, no limit, when limit <= 0.
func limitArg(limit int) *int64 {
	if limit <= 0 {
		return nil
	}
	n := int64(limit)
	return &n
}
