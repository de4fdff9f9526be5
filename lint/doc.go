// Package lint decides which style and safety rules a project's models
// break: each rule has an id, a default severity that efmesh.yaml's lint:
// rules: may change, and yields positioned findings (project.Diagnostic,
// Code = the rule id) with a quick fix where one is obvious.
//
// It reads what the core already knows — the engine's neutral outline of
// each model's query (engine.Outline) and the analysis' columns — and
// places findings in the text with the one scanner, sqlscan. It never
// parses SQL itself, and knows nothing of plans, state or front ends:
// `efmesh lint` and the editor both call Check.
package lint
