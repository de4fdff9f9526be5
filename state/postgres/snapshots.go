package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/state"
)

// PutSnapshot inserts snap unless its fingerprint is already stored.
func (s *Store) PutSnapshot(ctx context.Context, snap state.Snapshot) error {
	return s.PutSnapshots(ctx, []state.Snapshot{snap})
}

// PutSnapshots inserts snaps in one transaction (one round trip);
// existing fingerprints are left as they are.
func (s *Store) PutSnapshots(ctx context.Context, snaps []state.Snapshot) error {
	if len(snaps) == 0 {
		return nil
	}
	var b pgx.Batch
	for _, snap := range snaps {
		if snap.Fingerprint == "" {
			return fmt.Errorf("state store: put snapshot %s: empty fingerprint", snap.Name)
		}
		parents := snap.Parents
		if parents == nil {
			parents = map[string]string{}
		}
		// A new snapshot is pointed at by no environment: it is orphaned
		// from its creation until a promotion points at it.
		b.Queue(s.q(`
			INSERT INTO {s}.snapshots (fingerprint, fingerprint_version, name, kind, physical_table, own_hash,
			                           parents, canonical, definition, created_at, built_at, orphaned_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $10)
			ON CONFLICT (fingerprint) DO NOTHING`),
			snap.Fingerprint, snap.FingerprintVersion, snap.Name, snap.Kind, snap.PhysicalTable, snap.OwnHash,
			parents, snap.Canonical, snap.Definition, nowIfZero(snap.CreatedAt), nullTime(snap.BuiltAt))
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, &b).Close()
	})
	if err != nil {
		return fmt.Errorf("state store: put snapshots: %w", err)
	}
	return nil
}

// Snapshots returns the stored snapshots among fps, keyed by fingerprint.
// The fingerprints travel as one array parameter, however many there are.
func (s *Store) Snapshots(ctx context.Context, fps []string) (map[string]state.Snapshot, error) {
	return s.snapshots(ctx, fps, "canonical")
}

// SnapshotHeads returns the stored snapshots among fps without Canonical.
func (s *Store) SnapshotHeads(ctx context.Context, fps []string) (map[string]state.Snapshot, error) {
	return s.snapshots(ctx, fps, "NULL::bytea")
}

// snapshots reads fps, canonical being the column's name or a NULL.
func (s *Store) snapshots(ctx context.Context, fps []string, canonical string) (map[string]state.Snapshot, error) {
	fps = state.Unique(fps)
	out := make(map[string]state.Snapshot, len(fps))
	if len(fps) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, s.q(`
		SELECT fingerprint, fingerprint_version, name, kind, physical_table, own_hash,
		       parents, `+canonical+`, definition, created_at, built_at, orphaned_at
		FROM {s}.snapshots WHERE fingerprint = ANY ($1)`), fps)
	if err != nil {
		return nil, fmt.Errorf("state store: snapshots: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			snap            state.Snapshot
			built, orphaned *time.Time
		)
		if err := rows.Scan(&snap.Fingerprint, &snap.FingerprintVersion, &snap.Name, &snap.Kind,
			&snap.PhysicalTable, &snap.OwnHash, &snap.Parents, &snap.Canonical, &snap.Definition,
			&snap.CreatedAt, &built, &orphaned); err != nil {
			return nil, fmt.Errorf("state store: snapshots: %w", err)
		}
		snap.BuiltAt = orZero(built)
		snap.OrphanedAt = orZero(orphaned)
		out[snap.Fingerprint] = snap
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state store: snapshots: %w", err)
	}
	return out, nil
}

// MarkBuilt records when the physical relation of fp was completed.
func (s *Store) MarkBuilt(ctx context.Context, fp string, at time.Time) error {
	tag, err := s.exec(ctx, s.q(`UPDATE {s}.snapshots SET built_at = $1 WHERE fingerprint = $2`),
		nowIfZero(at), fp)
	if err != nil {
		return fmt.Errorf("state store: mark built %s: %w", fp, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("state store: mark built %s: snapshot %w", fp, state.ErrNotFound)
	}
	return nil
}

// UpdateDefinition replaces the stored definition of fp.
func (s *Store) UpdateDefinition(ctx context.Context, fp string, definition []byte) error {
	tag, err := s.exec(ctx, s.q(`UPDATE {s}.snapshots SET definition = $1 WHERE fingerprint = $2`), definition, fp)
	if err != nil {
		return fmt.Errorf("state store: update definition %s: %w", fp, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("state store: update definition %s: snapshot %w", fp, state.ErrNotFound)
	}
	return nil
}
