package lsp

import (
	"context"
	"errors"
	"sort"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
)

// The editor's trees (VS Code's models and environments views) are fed by
// efmesh.models and efmesh.environments: read-only answers from the
// view's analysis and state store, the same plan the code lenses show.

// treeModel is one model of efmesh.models: where it is and what a plan
// against env would do to it (docs/json.md).
type treeModel = jsonapi.EditorModel

// modelsResult is what efmesh.models returns (docs/json.md).
type modelsResult = jsonapi.EditorModels

// modelsCommand lists the project's models with their status in env.
func (s *Server) modelsCommand(ctx context.Context, v *view, a commandArgs) (any, error) {
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	out := &modelsResult{Env: a.Env, Models: []treeModel{}}
	byName := map[string]*planner.ModelPlan{}
	plan, err := v.planFor(ctx, res, a.Env)
	var pe *planner.ProblemsError
	switch {
	case errors.As(err, &pe):
		out.Problem = "fix the errors to see the plan"
	case err != nil:
		out.Problem = firstLine(err.Error())
	default:
		for i := range plan.Models {
			byName[plan.Models[i].Name] = &plan.Models[i]
		}
	}
	for _, m := range res.snap.proj.Models {
		if m.Name == "" {
			continue
		}
		tm := treeModel{Name: m.Name, Schema: m.Schema, Table: m.Table, Kind: string(m.Kind.Name), URI: string(res.snap.uri(m.File))}
		if mp := byName[m.Name]; mp != nil {
			tm.Change, tm.Build, tm.Intervals = string(mp.Change), mp.Build, mp.Intervals
		}
		out.Models = append(out.Models, tm)
	}
	sort.Slice(out.Models, func(i, j int) bool {
		a, b := out.Models[i], out.Models[j]
		if a.Schema != b.Schema {
			return a.Schema < b.Schema
		}
		return a.Table < b.Table
	})
	return out, nil
}

// treeEnvironment is one environment of efmesh.environments (docs/json.md).
type treeEnvironment = jsonapi.EditorEnvironment

// environmentsCommand lists the environments of the state store, with the
// editor's current one first even when it does not exist yet.
func (s *Server) environmentsCommand(ctx context.Context, v *view, a commandArgs) (any, error) {
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	envs, err := v.environments(ctx, res.snap.proj)
	if err != nil {
		return nil, err
	}
	out := []treeEnvironment{}
	cur := s.environment()
	if _, ok := envs[cur]; !ok {
		out = append(out, treeEnvironment{Name: cur, Current: true})
	}
	names := make([]string, 0, len(envs))
	for name := range envs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		out = append(out, treeEnvironment{Name: name, Models: len(envs[name]), Current: name == cur})
	}
	return out, nil
}
