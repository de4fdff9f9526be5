package workspace

import (
	"encoding/json"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/ops"
	"github.com/efmesh/efmesh/planner"
)

// The one place the values of the core become the public --json shapes
// of package jsonapi, for the CLI and the editor alike. A core type may
// regroup its fields freely: only the functions here follow, and the
// output stays what jsonapi declares.
//
// A nil list converts to nil and an empty one to an empty one: JSON
// writes null and [] apart, and the payloads keep whichever they had.

// JSONPlan is p as efmesh plan --json prints it.
func JSONPlan(p *planner.Plan) jsonapi.Plan {
	s := p.Summary()
	return jsonapi.Plan{
		APIVersion: jsonapi.Version,
		Env:        p.Env,
		HasChanges: p.HasChanges,
		Summary: jsonapi.Summary{Build: s.Build, Compute: s.Compute, Promote: s.Promote, Remove: s.Remove,
			StaleViews: s.StaleViews},
		Models:      JSONModelPlans(p.Models),
		Preview:     JSONPreview(p.Preview),
		LeftOut:     convertAll(p.LeftOut, jsonLeftOut),
		LeftOutFrom: p.LeftOutFrom,
		DueRefresh:  p.DueRefresh,
		Reverts:     convertAll(p.Reverts, jsonRevert),
		Warnings:    convertAll(p.Warnings, jsonWarning),
		Unrecorded:  jsonUnrecorded(p.Unrecorded),
	}
}

func jsonUnrecorded(u *planner.Unrecorded) *jsonapi.Unrecorded {
	if u == nil {
		return nil
	}
	return &jsonapi.Unrecorded{Tables: u.Tables, Views: u.Views}
}

// JSONAdoption is efmesh state adopt's report.
func JSONAdoption(a *planner.Adoption, dryRun bool) jsonapi.Adopt {
	return jsonapi.Adopt{APIVersion: jsonapi.Version, DryRun: dryRun, Adopted: a.Adopted, Known: a.Known, Absent: a.Absent,
		Envs: convertAll(a.Envs, func(e planner.EnvAdoption) jsonapi.EnvAdoption {
			return jsonapi.EnvAdoption{Env: e.Env, Views: e.Views, Current: e.Current, Others: e.Others}
		})}
}

// JSONModelPlans is a plan's model lines as its payload shows them.
func JSONModelPlans(ms []planner.ModelPlan) []jsonapi.ModelPlan {
	return convertAll(ms, jsonModelPlan)
}

func jsonModelPlan(m planner.ModelPlan) jsonapi.ModelPlan {
	return jsonapi.ModelPlan{
		Name:              m.Name,
		Kind:              m.Kind,
		Change:            string(m.Change),
		Fingerprint:       m.Fingerprint,
		Previous:          m.Previous,
		Build:             m.Build,
		PhysicalTable:     m.PhysicalTable,
		Backfill:          JSONRanges(m.Backfill),
		Intervals:         m.Intervals,
		Cause:             m.Cause,
		Explain:           m.Explain,
		Diff:              convertAll(m.Diff, jsonClauseChange),
		Paths:             m.Paths,
		Rebinds:           m.Rebinds,
		ReusedFrom:        m.ReusedFrom,
		AddsColumns:       m.AddsColumns,
		Retyped:           convertAll(m.Retyped, jsonRetype),
		SharedWith:        m.SharedWith,
		ReclassifiedFrom:  string(m.ReclassifiedFrom),
		Warnings:          convertAll(m.Warnings, jsonWarning),
		RebuildsHistory:   m.RebuildsHistory,
		CopiesHistoryFrom: m.CopiesHistoryFrom,
		Refill:            m.Refill,
		RefillWhy:         m.RefillWhy,
		Redacted:          m.Redacted,
		Missing:           m.Missing,
		Reason:            m.Reason,
		Differs:           m.Differs,
		StaleView:         m.StaleView,
		Covered:           JSONRanges(m.Covered),
		CoveredIn:         m.CoveredIn,
	}
}

