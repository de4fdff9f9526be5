package jsonapi

import "encoding/json"

// Times written as strings below are RFC 3339 in UTC, "" when there is
// none (a model with no start, nothing computed yet).

// Status is efmesh status's payload: an environment's health, its
// incremental models' coverage and its recent run ticks.
type Status struct {
	APIVersion int `json:"apiVersion"`
	// Applied is false for an environment never applied, or deleted since.
	Applied bool `json:"applied"`
	// Deleted is true for an environment applied once and deleted since
	// (LastPlan is then its last plan, not what it serves).
	Deleted bool   `json:"deleted"`
	Env     string `json:"env"` // the environment
	// Freshness is how fresh the sources that declare a freshness are;
	// present only when there are any.
	Freshness []SourceFreshness `json:"freshness,omitempty"`
	// Healthy is the health rule's verdict (status --check exits 1 when
	// false): Problems is empty.
	Healthy bool `json:"healthy"`
	// LastPlan is the environment's last applied plan; null when never
	// applied.
	LastPlan *LastPlan `json:"lastPlan"`
	// Missing lists the relations the state store says exist that the
	// warehouse lacks; each is a problem.
	Missing []MissingRelation `json:"missing"`
	Models  []ModelStatus     `json:"models"` // the incremental models the environment serves
	// Notes are what status could not look at, which is no problem (a
	// warehouse another process is writing).
	Notes []string `json:"notes"`
	// Preview is the range the environment covers when its last plan was
	// a preview; null: the project's whole history.
	Preview *Preview `json:"preview"`
	// Problems are the unhealthy states, one sentence each.
	Problems []string `json:"problems"`
	// Refreshes are the FULL models the environment serves, with their
	// cron refreshes.
	Refreshes []RefreshStatus `json:"refreshes"`
	// Running is true when the last run tick is still running.
	Running bool `json:"running"`
	// Ticks are the recent run ticks, newest first (status --ticks).
	Ticks []Tick `json:"ticks"`
}

// LastPlan is an environment's last applied plan.
type LastPlan struct {
	AppliedBy string `json:"appliedBy"` // who applied it: $EFMESH_USER, else user@host
	CreatedAt string `json:"createdAt"` // when it was applied
	// ID is the plan's id, which apply --expect-env takes.
	ID string `json:"id"`
	// Status is applied, or failed or interrupted for an apply that did
	// not finish.
	Status string `json:"status"`
	// Summary is the plan's Summary as it was recorded; null when none.
	Summary json.RawMessage `json:"summary"`
}

// MissingRelation is a relation the state store says exists that the
// warehouse lacks.
type MissingRelation struct {
	Model    string `json:"model"`    // the model whose relation is missing
	Relation string `json:"relation"` // the relation's name in the warehouse
	// Physical is true for a snapshot's physical relation (or its files),
	// false for an environment's view.
	Physical bool `json:"physical"`
	// Differs is true for a relation that is there but whose columns are
	// not the snapshot's; present only then.
	Differs bool   `json:"differs,omitempty"`
	Reason  string `json:"reason"` // what is missing, and what apply does about it
}

// ModelStatus is the interval coverage of an incremental model, against
// the version the environment points at.
type ModelStatus struct {
	// CoveredThrough is the end of the last done interval.
	CoveredThrough string `json:"coveredThrough"`
	// Cron is the model's own cron; "" when it declares none.
	Cron string `json:"cron"`
	// Done counts the done intervals that are due.
	Done int `json:"done"`
	// DueThrough is the end of the last complete interval before now.
	DueThrough string `json:"dueThrough"`
	// ExpectedThrough is the end of the last interval the cron made due.
	ExpectedThrough string `json:"expectedThrough"`
	// Failed are the intervals marked failed, [start, end) each.
	Failed      [][]string `json:"failed"`
	Fingerprint string     `json:"fingerprint"` // the version the environment points at
	// Interval is the model's grain: day or hour.
	Interval string `json:"interval"`
	// Missing counts the due intervals not done: the lag.
	Missing int `json:"missing"`
	// MissingRanges are the due ranges not done, merged, oldest first.
	MissingRanges [][]string `json:"missingRanges"`
	Name          string     `json:"name"` // the model's name
	// Overdue counts the missing intervals before ExpectedThrough: lag
	// beyond what the cron allows, a problem.
	Overdue int    `json:"overdue"`
	Start   string `json:"start"` // the model's start
}

// RefreshStatus is a FULL model's cron refresh.
type RefreshStatus struct {
	// Cron is the cron in force: the header's, else efmesh.yaml's
	// defaults, else @daily.
	Cron string `json:"cron"`
	// DueSince is the cron's first firing after LastRefresh.
	DueSince    string `json:"dueSince"`
	Fingerprint string `json:"fingerprint"` // the version the environment points at
	// LastRefresh is "" when never refreshed.
	LastRefresh string `json:"lastRefresh"`
	Name        string `json:"name"` // the model's name
	// Overdue is true when DueSince has passed.
	Overdue bool `json:"overdue"`
}

