package planner

import (
	"context"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
)

// Observation hooks for metrics. The planner keeps no registry of its own:
// a caller that wants numbers (the CLI's --metrics) attaches observers to
// the context it passes to Apply and Run.

type auditObserverKey struct{}

// WithAuditObserver returns a context under which every audit evaluated by
// Apply, Run and AuditEnvironment is reported to fn, as it completes.
func WithAuditObserver(ctx context.Context, fn func(AuditResult)) context.Context {
	return context.WithValue(ctx, auditObserverKey{}, fn)
}

func observeAudit(ctx context.Context, r AuditResult) {
	if fn, ok := ctx.Value(auditObserverKey{}).(func(AuditResult)); ok && fn != nil {
		fn(r)
	}
}

// IntervalCount returns how many intervals of m's grain the range r spans
// (a batch of a backfill spans one or more).
func IntervalCount(m *project.Model, r analysis.Range) int {
	return len(analysis.GrainOf(m).Intervals(r))
}