func jsonClauseChange(c analysis.ClauseChange) jsonapi.ClauseChange {
	return jsonapi.ClauseChange{Clause: c.Clause, Old: c.Old, New: c.New}
}

func jsonRetype(r planner.Retype) jsonapi.Retype {
	return jsonapi.Retype{Column: r.Column, From: r.From, To: r.To}
}

func jsonWarning(w planner.Warning) jsonapi.Warning {
	return jsonapi.Warning{Code: w.Code, Message: w.Message}
}

func jsonLeftOut(l planner.LeftOut) jsonapi.LeftOut {
	return jsonapi.LeftOut{Name: l.Name, Change: string(l.Change), Previous: l.Previous}
}

func jsonRevert(r planner.Revert) jsonapi.Revert {
	return jsonapi.Revert{Model: r.Model, Fingerprint: r.Fingerprint, Current: r.Current, By: r.By, At: r.At, Plan: r.Plan}
}

// JSONPreview is a preview's range; nil for nil.
func JSONPreview(p *planner.Preview) *jsonapi.Preview {
	if p == nil {
		return nil
	}
	return &jsonapi.Preview{Start: p.Start.UTC().Format(time.RFC3339), End: rfc3339(p.End)}
}

// JSONTestResults are unit test outcomes as efmesh test --json shows them.
func JSONTestResults(ts []planner.TestResult) []jsonapi.TestResult {
	return convertAll(ts, func(t planner.TestResult) jsonapi.TestResult {
		return jsonapi.TestResult{Name: t.Name, File: t.File, Model: t.Model, Passed: t.Passed, Error: t.Error,
			Columns: t.Columns, Missing: t.Missing, Unexpected: t.Extra}
	})
}

// JSONAuditResults are audit outcomes as efmesh audit --json shows them.
func JSONAuditResults(rs []planner.AuditResult) []jsonapi.AuditResult {
	return convertAll(rs, func(r planner.AuditResult) jsonapi.AuditResult {
		return jsonapi.AuditResult{Model: r.Model, Audit: r.Audit, Blocking: r.Blocking, Scope: string(r.Scope),
			Status: r.Status, Violations: r.Violations, Detail: r.Detail, Interval: jsonInterval(r.Interval), Error: r.Error, Reason: r.Reason}
	})
}

// JSONFreshness is what was found of the sources' freshness.
func JSONFreshness(fs []planner.SourceFreshness) []jsonapi.SourceFreshness {
	return convertAll(fs, func(f planner.SourceFreshness) jsonapi.SourceFreshness {
		return jsonapi.SourceFreshness{Model: f.Model, Column: f.Column, Latest: f.Latest, Age: f.Age,
			WarnAfter: f.WarnAfter, ErrorAfter: f.ErrorAfter, Status: f.Status, Error: f.Error}
	})
}

