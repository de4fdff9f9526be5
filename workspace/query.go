package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/ops"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// QueryFile names the text of an ad-hoc query in its positions
// ("query:1:8: …").
const QueryFile = "query"

// QueryResult is what a query or a show read: the rows, at most the limit
// asked for, and whether the result had more.
type QueryResult struct {
	Rows *engine.Rows
	// More is true when the limit cut the result.
	More bool
	// Preview is true when Show ran the model's query itself: the
	// environment has no view of this version of the model (not applied
	// there yet, changed since, or a virtual model read in place).
	Preview bool
	// SQL is the statement sent to the warehouse.
	SQL string
}

// JSONRows are the result's rows as JSON shows them (JSONValue), arrays in
// the order of the columns: a query may name two columns alike.
func (r *QueryResult) JSONRows() [][]any {
	out := make([][]any, len(r.Rows.Values))
	for i, row := range r.Rows.Values {
		out[i] = make([]any, len(row))
		for j, v := range row {
			out[i][j] = JSONValue(v)
		}
	}
	return out
}

// JSONValue is a value as JSON shows it: times in RFC 3339 (UTC), bytes in
// hex, big integers as numbers, others as encoding/json writes them (a
// value it cannot write, as text).
func JSONValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return fmt.Sprintf("\\x%x", x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case *big.Int:
		return json.Number(x.String())
	}
	if _, err := json.Marshal(v); err != nil {
		return fmt.Sprint(v)
	}
	return v
}

// ErrNoWarehouse is a query before anything was applied: there is no
// warehouse to read.
var ErrNoWarehouse = errors.New("there is no warehouse yet: apply an environment first (efmesh apply)")

// Query runs sql, a query the user wrote, on the warehouse opened
// read-only, its @ref(model) resolving to env's views. limit > 0 bounds
// the rows read (the query is run as a subquery under a LIMIT, so it can
// only be one query); 0 reads them all. A statement that is not a query is
// refused before the warehouse is opened; the engine's errors come back as
// a *planner.ProblemsError positioned in sql (file QueryFile).
func (w *Workspace) Query(ctx context.Context, sql, env string, limit int) (*QueryResult, error) {
	return w.query(ctx, QueryFile, []byte(sql), env, limit)
}

// QuerySelection is Query for the text src[start:end) of file, a file of
// the project as the caller has it (an editor's buffer): the selected
// text is rendered as a body is (@ref through env's views, @var, @start
// and @end) and run under limit, and its problems are positioned in file,
// in src's coordinates.
func (w *Workspace) QuerySelection(ctx context.Context, file string, src []byte, start, end int, env string, limit int) (*QueryResult, error) {
	if start < 0 || end > len(src) || start > end {
		return nil, fmt.Errorf("selection [%d, %d) is outside %s (%d bytes)", start, end, file, len(src))
	}
	res, err := w.query(ctx, file, src[start:end], env, limit)
	var pe *planner.ProblemsError
	if errors.As(err, &pe) {
		return nil, &planner.ProblemsError{Diagnostics: shiftDiagnostics(pe.Diagnostics, file, src, start)}
	}
	return res, err
}

// shiftDiagnostics positions diagnostics of a text that starts at byte
// base of src (file) in src: offsets moved by base, lines and columns
// counted in src.
func shiftDiagnostics(ds []project.Diagnostic, file string, src []byte, base int) []project.Diagnostic {
	out := make([]project.Diagnostic, len(ds))
	for i, d := range ds {
		d.File = file
		d.Range = project.RangeAt(src, base+d.Range.Start.Offset, base+d.Range.End.Offset)
		fixes := make([]project.Fix, len(d.Fixes))
		for j, f := range d.Fixes {
			edits := make([]project.TextEdit, len(f.Edits))
			for k, e := range f.Edits {
				edits[k] = project.TextEdit{File: file, Start: base + e.Start, End: base + e.End, NewText: e.NewText}
			}
			fixes[j] = project.Fix{Title: f.Title, Edits: edits}
		}
		if d.Fixes != nil {
			d.Fixes = fixes
		}
		out[i] = d
	}
	return out
}

