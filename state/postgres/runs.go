package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/efmesh/efmesh/state"
)

// RecordRun appends r to the runs journal.
func (s *Store) RecordRun(ctx context.Context, r state.Run) error {
	if r.ID == "" {
		return fmt.Errorf("state store: record run for %s: empty id", r.Env)
	}
	detail := string(r.Detail)
	if detail == "" {
		detail = "{}"
	}
	var finished *time.Time // NULL while a tick is started
	if r.Outcome != state.RunStarted {
		f := nowIfZero(r.FinishedAt)
		finished = &f
	}
	tag, err := s.exec(ctx, s.q(`
		INSERT INTO {s}.runs AS old (id, env, started_at, finished_at, outcome, detail) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET finished_at = excluded.finished_at, outcome = excluded.outcome, detail = excluded.detail
		WHERE old.outcome = 'started' AND old.env = excluded.env`),
		r.ID, r.Env, nowIfZero(r.StartedAt), finished, r.Outcome, detail)
	if err != nil {
		return fmt.Errorf("state store: record run %s: %w", r.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("state store: record run %s: already recorded", r.ID)
	}
	return nil
}

// Runs returns env's ticks, newest first; ticks started at the same instant
// come newest-recorded first.
func (s *Store) Runs(ctx context.Context, env string, limit int) ([]state.Run, error) {
	rows, err := s.pool.Query(ctx, s.q(`
		SELECT id, env, started_at, finished_at, outcome, detail FROM {s}.runs
		WHERE env = $1 ORDER BY started_at DESC, seq DESC LIMIT $2`), env, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("state store: runs %s: %w", env, err)
	}
	defer rows.Close()
	var out []state.Run
	for rows.Next() {
		var (
			r        state.Run
			finished *time.Time
			detail   string
		)
		if err := rows.Scan(&r.ID, &r.Env, &r.StartedAt, &finished, &r.Outcome, &detail); err != nil {
			return nil, fmt.Errorf("state store: runs %s: %w", env, err)
		}
		r.FinishedAt = orZero(finished)
		r.Detail = []byte(detail)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: runs %s: %w", env, err)
	}
	return out, nil
}
