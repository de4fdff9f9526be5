// Package planner turns a loaded project into plans and applies them: it
// renders model bodies, fingerprints snapshots over the engine's canonical
// form, checks every body against stand-ins of its parents (the same check
// the language server runs), diffs the project against an environment, builds
// physical relations and promotes environments as view swaps.
//
// Incremental models are computed interval by interval against the state
// store's ledger (intervals.go, backfill.go; lake.go for parquet targets;
// upsert.go for unique-key and SCD type 2 merges). Run is the scheduler
// tick, Restate clears ledger ranges, GetStatus reads it all back; every
// mutation of an environment holds its lock (lock.go). Plans and status
// check what the store trusts against the warehouse's catalog
// (presence.go). fingerprint.go keeps the fingerprint algorithms of every
// version still known and fingerprint_version.go refuses a store of
// another version; carrying a store over, the janitor and compaction are
// operations of package ops.
//
// It depends on project, engine and state, never on a concrete engine or
// store: the CLI and the language server wire those in.
package planner
