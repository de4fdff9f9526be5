package sqlite

import (
	"context"
	"database/sql"
	"fmt"

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
	var finished any // NULL while a tick is started
	if r.Outcome != state.RunStarted {
		finished = formatTime(nowIfZero(r.FinishedAt))
	}
	res, err := s.db.ExecContext(ctx, `
		INSERT INTO runs (id, env, started_at, finished_at, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET finished_at = excluded.finished_at, outcome = excluded.outcome, detail = excluded.detail
		WHERE runs.outcome = 'started' AND runs.env = excluded.env`,
		r.ID, r.Env, formatTime(nowIfZero(r.StartedAt)), finished, r.Outcome, detail)
	if err != nil {
		return fmt.Errorf("state store: record run %s: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("state store: record run %s: already recorded", r.ID)
	}
	return nil
}

// Runs returns env's ticks, newest first.
func (s *Store) Runs(ctx context.Context, env string, limit int) ([]state.Run, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT id, env, started_at, finished_at, outcome, detail FROM runs
		WHERE env = ? ORDER BY started_at DESC, rowid DESC LIMIT ?`, env, limit)
	if err != nil {
		return nil, fmt.Errorf("state store: runs %s: %w", env, err)
	}
	defer rows.Close()
	var out []state.Run
	for rows.Next() {
		var (
			r        state.Run
			started  string
			finished sql.NullString
			detail   string
		)
		if err := rows.Scan(&r.ID, &r.Env, &started, &finished, &r.Outcome, &detail); err != nil {
			return nil, fmt.Errorf("state store: runs %s: %w", env, err)
		}
		if r.StartedAt, err = parseTime(started); err != nil {
			return nil, fmt.Errorf("state store: runs %s: run %s: %w", env, r.ID, err)
		}
		if finished.Valid {
			if r.FinishedAt, err = parseTime(finished.String); err != nil {
				return nil, fmt.Errorf("state store: runs %s: run %s: %w", env, r.ID, err)
			}
		}
		r.Detail = []byte(detail)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: runs %s: %w", env, err)
	}
	return out, nil
}
