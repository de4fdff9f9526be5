package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/efmesh/efmesh/state"
)

// RecordPlan appends r to the plans journal.
func (s *Store) RecordPlan(ctx context.Context, r state.PlanRecord) error {
	if err := recordPlan(ctx, s.db, r); err != nil {
		return fmt.Errorf("state store: %w", err)
	}
	return nil
}

// execer is a pool or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// recordPlan inserts r into the plans journal through ex: alone, or in a
// promotion's transaction.
func recordPlan(ctx context.Context, ex execer, r state.PlanRecord) error {
	if r.ID == "" {
		return fmt.Errorf("record plan for %s: empty id", r.Env)
	}
	_, err := ex.ExecContext(ctx, `
		INSERT INTO plans (id, env, applied_by, created_at, status, summary, error)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.Env, r.AppliedBy, formatTime(nowIfZero(r.CreatedAt)), r.Status, r.Summary, r.Error)
	if err != nil {
		return fmt.Errorf("record plan %s: %w", r.ID, err)
	}
	return nil
}

// Plans returns env's journal, newest first; plans recorded at the same
// instant come newest-recorded first.
func (s *Store) Plans(ctx context.Context, env string, limit int) ([]state.PlanRecord, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT id, env, applied_by, created_at, status, summary, error
		FROM plans WHERE env = ?
		ORDER BY created_at DESC, rowid DESC
		LIMIT ?`, env, limit)
	if err != nil {
		return nil, fmt.Errorf("state store: plans %s: %w", env, err)
	}
	defer rows.Close()
	var out []state.PlanRecord
	for rows.Next() {
		var (
			r       state.PlanRecord
			created string
		)
		if err := rows.Scan(&r.ID, &r.Env, &r.AppliedBy, &created, &r.Status, &r.Summary, &r.Error); err != nil {
			return nil, fmt.Errorf("state store: plans %s: %w", env, err)
		}
		if r.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("state store: plans %s: plan %s: %w", env, r.ID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: plans %s: %w", env, err)
	}
	return out, nil
}
