package planner

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/state"
)

// What the warehouse holds of efmesh's that the state store does not know.
//
// A state store deleted (or replaced by an older copy) leaves the
// warehouse as it was: physical tables under _efmesh and the views of
// every environment, still serving. A plan against the empty store would
// show every model as added and apply would build them again and point
// the environment's views elsewhere, the store none the wiser about the
// environments it forgot. So a plan of an environment the store does not
// know looks at the warehouse for efmesh's own relations (findUnrecorded)
// and says what is there (a warning); apply stops before overwriting the
// views of such an environment (*UnrecordedEnvError) unless told to.

// CodeUnrecorded marks the plan warning about efmesh relations in the
// warehouse that the state store does not know.
const CodeUnrecorded = "unrecorded-relations"

// Unrecorded is what findUnrecorded found.
type Unrecorded struct {
	// Tables are the relations under the physical schema that no snapshot
	// of the store names, in name order.
	Tables []string `json:"tables"`
	// Views are, per environment the store does not know, the views in
	// its schemas that read the physical schema (efmesh's), in name order.
	Views map[string][]string `json:"views"`
}

// Envs are the environments of u's views, in name order.
func (u *Unrecorded) Envs() []string {
	envs := make([]string, 0, len(u.Views))
	for e := range u.Views {
		envs = append(envs, e)
	}
	sort.Strings(envs)
	return envs
}

func (u *Unrecorded) text() string {
	var parts []string
	if n := len(u.Tables); n > 0 {
		parts = append(parts, fmt.Sprintf("%d efmesh table(s) and view(s) under %s", n, analysis.PhysicalSchema))
	}
	if envs := u.Envs(); len(envs) > 0 {
		n := 0
		for _, vs := range u.Views {
			n += len(vs)
		}
		parts = append(parts, fmt.Sprintf("%d view(s) of environment(s) %s", n, strings.Join(envs, ", ")))
	}
	advice := "apply builds them again and replaces those environments' views only with --force; " +
		"`efmesh state adopt` first records the tables of this checkout's model versions, so that the apply builds none of them"
	if len(u.Tables) == 0 {
		advice = "`efmesh apply <env> --force` registers such an environment again, replacing its views"
	}
	return fmt.Sprintf("the warehouse holds %s that the state store does not know (was the state store deleted or replaced?): %s",
		strings.Join(parts, " and "), advice)
}

// UnrecordedEnvError stops an apply that would overwrite the views of an
// environment the warehouse serves and the state store does not know.
type UnrecordedEnvError struct {
	Env   string
	Views int
}

func (e *UnrecordedEnvError) Error() string {
	return fmt.Sprintf("the warehouse serves environment %s (%d view(s) reading efmesh tables) but the state store does not know it: "+
		"applying would replace its views; nothing was changed. If the state store was lost, `efmesh state adopt` records "+
		"the tables of this checkout's model versions (then the apply builds none of them); "+
		"`efmesh apply %s --force` replaces the views", e.Env, e.Views, e.Env)
}

// findUnrecorded lists what the warehouse wh holds of efmesh's that st
// does not know: relations under the physical schema that no stored
// snapshot names, and the views of environments st has none of that read
// the physical schema. An environment's schemas are its views' schemas
// for the project's model schemas (analysis.EnvSchema); one whose name
// was shortened to fit the engine's limit is not recognised. nil when
// there is nothing.
func findUnrecorded(ctx context.Context, wh engine.Engine, st state.Reader, a *analysis.Analysis) (*Unrecorded, error) {
	d := wh.Dialect()
	usage, err := st.Usage(ctx)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(usage))
	for _, u := range usage {
		_, n := analysis.SplitName(u.PhysicalTable)
		known[strings.ToLower(n)] = true
	}
	envs, err := st.Environments(ctx)
	if err != nil {
		return nil, err
	}
	knownEnv := make(map[string]bool, len(envs))
	for _, e := range envs {
		knownEnv[e] = true
	}
	schemas := map[string]bool{}
	for _, info := range a.Models {
		schemas[strings.ToLower(info.Model.Schema)] = true
	}
	rows, err := wh.Query(ctx, engine.RelationsQuery(wh.Dialect(), analysis.PhysicalSchema))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", analysis.PhysicalSchema, err)
	}
	u := &Unrecorded{Views: map[string][]string{}}
	for _, r := range rows.Values {
		name := fmt.Sprint(r[0])
		if !known[strings.ToLower(name)] {
			u.Tables = append(u.Tables, analysis.PhysicalSchema+"."+name)
		}
	}
	rows, err = wh.Query(ctx, engine.ViewDefinitionsQuery(wh.Dialect(), nil, analysis.PhysicalSchema))
	if err != nil {
		return nil, fmt.Errorf("list views: %w", err)
	}
	for _, r := range rows.Values {
		schema, name, def := fmt.Sprint(r[0]), fmt.Sprint(r[1]), strings.ToLower(fmt.Sprint(r[2]))
		if !strings.Contains(def, strings.ToLower(analysis.PhysicalSchema)+".") && !strings.Contains(def, `"`+strings.ToLower(analysis.PhysicalSchema)+`"`) {
			continue
		}
		env, ok := envOfSchema(d, strings.ToLower(schema), schemas)
		if !ok || knownEnv[env] {
			continue
		}
		u.Views[env] = append(u.Views[env], schema+"."+name)
	}
	if len(u.Tables) == 0 && len(u.Views) == 0 {
		return nil, nil
	}
	sort.Strings(u.Tables)
	for _, vs := range u.Views {
		sort.Strings(vs)
	}
	return u, nil
}

// envOfSchema is the environment whose views live in schema: prod for a
// model schema itself, env for env__<model schema> (analysis.EnvSchema).
func envOfSchema(d engine.Dialect, schema string, modelSchemas map[string]bool) (string, bool) {
	if modelSchemas[schema] {
		return analysis.ProdEnv, true
	}
	for s := range modelSchemas {
		if env, ok := strings.CutSuffix(schema, "__"+s); ok && env != "" && analysis.ValidateEnv(env) == nil && analysis.EnvSchema(d, env, s) == schema {
			return env, true
		}
	}
	return "", false
}
