package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// EnvAudit is the report of AuditEnvironment.
type EnvAudit struct {
	Env     string        `json:"env"`
	Results []AuditResult `json:"results"`
	// AsApplied names the models whose audits in the project differ from
	// those of the environment's snapshot: they were audited as applied;
	// the project's version is a change efmesh plan shows (metadata-only).
	AsApplied []string `json:"asApplied,omitempty"`
	// EditedAudits names the custom audit files whose SQL differs from the
	// one the environment's snapshots recorded: those ran as applied.
	EditedAudits []string `json:"editedAudits,omitempty"`
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
// environment's models (those named, or all) over its views, the
// whole view each time, so it catches what happened after apply — late
// data, edits behind efmesh's back. per_interval audits are a promise
// about each written interval, not about the table: they are reported from
// the ledger (ledger may be nil: then skipped). An interval whose write or
// blocking audit failed was rolled back and is marked failed; a blocking
// per_interval audit of a model with such intervals is reported failed,
// naming them; otherwise skipped. It changes nothing and marks nothing.
//
// The audits are those of the environment's snapshots as stored at apply
// (the audits list of the stored definition), not the project's: an audit
// edited without an apply is a change plan shows, and applies nowhere yet.
// Such models are listed in EnvAudit.AsApplied. A custom audit runs the
// SQL of its file as the snapshot recorded it; a file edited since is
// listed in EnvAudit.EditedAudits. A snapshot stored before efmesh recorded
// audit files runs the project's file.
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
	applied, err := appliedAudits(ctx, ledger, pointers)
	if err != nil {
		return nil, err
	}
	for _, m := range proj.Models {
		if _, ok := pointers[m.Name]; !ok || len(models) > 0 && !slices.Contains(models, m.Name) {
			continue
		}
		def, ok := applied[m.Name]
		if ok && !sameAuditTexts(def.Audits, m.Audits) {
			am := *m
			if am.Audits, err = parseAuditCalls(m.Name, def.Audits); err != nil {
				return nil, err
			}
			m = &am
			rep.AsApplied = append(rep.AsApplied, m.Name)
		}
		custom, edited, err := storedAudits(proj, def.AuditSources)
		if err != nil {
			return nil, fmt.Errorf("planner: the stored audits of %s: %w", m.Name, err)
		}
		for _, f := range edited {
			if !slices.Contains(rep.EditedAudits, f) {
				rep.EditedAudits = append(rep.EditedAudits, f)
			}
		}
		var run []Audit
		for _, au := range modelAudits(custom, m) {
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

// storedAudits returns the lookup of custom audits by name that a snapshot
// recorded (sources), falling back to the project's for a name it did not
// record (a snapshot stored before efmesh recorded audit files), and the
// files whose project version differs from the recorded one.
func storedAudits(proj *project.Project, sources []analysis.AuditSource) (func(string) *project.CustomAudit, []string, error) {
	if len(sources) == 0 {
		return proj.Audit, nil, nil
	}
	byName := make(map[string]*project.CustomAudit, len(sources))
	var edited []string
	for _, src := range sources {
		au, diags := project.ParseAudit(src.File, []byte(src.SQL))
		for _, d := range diags {
			if d.Severity == project.SeverityError {
				return nil, nil, fmt.Errorf("%s does not parse: %s", src.File, d.Message)
			}
		}
		byName[src.Name] = au
		if cur := proj.Audit(src.Name); cur == nil || string(cur.Source) != src.SQL {
			edited = append(edited, src.File)
		}
	}
	return func(name string) *project.CustomAudit {
		if au := byName[name]; au != nil {
			return au
		}
		return proj.Audit(name)
	}, edited, nil
}

// appliedAudits reads the stored definitions of the snapshots the
// environment points at, by model name (its audit calls as written and the
// custom audit files they ran); a nil ledger, or a snapshot stored without
// a definition, has none.
func appliedAudits(ctx context.Context, ledger state.Reader, pointers map[string]string) (map[string]analysis.Definition, error) {
	if ledger == nil {
		return nil, nil
	}
	fps := make([]string, 0, len(pointers))
	for _, fp := range pointers {
		fps = append(fps, fp)
	}
	snaps, err := ledger.Snapshots(ctx, fps)
	if err != nil {
		return nil, err
	}
	out := make(map[string]analysis.Definition, len(pointers))
	for name, fp := range pointers {
		s, ok := snaps[fp]
		if !ok || len(s.Definition) == 0 {
			continue
		}
		var d analysis.Definition
		if err := json.Unmarshal(s.Definition, &d); err != nil {
			return nil, fmt.Errorf("planner: the stored definition of %s: %w", name, err)
		}
		out[name] = d
	}
	return out, nil
}

func sameAuditTexts(texts []string, calls []project.AuditCall) bool {
	return slices.EqualFunc(texts, calls, func(t string, c project.AuditCall) bool { return t == c.Text })
}

// parseAuditCalls parses stored audit calls (as written in a header) with
// the one header parser.
func parseAuditCalls(name string, texts []string) ([]project.AuditCall, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	src := "MODEL (name " + name + ", audits (" + strings.Join(texts, ", ") + "));\nSELECT 1\n"
	m, diags := project.ParseModel("stored.sql", []byte(src))
	for _, d := range diags {
		if d.Severity == project.SeverityError {
			return nil, fmt.Errorf("planner: the stored audits of %s do not parse: %s", name, d.Message)
		}
	}
	return m.Audits, nil
}
