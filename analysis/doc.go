// Package analysis decides what a loaded project means before any plan:
// it renders model bodies (render.go), checks every body against stand-ins
// of its parents in a workbench — the same check the language server runs
// (analyze.go, analyze_checker.go, analyze_checks.go, seed.go, the static
// audit and unit-test checks) — fingerprints each model over the engine's
// canonical form (fingerprint.go; fingerprint_version.go refuses a store
// of another fingerprint version), names physical relations and
// environment views (naming.go), splits time into intervals (intervals.go),
// traces column lineage (lineage.go) and caches checks across runs
// (cache.go). A redacted environment is analyzed as a variant
// (redact_analysis.go).
//
// It knows nothing of plans, builds or environments' state beyond the
// fingerprint version; package planner builds on it.
package analysis
