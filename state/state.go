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
	"fmt"
	"time"
)

// SchemaVersion is the layout version this binary reads and writes. A store
// of another version refuses to open with ErrSchemaVersion.
const SchemaVersion = 1

// ErrSchemaVersion is wrapped by Open when the store's schema version differs.
var ErrSchemaVersion = errors.New("state store schema version mismatch")

// SchemaVersionError is the error every store returns when its schema
// version is not SchemaVersion. It unwraps to ErrSchemaVersion, and its
// message tells the user what to do: migrate an older store, upgrade efmesh
// for a newer one. A newer binary never rewrites an older store on its own.
type SchemaVersionError struct {
	Store string // what was opened, as the user named it (a file, a schema)
	Have  int    // the store's version
	Want  int    // SchemaVersion of this binary
}

func (e *SchemaVersionError) Error() string {
	if e.Have > e.Want {
		return fmt.Sprintf("%s has schema version %d, this efmesh uses %d; it was written by a newer efmesh; upgrade efmesh",
			e.Store, e.Have, e.Want)
	}
	return fmt.Sprintf("%s has schema version %d, this efmesh uses %d; run \"efmesh migrate\"",
		e.Store, e.Have, e.Want)
}

func (e *SchemaVersionError) Unwrap() error { return ErrSchemaVersion }

// ErrNotFound is returned by lookups of a missing record.
var ErrNotFound = errors.New("not found")

// Snapshot is one version of a model.
type Snapshot struct {
	Fingerprint        string            // hex sha256
	FingerprintVersion int               // FINGERPRINT_VERSION that produced it
	Name               string            // model name
	Kind               string            // kind name
	PhysicalTable      string            // "_efmesh.schema__table__fp8" (quoted form is the engine's business)
	OwnHash            string            // fingerprint over the model alone, without parents
	Parents            map[string]string // parent name -> fingerprint
	Canonical          []byte            // canonical AST (may be nil)
	Definition         []byte            // JSON of the model as loaded (for render/diff/explain)
	CreatedAt          time.Time
	BuiltAt            time.Time // zero until the physical relation is complete
	// OrphanedAt is zero while an environment points at the snapshot;
	// otherwise it is when the last pointer went (its creation when none
	// ever came), the start of the janitor's ttl. Set by the store: it is
	// ignored by PutSnapshot.
	OrphanedAt time.Time
}

// Referenced reports whether an environment points at the snapshot.
func (s Snapshot) Referenced() bool { return s.OrphanedAt.IsZero() }

// SnapshotUsage is the janitor's view of a snapshot: what it is, what it
// stands on, and whether an environment points at it.
type SnapshotUsage struct {
	Fingerprint   string
	Name          string
	Kind          string
	PhysicalTable string
	Parents       map[string]string // parent name -> fingerprint
	CreatedAt     time.Time
	OrphanedAt    time.Time // zero while an environment points at it
}

// Built reports whether the snapshot's physical relation is complete.
func (s Snapshot) Built() bool { return !s.BuiltAt.IsZero() }

// BuildRecord is what computing one snapshot adds to the store
// (Store.RecordBuilds), in this order: the ledger records overlapping
// [ClearFrom, ClearTo) are deleted (none when ClearTo is not after
// ClearFrom), each range of Done is recorded done (replacing a record of
// the same start), and, when Built, the snapshot is marked built. Times
// are At (now when zero).
type BuildRecord struct {
	Fingerprint        string
	At                 time.Time
	Built              bool
	ClearFrom, ClearTo time.Time
	Done               []Interval
}

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
	// Record, when set, is the applied plan's entry of the plans journal,
	// written in the promotion's transaction: the environment and its
	// journal commit together (a crash leaves both or neither) in one
	// round trip instead of two.
	Record *PlanRecord
}

// PlanRecord is one entry of the plans journal.
type PlanRecord struct {
	ID        string
	Env       string
	AppliedBy string
	CreatedAt time.Time
	Status    string // PlanApplied | PlanFailed | PlanInterrupted
	Summary   []byte // JSON of the plan as shown to the user
	Error     string
}

// Plan statuses of the plans journal.
const (
	PlanApplied = "applied"
	PlanFailed  = "failed"
	// PlanInterrupted is an apply stopped by a signal (Ctrl-C, SIGTERM):
	// the batch in flight was rolled back and nothing was promoted.
	PlanInterrupted = "interrupted"
)

// Interval statuses in the ledger.
const (
	IntervalDone   = "done"
	IntervalFailed = "failed"
)

// Interval is one record of the interval ledger: the range [Start, End) of
// a snapshot, computed (done) or attempted and failed. The ledger is the
// single source of truth of what a physical table holds: a range without a
// done record is empty, whatever the table says.
type Interval struct {
	Start, End time.Time
	Status     string // IntervalDone | IntervalFailed
	UpdatedAt  time.Time
}

