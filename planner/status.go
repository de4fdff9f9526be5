package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// Status is what is going on in an environment: the last applied plan,
// the interval coverage of its incremental models (against the versions
// the environment points at: what its consumers see), failed intervals and
// recent ticks.
type Status struct {
	Env      string
	LastPlan *state.PlanRecord // nil when never applied
	// Preview is the range the environment covers when its last applied
	// plan was a preview (WithPreview); the models' due intervals are
	// those inside it. Nil: the project's whole history.
	Preview *Preview
	Models  []ModelStatus
	// Refreshes are the FULL models the environment serves, with their
	// cron refreshes (RefreshStatus); one overdue is a problem.
	Refreshes []RefreshStatus
	Ticks     []state.Run // newest first
	// Applied is false for an environment that was never applied: no
	// applied plan and no pointers — or one deleted since (Deleted): it
	// serves nothing (ReadEnvironment). That is a problem too.
	Applied bool
	// Deleted is true for an environment applied once and deleted since
	// (LastPlan is then its last plan, not what it serves).
	Deleted bool
	// Missing lists the relations the store says exist that the warehouse
	// lacks (StatusWarehouse); each is a problem.
	Missing []MissingRelation
	// Corrupt is the damage found reading the environment's tables whole
	// (StatusWarehouse): the warehouse's storage lost data. Nil when none.
	Corrupt *engine.CorruptError
	// Notes are what status could not look at, which is no problem: a
	// warehouse another process is writing (StatusWarehouseBusy).
	Notes []string
	// Problems are the unhealthy states (the health rule): never
	// applied, relations missing from the warehouse, failed intervals, a
	// last run tick that did not complete (error, awaiting-human,
	// lock-held, interrupted, or started and never finished: killed), and
	// a model that is overdue: an interval its cron made due is not
	// computed (ModelStatus.Overdue). A tick in progress (Running) is not
	// judged, nor is the lag it is computing.
	Problems []string
	// Running is true when the last tick started and its process is
	// still alive (or runs on another host: it cannot be told).
	Running bool
	// Freshness is what StatusFreshness found of the sources.
	Freshness []SourceFreshness
}

// StatusOption tunes GetStatus.
type StatusOption func(*statusConfig)

type statusConfig struct {
	checkWarehouse bool
	warehouse      engine.Engine
	root           string
	busy           *engine.BusyError
	sources        *project.Project
}

// StatusFreshness makes GetStatus read the freshness of p's EXTERNAL
// models that declare one (CheckFreshness) on the warehouse of
// StatusWarehouse: a source past its error_after is a problem, one past
// its warn_after is only reported (Status.Freshness).
func StatusFreshness(p *project.Project) StatusOption {
	return func(c *statusConfig) { c.sources = p }
}

// StatusWarehouse makes GetStatus check the environment's relations
// against the warehouse wh (nil: one that does not exist) with one catalog
// query, and the parquet files of lake targets under the project folder
// root. A relation the store trusts but the warehouse lacks is a problem.
// The tables that are there are read whole (verifyTables): damaged
// storage is a problem too (Status.Corrupt).
func StatusWarehouse(wh engine.Engine, root string) StatusOption {
	return func(c *statusConfig) {
		c.checkWarehouse, c.warehouse, c.root = true, wh, root
	}
}

// StatusWarehouseBusy says the warehouse could not be checked because
// another process is writing it (a run or an apply, as usual): the
// relations are not compared, and a note says so. It is not a problem.
func StatusWarehouseBusy(busy *engine.BusyError) StatusOption {
	return func(c *statusConfig) { c.busy = busy }
}

// Healthy reports whether Status found no problem.
func (s *Status) Healthy() bool { return len(s.Problems) == 0 }

// ModelStatus is the coverage of one incremental model.
type ModelStatus struct {
	Name        string
	Fingerprint string
	Grain       analysis.Grain
	Start       time.Time // zero when the model has no start
	DueThrough  time.Time // end of the last complete interval before now
	// CoveredThrough is the end of the last done interval (zero when none).
	CoveredThrough time.Time
	Done           int // done intervals due
	Missing        int // due intervals not done: the lag
	// MissingRanges are the due ranges not done, merged, oldest first: a
	// hole before CoveredThrough (a restate, a failed batch) as well as
	// the lag at the end (Holes tells them apart).
	MissingRanges []analysis.Range
	Failed        []analysis.Range // intervals marked failed
	// Cron is the model's own cron ("" when it declares none: every
	// interval is due when it closes). ExpectedThrough is the end of the
	// last interval its cron made due by now (at its last firing), and
	// Overdue counts the missing intervals before it: lag beyond what the
	// cron allows, a problem.
	Cron            string
	ExpectedThrough time.Time
	Overdue         int
}

