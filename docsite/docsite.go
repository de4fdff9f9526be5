// Package docsite builds the static documentation site of a project
// (`efmesh docs`): one index.html whose data — models, columns, column
// lineage, environments and plans — is embedded as JSON in a script tag,
// so the page works opened from file:// and needs no network; and a small
// server that rebuilds it as the project's files change (serve.go). It
// reads a workspace (the analysis, the state store) and never writes the
// store; flags and printed text belong to the front end.
package docsite

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/ops"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/workspace"
)

// Site is the data the page draws, embedded as JSON.
type Site struct {
	Project   string  `json:"project"`
	Generated string  `json:"generated"`
	Models    []Model `json:"models"`
	Envs      []Env   `json:"environments"`
	Plans     []Plan  `json:"plans"`
}

// Model is one model's page.
type Model struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	File        string   `json:"file"`
	Target      string   `json:"target,omitempty"`
	Interval    string   `json:"interval,omitempty"`
	Cron        string   `json:"cron,omitempty"`
	Grain       []string `json:"grain"`
	Description string   `json:"description,omitempty"`
	Owner       string   `json:"owner,omitempty"`
	Tags        []string `json:"tags"`
	Parents     []string `json:"parents"`
	Level       int      `json:"level"`
	Fingerprint string   `json:"fingerprint,omitempty"`
	Columns     []Column `json:"columns"`
	SQL         string   `json:"sql"`
	Rendered    string   `json:"rendered,omitempty"`
	// RenderError says why Rendered is empty (a SEED or EXTERNAL model
	// has no body to render; a body that cannot be rendered yet).
	RenderError string   `json:"renderError,omitempty"`
	Audits      []string `json:"audits"`
	Tests       []string `json:"tests"`
	// Versions says which fingerprint each environment serves.
	Versions []Version `json:"versions"`
	// Freshness is the declared freshness of an EXTERNAL source.
	Freshness string `json:"freshness,omitempty"`
}

// Column is a column of a model with the parent columns it is computed
// from directly ("model.column"); the page walks these both ways.
type Column struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Declared bool     `json:"declared"`
	Sources  []string `json:"sources"`
}

// Version is the fingerprint an environment serves for a model; Current
// when it is the checkout's.
type Version struct {
	Env         string `json:"env"`
	Fingerprint string `json:"fingerprint"`
	Current     bool   `json:"current"`
	UpdatedAt   string `json:"updatedAt"`
}

// Env is one environment of the state store, as `efmesh status --json`
// reports it.
type Env struct {
	Name   string         `json:"name"`
	Status jsonapi.Status `json:"status"`
}

// Plan is what applying the checkout to an environment would do, as
// `efmesh plan --json` reports it.
type Plan struct {
	Env  string        `json:"env"`
	Plan *jsonapi.Plan `json:"plan,omitempty"`
	// Error says why there is no plan (a problem reading the store).
	Error string `json:"error,omitempty"`
}

// Options say what Build reads besides the analysis.
type Options struct {
	// Now is the clock of rendering and status.
	Now time.Time
	// Store, when set, is read for environments, versions, intervals and
	// plans; nil builds the project's pages alone.
	Store state.Reader
	// Plans asks for the plan of the checkout against every environment.
	Plans bool
	// Render asks for each model's rendered SQL (refs resolved to the
	// checkout's physical tables).
	Render bool
}

