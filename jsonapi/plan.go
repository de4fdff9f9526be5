package jsonapi

import "time"

// Plan is efmesh plan's payload: the difference between the project on
// disk and an environment, one line per model.
type Plan struct {
	APIVersion int    `json:"apiVersion"`
	Env        string `json:"env"` // the environment planned against
	// HasChanges is false when applying the plan would change nothing.
	HasChanges bool `json:"hasChanges"`
	// Summary: the totals of the plan's text, as apply reports them.
	Summary Summary     `json:"summary"`
	Models  []ModelPlan `json:"models"` // one line per model of the project or the environment
	// Preview is the range of history the environment covers when it is
	// shorter than the project's (--start/--end); left out otherwise.
	Preview *Preview `json:"preview,omitempty"`
	// LeftOut: the direct changes a plan of a selection (--select) did not
	// take; the environment keeps those models as they are.
	LeftOut []LeftOut `json:"leftOut,omitempty"`
	// LeftOutFrom: the environment the left-out models are taken from when
	// it is not env (prod, for a new environment).
	LeftOutFrom string `json:"leftOutFrom,omitempty"`
	// DueRefresh: the FULL models whose cron is due, which only efmesh run
	// refreshes.
	DueRefresh []string `json:"dueRefresh,omitempty"`
	// Reverts: the models the plan moves back to a version someone else
	// applied over since.
	Reverts []Revert `json:"reverts,omitempty"`
	// Warnings: findings on the whole plan that do not stop it (each
	// model's are in its line).
	Warnings []Warning `json:"warnings,omitempty"`
	// Unrecorded: efmesh relations the warehouse holds that the state
	// store does not know (a state store deleted), when the store knows
	// nothing of the environment; absent otherwise.
	Unrecorded *Unrecorded `json:"unrecorded,omitempty"`
}

// Unrecorded is what the warehouse holds of efmesh's that the state store
// does not know: efmesh state adopt records it.
type Unrecorded struct {
	// Tables are the relations under the physical schema that no snapshot
	// of the store names, in name order.
	Tables []string `json:"tables"`
	// Views are, per environment the store does not know, the views in
	// its schemas that read the physical schema, in name order.
	Views map[string][]string `json:"views"`
}

// Summary tallies a plan as apply reports it.
type Summary struct {
	// Build counts the snapshots apply builds.
	Build int `json:"build"`
	// Compute counts the incremental intervals apply computes.
	Compute int `json:"compute"`
	// Promote counts the environment views apply points at a snapshot.
	Promote int `json:"promote"`
	// Remove counts the models whose view apply removes.
	Remove int `json:"remove"`
	// StaleViews counts the stale views of EXTERNAL models apply drops.
	StaleViews int `json:"staleViews"`
}

// ModelPlan is one model's line in a plan. The optional fields are left
// out when empty (false, "", no entries).
type ModelPlan struct {
	Name string `json:"name"` // the model's name, schema.table
	// Kind is the model's kind as its header writes it (FULL, VIEW,
	// INCREMENTAL_BY_TIME_RANGE, …).
	Kind string `json:"kind"`
	// Change is the category: added, breaking, non-breaking, indirect,
	// forward-only, metadata-only, removed or unchanged.
	Change      string `json:"change"`
	Fingerprint string `json:"fingerprint"` // the fingerprint of the version the plan puts in place
	// Previous is the fingerprint the environment points at now.
	Previous string `json:"previous,omitempty"`
	// Build is true when the snapshot's physical relation must be built;
	// false when an existing one is reused (promotion only).
	Build         bool   `json:"build"`
	PhysicalTable string `json:"physicalTable,omitempty"` // the relation that holds the version's data; left out for models without one
	// Backfill lists the ranges apply computes, each [start, end) in
	// RFC 3339; null when none.
	Backfill [][]string `json:"backfill"`
	// Intervals counts the intervals of Backfill (day or hour each).
	Intervals int `json:"intervals,omitempty"`
	// Cause names the changed ancestors that moved an indirect change.
	Cause []string `json:"cause,omitempty"`
	// Explain says why the model has its category, one reason a line.
	Explain []string `json:"explain"`
	// Diff is a directly changed model's edit as SQL: the clauses of its
	// query whose text differs from the previous version's.
	Diff []ClauseChange `json:"diff,omitempty"`
	// Paths are the parse-tree parts the category was decided on, the
	// detail behind Diff.
	Paths []string `json:"paths,omitempty"`
	// Rebinds are the direct children that would read an appended column
	// ("child: why"), which make the append breaking.
	Rebinds []string `json:"rebinds,omitempty"`
	// ReusedFrom is the snapshot whose physical relation and done
	// intervals this one takes over (forward-only).
	ReusedFrom string `json:"reusedFrom,omitempty"`
	// AddsColumns are the columns a forward-only change adds to the table
	// it inherits (NULL in history).
	AddsColumns []string `json:"addsColumns,omitempty"`
	// Retyped are the columns a forward-only change widens in place.
	Retyped []Retype `json:"retyped,omitempty"`
	// SharedWith names the other environments that serve the table a
	// forward-only change inherits (or, with Differs, that share the
	// snapshot).
	SharedWith []string `json:"sharedWith,omitempty"`
	// ReclassifiedFrom is the category before the operator's --reclassify
	// verdict.
	ReclassifiedFrom string `json:"reclassifiedFrom,omitempty"`
	// Warnings are findings on the model that do not stop the plan.
	Warnings []Warning `json:"warnings,omitempty"`
	// RebuildsHistory is set on an SCD_TYPE_2 model whose history is not
	// carried over; apply needs --rebuild-history.
	RebuildsHistory bool `json:"rebuildsHistory,omitempty"`
	// CopiesHistoryFrom is the history table an SCD_TYPE_2 model's new
	// table starts as a copy of.
	CopiesHistoryFrom string `json:"copiesHistoryFrom,omitempty"`
	// Refill lists the restated models a FULL model reads through its
	// ancestors: apply refills its table after them.
	Refill []string `json:"refill,omitempty"`
	// RefillWhy is "restated" or "preview".
	RefillWhy string `json:"refillWhy,omitempty"`
	// Redacted lists the columns a redacted environment leaves out.
	Redacted []string `json:"redacted,omitempty"`
	// Missing is true when the state store trusts a relation of the model
	// that the warehouse lacks; Reason says which.
	Missing bool   `json:"missing,omitempty"`
	Reason  string `json:"reason,omitempty"` // with Missing: which relation is missing, and why it matters
	// Differs is set with Missing on a physical table that is there with
	// other columns than its snapshot's: apply rebuilds it.
	Differs bool `json:"differs,omitempty"`
	// StaleView is the view an earlier efmesh made for this EXTERNAL model,
	// which apply drops.
	StaleView string `json:"staleView,omitempty"`
	// Covered lists the ranges ([start, end), RFC 3339) another
	// environment's partial build (a preview) already holds.
	Covered [][]string `json:"covered,omitempty"`
	// CoveredIn names the environments serving Covered.
	CoveredIn []string `json:"coveredIn,omitempty"`
}

