package analysis

import (
	"fmt"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// AuditText is what the macros of a custom audit's query become.
type AuditText struct {
	// This is the audited relation.
	This string
	// Ref is the relation of model name; nil where @ref is not available.
	Ref func(name string) (string, error)
	// Vars are the variables' values; @var(name) renders as Literal of
	// its value.
	Vars    map[string]string
	Literal func(string) string
}

// RenderAudit renders a custom audit's query, keeping the map back to the
// audit file's offsets: @this is the audited relation, @ref(x) the
// relation of model x, @var(name) the variable's value as a literal, as in
// a model's body. Apply runs this text against the warehouse and the check
// binds it against the model's stand-in, so the two cannot drift apart.
func RenderAudit(c *project.CustomAudit, t AuditText) (engine.Rendered, error) {
	end := BodyEnd(c.Source, c.BodyStart)
	var subs []engine.Substitution
	for _, mc := range c.Macros {
		if mc.Start < c.BodyStart || mc.End > end {
			continue
		}
		var text string
		switch mc.Kind {
		case project.MacroThis:
			text = t.This + " AS _efmesh_this"
			// A bare @this keeps its alias only where the SQL gives none:
			// "FROM @this AS s" must stay valid.
			if mc.Aliased {
				text = t.This
			}
		case project.MacroRef:
			if t.Ref == nil {
				return engine.Rendered{}, fmt.Errorf("audit %s: @ref is not available here", c.Name)
			}
			r, err := t.Ref(mc.Arg)
			if err != nil {
				return engine.Rendered{}, fmt.Errorf("audit %s: %w", c.Name, err)
			}
			text = r + ImplicitAlias(mc, MacroText{})
		case project.MacroVar:
			// The model's own values: the project is loaded with the
			// variables of the environment (and --var) in force.
			v, ok := t.Vars[mc.Arg]
			if !ok {
				return engine.Rendered{}, fmt.Errorf("audit %s: unknown variable %q", c.Name, mc.Arg)
			}
			text = t.Literal(v)
		default:
			return engine.Rendered{}, fmt.Errorf("audit %s: @%s is not available in an audit", c.Name, mc.Kind)
		}
		subs = append(subs, engine.Substitution{Start: mc.Start, End: mc.End, Text: text})
	}
	return engine.Render(c.Source, c.BodyStart, end, subs), nil
}