// RefreshStatus is the cron refresh of one FULL model: when its table was
// last computed and whether its cron fired since (refreshDue, the decision
// run and plan make). Overdue is a problem: the tick that should have
// refreshed it did not.
type RefreshStatus struct {
	Name        string
	Fingerprint string
	Cron        string    // in force: the header's, else efmesh.yaml's defaults, else @daily
	LastRefresh time.Time // zero when never refreshed (restated)
	// DueSince is the cron's first firing after LastRefresh (zero when
	// never refreshed); Overdue when it is not after now.
	DueSince time.Time
	Overdue  bool
}

// Holes returns the missing ranges before the last done interval: what
// "covered through" alone would hide. The lag at the end is not a hole.
func (m ModelStatus) Holes() []analysis.Range {
	var out []analysis.Range
	for _, r := range m.MissingRanges {
		if r.Start.Before(m.CoveredThrough) {
			out = append(out, r)
		}
	}
	return out
}

// HoleIntervals counts the intervals of Holes.
func (m ModelStatus) HoleIntervals() int {
	n := 0
	for _, r := range m.Holes() {
		n += m.Grain.Count(r)
	}
	return n
}

// GetStatus reports on env as of now. cfg supplies the project's start for
// models that declare none; ticks is how many recent ticks to list.
//
// In steps: the environment and its versions, the relations checked
// against the warehouse (checkRelations), the interval coverage of each
// incremental model (coverage), the cron refreshes of the FULL ones, the
// recent ticks (readTicks), what is overdue (overdueProblems) and the
// sources' freshness (freshnessProblems).
func GetStatus(ctx context.Context, st state.Reader, cfg project.Config, env string, now time.Time, ticks int, opts ...StatusOption) (*Status, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	var sc statusConfig
	for _, o := range opts {
		o(&sc)
	}
	s := &Status{Env: env}
	e, err := ReadEnvironment(ctx, st, env)
	if err != nil {
		return nil, err
	}
	s.LastPlan = e.LastApplied
	models, err := envModelsOf(ctx, st, env, e.Pointers)
	if err != nil {
		return nil, err
	}
	s.Applied, s.Deleted = e.Applied(), e.Deleted()
	if s.Preview, err = RecordedPreview(ctx, st, env); err != nil {
		return nil, err
	}
	if !s.Applied {
		s.Problems = append(s.Problems, e.Absence())
	}
	if err := s.checkRelations(ctx, st, cfg, sc, models); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(models))
	for n, m := range models {
		if m.def.Kind.Name == project.KindIncrementalByTimeRange {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ms, err := coverage(ctx, st, cfg, n, models[n], s.Preview, now)
		if err != nil {
			return nil, err
		}
		if len(ms.Failed) > 0 {
			s.Problems = append(s.Problems, fmt.Sprintf("%s has %d failed interval(s), the first %s", n, len(ms.Failed), ms.Failed[0]))
		}
		s.Models = append(s.Models, ms)
	}
	if s.Refreshes, err = refreshStatuses(ctx, st, cfg, models, now); err != nil {
		return nil, err
	}
	if err := s.readTicks(ctx, st, ticks); err != nil {
		return nil, err
	}
	if !s.Running {
		s.overdueProblems()
	}
	s.freshnessProblems(ctx, sc, now)
	return s, nil
}

