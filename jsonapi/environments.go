package jsonapi

import "time"

// EnvList is efmesh env list's payload.
type EnvList struct {
	APIVersion   int          `json:"apiVersion"`
	Environments []EnvSummary `json:"environments"` // every environment of the state store, by name
}

// EnvSummary is one environment of the state store.
type EnvSummary struct {
	Name string `json:"name"` // the environment's name
	// Models counts the models the environment points at.
	Models int `json:"models"`
	// LastApplied is the environment's last promotion.
	LastApplied time.Time `json:"lastApplied"`
	// AppliedBy is who applied it ("" when the plans journal holds none).
	AppliedBy string `json:"appliedBy"`
	// PlanID is the last applied plan's id; left out when unknown.
	PlanID string `json:"planId,omitempty"`
	// Coverage is the range of time every incremental model of the
	// environment has computed; null when it points at none or they have
	// no range in common.
	Coverage *Coverage `json:"coverage"`
	// Preview is the range the environment was applied to cover when it
	// is shorter than the project's history; left out otherwise.
	Preview *Preview `json:"preview,omitempty"`
	// Rows counts the rows of the physical tables it points at, as the
	// engine estimates them; null where the engine cannot.
	Rows *int64 `json:"rows"`
}

// Coverage is the time an environment's incremental models all computed.
type Coverage struct {
	Start time.Time `json:"start"` // the start of the first range
	End   time.Time `json:"end"`   // the end of the last range
	// Contiguous is false when Ranges has holes.
	Contiguous bool        `json:"contiguous"`
	Ranges     []TimeRange `json:"ranges"` // the ranges, oldest first
}

// TimeRange is [Start, End).
type TimeRange struct {
	Start time.Time `json:"start"` // the start
	End   time.Time `json:"end"`   // the end (exclusive)
}

// EnvDelete is efmesh env delete's payload.
type EnvDelete struct {
	APIVersion int          `json:"apiVersion"`
	Deleted    *EnvDeletion `json:"deleted"` // what the deletion did
}

// EnvDeletion is what deleting an environment did.
type EnvDeletion struct {
	Env string `json:"env"` // the environment deleted
	// Models counts the models the environment pointed at.
	Models         int      `json:"models"`
	DroppedViews   []string `json:"droppedViews"`   // the views dropped
	DroppedSchemas []string `json:"droppedSchemas"` // the schemas dropped, left empty
	// Freed are the physical tables no environment needs any more.
	Freed []Removal `json:"freed"`
	// FreeError says why freeing them failed; present only then (the
	// janitor frees them later).
	FreeError string `json:"freeError,omitempty"`
}

// Removal is a physical table the janitor removed (or, in a dry run,
// would remove).
type Removal struct {
	PhysicalTable string `json:"physicalTable"` // the table
	Model         string `json:"model"`         // the model whose table it was
	// Snapshots are the fingerprints whose table it was.
	Snapshots []string `json:"snapshots"`
	// OrphanedAt is when the last environment stopped pointing at it.
	OrphanedAt time.Time `json:"orphanedAt"`
	// Lake is the folder of its parquet files; present only for a lake
	// target.
	Lake string `json:"lake,omitempty"`
	// Error says why it could not be removed; present only then.
	Error string `json:"error,omitempty"`
}

// Janitor is efmesh janitor's payload.
type Janitor struct {
	APIVersion int `json:"apiVersion"`
	// Cutoff is the time before which an orphaned table is removed.
	Cutoff string `json:"cutoff"`
	DryRun bool   `json:"dryRun"` // true with --dry-run: nothing was removed
	// EnvironmentsTTL is efmesh.yaml's environments.ttl (7d): how long an
	// environment may stay idle before the janitor deletes it; "" when
	// environments never expire.
	EnvironmentsTTL string `json:"environmentsTtl"`
	// Expired are the idle environments deleted.
	Expired []EnvExpiry `json:"expired"`
	// Removed are the physical tables removed, the expired environments'
	// included.
	Removed []Removal `json:"removed"`
	// TTL is how long an orphaned table is kept (--ttl), as Go writes a
	// duration.
	TTL string `json:"ttl"`
	// Waiting counts the orphaned tables younger than TTL.
	Waiting int `json:"waiting"`
}

