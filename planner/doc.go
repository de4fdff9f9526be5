// Package planner turns a loaded project into plans and applies them: it
// renders model bodies, fingerprints snapshots over the engine's canonical
// form, checks every body against stand-ins of its parents (the same check
// the language server runs), diffs the project against an environment, builds
// physical relations and promotes environments as view swaps.
//
// It depends on project, engine and state, never on a concrete engine or
// store: the CLI and the language server wire those in.
package planner