// checkRelations compares the environment's relations (models) with the
// warehouse when sc asks for it (StatusWarehouse): every relation the
// store trusts that the warehouse lacks, and every file source that is not
// there, is a problem. A busy warehouse is not checked, only noted.
func (s *Status) checkRelations(ctx context.Context, st state.Reader, cfg project.Config, sc statusConfig, models map[string]envModel) error {
	if sc.busy != nil {
		pid := "pid unknown"
		if sc.busy.PID > 0 {
			pid = fmt.Sprintf("pid %d", sc.busy.PID)
		}
		s.Notes = append(s.Notes, fmt.Sprintf("warehouse busy (%s): relations not checked (%v)", pid, sc.busy))
		return nil
	}
	if !sc.checkWarehouse {
		return nil
	}
	lake := lakeRootAt(sc.root, cfg.Lake)
	var d engine.Dialect // none: no warehouse, no identifier limit to meet
	if sc.warehouse != nil {
		d = sc.warehouse.Dialect()
	}
	var err error
	exp := envExpectations(d, s.Env, models, sc.root, lake)
	if s.Missing, err = missingIn(ctx, sc.warehouse, st, exp); err != nil {
		return err
	}
	for _, mr := range s.Missing {
		s.Problems = append(s.Problems, mr.Model+": "+mr.Reason)
	}
	if sc.warehouse != nil {
		// Present is not readable: the tables are read whole.
		err := verifyTables(ctx, sc.warehouse, presentTables(exp, s.Missing))
		if !errors.As(err, &s.Corrupt) && err != nil {
			return err
		}
		if s.Corrupt != nil {
			s.Problems = append(s.Problems, s.Corrupt.Error())
		}
	}
	if sc.warehouse != nil {
		ps, err := fileSourceProblems(ctx, sc.warehouse, sc.root, models)
		if err != nil {
			return err
		}
		s.Problems = append(s.Problems, ps...)
	}
	return nil
}

// coverage is the interval coverage of the incremental model name (the
// version m the environment serves) as of now: what is due from its start
// (narrowed to the environment's preview, when there is one), what its
// ledger holds done or failed, what is missing and what is overdue. A
// model without a start is reported with its ledger only.
func coverage(ctx context.Context, st state.Reader, cfg project.Config, name string, m envModel, preview *Preview, now time.Time) (ModelStatus, error) {
	g := m.grain()
	ms := ModelStatus{Name: name, Fingerprint: m.snap.Fingerprint, Grain: g, DueThrough: g.Floor(now)}
	start, serr := analysis.ModelStart(&project.Model{Name: name, Start: m.def.Start, Interval: string(g)}, cfg)
	if serr == nil && preview != nil {
		// A preview: only its range is due.
		if ps := g.Floor(preview.Start); ps.After(start) {
			start = ps
		}
		if !preview.End.IsZero() {
			if pe := g.Ceil(preview.End); pe.Before(ms.DueThrough) {
				ms.DueThrough = pe
			}
		}
		if ms.DueThrough.Before(start) {
			ms.DueThrough = start
		}
	}
	if serr == nil {
		ms.Start = start
	}
	ivs, err := st.Intervals(ctx, m.snap.Fingerprint)
	if err != nil {
		return ModelStatus{}, err
	}
	for _, iv := range ivs {
		switch iv.Status {
		case state.IntervalFailed:
			ms.Failed = append(ms.Failed, analysis.Range{Start: iv.Start, End: iv.End})
		case state.IntervalDone:
			if iv.End.After(ms.CoveredThrough) {
				ms.CoveredThrough = iv.End
			}
			if serr == nil && !iv.Start.Before(start) && !iv.End.After(ms.DueThrough) {
				ms.Done++
			}
		}
	}
	if serr == nil {
		ms.Missing = g.Count(analysis.Range{Start: start, End: ms.DueThrough}) - ms.Done
		ms.MissingRanges = g.Missing(start, ms.DueThrough, ivs, 0)
		ms.Cron = m.def.Cron
		ms.ExpectedThrough, ms.Overdue = overdue(ms, now)
	}
	return ms, nil
}

// readTicks lists the environment's last ticks (at most n), newest first:
// the last one is a problem when it did not complete, a note while it runs.
func (s *Status) readTicks(ctx context.Context, st state.Reader, n int) error {
	var err error
	if s.Ticks, err = st.Runs(ctx, s.Env, n); err != nil {
		return err
	}
	if len(s.Ticks) > 0 {
		problem, running := lastTickProblem(s.Ticks[0])
		s.Running = running
		switch {
		case running:
			s.Notes = append(s.Notes, problem)
		case problem != "":
			s.Problems = append(s.Problems, problem)
		}
	}
	return nil
}