// JSONStatus is s as efmesh status --json prints it.
func JSONStatus(s *planner.Status) jsonapi.Status {
	out := jsonapi.Status{
		APIVersion: jsonapi.Version,
		Applied:    s.Applied,
		Deleted:    s.Deleted,
		Env:        s.Env,
		Healthy:    s.Healthy(),
		Missing:    nonNil(convertAll(s.Missing, jsonMissing)),
		Models:     []jsonapi.ModelStatus{},
		Notes:      nonNil(s.Notes),
		Preview:    JSONPreview(s.Preview),
		Problems:   nonNil(s.Problems),
		Refreshes:  []jsonapi.RefreshStatus{},
		Running:    s.Running,
		Ticks:      []jsonapi.Tick{},
	}
	if len(s.Freshness) > 0 {
		out.Freshness = JSONFreshness(s.Freshness)
	}
	if p := s.LastPlan; p != nil {
		out.LastPlan = &jsonapi.LastPlan{AppliedBy: p.AppliedBy, CreatedAt: rfc3339(p.CreatedAt), ID: p.ID,
			Status: p.Status, Summary: rawJSON(p.Summary)}
	}
	for _, m := range s.Models {
		out.Models = append(out.Models, jsonapi.ModelStatus{
			CoveredThrough:  rfc3339(m.CoveredThrough),
			Cron:            m.Cron,
			Done:            m.Done,
			DueThrough:      rfc3339(m.DueThrough),
			ExpectedThrough: rfc3339(m.ExpectedThrough),
			Failed:          JSONRanges(m.Failed),
			Fingerprint:     m.Fingerprint,
			Interval:        string(m.Grain),
			Missing:         m.Missing,
			MissingRanges:   JSONRanges(m.MissingRanges),
			Name:            m.Name,
			Overdue:         m.Overdue,
			Start:           rfc3339(m.Start),
		})
	}
	for _, r := range s.Refreshes {
		out.Refreshes = append(out.Refreshes, jsonapi.RefreshStatus{Cron: r.Cron, DueSince: rfc3339(r.DueSince),
			Fingerprint: r.Fingerprint, LastRefresh: rfc3339(r.LastRefresh), Name: r.Name, Overdue: r.Overdue})
	}
	for _, t := range s.Ticks {
		out.Ticks = append(out.Ticks, jsonapi.Tick{Detail: rawJSON(t.Detail), FinishedAt: rfc3339(t.FinishedAt), ID: t.ID,
			Outcome: t.Outcome, StartedAt: rfc3339(t.StartedAt)})
	}
	return out
}

func jsonMissing(m planner.MissingRelation) jsonapi.MissingRelation {
	return jsonapi.MissingRelation{Model: m.Model, Relation: m.Relation, Physical: m.Physical, Differs: m.Differs, Reason: m.Reason}
}

// jsonInterval is an audited interval's [start, end); nil for none.
func jsonInterval(r *analysis.Range) []string {
	if r == nil {
		return nil
	}
	return rangePair(*r)
}

// rangePair is [start, end) as RFC 3339 times, a zero time included
// (0001-01-01T00:00:00Z: a range from the beginning), as plans write it.
func rangePair(r analysis.Range) []string {
	return []string{r.Start.UTC().Format(time.RFC3339), r.End.UTC().Format(time.RFC3339)}
}

// JSONRanges are ranges as [start, end) pairs of RFC 3339 times, an empty
// list (not null) for none.
func JSONRanges(rs []analysis.Range) [][]string {
	out := [][]string{}
	for _, r := range rs {
		out = append(out, rangePair(r))
	}
	return out
}

// JSONModelFailures are the models a run tick could not compute.
func JSONModelFailures(fs []planner.ModelFailure) []jsonapi.ModelFailure {
	return convertAll(fs, func(f planner.ModelFailure) jsonapi.ModelFailure {
		return jsonapi.ModelFailure{Model: f.Model, Error: f.Error}
	})
}

// JSONSkippedModels are the models a run tick skipped for a failed parent.
func JSONSkippedModels(ss []planner.SkippedModel) []jsonapi.SkippedModel {
	return convertAll(ss, func(s planner.SkippedModel) jsonapi.SkippedModel {
		return jsonapi.SkippedModel{Model: s.Model, Parent: s.Parent}
	})
}

// JSONRestated are the models a restate cleared.
func JSONRestated(rs []planner.Restated) []jsonapi.RestatedModel {
	out := []jsonapi.RestatedModel{}
	for _, r := range rs {
		out = append(out, jsonapi.RestatedModel{Fingerprint: r.Fingerprint, From: rfc3339(r.Range.Start), Intervals: r.Intervals,
			Name: r.Name, Rebuild: r.Rebuild, SharedWith: nonNil(r.SharedWith), To: rfc3339(r.Range.End)})
	}
	return out
}

