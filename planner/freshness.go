package planner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// Freshness verdicts of a source (SourceFreshness.Status).
const (
	FreshOK    = "ok"
	FreshWarn  = "warn"
	FreshError = "error"
)

// SourceFreshness is what `status --check` and `run` found of an EXTERNAL
// model's freshness (project.Freshness): the newest value of its column,
// how old it is at the run's clock, and the verdict.
type SourceFreshness struct {
	Model  string `json:"model"`
	Column string `json:"column"`
	// Latest is max(column) of the source; nil when it has no row.
	Latest *time.Time `json:"latest"`
	// Age is how old Latest is ("30h0m0s"); empty without Latest.
	Age        string `json:"age,omitempty"`
	WarnAfter  string `json:"warnAfter,omitempty"`  // as the header says it: "6 hours"
	ErrorAfter string `json:"errorAfter,omitempty"` // likewise
	Status     string `json:"status"`               // FreshOK, FreshWarn or FreshError
	// Error is why the source could not be read (the verdict is then
	// FreshError).
	Error string `json:"error,omitempty"`
}

// Text is the one line a report prints for f.
func (f SourceFreshness) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", f.Model)
	switch {
	case f.Error != "":
		fmt.Fprintf(&b, "freshness could not be read: %s", f.Error)
		return b.String()
	case f.Latest == nil:
		fmt.Fprintf(&b, "no row, so no newest %s", f.Column)
	default:
		fmt.Fprintf(&b, "newest %s %s is %s old", f.Column, f.Latest.Format("2006-01-02 15:04:05"), f.Age)
	}
	switch f.Status {
	case FreshError:
		fmt.Fprintf(&b, " (error_after %s)", f.ErrorAfter)
	case FreshWarn:
		fmt.Fprintf(&b, " (warn_after %s)", f.WarnAfter)
	}
	return b.String()
}

// Problem is f as a failure says it, without the model's name: "stale
// source: newest … (error_after 1 day)", or why it could not be read.
func (f SourceFreshness) Problem() string {
	t := strings.TrimPrefix(f.Text(), f.Model+": ")
	if f.Error != "" {
		return "source " + t
	}
	return "stale source: " + t
}

// CheckFreshness reads, for each EXTERNAL model of p that declares a
// freshness (and that only keeps, when only is not nil), max(column) of
// its source on wh — the table it names, or its files through wh's file
// reader — and judges its age at now. A source that cannot be read is a
// FreshError with its Error: freshness is a check, never a failed
// command. The result is in the project's model order.
func CheckFreshness(ctx context.Context, p *project.Project, wh engine.Engine, now time.Time, only map[string]bool) []SourceFreshness {
	var out []SourceFreshness
	for _, m := range p.Models {
		f := m.Freshness
		if f == nil || m.Kind.Name != project.KindExternal || only != nil && !only[m.Name] {
			continue
		}
		r := SourceFreshness{Model: m.Name, Column: f.Column}
		if f.WarnAfter > 0 {
			r.WarnAfter = project.FormatAge(f.WarnAfter)
		}
		if f.ErrorAfter > 0 {
			r.ErrorAfter = project.FormatAge(f.ErrorAfter)
		}
		latest, err := newest(ctx, p.Root, wh, m)
		switch {
		case err != nil:
			r.Status, r.Error = FreshError, analysis.FirstLine(analysis.ErrMessage(err))
		case latest == nil && f.ErrorAfter > 0:
			r.Status = FreshError
		case latest == nil:
			r.Status = FreshWarn
		default:
			r.Latest = latest
			age := now.Sub(*latest).Truncate(time.Second)
			r.Age = age.String()
			switch {
			case f.ErrorAfter > 0 && age > f.ErrorAfter:
				r.Status = FreshError
			case f.WarnAfter > 0 && age > f.WarnAfter:
				r.Status = FreshWarn
			default:
				r.Status = FreshOK
			}
		}
		out = append(out, r)
	}
	return out
}

// newest is max(column) of m's source as a time, nil when it has no row.
func newest(ctx context.Context, root string, wh engine.Engine, m *project.Model) (*time.Time, error) {
	if wh == nil {
		return nil, fmt.Errorf("there is no warehouse yet")
	}
	d := wh.Dialect()
	var from string
	switch {
	case m.Kind.Files != "":
		fr, ok := wh.(engine.FileReader)
		if !ok {
			return nil, &engine.FeatureError{Engine: d.Name(), Feature: "reading files (" + m.Name + ")"}
		}
		q, err := fr.ReadFiles(engine.FileSpec{Paths: []string{analysis.AbsPath(root, m.Kind.Files)}, Format: m.Kind.Format, Options: analysis.FileOptions(m.Kind.Options)})
		if err != nil {
			return nil, err
		}
		from = "(" + q + ") AS src"
	case m.Kind.Table != "":
		parts := strings.Split(m.Kind.Table, ".")
		for i, p := range parts {
			parts[i] = d.Quote(p)
		}
		from = strings.Join(parts, ".")
	default:
		return nil, fmt.Errorf("EXTERNAL %s names no table nor files", m.Name)
	}
	rows, err := wh.Query(ctx, "SELECT CAST(max("+d.Quote(m.Freshness.Column)+") AS TIMESTAMP) FROM "+from)
	if err != nil {
		return nil, err
	}
	if len(rows.Values) == 0 || len(rows.Values[0]) == 0 || rows.Values[0][0] == nil {
		return nil, nil
	}
	t, ok := rows.Values[0][0].(time.Time)
	if !ok {
		return nil, fmt.Errorf("max(%s) is %T, not a time", m.Freshness.Column, rows.Values[0][0])
	}
	t = t.UTC()
	return &t, nil
}
