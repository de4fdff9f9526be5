package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/state/statetest"
)

// TestOpenReadOnly: the read-only store reads what the store holds (the
// environment's token), while another connection holds the write lock;
// it writes nothing, and refuses a missing file and another schema
// version, as Open does.
func TestOpenReadOnly(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "state.db")
	s := open(t, path)
	statetest.Fill(t, s)
	want, err := s.EnvironmentVersion(ctx, "prod")
	if err != nil {
		t.Fatal(err)
	}
	// A writer in the middle of its transaction (an apply): Open's
	// schema check would wait for it, the read-only store does not.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO plans (id, env, applied_by, created_at, status, summary, error) VALUES ('w', 'prod', 'x', '2026-01-01T00:00:00.000000000Z', 'applied', '{}', '')`); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("OpenReadOnly beside a writer: %v", err)
	}
	got, err := ro.EnvironmentVersion(ctx, "prod")
	if err != nil || got != want {
		t.Fatalf("the read-only store's token = %q, %v; want %q", got, err, want)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := ro.Promote(ctx, state.Promotion{Env: "ro", Pointers: map[string]string{}}); err == nil {
		t.Fatal("the read-only store wrote a promotion")
	}
	ro.Close()

	if _, err := OpenReadOnly(ctx, filepath.Join(t.TempDir(), "none.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenReadOnly of a missing file = %v", err)
	}
	s.Close()
	setVersion(t, path, state.SchemaVersion+1)
	if _, err := OpenReadOnly(ctx, path); !errors.Is(err, state.ErrSchemaVersion) {
		t.Fatalf("OpenReadOnly of another schema version = %v", err)
	}
}