// Run outcomes of the runs journal.
const (
	RunOK            = "ok"
	RunAwaitingHuman = "awaiting-human"
	RunLockHeld      = "lock-held"
	RunError         = "error"
	// RunInterrupted is a tick stopped by a signal: what it committed is
	// in the ledger, the batch in flight was rolled back.
	RunInterrupted = "interrupted"
	// RunStarted is a tick that began and has not recorded its outcome
	// yet: running, or killed (kill -9, a crash) before it could. Its
	// FinishedAt is zero.
	RunStarted = "started"
)

// Run is one entry of the runs journal: a scheduler tick and its outcome.
type Run struct {
	ID         string
	Env        string
	StartedAt  time.Time
	FinishedAt time.Time
	Outcome    string // RunOK | RunAwaitingHuman | RunLockHeld | RunError | RunInterrupted | RunStarted
	Detail     []byte // JSON: what the tick processed, or why it stopped
}

// Lock is a named advisory lock held across processes. Holder is unique
// per acquisition; Host and PID say where the holder runs, so that a lock
// of a process that died can be reclaimed.
type Lock struct {
	Name       string
	Holder     string
	Host       string
	PID        int
	AcquiredAt time.Time
	ExpiresAt  time.Time
}

// ErrLockLost is returned when a lock is refreshed or released by a holder
// that no longer holds it (it expired and was reclaimed).
var ErrLockLost = errors.New("lock lost")

// Reader is the read side of a store: what plans, status, diffs, lineage
// and the editor read. Functions that only read take a Reader, so a cached
// view of a store (Cached) or an empty one (Empty) serves them as well.
type Reader interface {
	// Snapshots returns the snapshots with the given fingerprints; missing
	// ones are absent from the map.
	Snapshots(ctx context.Context, fps []string) (map[string]Snapshot, error)
	// SnapshotHeads is Snapshots without Canonical (nil), the largest
	// column: what a plan reads of the models whose fingerprint did not move.
	SnapshotHeads(ctx context.Context, fps []string) (map[string]Snapshot, error)

	// Environment returns the pointers of env (empty, not an error, for an
	// unknown environment), keyed by model name.
	Environment(ctx context.Context, env string) (map[string]Pointer, error)
	// Environments lists environment names that have at least one pointer.
	Environments(ctx context.Context) ([]string, error)

	// Plans returns the journal of env, newest first, at most limit entries
	// (all of them when limit <= 0).
	Plans(ctx context.Context, env string, limit int) ([]PlanRecord, error)
	// Intervals returns the ledger of a snapshot ordered by start (empty for
	// an unknown fingerprint).
	Intervals(ctx context.Context, fp string) ([]Interval, error)
	// Runs returns the ticks of env, newest first, at most limit (all of
	// them when limit <= 0).
	Runs(ctx context.Context, env string, limit int) ([]Run, error)
	// Usage lists every stored snapshot for the janitor, ordered by
	// fingerprint.
	Usage(ctx context.Context) ([]SnapshotUsage, error)
}

