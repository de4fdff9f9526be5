// Package planner turns an analysis (package analysis) into plans and
// applies them: it categorizes changes against the previous versions
// (categorize.go, plan_history.go), diffs the project against an
// environment (plan_make.go, diff.go), builds physical relations
// (build.go, execute.go) and promotes environments as view swaps
// (promote.go).
//
// Incremental models are computed interval by interval against the state
// store's ledger (backfill.go; lake.go for parquet targets; upsert.go for
// unique-key and SCD type 2 merges). Run is the scheduler tick, Restate
// clears ledger ranges, GetStatus reads it all back; every mutation of an
// environment holds its lock (lock.go). Plans and status check what the
// store trusts against the warehouse's catalog (presence.go). Audits run
// while building (audit_build.go) and over an environment (audit_env.go).
// The janitor, compaction and fingerprint migration are operations of
// package ops.
//
// It depends on analysis, project, engine and state, never on a concrete
// engine or store: the CLI and the language server wire those in.
package planner