// query is Query of src, positioned as file.
func (w *Workspace) query(ctx context.Context, file string, src []byte, env string, limit int) (*QueryResult, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	wb, err := w.workbench()
	if err != nil {
		return nil, err
	}
	r, err := planner.RenderQuery(w.Analysis, wb, file, src, env, w.opts.now())
	if err != nil {
		return nil, err
	}
	// Parsed first on the workbench: a statement that is not a query is
	// refused, and a syntax error positioned, without the warehouse.
	if _, err := wb.Canonicalize(r.SQL); err != nil {
		return nil, planner.QueryProblem(file, src, r, err)
	}
	if err := w.refsApplied(ctx, file, src, env); err != nil {
		return nil, err
	}
	return w.read(ctx, r, func(q engine.Rendered, err error) error { return planner.QueryProblem(file, src, q, err) }, limit)
}

// refsApplied positions, in src, each @ref to a model that env has no
// view of (not applied there yet): the engine would only say that a table
// does not exist. Virtual models are read in place and need no view.
// Before any apply (no state store) the warehouse's absence is the error.
func (w *Workspace) refsApplied(ctx context.Context, file string, src []byte, env string) error {
	ptrs, err := w.environment(ctx, env)
	if err != nil || ptrs == nil {
		return err
	}
	macros, _ := project.ScanMacros(file, src, 0)
	var diags []project.Diagnostic
	for _, mc := range macros {
		info := w.Analysis.Models[mc.Arg]
		if mc.Kind != project.MacroRef || info == nil || info.Model.Kind.Name.Virtual() {
			continue
		}
		if _, ok := ptrs[mc.Arg]; !ok {
			if err := w.unknownEnv(ctx, env, ptrs); err != nil {
				return err
			}
			msg := fmt.Sprintf("%s is not applied in %s: apply it (efmesh apply %s), or preview it with efmesh show %s --env %s", mc.Arg, env, env, mc.Arg, env)
			diags = append(diags, project.NewDiagnostic(file, src, mc.ArgStart, mc.ArgEnd, project.SeverityError, planner.CodeQuery, msg))
		}
	}
	if len(diags) > 0 {
		return &planner.ProblemsError{Diagnostics: diags}
	}
	return nil
}

// read runs r under limit on the warehouse opened read-only; problem
// phrases an engine error of q, the statement run (r wrapped).
func (w *Workspace) read(ctx context.Context, r engine.Rendered, problem func(q engine.Rendered, err error) error, limit int) (*QueryResult, error) {
	wh, err := connect.ReadWarehouse(ctx, w.Project, w.opts.Warehouse...)
	if err != nil {
		return nil, err
	}
	if wh == nil {
		return nil, ErrNoWarehouse
	}
	defer wh.Close()
	tail := "\n) AS efmesh_query"
	if limit > 0 {
		// One row more than asked tells whether the limit cut the result.
		tail += " LIMIT " + strconv.Itoa(limit+1)
	}
	q := r.Prefix("SELECT * FROM (\n").Suffix(tail)
	rows, err := wh.Query(ctx, q.SQL)
	if err != nil {
		return nil, problem(q, err)
	}
	res := &QueryResult{Rows: rows, SQL: q.SQL}
	if limit > 0 && len(rows.Values) > limit {
		rows.Values, res.More = rows.Values[:limit], true
	}
	return res, nil
}

