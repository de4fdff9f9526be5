package analysis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// bindAudits binds each custom audit m's header calls against m's columns,
// as apply renders it (RenderAudit): @this is m's stand-in, @ref(x) x's.
// An audit the engine refuses is reported twice: where the audit file
// goes wrong (as a body's error is, through describeAll and sqlDiag), and
// at the model's call of it, so that plan stops before apply would. A
// non-blocking audit (blocking false, or called through warn) is a
// warning: apply only logs its failure.
//
// Precondition: m's check is done and its columns are info.Columns.
func (c *checker) bindAudits(ctx context.Context, info *ModelInfo) error {
	m := info.Model
	if info.Broken || info.Columns == nil || len(m.Audits) == 0 || c.eng == nil && c.binder == nil {
		return nil
	}
	p := c.a.Project
	found := map[*project.CustomAudit][]project.Diagnostic{}
	at := map[*project.CustomAudit]int{} // where found's are in info.Diagnostics
	for i := range m.Audits {
		call := &m.Audits[i]
		blocking := true
		for call.Inner != nil {
			if call.Name == "warn" {
				blocking = false
			}
			call = call.Inner
		}
		if project.IsBuiltinAudit(call.Name) {
			continue
		}
		au := p.Audit(call.Name)
		if au == nil {
			continue // the loader reported it
		}
		sev := project.SeverityError
		if !blocking || !au.Blocking {
			sev = project.SeverityWarning
		}
		diags, seen := found[au]
		if !seen {
			var err error
			if diags, err = c.bindAudit(ctx, info, au); err != nil {
				return err
			}
			found[au] = diags
			at[au] = len(info.Diagnostics)
			for _, d := range diags {
				d.Message += " (auditing " + m.Name + ")"
				d.Severity = sev
				info.Diagnostics = append(info.Diagnostics, d)
			}
		}
		if len(diags) == 0 {
			continue
		}
		// In the audit file: an error when any call of it blocks.
		if sev == project.SeverityError {
			for k := range diags {
				info.Diagnostics[at[au]+k].Severity = sev
			}
		}
		first := diags[0]
		msg := fmt.Sprintf("audit %s does not run on %s: %s (%s:%d:%d)", au.Name, m.Name, first.Message, first.File, first.Range.Start.Line, first.Range.Start.Column)
		if len(diags) > 1 {
			msg += fmt.Sprintf(", and %d more", len(diags)-1)
		}
		info.Diagnostics = append(info.Diagnostics, project.Diagnostic{File: m.File, Range: call.Range, Severity: sev, Code: project.CodeAudit, Message: msg})
	}
	return nil
}

// bindAudit binds audit au over model info's stand-in and returns the
// positioned errors in the audit file (none when it binds). An audit
// reading a model of unknown shape is not bound: nothing to bind against.
func (c *checker) bindAudit(ctx context.Context, info *ModelInfo, au *project.CustomAudit) ([]project.Diagnostic, error) {
	m := info.Model
	shapes := map[string][]engine.Column{m.Name: info.Columns}
	for _, r := range au.Refs() {
		pi := c.a.Models[r]
		if pi == nil || pi.Columns == nil {
			return nil, nil
		}
		shapes[r] = pi.Columns
	}
	rels := map[string][]engine.Column{}
	relation := func(name string) string {
		s, t := checkRelation(name)
		rels[s+"."+t] = shapes[name]
		switch {
		case c.server != nil:
			return c.server.StandIn(shapes[name])
		case c.binder != nil:
			return engine.QuoteIdent(s) + "." + engine.QuoteIdent(t)
		}
		return c.standIn(name)
	}
	if c.eng != nil {
		for name := range shapes {
			if pi := c.a.Models[name]; pi != nil && !c.a.standIns[name] {
				if err := c.createStandIn(ctx, pi.Model, pi.Columns); err != nil {
					return nil, err
				}
			}
		}
	}
	r, err := RenderAudit(au, AuditText{
		This:    relation(m.Name),
		Ref:     func(n string) (string, error) { return relation(n), nil },
		Vars:    c.a.Project.Config.Variables,
		Literal: c.d.Literal,
	})
	if err != nil {
		return nil, nil // the loader reported the macro
	}
	var errs []error
	switch {
	case c.server != nil:
		_, errs = describeAll(ctx, serverDescriber{c.server, rels}, r.SQL)
	case c.binder != nil:
		if _, err := c.binder.Bind(r.SQL, rels); err != nil {
			if many, ok := err.(interface{ Unwrap() []error }); ok {
				errs = many.Unwrap()
			} else {
				errs = []error{err}
			}
		}
	default:
		_, errs = describeAll(ctx, c.eng, r.SQL)
	}
	if errs != nil && ctx.Err() != nil {
		return nil, ctx.Err() // cancelled, not refused
	}
	if len(errs) == 0 {
		return nil, nil
	}
	// Placed as a body's errors are, in the audit file: sqlDiag records
	// on a model that is not in the analysis into the project's list,
	// from which they are taken back.
	file := &project.Model{Name: m.Name, File: au.File, Source: au.Source, BodyStart: au.BodyStart, Macros: au.Macros, Expansion: au.Expansion}
	n := len(c.a.Diagnostics)
	for _, e := range errs {
		if !errors.Is(e, context.Canceled) {
			c.sqlDiag(file, r, e)
		}
	}
	out := slices.Clone(c.a.Diagnostics[n:])
	c.a.Diagnostics = c.a.Diagnostics[:n]
	return out, nil
}

// auditKey writes into a check's cache key what bindAudits reads beyond
// the model: the text of each custom audit m calls, and the columns of the
// models those audits @ref.
func (c *checker) auditKey(m *project.Model, w func(string)) {
	for _, au := range c.a.Project.AuditsOf(m) {
		w("audit " + au.File)
		w(string(au.Source))
		for _, r := range au.Refs() {
			pi := c.a.Models[r]
			if pi == nil {
				w("missing")
				continue
			}
			w(strconv.Itoa(len(pi.Columns)))
			for _, col := range pi.Columns {
				w(col.Name)
				w(col.Type)
			}
		}
		for _, mc := range au.Macros {
			if mc.Kind == project.MacroVar {
				w("var " + mc.Arg + " " + c.a.Project.Config.Variables[mc.Arg])
			}
		}
	}
}