// Store is the state store: its Reader and the writes. Every method is
// safe for concurrent use by one process; cross-process mutual exclusion
// comes from TryLock.
type Store interface {
	Reader

	// PutSnapshot inserts a snapshot; an existing fingerprint is left as is.
	// A zero CreatedAt is recorded as now.
	PutSnapshot(ctx context.Context, s Snapshot) error
	// PutSnapshots is PutSnapshot of each, in one transaction: all are
	// stored or, on an error, none.
	PutSnapshots(ctx context.Context, snaps []Snapshot) error
	// MarkBuilt records that the snapshot's physical relation is complete.
	// An unknown fingerprint is an error wrapping ErrNotFound.
	MarkBuilt(ctx context.Context, fp string, at time.Time) error
	// RecordBuilds writes what each model an apply computed adds to the
	// store, every record of bs in one transaction: all or none. An apply
	// writes the records of many models at once instead of a transaction
	// per model. An unknown fingerprint is an error wrapping ErrNotFound.
	RecordBuilds(ctx context.Context, bs []BuildRecord) error
	// UpdateDefinition replaces the stored definition of a snapshot: a
	// metadata-only change (description, owner, tags, audits, cron) keeps
	// the fingerprint and the data. A missing snapshot wraps ErrNotFound.
	UpdateDefinition(ctx context.Context, fp string, definition []byte) error

	// Promote replaces the pointers of p.Env with p.Pointers and journals
	// the promotion, atomically. Every pointer's UpdatedAt becomes p.At (now
	// when zero). Snapshots it points at lose their OrphanedAt; snapshots
	// no environment points at any more get OrphanedAt = p.At. A pointer to an unknown snapshot is an error wrapping
	// ErrNotFound and leaves the environment as it was; an empty set removes
	// the environment. p.Record, when set, is appended to the plans journal
	// in the same transaction (as RecordPlan would): a promotion that fails
	// records nothing.
	Promote(ctx context.Context, p Promotion) error

	// RecordPlan appends to the plans journal; a zero CreatedAt is recorded
	// as now. Recording an ID twice is an error.
	RecordPlan(ctx context.Context, r PlanRecord) error

	// MarkIntervals records each [Start, End) of ivs with status, replacing
	// a record of the same start, in one transaction. Status and UpdatedAt
	// of ivs are ignored; UpdatedAt becomes at (now when zero). An unknown
	// fingerprint is an error wrapping ErrNotFound.
	MarkIntervals(ctx context.Context, fp string, ivs []Interval, status string, at time.Time) error
	// ClearIntervals deletes the records of fp that overlap [from, to) and
	// returns how many it deleted.
	ClearIntervals(ctx context.Context, fp string, from, to time.Time) (int, error)

	// RecordRun appends a tick to the runs journal (zero times are now;
	// a RunStarted tick has no finish time). Recording an ID twice is an
	// error, except that a tick recorded as RunStarted is recorded once
	// more with its outcome, which replaces it (its start is kept).
	RecordRun(ctx context.Context, r Run) error

	// Reserve protects snapshots a promotion is about to point at from the
	// janitor: in one transaction it checks that every fingerprint of fps
	// is stored and moves the OrphanedAt of those no environment points at
	// to until, unless it is later already. A missing fingerprint (the
	// janitor removed it) is an error wrapping ErrNotFound, and nothing
	// is reserved.
	Reserve(ctx context.Context, fps []string, until time.Time) error
	// RemoveSnapshots is the janitor's claim: in one transaction it deletes
	// those snapshots of fps that no environment points at and whose
	// OrphanedAt is not after cutoff, with their interval ledgers, and
	// returns their fingerprints. One pointed at again, or reserved since,
	// stays; a later Promote to a removed one fails with ErrNotFound.
	RemoveSnapshots(ctx context.Context, fps []string, cutoff time.Time) ([]string, error)

	// TryLock takes the lock l.Name for l.Holder, atomically. It succeeds
	// when the lock is free, already held by l.Holder (the expiry moves to
	// l.ExpiresAt), expired at l.AcquiredAt, or when stale (which may be
	// nil) reports that its holder is gone. Otherwise it returns the lock
	// as held by the other holder and false.
	TryLock(ctx context.Context, l Lock, stale func(held Lock) bool) (held Lock, ok bool, err error)
	// RefreshLock moves the expiry of a lock held by holder; ErrLockLost
	// when holder does not hold it.
	RefreshLock(ctx context.Context, name, holder string, expires time.Time) error
	// Unlock releases a lock held by holder; ErrLockLost when holder does
	// not hold it.
	Unlock(ctx context.Context, name, holder string) error

	Close() error
}

// Versioned is implemented by both stores: the version of what a Reader
// reads, for caches of it. Version changes with every write another Store
// (in this process or another) commits, except to the locks, which no
// Reader reads; it is the same as long as nothing was written. Versions
// are only compared for equality.
type Versioned interface {
	Version(ctx context.Context) (int64, error)
}

// Refingerprint is one snapshot's new identity in a fingerprint migration
// (`efmesh migrate` after an upgrade of the fingerprint algorithm): From
// becomes To (the same when only the version stamp and hashes move), of
// fingerprint version Version, with OwnHash and Parents as that version
// computes them. Its physical relation, definition, ledger, built and
// orphaned times and the environments' pointers go with it.
type Refingerprint struct {
	From, To string
	Version  int
	OwnHash  string
	Parents  map[string]string
}

// FingerprintMigrator is implemented by both stores: what `efmesh migrate`
// needs to carry snapshots of an older fingerprint version over. It is
// not part of Store so that read-only views of a store need not have it.
type FingerprintMigrator interface {
	// FingerprintVersions lists the distinct fingerprint versions of the
	// stored snapshots, ascending (empty for an empty store).
	FingerprintVersions(ctx context.Context) ([]int, error)
	// Refingerprint applies every rename of rs in one transaction: all or
	// none. A From that is not stored wraps ErrNotFound; a To that is
	// stored already (and is not its own From) is an error.
	Refingerprint(ctx context.Context, rs []Refingerprint) error
}

// Unique returns fps without repeats, in their first order.
func Unique(fps []string) []string {
	seen := make(map[string]bool, len(fps))
	out := fps[:0:0]
	for _, fp := range fps {
		if !seen[fp] {
			seen[fp] = true
			out = append(out, fp)
		}
	}
	return out
}