// EnvExpiry is an idle environment the janitor deleted.
type EnvExpiry struct {
	Env         string    `json:"env"`         // the environment
	LastApplied time.Time `json:"lastApplied"` // when it was last applied
	// Deleted is what deleting it did; left out when it failed.
	Deleted *EnvDeletion `json:"deleted,omitempty"`
	// Error says why it could not be deleted; present only then.
	Error string `json:"error,omitempty"`
}

// Compact is efmesh compact's payload.
type Compact struct {
	APIVersion int                `json:"apiVersion"`
	DryRun     bool               `json:"dryRun"`     // true with --dry-run: nothing was merged
	Partitions []CompactPartition `json:"partitions"` // every partition looked at
}

// CompactPartition is one partition of a lake model and what compact did
// with it.
type CompactPartition struct {
	Model string `json:"model"` // the model
	// Partition is its folder relative to the lake, with slashes.
	Partition string `json:"partition"`
	// Files counts the files listed.
	Files int `json:"files"`
	// Action is merged, would-merge or left.
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"` // why it was left; left out otherwise
	// DedupKey is the grain rows were deduplicated on.
	DedupKey []string `json:"dedupKey"`
}

// Migrate is efmesh migrate's payload.
type Migrate struct {
	APIVersion int `json:"apiVersion"`
	// Backup is the copy of the state store taken before its schema
	// changed; "" when nothing changed.
	Backup string `json:"backup"`
	// Fingerprints is the fingerprint migration; left out for a store
	// that has none.
	Fingerprints *FingerprintMigration `json:"fingerprints,omitempty"`
	// From and To are the state store's schema versions before and after.
	From int `json:"from"`
	To   int `json:"to"` // the schema version after
}

// FingerprintMigration is what migrate did to snapshots an older
// fingerprint algorithm named.
type FingerprintMigration struct {
	// Backup is the copy of the state store taken first; "" when nothing
	// changed.
	Backup string `json:"backup"`
	// From are the older fingerprint versions the store held.
	From []int `json:"from"`
	// Remapped counts the snapshots renamed to their current fingerprint.
	Remapped int `json:"remapped"`
	// Restamped counts the snapshots marked current under their old name.
	Restamped int `json:"restamped"`
	To        int `json:"to"` // the fingerprint version now
}

// Schedule is efmesh schedule's payload. It carries no apiVersion.
type Schedule struct {
	// Crons are five-field cron expressions, sorted.
	Crons []string `json:"crons"`
	Env   string   `json:"env"` // the environment the units run
	// Format is systemd or cron.
	Format string `json:"format"`
	// Reasons say where each cron came from, by index.
	Reasons []string `json:"reasons"`
	// Text is the units or crontab lines, as printed without --json.
	Text string `json:"text"`
}

// Adopt is efmesh state adopt's payload: the warehouse's tables of this
// checkout's model versions recorded in the state store as built.
type Adopt struct {
	APIVersion int `json:"apiVersion"`
	// DryRun: nothing was recorded; the lists say what would be.
	DryRun bool `json:"dryRun"`
	// Adopted are the models whose physical table of this checkout's
	// version was in the warehouse and is now recorded as built.
	Adopted []string `json:"adopted"`
	// Known are the models whose version the store already had built.
	Known []string `json:"known"`
	// Absent are the models whose version has no table in the warehouse:
	// the next apply builds them.
	Absent []string `json:"absent"`
	// Envs are the environments the warehouse serves and the store does
	// not know.
	Envs []EnvAdoption `json:"environments"`
}

// EnvAdoption is one environment the store does not know, as its views in
// the warehouse show it.
type EnvAdoption struct {
	Env string `json:"env"` // the environment's name
	// Views counts the environment's views that read efmesh's tables.
	Views int `json:"views"`
	// Current counts the views that read this checkout's version of
	// their model: apply --force points them at the same table, building
	// nothing.
	Current int `json:"current"`
	// Others lists the views of other versions: apply would move them to
	// this checkout's; absent when none.
	Others []string `json:"others,omitempty"`
}

// Corrupt is the payload of any command that found the warehouse file
// damaged (exit 1): what was found, where, and what to do.
type Corrupt struct {
	APIVersion int `json:"apiVersion"`
	// Error is the damage, as the text output says it.
	Error string `json:"error"`
	// File is the warehouse file, relative to the project root when
	// inside it.
	File string `json:"file"`
	// Relation is the table whose storage is damaged; absent when the
	// file itself cannot be opened.
	Relation string `json:"relation,omitempty"`
	// Hint says what to do: restore a backup, or rebuild.
	Hint string `json:"hint"`
}