// ClauseChange is one clause of a changed query, before and after.
type ClauseChange struct {
	// Clause names the clause by its leading keyword(s): SELECT, FROM,
	// WHERE, …; a repeated one is numbered: "SELECT #2".
	Clause string `json:"clause"`
	// Old is the clause's text before; left out for an added clause.
	Old string `json:"old,omitempty"`
	// New is the clause's text after; left out for a removed clause.
	New string `json:"new,omitempty"`
}

// Retype is a column whose type a forward-only change widens in place.
type Retype struct {
	Column string `json:"column"` // the column widened
	From   string `json:"from"`   // its type before
	To     string `json:"to"`     // its type after
}

// LeftOut is a direct change a plan of a selection did not take.
type LeftOut struct {
	Name string `json:"name"` // the model's name
	// Change is added, removed, breaking, non-breaking or metadata-only.
	Change string `json:"change"`
	// Previous is the fingerprint the environment keeps; left out for a
	// new model.
	Previous string `json:"previous,omitempty"`
}

// Revert is a model a plan moves back to a version another user's later
// apply replaced.
type Revert struct {
	Model string `json:"model"` // the model's name
	// Fingerprint is the version the plan puts back.
	Fingerprint string `json:"fingerprint"`
	// Current is the version the environment serves.
	Current string `json:"current"`
	// By is who applied Current.
	By   string    `json:"by"`
	At   time.Time `json:"at"`   // when Current was applied
	Plan string    `json:"plan"` // the id of the plan that applied Current
}

// Apply is efmesh apply's payload: the plan, and what applying it did.
// A plan without changes, or one that waits for --yes (exit 2), is
// reported with applied false and empty lists.
type Apply struct {
	APIVersion int  `json:"apiVersion"`
	Applied    bool `json:"applied"` // true when the plan was applied
	// AuditFailures are the results of the blocking audits that stopped
	// the apply; present only then (exit 1).
	AuditFailures []AuditResult `json:"auditFailures,omitzero"`
	// Built names the snapshots built.
	Built    []string `json:"built"`
	Computed []string `json:"computed"` // the models whose intervals were computed
	// DroppedViews are the stale views of EXTERNAL models dropped; present
	// when applied.
	DroppedViews []string `json:"droppedViews,omitzero"`
	Env          string   `json:"env"` // the environment applied
	// Error says what stopped the apply; present only when it failed.
	Error string `json:"error,omitempty"`
	// Exported names the models whose export ran; present when applied.
	Exported []string `json:"exported,omitzero"`
	// FailedIntervals maps the model whose batch write failed to the
	// ranges ([start, end), RFC 3339) that failed; present only then.
	FailedIntervals map[string][][]string `json:"failedIntervals,omitempty"`
	// FailedTests counts the unit tests that failed and stopped the apply
	// before anything was built; present only then.
	FailedTests int  `json:"failedTests,omitempty"`
	Plan        Plan `json:"plan"` // the plan, as efmesh plan --json prints it
	// PlanID is the applied plan's id (status --json: lastPlan.id);
	// present when applied.
	PlanID string `json:"planId,omitempty"`
	// Promoted names the models whose environment view now points at the
	// plan's snapshot.
	Promoted []string `json:"promoted"`
	// Removed names the models whose view was removed; present when
	// applied.
	Removed []string `json:"removed,omitzero"`
	// Tests are the unit tests run before building; present when they
	// ran (not with --skip-tests, nor when nothing was built).
	Tests []TestResult `json:"tests,omitzero"`
}
