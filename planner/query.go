package planner

import (
	"errors"
	"fmt"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// CodeQuery marks a problem of a query the user typed (efmesh query): a
// statement that is not a query, or what the engine said of it.
const CodeQuery = "query"

// RenderQuery renders a query the user wrote outside any model file
// (efmesh query): its @ref(model) macros resolve to env's views, or to the
// subquery a virtual model is read as, exactly as a model body's refs do;
// @start and @end to the project's whole range as of now. file names the
// text in positions ("query"). A malformed macro or an unknown model is a
// *ProblemsError positioned in src; the rendered SQL keeps its map back to
// src, so the engine's errors can be positioned there too (QueryProblem).
func RenderQuery(a *analysis.Analysis, wb analysis.Workbench, file string, src []byte, env string, now time.Time) (engine.Rendered, error) {
	macros, diags := project.ScanMacros(file, src, 0)
	names := make([]string, 0, len(a.Models))
	for n := range a.Models {
		names = append(names, n)
	}
	for _, mc := range macros {
		if mc.Kind != project.MacroRef || a.Models[mc.Arg] != nil {
			continue
		}
		msg := fmt.Sprintf("unknown model %q in @ref", mc.Arg)
		if s, ok := project.DidYouMean(mc.Arg, names); ok {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		diags = append(diags, project.NewDiagnostic(file, src, mc.ArgStart, mc.ArgEnd, project.SeverityError, project.CodeUnknownRef, msg))
	}
	if project.HasErrors(diags) {
		return engine.Rendered{}, &ProblemsError{Diagnostics: diags}
	}
	eng, _ := wb.(engine.Engine) // for reading seed and external files
	b := &builder{a: a, d: wb.Dialect(), wh: eng, root: a.Project.Root, now: now, env: env}
	m := &project.Model{Source: src, Macros: macros}
	return b.render(&analysis.ModelInfo{Model: m}, map[string]bool{})
}

// QueryProblem positions err, an error the engine gave for r (rendered
// from src by RenderQuery), in src: a *ProblemsError with one diagnostic
// when the engine gave a position, else err itself.
func QueryProblem(file string, src []byte, r engine.Rendered, err error) error {
	var se *engine.SQLError
	if !errors.As(err, &se) {
		return err
	}
	msg := analysis.FirstLine(se.Message)
	if se.Subtype == engine.SubtypeNotAQuery {
		msg = "not a query: efmesh query runs one SELECT (or WITH … SELECT, VALUES, FROM …) and changes nothing"
		return &ProblemsError{Diagnostics: []project.Diagnostic{
			project.NewDiagnostic(file, src, 0, 0, project.SeverityError, CodeQuery, msg)}}
	}
	if se.Subtype == engine.SubtypeStatementCount {
		msg = "a query must be exactly one SELECT statement, found " + se.Name
	}
	if se.Type != "" {
		msg = se.Type + " Error: " + msg
	}
	if se.Position < 0 {
		return &ProblemsError{Diagnostics: []project.Diagnostic{
			project.NewDiagnostic(file, src, 0, 0, project.SeverityError, CodeQuery, msg)}}
	}
	start, end := r.SourceSpan(se.Position, se.Position+1)
	start, end = min(start, len(src)), min(end, len(src))
	return &ProblemsError{Diagnostics: []project.Diagnostic{
		project.NewDiagnostic(file, src, start, end, project.SeverityError, CodeQuery, msg)}}
}