// Show reads a model's rows as env serves them: from its view when env
// has this version of the model, else (not applied there yet, changed
// since, or a virtual model read in place) by running its rendered query, refs resolved to env's views: a
// preview (QueryResult.Preview). where, when set, is a SQL condition on
// the model's columns; limit is as Query's.
func (w *Workspace) Show(ctx context.Context, model, env, where string, limit int) (*QueryResult, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	info := w.Analysis.Models[model]
	if info == nil {
		return nil, fmt.Errorf("unknown model %q%s", model, analysis.DidYouMean(model, w.Analysis.Models))
	}
	applied := false
	if !info.Model.Kind.Name.Virtual() {
		ptrs, err := w.environment(ctx, env)
		if err != nil {
			return nil, err
		}
		if ptrs != nil {
			// A name no apply created is a typo more often than a wish
			// for a preview: say so rather than preview in its name.
			if err := w.unknownEnv(ctx, env, ptrs); err != nil {
				return nil, err
			}
		}
		// The environment serves this version of the model only when it
		// points at its fingerprint: a model changed since (on disk, or in
		// an editor's buffer) is previewed from its query as it is now.
		ptr, ok := ptrs[model]
		applied = ok && info.Fingerprint != "" && ptr.Fingerprint == info.Fingerprint
	}
	wb, err := w.workbench()
	if err != nil {
		return nil, err
	}
	d := wb.Dialect()
	var from string
	if applied {
		from = d.QuoteRelation(analysis.EnvRelation(d, env, info.Model))
	} else {
		// A preview reads its parents from env's views.
		for _, r := range info.Model.Refs() {
			if pi := w.Analysis.Models[r]; pi != nil && !pi.Model.Kind.Name.Virtual() {
				ptrs, err := w.environment(ctx, env)
				if err != nil {
					return nil, err
				}
				if _, ok := ptrs[r]; !ok && ptrs != nil {
					return nil, fmt.Errorf("show %s: it reads %s, which is not applied in %s: apply it (efmesh apply %s)", model, r, env, env)
				}
			}
		}
		q, err := planner.Render(w.Analysis, wb, model, env, w.opts.now())
		if err != nil {
			return nil, err
		}
		from = "(\n" + q + "\n)"
	}
	sql := "SELECT * FROM " + from + " AS " + d.Quote(info.Model.Table)
	if where != "" {
		sql += "\nWHERE " + where
	}
	r := engine.Rendered{SQL: sql}
	res, err := w.read(ctx, r, func(_ engine.Rendered, err error) error {
		return fmt.Errorf("show %s: %s", model, analysis.FirstLine(analysis.ErrMessage(err)))
	}, limit)
	if err != nil {
		return nil, err
	}
	res.Preview = !applied
	return res, nil
}

// unknownEnv is the error of a read through env's views when env, other
// than prod, holds nothing (ptrs): never applied, or deleted. Its views do
// not exist, which the engine would only say of the first table it misses.
func (w *Workspace) unknownEnv(ctx context.Context, env string, ptrs map[string]state.Pointer) error {
	if len(ptrs) > 0 || env == analysis.ProdEnv {
		return nil
	}
	var known []string
	if st, err := connect.ExistingStore(ctx, w.Project); err == nil && st != nil {
		known, _ = st.Environments(ctx)
		st.Close()
	}
	if len(known) == 0 {
		return nil // nothing applied anywhere: the warehouse's absence says it
	}
	return &ops.UnknownEnvError{Env: env, Known: known}
}

// environment reads env's pointers from the Reader, or from the state
// store when there is one (none yet: nothing is applied anywhere).
func (w *Workspace) environment(ctx context.Context, env string) (map[string]state.Pointer, error) {
	var rd state.Reader = w.Reader
	if rd == nil && w.Store != nil {
		rd = w.Store
	}
	if rd == nil {
		st, err := connect.ExistingStore(ctx, w.Project)
		if err != nil || st == nil {
			return nil, err
		}
		defer st.Close()
		rd = st
	}
	e, err := planner.ReadEnvironment(ctx, rd, env)
	if err != nil {
		return nil, err
	}
	return e.Pointers, nil
}
