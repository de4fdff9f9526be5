package analysis

import (
	"context"
	"unicode/utf8"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// batchDescriber is an optional Workbench capability: many queries bound
// in one call, over several connections, each answered as Describe would.
type batchDescriber interface {
	DescribeMany(ctx context.Context, queries []string) ([][]engine.Column, []error)
}

// predescribed is a body bound ahead of its check: what the engine said
// it yields.
type predescribed struct {
	cols []engine.Column
}

// waves orders the project's models (their positions in p.Models,
// duplicates left out) for AnalyzeWith: by DAG level when the workbench
// binds in batches, so that a level's bodies are bound together; else,
// or when a model refs one that is not before it (a cycle), one model a
// wave in the project's order.
func (c *checker) waves(p *project.Project) [][]int {
	var kept []int
	for i, m := range p.Models {
		if p.ByName[m.Name] == m {
			kept = append(kept, i)
		}
	}
	one := func() [][]int {
		out := make([][]int, len(kept))
		for k, i := range kept {
			out[k] = []int{i}
		}
		return out
	}
	if _, ok := c.wb.(batchDescriber); !ok || c.eng == nil || c.binder != nil {
		return one()
	}
	level := make(map[string]int, len(kept))
	var out [][]int
	for _, i := range kept {
		m := p.Models[i]
		l := 0
		for _, r := range m.Refs() {
			if _, known := p.ByName[r]; !known {
				continue
			}
			pl, before := level[r]
			if !before {
				return one()
			}
			l = max(l, pl+1)
		}
		level[m.Name] = l
		for len(out) <= l {
			out = append(out, nil)
		}
		out[l] = append(out[l], i)
	}
	return out
}

// predescribe binds, in one batch, the bodies among the models at
// positions ms whose check will bind them (every parent known and
// shaped), so that body finds its columns ready. A body the engine
// refuses is left to body, which binds it again and reports each error
// exactly as without the batch.
func (c *checker) predescribe(ctx context.Context, p *project.Project, ms []int) error {
	bd, ok := c.wb.(batchDescriber)
	if !ok || c.eng == nil || c.binder != nil || len(ms) < 2 {
		return nil
	}
	var models []*project.Model
	var sqls []string
	for _, i := range ms {
		m := p.Models[i]
		if m.Kind.Name == project.KindSeed || m.Kind.Name == project.KindExternal || !m.Kind.Name.HasBody() {
			continue
		}
		if pre, ok := c.precanon[m]; ok && pre.err != nil {
			continue
		}
		if info := c.a.Models[m.Name]; info == nil || info.Broken {
			continue
		}
		if err := c.ensureParents(ctx, m); err != nil {
			return err
		}
		shaped := true
		for _, r := range m.Refs() {
			if pi := c.a.Models[r]; pi == nil || pi.Fingerprint == "" || pi.Columns == nil {
				shaped = false
				break
			}
		}
		if !shaped || m.BodyStart > len(m.Source) || !utf8.Valid(m.Source[m.BodyStart:]) {
			continue
		}
		models = append(models, m)
		sqls = append(sqls, c.bindRender(m).SQL)
	}
	if len(sqls) == 0 {
		return nil
	}
	cols, errs := bd.DescribeMany(ctx, sqls)
	if c.predesc == nil {
		c.predesc = make(map[*project.Model]predescribed, len(models))
	}
	for k, m := range models {
		if errs[k] == nil {
			c.predesc[m] = predescribed{cols: cols[k]}
		}
	}
	return nil
}

// bindRender renders m's body as the engine binds it: refs to the
// parents' stand-ins, interval bounds as fixed timestamps.
func (c *checker) bindRender(m *project.Model) engine.Rendered {
	r, _ := RenderBody(m, MacroText{
		Ref:   func(n string) (string, bool) { return c.standIn(n), true },
		Start: c.d.TimestampLiteral("2000-01-01T00:00:00Z"),
		End:   c.d.TimestampLiteral("2000-01-02T00:00:00Z"),
		This:  "NULL",
		Vars:  c.a.Project.Config.Variables, Literal: c.d.Literal, Columns: c.a.ColumnsOf, Env: c.a.Project.Config.Env,
	})
	return r
}