// overdueProblems adds a problem for every incremental model with
// intervals its cron made due that are not computed, and every FULL model
// whose cron fired since its last refresh.
func (s *Status) overdueProblems() {
	for _, ms := range s.Models {
		if ms.Overdue == 0 {
			continue
		}
		allows := "every interval is due when it closes"
		if ms.Cron != "" {
			allows = "its cron " + ms.Cron + " made it due"
		}
		covered := "nothing computed"
		if !ms.CoveredThrough.IsZero() {
			covered = "computed through " + ms.CoveredThrough.UTC().Format(time.RFC3339)
		}
		s.Problems = append(s.Problems, fmt.Sprintf("%s is overdue: %d interval(s) due through %s are not computed (%s; %s)",
			ms.Name, ms.Overdue, ms.ExpectedThrough.UTC().Format(time.RFC3339), covered, allows))
	}
	for _, r := range s.Refreshes {
		if !r.Overdue {
			continue
		}
		if r.LastRefresh.IsZero() {
			s.Problems = append(s.Problems, fmt.Sprintf("%s is overdue: its table was not refreshed since it was restated (cron %s)", r.Name, r.Cron))
			continue
		}
		s.Problems = append(s.Problems, fmt.Sprintf("%s is overdue: its cron %s fired at %s, after its last refresh at %s",
			r.Name, r.Cron, r.DueSince.UTC().Format(time.RFC3339), r.LastRefresh.UTC().Format(time.RFC3339)))
	}
}

// freshnessProblems reads the sources' freshness when sc asks for it
// (StatusFreshness, on a warehouse that is not busy): a source past its
// error_after is a problem.
func (s *Status) freshnessProblems(ctx context.Context, sc statusConfig, now time.Time) {
	if sc.sources == nil || sc.warehouse == nil || sc.busy != nil {
		return
	}
	s.Freshness = CheckFreshness(ctx, sc.sources, sc.warehouse, now, nil)
	for _, f := range s.Freshness {
		if f.Status == FreshError {
			s.Problems = append(s.Problems, f.Model+": "+f.Problem())
		}
	}
}

