package cli

import (
	"time"

	"github.com/efmesh/efmesh/analysis"
)

// now is the clock of plans and runs: the current time, or $EFMESH_NOW to
// replay a day or to pin tests (analysis.Now, which the language server
// shares). Locks always use the wall clock.
func (a *app) now() time.Time {
	t, err := analysis.Now()
	if err != nil {
		a.log.Warn(err.Error())
	}
	return t
}

// batchProgress reports each committed batch of a backfill: in the
// metrics and as a log line (at a terminal, the live status line shows
// it too: liveProgress.Batch).
func (a *app) batchProgress() func(model string, k, n int, r analysis.Range) {
	return func(model string, k, n int, r analysis.Range) {
		metricsOf(a.ctx).batch(model, r)
		a.log.Info("batch", "model", model, "batch", k, "of", n, "start", r.Start.Format(time.RFC3339), "end", r.End.Format(time.RFC3339))
	}
}

// batchFailed counts a backfill batch that failed in the metrics (the
// error itself reaches the user with the command's).
func (a *app) batchFailed() func(model string, r analysis.Range, err error) {
	return func(model string, r analysis.Range, err error) {
		metricsOf(a.ctx).failedBatch(model, r)
	}
}
