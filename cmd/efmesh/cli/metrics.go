package cli

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// --metrics PATH on apply and run writes, when the command finishes, a
// metrics file in the text exposition format node_exporter's textfile
// collector reads, so a scraped host needs no wrapper around efmesh. The
// file is written to a temporary name and renamed (a scraper never reads a
// half-written file), on every finished command — a tick that found nothing
// to do and an apply awaiting confirmation too, because "ran and did
// nothing" must not look like "did not run". An unwritable path is a
// warning, never a failed command.
//
// The series describe the one command that wrote the file: counters start
// at zero each time. Row counts are absent on purpose: efmesh never runs a
// query only to count rows.

type metricsKey struct{}

// cmdMetrics collects the metrics of one command.
type cmdMetrics struct {
	command, env string
	root         string // the project folder, to find models' grains

	mu        sync.Mutex
	models    map[string]*project.Model // loaded lazily
	lastBuilt time.Time
	outcome   string // set by the command when it knows better than its error

	reg             *metricRegistry
	intervalsDone   *metricFamily
	intervalsFailed *metricFamily
	snapshotsBuilt  *metricFamily
	auditsPassed    *metricFamily
	auditsFailed    *metricFamily
	buildSeconds    *metricFamily
	commandSeconds  *metricFamily
	plannedModels   *metricFamily
	lastRun         *metricFamily
}

func newCmdMetrics(command, env, dir string) *cmdMetrics {
	m := &cmdMetrics{command: command, env: env, root: dir, reg: &metricRegistry{}, lastBuilt: time.Now()}
	perModel := []string{"model", "env"}
	counter := func(name, help string, labels ...string) *metricFamily {
		return m.reg.add("counter", name, help, labels)
	}
	gauge := func(name, help string, labels ...string) *metricFamily {
		return m.reg.add("gauge", name, help, labels)
	}
	m.intervalsDone = counter("efmesh_intervals_done_total", "how many intervals were computed and marked done", perModel...)
	m.intervalsFailed = counter("efmesh_intervals_failed_total", "how many intervals failed (write or blocking audit) and were marked failed", perModel...)
	m.snapshotsBuilt = counter("efmesh_snapshots_built_total", "how many models were built or had intervals computed", perModel...)
	m.auditsPassed = counter("efmesh_audits_passed_total", "audits evaluated without violations", perModel...)
	m.auditsFailed = counter("efmesh_audits_failed_total", "audits with violations or that could not run (warnings included)", append(perModel, "blocking")...)
	m.buildSeconds = gauge("efmesh_model_build_duration_seconds", "how long building a model (its audits included) took", perModel...)
	m.commandSeconds = gauge("efmesh_command_duration_seconds", "how long the command took", "command", "env")
	m.plannedModels = gauge("efmesh_planned_models", "models in the plan, by change category", "change", "env")
	m.lastRun = gauge("efmesh_last_run_timestamp_seconds", "when the last command finished, by outcome", "command", "env", "outcome")
	return m
}

// metricsOf returns the collector of the running command; nil (whose
// methods do nothing) without --metrics.
func metricsOf(ctx context.Context) *cmdMetrics {
	m, _ := ctx.Value(metricsKey{}).(*cmdMetrics)
	return m
}

// withMetrics adds --metrics to a command whose first argument is the
// environment, and writes the file when the command returns.
func (a *app) withMetrics(cmd *cobra.Command) *cobra.Command {
	var path string
	cmd.Flags().StringVar(&path, "metrics", "", "write metrics of this command to `PATH` (text exposition for node_exporter, replaced atomically)")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if path == "" {
			return run(c, args)
		}
		m := newCmdMetrics(cmd.Name(), args[0], a.dir)
		ctx := a.ctx
		a.ctx = planner.WithAuditObserver(context.WithValue(ctx, metricsKey{}, m), m.audit)
		defer func() { a.ctx = ctx }()
		start := time.Now()
		err := run(c, args)
		m.finish(err, time.Since(start))
		if werr := m.reg.writeTextfile(path); werr != nil {
			a.log.Warn("--metrics: the metrics file could not be written", "path", path, "err", werr)
		}
		return err
	}
	return cmd
}

func (m *cmdMetrics) labels(model string) labelSet {
	return labelSet{"model": model, "env": m.env}
}

// planned records the plan's models by change.
func (m *cmdMetrics) planned(p *planner.Plan) {
	if m == nil {
		return
	}
	for change, n := range p.Counts() {
		m.plannedModels.With(labelSet{"change": string(change), "env": m.env}).Set(float64(n))
	}
}

// progressed wraps a Progress callback: each call reports one model built.
func (m *cmdMetrics) progressed(next func(done, total int, model string)) func(done, total int, model string) {
	if m == nil {
		return next
	}
	return func(done, total int, model string) {
		m.mu.Lock()
		now := time.Now()
		m.buildSeconds.With(m.labels(model)).Set(now.Sub(m.lastBuilt).Seconds())
		m.lastBuilt = now
		m.snapshotsBuilt.With(m.labels(model)).Inc()
		m.mu.Unlock()
		if next != nil {
			next(done, total, model)
		}
	}
}

// batch records a committed batch of a backfill.
func (m *cmdMetrics) batch(model string, r analysis.Range) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.intervalsDone.With(m.labels(model)).Add(float64(m.intervals(model, r)))
}

// failedBatch records a batch of a backfill marked failed.
func (m *cmdMetrics) failedBatch(model string, r analysis.Range) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.intervalsFailed.With(m.labels(model)).Add(float64(m.intervals(model, r)))
}

// intervals counts the intervals of model's grain in r. Precondition: m.mu
// is held.
func (m *cmdMetrics) intervals(model string, r analysis.Range) int {
	if m.models == nil {
		m.models = map[string]*project.Model{}
		if root, err := project.FindRoot(m.root); err == nil {
			if p, err := project.Load(root); err == nil {
				m.models = p.ByName
			}
		}
	}
	if md := m.models[model]; md != nil {
		return planner.IntervalCount(md, r)
	}
	return 1
}

func (m *cmdMetrics) audit(r planner.AuditResult) {
	switch r.Status {
	case planner.AuditPassed:
		m.auditsPassed.With(m.labels(r.Model)).Inc()
	case planner.AuditFailed, planner.AuditWarned, planner.AuditError:
		blocking := "false"
		if r.Blocking {
			blocking = "true"
		}
		m.auditsFailed.With(labelSet{"model": r.Model, "env": m.env, "blocking": blocking}).Inc()
	}
}

// setOutcome records the command's outcome when its error does not say it
// (a run tick's lock-held).
func (m *cmdMetrics) setOutcome(outcome string) {
	if m != nil {
		m.outcome = outcome
	}
}

func (m *cmdMetrics) finish(err error, took time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	outcome := m.outcome
	if outcome == "" {
		var ee *exitError
		switch {
		case err == nil:
			outcome = state.RunOK
		case errors.As(err, &ee) && ee.code == ExitAwaiting:
			outcome = state.RunAwaitingHuman
		default:
			outcome = state.RunError
		}
	}
	m.commandSeconds.With(labelSet{"command": m.command, "env": m.env}).Set(took.Seconds())
	m.lastRun.With(labelSet{"command": m.command, "env": m.env, "outcome": outcome}).Set(float64(time.Now().Unix()))
}
