package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/efmesh/efmesh/state"
)

// PutSnapshot inserts s unless its fingerprint is already stored.
func (s *Store) PutSnapshot(ctx context.Context, snap state.Snapshot) error {
	return s.PutSnapshots(ctx, []state.Snapshot{snap})
}

// PutSnapshots inserts snaps in one transaction; existing fingerprints are
// left as they are.
func (s *Store) PutSnapshots(ctx context.Context, snaps []state.Snapshot) error {
	if len(snaps) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("state store: put snapshots: %w", err)
	}
	defer tx.Rollback() // no-op after Commit
	// A new snapshot is pointed at by no environment: it is orphaned from
	// its creation until a promotion points at it.
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO snapshots (fingerprint, fingerprint_version, name, kind, physical_table, own_hash,
		                       parents, canonical, definition, created_at, built_at, orphaned_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (fingerprint) DO NOTHING`)
	if err != nil {
		return fmt.Errorf("state store: put snapshots: %w", err)
	}
	defer stmt.Close()
	for _, snap := range snaps {
		if snap.Fingerprint == "" {
			return fmt.Errorf("state store: put snapshot %s: empty fingerprint", snap.Name)
		}
		parents := snap.Parents
		if parents == nil {
			parents = map[string]string{}
		}
		pj, err := json.Marshal(parents)
		if err != nil {
			return fmt.Errorf("state store: put snapshot %s: %w", snap.Fingerprint, err)
		}
		var built any // NULL unless built
		if !snap.BuiltAt.IsZero() {
			built = formatTime(snap.BuiltAt)
		}
		created := formatTime(nowIfZero(snap.CreatedAt))
		if _, err := stmt.ExecContext(ctx, snap.Fingerprint, snap.FingerprintVersion, snap.Name, snap.Kind, snap.PhysicalTable,
			snap.OwnHash, string(pj), snap.Canonical, snap.Definition, created, built, created); err != nil {
			return fmt.Errorf("state store: put snapshot %s: %w", snap.Fingerprint, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("state store: put snapshots: %w", err)
	}
	return nil
}

// maxParams bounds the placeholders of one IN list, well under SQLite's
// limit on bound parameters.
const maxParams = 500

// Snapshots returns the stored snapshots among fps, keyed by fingerprint.
func (s *Store) Snapshots(ctx context.Context, fps []string) (map[string]state.Snapshot, error) {
	return s.snapshots(ctx, fps, "canonical")
}

// SnapshotHeads returns the stored snapshots among fps without Canonical.
func (s *Store) SnapshotHeads(ctx context.Context, fps []string) (map[string]state.Snapshot, error) {
	return s.snapshots(ctx, fps, "NULL")
}

// snapshots reads fps in chunks of bound parameters, canonical being the
// column's name or NULL.
func (s *Store) snapshots(ctx context.Context, fps []string, canonical string) (map[string]state.Snapshot, error) {
	fps = state.Unique(fps)
	out := make(map[string]state.Snapshot, len(fps))
	for len(fps) > 0 {
		chunk := fps[:min(len(fps), maxParams)]
		fps = fps[len(chunk):]
		if err := s.snapshotsIn(ctx, chunk, canonical, out); err != nil {
			return nil, fmt.Errorf("state store: snapshots: %w", err)
		}
	}
	return out, nil
}

// snapshotsIn adds to out the stored snapshots among fps.
func (s *Store) snapshotsIn(ctx context.Context, fps []string, canonical string, out map[string]state.Snapshot) error {
	args := make([]any, len(fps))
	for i, fp := range fps {
		args[i] = fp
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT fingerprint, fingerprint_version, name, kind, physical_table, own_hash,
		       parents, `+canonical+`, definition, created_at, built_at, orphaned_at
		FROM snapshots
		WHERE fingerprint IN (?`+strings.Repeat(", ?", len(fps)-1)+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			snap             state.Snapshot
			parents, created string
			built, orphaned  sql.NullString
		)
		if err := rows.Scan(&snap.Fingerprint, &snap.FingerprintVersion, &snap.Name, &snap.Kind,
			&snap.PhysicalTable, &snap.OwnHash, &parents, &snap.Canonical, &snap.Definition,
			&created, &built, &orphaned); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(parents), &snap.Parents); err != nil {
			return fmt.Errorf("snapshot %s: parents: %w", snap.Fingerprint, err)
		}
		if snap.CreatedAt, err = parseTime(created); err != nil {
			return fmt.Errorf("snapshot %s: created_at: %w", snap.Fingerprint, err)
		}
		if built.Valid {
			if snap.BuiltAt, err = parseTime(built.String); err != nil {
				return fmt.Errorf("snapshot %s: built_at: %w", snap.Fingerprint, err)
			}
		}
		if orphaned.Valid {
			if snap.OrphanedAt, err = parseTime(orphaned.String); err != nil {
				return fmt.Errorf("snapshot %s: orphaned_at: %w", snap.Fingerprint, err)
			}
		}
		out[snap.Fingerprint] = snap
	}
	return rows.Err()
}

// MarkBuilt records when the physical relation of fp was completed.
func (s *Store) MarkBuilt(ctx context.Context, fp string, at time.Time) error {
	res, err := s.db.ExecContext(ctx, `UPDATE snapshots SET built_at = ? WHERE fingerprint = ?`,
		formatTime(nowIfZero(at)), fp)
	if err != nil {
		return fmt.Errorf("state store: mark built %s: %w", fp, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("state store: mark built %s: %w", fp, err)
	} else if n == 0 {
		return fmt.Errorf("state store: mark built %s: snapshot %w", fp, state.ErrNotFound)
	}
	return nil
}

// UpdateDefinition replaces the stored definition of fp.
func (s *Store) UpdateDefinition(ctx context.Context, fp string, definition []byte) error {
	res, err := s.db.ExecContext(ctx, `UPDATE snapshots SET definition = ? WHERE fingerprint = ?`, definition, fp)
	if err != nil {
		return fmt.Errorf("state store: update definition %s: %w", fp, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("state store: update definition %s: %w", fp, err)
	} else if n == 0 {
		return fmt.Errorf("state store: update definition %s: snapshot %w", fp, state.ErrNotFound)
	}
	return nil
}
