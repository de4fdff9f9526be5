// Package state defines the state store: the single source of truth of which
// snapshots exist, which physical relations are built, what each environment
// points at, which intervals are computed, and the journals of plans and
// runs. Implementations live in state/sqlite and state/postgres and share one
// conformance suite (state/statetest).
//
// The store knows nothing of plans or engines: it records what the planner
// tells it. Data and state never share a transaction.
package state

import (
	"context"
	"errors"
	"time"
)

// SchemaVersion is the layout version this binary reads and writes. A store
// of another version refuses to open with ErrSchemaVersion.
const SchemaVersion = 1

// ErrSchemaVersion is wrapped by Open when the store's schema version differs.
var ErrSchemaVersion = errors.New("state store schema version mismatch")

// ErrNotFound is returned by lookups of a missing record.
var ErrNotFound = errors.New("not found")

// Snapshot is one version of a model.
type Snapshot struct {
	Fingerprint        string    // hex sha256
	FingerprintVersion int       // FINGERPRINT_VERSION that produced it
	Name               string    // model name
	Kind               string    // kind name
	PhysicalTable      string    // "_efmesh.schema__table__fp8" (quoted form is the engine's business)
	OwnHash            string    // fingerprint over the model alone, without parents
	Parents            map[string]string // parent name -> fingerprint
	Canonical          []byte    // canonical AST (may be nil)
	Definition         []byte    // JSON of the model as loaded (for render/diff/explain)
	CreatedAt          time.Time
	BuiltAt            time.Time // zero until the physical relation is complete
}

// Built reports whether the snapshot's physical relation is complete.
func (s Snapshot) Built() bool { return !s.BuiltAt.IsZero() }

// Pointer is an environment's pointer to a snapshot of one model.
type Pointer struct {
	Model       string
	Fingerprint string
	UpdatedAt   time.Time
}

// Promotion replaces an environment's pointers in one store transaction.
type Promotion struct {
	Env       string
	Pointers  map[string]string // model -> fingerprint; the full new set
	PlanID    string
	AppliedBy string
	At        time.Time
}

// PlanRecord is one entry of the plans journal.
type PlanRecord struct {
	ID        string
	Env       string
	AppliedBy string
	CreatedAt time.Time
	Status    string // "applied" | "failed"
	Summary   []byte // JSON of the plan as shown to the user
	Error     string
}

// Store is the state store. Every method is safe for concurrent use by one
// process; cross-process safety comes from locks (a later version).
type Store interface {
	// PutSnapshot inserts a snapshot; an existing fingerprint is left as is.
	PutSnapshot(ctx context.Context, s Snapshot) error
	// Snapshots returns the snapshots with the given fingerprints; missing
	// ones are absent from the map.
	Snapshots(ctx context.Context, fps []string) (map[string]Snapshot, error)
	// MarkBuilt records that the snapshot's physical relation is complete.
	MarkBuilt(ctx context.Context, fp string, at time.Time) error

	// Environment returns the pointers of env (empty, not an error, for an
	// unknown environment), keyed by model name.
	Environment(ctx context.Context, env string) (map[string]Pointer, error)
	// Environments lists environment names that have at least one pointer.
	Environments(ctx context.Context) ([]string, error)
	// Promote replaces the pointers of p.Env with p.Pointers and journals
	// the promotion, atomically.
	Promote(ctx context.Context, p Promotion) error

	// RecordPlan appends to the plans journal.
	RecordPlan(ctx context.Context, r PlanRecord) error
	// Plans returns the journal of env, newest first, at most limit entries.
	Plans(ctx context.Context, env string, limit int) ([]PlanRecord, error)

	Close() error
}
