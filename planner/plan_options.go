package planner

import (
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
)

// PlanOption tunes MakePlan.
type PlanOption func(*planConfig)

type planConfig struct {
	now           time.Time
	forwardOnly   map[string]bool
	reclassify    map[string]Change
	restate       []restateRequest
	preview       *previewRequest // WithPreview; nil: the recorded range
	rebuild       map[string]bool
	backfillLimit int // 0: none
	// checkWarehouse: compare the store with warehouse (WithWarehouse).
	checkWarehouse bool
	warehouse      engine.Engine
	// catalog, when set, is what the check lists instead of warehouse's
	// catalog (WithCatalog).
	catalog CatalogReader
	// workbench: bind what a redacted environment changes (WithWorkbench).
	workbench analysis.Workbench
	// dueRefreshes: list the cron refreshes apply leaves to run
	// (WithDueRefreshes).
	dueRefreshes bool
	// user: who makes the plan (WithUser).
	user string
}

// WithDueRefreshes makes MakePlan list, in Plan.DueRefresh, the FULL models
// whose cron fired since their last refresh and which the plan does not
// compute: apply never refreshes for a cron, the next efmesh run does, and
// a plan says so. Off by default: it reads every FULL model's ledger.
func WithDueRefreshes() PlanOption {
	return func(c *planConfig) { c.dueRefreshes = true }
}

// WithBackfillLimit makes MakePlan refuse, with a *LargeBackfillError, a
// plan that computes more than n intervals over all models; n <= 0 sets
// no limit (the default).
func WithBackfillLimit(n int) PlanOption {
	return func(c *planConfig) { c.backfillLimit = max(n, 0) }
}

// restateRequest asks a plan to recompute [from, to) of a model.
type restateRequest struct {
	model    string
	from, to time.Time
}

// WithForwardOnly asks that the named incremental models change without
// recomputing history: they inherit their previous table and done
// intervals, new columns are added with ALTER.
func WithForwardOnly(models ...string) PlanOption {
	return func(c *planConfig) {
		if c.forwardOnly == nil {
			c.forwardOnly = map[string]bool{}
		}
		for _, m := range models {
			c.forwardOnly[m] = true
		}
	}
}

// WithReclassify states the operator's verdict (Breaking or NonBreaking) on a
// directly changed model. A verdict the AST contradicts (non-breaking for
// a change that drops or reorders columns) makes MakePlan fail.
func WithReclassify(model string, verdict Change) PlanOption {
	return func(c *planConfig) {
		if c.reclassify == nil {
			c.reclassify = map[string]Change{}
		}
		c.reclassify[model] = verdict
	}
}

// WithRestate makes the plan recompute [from, to) of an
// INCREMENTAL_BY_TIME_RANGE model and of its INCREMENTAL_BY_TIME_RANGE
// descendants, in the snapshots the plan is about to promote (new or
// not), whatever their ledgers say: the backfill's DELETE+INSERT replaces
// the range's rows. The bounds must be aligned to the model's intervals; a
// descendant of a coarser grain has its range widened to whole intervals.
// FULL descendants are refilled after them (ModelPlan.Refill).
func WithRestate(model string, from, to time.Time) PlanOption {
	return func(c *planConfig) {
		c.restate = append(c.restate, restateRequest{model: model, from: from.UTC(), to: to.UTC()})
	}
}

// PlanAt makes the plan as of now: intervals are due up to the last
// complete one before now. Tests and replays pin it; the default is the
// current time.
func PlanAt(now time.Time) PlanOption {
	return func(c *planConfig) { c.now = now }
}

func planConfigOf(opts []PlanOption) planConfig {
	var c planConfig
	for _, o := range opts {
		o(&c)
	}
	if c.now.IsZero() {
		c.now = time.Now()
	}
	return c
}

// WithRebuildHistory allows the plan to rebuild the named SCD_TYPE_2
// models' history from scratch: a change of their own definition builds a
// new table (the accumulated versions stay with the old snapshot), and an
// upstream change that would otherwise keep the history table rebuilds it.
// Without it, a plan that rebuilds an SCD_TYPE_2 history says so and Apply
// refuses it (*HistoryRebuildError).
func WithRebuildHistory(models ...string) PlanOption {
	return func(c *planConfig) {
		if c.rebuild == nil {
			c.rebuild = map[string]bool{}
		}
		for _, m := range models {
			c.rebuild[m] = true
		}
	}
}