// Tick is one efmesh run of an environment.
type Tick struct {
	// Detail is what the tick recorded (its counts, its error); null when
	// nothing.
	Detail     json.RawMessage `json:"detail"`
	FinishedAt string          `json:"finishedAt"` // when it finished; "" while running or when killed
	ID         string          `json:"id"`         // the tick's id
	// Outcome is ok, awaiting-human, lock-held, error, interrupted or
	// started.
	Outcome   string `json:"outcome"`
	StartedAt string `json:"startedAt"` // when it started
}

// Run is efmesh run's payload: what one tick computed.
type Run struct {
	APIVersion int `json:"apiVersion"`
	// BlockedBy names the models whose project version differs from the
	// environment ("name: change") when the tick refused to run; present
	// only then.
	BlockedBy []string `json:"blockedBy,omitempty"`
	// Computed names the incremental models whose intervals were computed.
	Computed []string `json:"computed"`
	Env      string   `json:"env"` // the environment run
	// Error says what went wrong; present only when the tick failed.
	Error string `json:"error,omitempty"`
	// Exported names the models copied into an attached database;
	// present only when there are any.
	Exported []string `json:"exported,omitempty"`
	// Failed are the models whose build failed.
	Failed []ModelFailure `json:"failed"`
	// Freshness is how fresh the sources are; present only when any
	// declares a freshness.
	Freshness []SourceFreshness `json:"freshness,omitempty"`
	// Intervals counts the intervals computed.
	Intervals int `json:"intervals"`
	// Merged names the SCD_TYPE_2 and INCREMENTAL_BY_UNIQUE_KEY models
	// merged.
	Merged []string `json:"merged"`
	// Outcome is ok, awaiting-human (exit 2), lock-held or error (exit 1),
	// or interrupted (exit 130).
	Outcome string `json:"outcome"`
	// Processed names every model the tick brought up to date.
	Processed []string `json:"processed"`
	// Refreshed names the FULL models refreshed for their cron.
	Refreshed []string `json:"refreshed"`
	// Skipped are the models not run because a parent failed.
	Skipped []SkippedModel `json:"skipped"`
	// Succeeded is Processed, under the name pipelines look for.
	Succeeded []string `json:"succeeded"`
}

// ModelFailure is a model whose build failed.
type ModelFailure struct {
	Model string `json:"model"` // the model
	Error string `json:"error"` // why its build failed
}

// SkippedModel is a model not run because Parent failed.
type SkippedModel struct {
	Model  string `json:"model"`  // the model not run
	Parent string `json:"parent"` // the failed model it reads
}

// Restate is efmesh restate's payload: the intervals cleared, for the next
// apply or run to recompute.
type Restate struct {
	APIVersion int    `json:"apiVersion"`
	DryRun     bool   `json:"dryRun"` // true with --dry-run: nothing was cleared
	Env        string `json:"env"`    // the environment restated
	// Exclude is --exclude; present only with --select.
	Exclude []string `json:"exclude,omitzero"`
	// From and To are the range restated, [from, to).
	From string `json:"from"`
	// Model is --model; left out with --select.
	Model  string          `json:"model,omitempty"`
	Models []RestatedModel `json:"models"` // the models whose intervals were cleared
	// Select is --select; present only with --select.
	Select []string `json:"select,omitzero"`
	To     string   `json:"to"` // the end of the range (exclusive)
}

// RestatedModel is a model whose intervals restate cleared.
type RestatedModel struct {
	Fingerprint string `json:"fingerprint"` // the version whose ledger was cleared
	// From and To are the range cleared for this model, aligned to its
	// grain.
	From string `json:"from"`
	// Intervals counts the intervals cleared.
	Intervals int    `json:"intervals"`
	Name      string `json:"name"` // the model's name
	// Rebuild is true for a FULL model: its refresh record is cleared, so
	// the next run refills its whole table.
	Rebuild bool `json:"rebuild"`
	// SharedWith names the other environments that serve the same
	// snapshot, which see the restatement too.
	SharedWith []string `json:"sharedWith"`
	To         string   `json:"to"` // the end of the range cleared (exclusive)
}

// Audit is efmesh audit's payload: the audits run on what an environment
// serves.
type Audit struct {
	APIVersion int `json:"apiVersion"`
	// AsApplied names the models whose audits in the project differ from
	// those of the environment's version: they were audited as applied
	// (the project's audits are a change efmesh plan shows).
	AsApplied []string `json:"asApplied"`
	// EditedAudits names the custom audit files whose SQL differs from
	// what the environment's versions recorded: those ran as applied.
	EditedAudits []string `json:"editedAudits"`
	Env          string   `json:"env"` // the environment audited
	// Passed is false when a blocking audit failed (exit 1).
	Passed  bool          `json:"passed"`
	Results []AuditResult `json:"results"` // one result per audit and model
}
