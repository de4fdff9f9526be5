package planner

import (
	"context"
	"fmt"
	"slices"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// Exports copy a model into an attached database (export (attach app,
// table public.stays) in the header, attach: in efmesh.yaml). Only what
// reached prod is exported: after an apply to prod has promoted it (its
// blocking audits passed before promotion), and after a run tick of prod
// computed new intervals for it. Nothing unverified heads outward, and a
// development environment never writes into an application's database.

// ExportEnv is the environment whose models are exported.
const ExportEnv = "prod"

// exporter is the engine capability an export needs.
type exporter interface {
	ExportTo(ctx context.Context, typ, target, schema, table, query string) error
}

// ExportError is an export that failed after the environment was
// promoted: the environment is as applied, the attached database is not.
type ExportError struct {
	Model, Attach string
	Err           error
}

func (e *ExportError) Error() string {
	return fmt.Sprintf("export %s to %s: %v", e.Model, e.Attach, e.Err)
}

func (e *ExportError) Unwrap() error { return e.Err }

// exportModels exports those of names that declare an export, reading
// them through env's views, and returns the ones exported. It stops at the
// first failure.
func exportModels(ctx context.Context, a *analysis.Analysis, wh engine.Engine, env string, names []string) ([]string, error) {
	if env != ExportEnv {
		return nil, nil
	}
	var out []string
	for _, m := range a.Project.Models {
		if m.Export == nil || !slices.Contains(names, m.Name) || slices.Contains(out, m.Name) {
			continue
		}
		info := a.Models[m.Name]
		if info == nil {
			continue
		}
		ex := m.Export
		ac, ok := a.Project.Config.Attach[ex.Attach]
		if !ok {
			return out, &ExportError{Model: m.Name, Attach: ex.Attach, Err: fmt.Errorf("no attach %q in efmesh.yaml (attach: {%s: {type: %s, path: …}})", ex.Attach, ex.Attach, project.DefaultAttachType)}
		}
		xp, ok := wh.(exporter)
		if !ok {
			return out, &ExportError{Model: m.Name, Attach: ex.Attach, Err: &engine.FeatureError{Engine: wh.Dialect().Name(), Feature: "exports into attached databases"}}
		}
		target := ac.Path
		if ac.IsFile() {
			target = analysis.AbsPath(a.Project.Root, ac.Path)
		}
		d := wh.Dialect()
		q := "SELECT * FROM " + d.QuoteRelation(analysis.EnvRelation(d, env, info.Model))
		if err := xp.ExportTo(ctx, ac.Type, target, ex.Schema, ex.Table, q); err != nil {
			return out, &ExportError{Model: m.Name, Attach: ex.Attach, Err: err}
		}
		out = append(out, m.Name)
	}
	return out, nil
}
