// Package macro expands efmesh's model language: @name(arg, …) calls,
// sqlmesh's control macros (@DEF, @EACH, @IF, @REDUCE, @FILTER, @SQL), the
// standard library (@GENERATE_SURROGATE_KEY, @SAFE_DIVIDE, @PIVOT,
// @DEDUPLICATE, @DATE_SPINE, @AND, @OR, @STAR, @UNION) and project macros
// defined in SQL files (MACRO name(params) AS body;).
//
// Expansion is one pure function (Expand) of a text, the macro library and
// the variables: it returns the expanded SQL with a source map (every span
// of the output → the model or macro text it came from) and positioned
// problems. Every feature of efmesh reads its result; nothing re-expands on
// its own.
//
// The primitives every later stage renders (@ref, @start, @end, @this,
// @var and the run variables such as @start_ds) pass through unchanged, and
// so do @STAR and @UNION, whose columns only the binder knows: they are
// rendered with the schemas of the models they read (Columns).
//
// The package reads SQL with sqlscan only: it knows no engine, project or
// plan, so that every layer may use it.
package macro