// JSONPassports are passports as efmesh passport --json shows them.
func JSONPassports(ps []planner.Passport) []jsonapi.Passport {
	return convertAll(ps, func(p planner.Passport) jsonapi.Passport {
		out := jsonapi.Passport{Model: p.Model, Kind: p.Kind, Fingerprint: p.Fingerprint, Answerable: p.Answerable,
			Caveats: p.Caveats, Effective: jsonapi.EffectivePassport{
				Answerable: p.Effective.Answerable, AnswerableFrom: p.Effective.AnswerableFrom,
				Caveats: convertAll(p.Effective.Caveats, func(c planner.Caveat) jsonapi.Caveat {
					return jsonapi.Caveat{Model: c.Model, Text: c.Text}
				}),
				CompleteThrough: p.Effective.CompleteThrough, LimitedBy: p.Effective.LimitedBy, HasGaps: p.Effective.HasGaps,
			}}
		if f := p.Freshness; f != nil {
			out.Freshness = &jsonapi.Freshness{ContiguousThrough: f.ContiguousThrough, LatestInterval: f.LatestInterval,
				FailedIntervals: f.FailedIntervals, HasGaps: f.HasGaps}
		}
		return out
	})
}

// JSONLineage is a lineage tree; nil for nil.
func JSONLineage(n *analysis.LineageNode) *jsonapi.LineageNode {
	if n == nil {
		return nil
	}
	return &jsonapi.LineageNode{Model: n.Model, Column: n.Column, Field: n.Field, Kind: n.Kind, File: n.File,
		Sources: convertAll(n.Sources, JSONLineage)}
}

// JSONCreatedTest is a created unit test; nil for nil.
func JSONCreatedTest(t *CreatedTest) *jsonapi.CreatedTest {
	if t == nil {
		return nil
	}
	return &jsonapi.CreatedTest{Model: t.Model, Test: t.Test, File: t.File, Env: t.Env, Key: t.Key,
		Inputs: convertAll(t.Inputs, func(f CreatedFixture) jsonapi.CreatedFixture {
			return jsonapi.CreatedFixture{Model: f.Model, Rows: f.Rows, By: f.By}
		}),
		Expected: t.Expected, Interval: t.Interval, Written: t.Written, Unread: t.Unread, Warnings: t.Warnings, YAML: t.YAML}
}

// JSONExternalColumns are what create-external did to EXTERNAL headers.
func JSONExternalColumns(es []ExternalColumns) []jsonapi.ExternalColumns {
	return convertAll(es, func(e ExternalColumns) jsonapi.ExternalColumns {
		return jsonapi.ExternalColumns{Model: e.Model, File: e.File, Columns: JSONColumns(e.Columns),
			Previous: JSONColumns(e.Previous), Changed: e.Changed, Header: e.Header}
	})
}

// JSONColumns are columns and their types.
func JSONColumns(cs []engine.Column) []jsonapi.Column {
	return convertAll(cs, func(c engine.Column) jsonapi.Column { return jsonapi.Column{Name: c.Name, Type: c.Type} })
}

// JSONFormattedFiles are what formatting did to files.
func JSONFormattedFiles(fs []FormattedFile) []jsonapi.FormattedFile {
	return convertAll(fs, func(f FormattedFile) jsonapi.FormattedFile {
		return jsonapi.FormattedFile{File: f.File, Model: f.Model, Audit: f.Audit, Changed: f.Changed, Written: f.Written,
			Problem: f.Problem, Skipped: f.Skipped}
	})
}

// JSONModelDiffs are the models of an environment diff.
func JSONModelDiffs(ms []planner.ModelDiff) []jsonapi.ModelDiff {
	return convertAll(ms, func(m planner.ModelDiff) jsonapi.ModelDiff {
		out := jsonapi.ModelDiff{Name: m.Name, Kind: m.Kind, A: m.A, B: m.B, Status: m.Status}
		if d := m.Data; d != nil {
			out.Data = &jsonapi.DataDiff{RowsA: d.RowsA, RowsB: d.RowsB, Grain: d.Grain, Matched: d.Matched, OnlyA: d.OnlyA,
				OnlyB: d.OnlyB,
				Columns: convertAll(d.Columns, func(c planner.ColumnDiff) jsonapi.ColumnDiff {
					return jsonapi.ColumnDiff{Name: c.Name, Changed: c.Changed}
				}),
				Schema: jsonapi.SchemaDrift{Added: JSONColumns(d.Schema.Added), Removed: JSONColumns(d.Schema.Removed),
					Retyped: convertAll(d.Schema.Retyped, func(t planner.TypeChange) jsonapi.TypeChange {
						return jsonapi.TypeChange{Name: t.Name, A: t.A, B: t.B}
					})},
				Sample: d.Sample, Notes: d.Notes}
		}
		return out
	})
}

