package analysis

import (
	"context"
	"errors"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// DescribeBody binds the body of m in the workbench wb that the analysis a
// was checked on, as the check binds a model's body (refs to the parents'
// stand-ins, interval bounds as fixed timestamps), and returns the
// columns the engine describes. m need not be a model of the project: the
// editor passes a model whose body is a part of one's query (a CTE or a
// subquery selected whole) to learn the types the engine gives that part's
// columns. Only a workbench that binds in an engine (stand-ins and
// DESCRIBE) or statically (a Binder) can answer.
func DescribeBody(ctx context.Context, a *Analysis, wb Workbench, m *project.Model) ([]engine.Column, error) {
	if a == nil || a.Project == nil || wb == nil {
		return nil, errors.New("no analysis")
	}
	for _, r := range m.Refs() {
		if pi := a.Models[r]; pi == nil || pi.Columns == nil {
			return nil, errors.New("a parent of unknown shape: " + r)
		}
	}
	// A checker of its own, not newChecker's: a is read concurrently and
	// must not be written.
	c := &checker{wb: wb, d: wb.Dialect(), root: a.Project.Root, a: a, catalog: standInCatalog}
	if b, ok := wb.(ServerBinder); ok {
		c.binder, c.server = b, b
	} else if b, ok := wb.(Binder); ok {
		c.binder = b
	} else if e, ok := wb.(engine.Engine); ok {
		if sc, ok := c.d.(engine.Scratch); ok {
			c.eng, c.scratch = e, sc
		}
	}
	switch {
	case c.eng != nil:
		// A check answered from the cache creates no stand-ins for the
		// models it did not bind: create those m reads (content-named,
		// so replacing one that exists changes nothing), without
		// recording them in a.
		for _, r := range m.Refs() {
			cols := a.Models[r].Columns
			rel := standInTable(cols)
			if a.standInTables[rel.Name] {
				continue
			}
			if err := c.eng.Exec(ctx, c.scratch.ReplaceScratchTable(c.catalog, rel, cols)); err != nil {
				return nil, err
			}
		}
		return c.eng.Describe(ctx, c.bindRender(m).SQL)
	case c.binder != nil:
		// As the check binds a body (checker.body).
		rels := map[string][]engine.Column{}
		for _, r := range m.Refs() {
			s, t := checkRelation(r)
			rels[s+"."+t] = a.Models[r].Columns
		}
		text := MacroText{
			Ref: func(n string) (string, bool) {
				s, t := checkRelation(n)
				return engine.QuoteIdent(s) + "." + engine.QuoteIdent(t), true
			},
			Start: c.d.Placeholder("start"), End: c.d.Placeholder("end"), This: c.d.Placeholder("this"),
			Vars: a.Project.Config.Variables, Literal: c.d.Literal, Columns: a.ColumnsOf, Env: a.Project.Config.Env,
		}
		if c.server != nil {
			text.Ref = func(n string) (string, bool) {
				return c.server.StandIn(a.Models[n].Columns), true
			}
			text.Start = c.d.TimestampLiteral("2000-01-01T00:00:00Z")
			text.End = c.d.TimestampLiteral("2000-01-02T00:00:00Z")
			r, _ := RenderBody(m, text)
			return c.server.BindContext(ctx, r.SQL, rels)
		}
		r, _ := RenderBody(m, text)
		return c.binder.Bind(r.SQL, rels)
	}
	return nil, errors.New("the workbench cannot describe a query")
}