// Build gathers the site's data from a workspace.
func Build(ctx context.Context, w *workspace.Workspace, o Options) (*Site, error) {
	a := w.Analysis
	p := w.Project
	s := &Site{Project: p.Config.Name, Generated: o.Now.UTC().Format(time.RFC3339), Models: []Model{}, Envs: []Env{}, Plans: []Plan{}}
	tests := map[string][]string{}
	for _, t := range p.Tests {
		tests[t.Model] = append(tests[t.Model], t.Name)
	}
	byName := map[string]int{}
	for _, g := range ops.Graph(p) {
		info := a.Models[g.Name]
		m := Model{Name: g.Name, Kind: g.Kind, File: g.File, Target: g.Target, Description: g.Description,
			Parents: g.Parents, Level: g.Level, SQL: g.SQL, Grain: []string{}, Tags: []string{}, Columns: []Column{},
			Audits: []string{}, Tests: tests[g.Name], Versions: []Version{}}
		if m.Tests == nil {
			m.Tests = []string{}
		}
		if info != nil {
			pm := info.Model
			m.Interval, m.Cron, m.Owner = pm.Interval, pm.Cron, pm.Owner
			m.Grain = append(m.Grain, pm.Grain...)
			m.Tags = append(m.Tags, pm.Tags...)
			m.SQL = string(pm.Source)
			m.Fingerprint = info.Fingerprint
			for _, c := range pm.Audits {
				m.Audits = append(m.Audits, c.Text)
			}
			if pm.Freshness != nil {
				m.Freshness = freshnessText(pm)
			}
			declared := map[string]bool{}
			for _, c := range pm.Columns {
				declared[c.Name] = true
			}
			sources := analysis.AllColumnSources(a, g.Name)
			for _, c := range info.Columns {
				col := Column{Name: c.Name, Type: c.Type, Declared: declared[c.Name], Sources: []string{}}
				for _, src := range sources[c.Name] {
					col.Sources = append(col.Sources, src.Model+"."+src.Column)
				}
				m.Columns = append(m.Columns, col)
			}
			if o.Render && pm.Kind.Name != project.KindExternal && pm.Kind.Name != project.KindSeed {
				sql, err := w.Render(g.Name, "", o.Now)
				if err != nil {
					m.RenderError = err.Error()
				} else {
					m.Rendered = sql
				}
			}
		}
		byName[g.Name] = len(s.Models)
		s.Models = append(s.Models, m)
	}
	if o.Store == nil {
		return s, nil
	}
	envs, err := o.Store.Environments(ctx)
	if err != nil {
		return nil, fmt.Errorf("docsite: environments: %w", err)
	}
	sort.Strings(envs)
	for _, env := range envs {
		st, err := planner.GetStatus(ctx, o.Store, p.Config, env, o.Now, 10)
		if err != nil {
			return nil, fmt.Errorf("docsite: status of %s: %w", env, err)
		}
		s.Envs = append(s.Envs, Env{Name: env, Status: workspace.JSONStatus(st)})
		ptrs, err := o.Store.Environment(ctx, env)
		if err != nil {
			return nil, fmt.Errorf("docsite: environment %s: %w", env, err)
		}
		for name, ptr := range ptrs {
			i, ok := byName[name]
			if !ok {
				continue
			}
			m := &s.Models[i]
			m.Versions = append(m.Versions, Version{Env: env, Fingerprint: ptr.Fingerprint, Current: ptr.Fingerprint == m.Fingerprint, UpdatedAt: ptr.UpdatedAt.UTC().Format(time.RFC3339)})
		}
		if o.Plans {
			s.Plans = append(s.Plans, planOf(ctx, w, env))
		}
	}
	return s, nil
}

func freshnessText(m *project.Model) string {
	f := m.Freshness
	t := "column " + f.Column
	if f.WarnAfter > 0 {
		t += ", warn after " + f.WarnAfter.String()
	}
	if f.ErrorAfter > 0 {
		t += ", error after " + f.ErrorAfter.String()
	}
	return t
}

// planOf is the plan of the checkout against env.
func planOf(ctx context.Context, w *workspace.Workspace, env string) Plan {
	pl, err := w.Preview(ctx, env)
	if err != nil {
		return Plan{Env: env, Error: err.Error()}
	}
	js := workspace.JSONPlan(pl)
	return Plan{Env: env, Plan: &js}
}

//go:embed page.html
var pageSource string

var page = template.Must(template.New("docs").Parse(pageSource))

// HTML renders the site's one page: markup, style, script and data.
// reload, when set, is the URL the page long-polls to reload itself
// after a rebuild (`efmesh docs --serve`).
func HTML(s *Site, reload string) ([]byte, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("docsite: %w", err)
	}
	var b bytes.Buffer
	err = page.Execute(&b, struct {
		Title  string
		Data   template.JS
		Reload string
	}{s.Project, template.JS(escapeScript(data)), reload})
	if err != nil {
		return nil, fmt.Errorf("docsite: %w", err)
	}
	return b.Bytes(), nil
}

// escapeScript keeps JSON from closing its script tag. json.Marshal
// already writes < as \u003c, so a "</script>" in a model's SQL cannot
// end the tag; this guards the invariant should the encoder change.
func escapeScript(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("</"), []byte(`<\/`))
}

// Write writes the site into dir (created when missing): index.html and
// site.json (the same data, for other tools).
func Write(dir string, s *Site) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("docsite: %w", err)
	}
	html, err := HTML(s, "")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), html, 0o644); err != nil {
		return fmt.Errorf("docsite: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("docsite: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "site.json"), data, 0o644); err != nil {
		return fmt.Errorf("docsite: %w", err)
	}
	return nil
}