// JSONEnvSummaries are environments as efmesh env list --json shows them.
func JSONEnvSummaries(es []ops.EnvSummary) []jsonapi.EnvSummary {
	return convertAll(es, func(e ops.EnvSummary) jsonapi.EnvSummary {
		out := jsonapi.EnvSummary{Name: e.Name, Models: e.Models, LastApplied: e.LastApplied, AppliedBy: e.AppliedBy,
			PlanID: e.PlanID, Preview: JSONPreview(e.Preview), Rows: e.Rows}
		if c := e.Coverage; c != nil {
			out.Coverage = &jsonapi.Coverage{Start: c.Start, End: c.End, Contiguous: c.Contiguous,
				Ranges: convertAll(c.Ranges, func(r ops.TimeRange) jsonapi.TimeRange {
					return jsonapi.TimeRange{Start: r.Start, End: r.End}
				})}
		}
		return out
	})
}

// JSONEnvDeletion is what deleting an environment did; nil for nil.
func JSONEnvDeletion(d *ops.EnvDeletion) *jsonapi.EnvDeletion {
	if d == nil {
		return nil
	}
	return &jsonapi.EnvDeletion{Env: d.Env, Models: d.Models, DroppedViews: d.DroppedViews, DroppedSchemas: d.DroppedSchemas,
		Freed: JSONRemovals(d.Freed), FreeError: d.FreeError}
}

// JSONRemovals are physical tables the janitor removed.
func JSONRemovals(rs []ops.Removal) []jsonapi.Removal {
	return convertAll(rs, func(r ops.Removal) jsonapi.Removal {
		return jsonapi.Removal{PhysicalTable: r.PhysicalTable, Model: r.Model, Snapshots: r.Snapshots, OrphanedAt: r.OrphanedAt,
			Lake: r.Lake, Error: r.Error}
	})
}

// JSONEnvExpiries are the idle environments the janitor deleted.
func JSONEnvExpiries(es []ops.EnvExpiry) []jsonapi.EnvExpiry {
	return convertAll(es, func(e ops.EnvExpiry) jsonapi.EnvExpiry {
		return jsonapi.EnvExpiry{Env: e.Env, LastApplied: e.LastApplied, Deleted: JSONEnvDeletion(e.Deleted), Error: e.Error}
	})
}

// JSONCompactPartitions are the partitions compact looked at.
func JSONCompactPartitions(ps []ops.CompactPartition) []jsonapi.CompactPartition {
	return convertAll(ps, func(p ops.CompactPartition) jsonapi.CompactPartition {
		return jsonapi.CompactPartition{Model: p.Model, Partition: p.Partition, Files: p.Files, Action: p.Action,
			Reason: p.Reason, DedupKey: p.DedupKey}
	})
}

// convertAll maps s by f, nil for nil.
func convertAll[T, U any](s []T, f func(T) U) []U {
	if s == nil {
		return nil
	}
	out := make([]U, len(s))
	for i := range s {
		out[i] = f(s[i])
	}
	return out
}

// nonNil is s, or an empty list where s is nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// rfc3339 is t in RFC 3339 (UTC, seconds); "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// rawJSON is b as an embedded JSON value (null when empty or invalid),
// so --json readers get objects, not strings holding JSON.
func rawJSON(b []byte) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return json.RawMessage(b)
}

// JSONLineages are lineage trees.
func JSONLineages(ns []*analysis.LineageNode) []*jsonapi.LineageNode {
	return convertAll(ns, JSONLineage)
}