// refreshStatuses reads the cron refresh of every FULL model of models
// (the versions the environment serves), sorted by name: due as refreshDue
// decides it for run and plan, with the cron in force (cfg.CronOf).
func refreshStatuses(ctx context.Context, st state.Reader, cfg project.Config, models map[string]envModel, now time.Time) ([]RefreshStatus, error) {
	var out []RefreshStatus
	for n, m := range models {
		if m.def.Kind.Name != project.KindFull {
			continue
		}
		expr := cfg.CronOf(&project.Model{Name: n, Cron: m.def.Cron})
		c, err := project.ParseCron(expr)
		if err != nil {
			return nil, fmt.Errorf("%s: cron %w", n, err)
		}
		last, ok, err := lastRefresh(ctx, st, m.snap.Fingerprint)
		if err != nil {
			return nil, err
		}
		r := RefreshStatus{Name: n, Fingerprint: m.snap.Fingerprint, Cron: expr}
		if ok {
			r.LastRefresh = last
		}
		r.DueSince, r.Overdue = refreshDue(c, last, ok, now)
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// overdue returns the end of the last interval ms's cron made due by now
// (at its last firing; without a cron, every interval closed by now) and
// how many missing intervals lie before it.
func overdue(ms ModelStatus, now time.Time) (time.Time, int) {
	expected := ms.DueThrough
	if ms.Cron != "" {
		c, err := project.ParseCron(ms.Cron)
		if err != nil {
			return expected, 0
		}
		if last := lastFiring(c, now); last.IsZero() {
			expected = ms.Start
		} else if f := ms.Grain.Floor(last); f.Before(expected) {
			expected = f
		}
	}
	n := 0
	for _, r := range ms.MissingRanges {
		if r.End.After(expected) {
			r.End = expected
		}
		if r.Start.Before(r.End) {
			n += ms.Grain.Count(r)
		}
	}
	return expected, n
}

// lastFiring returns the last time c fired at or before now (zero when not
// within two years).
func lastFiring(c project.Cron, now time.Time) time.Time {
	for back := time.Hour; back <= 2*366*24*time.Hour; back *= 2 {
		t := c.Next(now.Add(-back))
		if t.IsZero() || t.After(now) {
			continue
		}
		for {
			n := c.Next(t)
			if n.IsZero() || n.After(now) {
				return t
			}
			t = n
		}
	}
	return time.Time{}
}

// tickOwner is what a started tick records of its process, so that status
// can tell a tick in progress from one that was killed.
type tickOwner struct {
	Host string `json:"host"`
	PID  int    `json:"pid"`
}

// lastTickProblem judges the last tick of an environment: "" when it
// completed; otherwise why it is a problem, or, for a tick still running
// (running true), a note saying so.
func lastTickProblem(t state.Run) (msg string, running bool) {
	at := t.StartedAt.UTC().Format(time.RFC3339)
	var d struct {
		runDetail
		tickOwner
	}
	_ = json.Unmarshal(t.Detail, &d)
	switch t.Outcome {
	case state.RunOK:
		return "", false
	case state.RunStarted:
		host, _ := os.Hostname()
		if d.Host != host || d.PID > 0 && processAlive(d.PID) {
			return fmt.Sprintf("a run tick is in progress since %s (pid %d on %s)", at, d.PID, d.Host), true
		}
		return fmt.Sprintf("the last run tick (%s) started and never finished: pid %d on %s was killed or crashed", at, d.PID, d.Host), false
	}
	why := ""
	switch {
	case t.Outcome == state.RunAwaitingHuman && len(d.BlockedBy) > 0:
		why = ": the environment needs an apply first (" + strings.Join(d.BlockedBy, "; ") + ")"
	case d.Error != "":
		why = ": " + analysis.FirstLine(d.Error)
	}
	return fmt.Sprintf("the last run tick (%s) did not complete: %s%s", at, t.Outcome, why), false
}

// storedRefs are the models a stored definition's body refs.
func storedRefs(def analysis.Definition) []string {
	ms, _ := project.ScanMacros(def.File, []byte(def.Body), 0)
	var out []string
	for _, mc := range ms {
		if mc.Kind == project.MacroRef && !slices.Contains(out, mc.Arg) {
			out = append(out, mc.Arg)
		}
	}
	return out
}

// envExpectations lists the relations the store says an environment's
// models have: each built snapshot's physical relation (and parquet
// files), and the environment's view of each model, in name order.
func envExpectations(d engine.Dialect, env string, models map[string]envModel, root, lake string) []expectation {
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	var exp []expectation
	for _, n := range names {
		m := models[n]
		kind := project.KindName(m.snap.Kind)
		target := m.def.Target
		if target == "" {
			target = "table"
		}
		if !owned(kind, target) {
			continue
		}
		schema, table := analysis.SplitName(n)
		// The relations whose columns are the model's output, as the
		// snapshot recorded it: compared with the catalog's. An SCD_TYPE_2
		// table adds its validity columns; a parquet relation is read
		// from its files.
		var want []engine.Column
		if m.def.Schema != nil && shapeKnown(kind, target) {
			want = m.def.Schema
		}
		if m.snap.Built() {
			be := builtExpectation(n, kind, target, m.snap.PhysicalTable, lake, m.snap.Fingerprint)
			be.want = want
			if kind == project.KindView {
				be.reads, be.globs = filesReadVia(root, storedRefs(m.def), func(name string) (project.Kind, []string, bool) {
					pm, ok := models[name]
					return pm.def.Kind, storedRefs(pm.def), ok
				})
			}
			exp = append(exp, be)
		}
		exp = append(exp, expectation{model: n, rel: engine.Relation{Schema: analysis.EnvSchema(d, env, schema), Name: table}, want: want, kind: viewKind,
			reads: []string{physicalName(m.snap.PhysicalTable)}})
	}
	return exp
}

// fileSourceProblems describes, on the warehouse wh, the local files each
// file EXTERNAL model of the environment reads (files under the project
// folder root) and names those that match no file or lack a column the
// model declared — or, declaring none, a column the snapshot recorded
// when the files were read at its plan — as plan and run do
// (fileShapeDiags).
func fileSourceProblems(ctx context.Context, wh engine.Engine, root string, models map[string]envModel) ([]string, error) {
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		def := models[n].def
		k := def.Kind
		if k.Name != project.KindExternal || k.Files == "" || strings.Contains(k.Files, "://") {
			continue
		}
		if !globMatches(analysis.AbsPath(root, k.Files)) {
			out = append(out, fmt.Sprintf("%s: no file matches %s", n, k.Files))
			continue
		}
		var want []string
		for _, c := range def.Columns {
			want = append(want, c.Name)
		}
		if len(want) == 0 {
			for _, c := range def.Schema {
				want = append(want, c.Name)
			}
		}
		if len(want) == 0 {
			continue
		}
		has, ok, err := fileColumns(ctx, wh, root, k)
		if !ok {
			return out, nil
		}
		if err != nil {
			out = append(out, fmt.Sprintf("%s: cannot read %s: %s", n, k.Files, analysis.FirstLine(analysis.ErrMessage(err))))
			continue
		}
		if lacking, msg := lackingColumns(k.Files, want, has); len(lacking) > 0 {
			out = append(out, n+": "+msg)
		}
	}
	return out, nil
}
