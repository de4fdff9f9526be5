package planner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// EnvAudit is the report of AuditEnvironment.
type EnvAudit struct {
	Env     string        `json:"env"`
	Results []AuditResult `json:"results"`
}

// Blocked reports whether a blocking audit failed or could not run.
func (r *EnvAudit) Blocked() bool {
	for _, x := range r.Results {
		if x.Blocks() {
			return true
		}
	}
	return false
}

// AuditEnvironment checks what env serves right now: every audit of the
// project's models (those named, or all) over the environment's views, the
// whole view each time, so it catches what happened after apply — late
// data, edits behind efmesh's back. per_interval audits are a promise
// about each written interval, not about the table: they are reported from
// the ledger (ledger may be nil: then skipped). An interval whose write or
// blocking audit failed was rolled back and is marked failed; a blocking
// per_interval audit of a model with such intervals is reported failed,
// naming them; otherwise skipped. It changes nothing and marks nothing.
func AuditEnvironment(ctx context.Context, proj *project.Project, wh engine.Engine, ledger state.Reader, pointers map[string]string, env string, models []string, log *slog.Logger) (*EnvAudit, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	if len(pointers) == 0 {
		return nil, fmt.Errorf("environment %s has no models: it was never applied", env)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, name := range models {
		if proj.ByName[name] == nil {
			return nil, fmt.Errorf("unknown model %q%s", name, analysis.DidYouMeanName(name, proj))
		}
		if _, ok := pointers[name]; !ok {
			return nil, fmt.Errorf("model %s is not in environment %s", name, env)
		}
	}
	d := wh.Dialect()
	// An EXTERNAL model has no view: it is read in place, as its
	// consumers read it.
	b := &builder{a: &analysis.Analysis{Project: proj}, d: d, wh: wh, root: proj.Root}
	relation := func(m *project.Model) (string, error) {
		switch m.Kind.Name {
		case project.KindEmbedded:
			return "", fmt.Errorf("model %s is embedded: it has no view to read", m.Name)
		case project.KindExternal:
			return b.inline(&analysis.ModelInfo{Model: m}, nil)
		}
		return d.QuoteRelation(analysis.EnvRelation(d, env, m)), nil
	}
	ad := &auditor{proj: proj, wh: wh, d: d, log: log, ref: func(name string) (string, error) {
		m := proj.ByName[name]
		if m == nil || pointers[name] == "" {
			return "", fmt.Errorf("model %s is not in environment %s", name, env)
		}
		return relation(m)
	}}
	rep := &EnvAudit{Env: env, Results: []AuditResult{}}
	for _, m := range proj.Models {
		if _, ok := pointers[m.Name]; !ok || len(models) > 0 && !slices.Contains(models, m.Name) {
			continue
		}
		var run []Audit
		for _, au := range ModelAudits(proj, m) {
			skip := AuditResult{Model: m.Name, Audit: au.Text, Blocking: au.Blocking, Scope: au.Scope, Status: AuditSkipped}
			switch {
			case au.Scope == ScopeInterval:
				failed, err := failedIntervals(ctx, ledger, pointers[m.Name])
				if err != nil {
					return nil, err
				}
				if len(failed) > 0 && au.Blocking {
					ie := &IntervalsError{Failed: failed}
					skip.Status, skip.Violations = AuditFailed, int64(len(failed))
					skip.Detail = "the ledger marks " + ie.ranges() + " failed: their write or a blocking audit failed and was rolled back"
					break
				}
				skip.Reason = "per_interval audits check each interval apply and run write, not the whole view"
			case m.Kind.Name == project.KindEmbedded:
				skip.Reason = "an embedded model has no view"
			case redactedArg(proj, env, m, au) != "":
				skip.Reason = "column " + redactedArg(proj, env, m, au) + " is redacted in " + env
			default:
				run = append(run, au)
				continue
			}
			rep.Results = append(rep.Results, skip)
		}
		if len(run) == 0 {
			continue
		}
		this, err := relation(m)
		if err != nil {
			return nil, err
		}
		res, err := ad.run(ctx, m, run, this, nil)
		var af *AuditFailure
		if err != nil && !errors.As(err, &af) {
			return nil, err
		}
		rep.Results = append(rep.Results, res...)
	}
	return rep, nil
}

// failedIntervals lists the intervals of snapshot fp the ledger marks
// failed; a nil ledger has none.
func failedIntervals(ctx context.Context, ledger state.Reader, fp string) ([]analysis.Range, error) {
	if ledger == nil || fp == "" {
		return nil, nil
	}
	ivs, err := ledger.Intervals(ctx, fp)
	if err != nil {
		return nil, err
	}
	var out []analysis.Range
	for _, iv := range ivs {
		if iv.Status == state.IntervalFailed {
			out = append(out, analysis.Range{Start: iv.Start, End: iv.End})
		}
	}
	return out, nil
}
