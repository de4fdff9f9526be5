package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

// commandArgs is the one argument object every efmesh.* command takes.
// A plain string argument is read as Model.
type commandArgs struct {
	URI     string `json:"uri"`     // a file of the project (picks the project, and the model for render)
	Root    string `json:"root"`    // the project root, when no uri is given
	Model   string `json:"model"`   // schema.table
	Column  string `json:"column"`  // lineage of one column
	Env     string `json:"env"`     // default: the server's environment (dev)
	Confirm bool   `json:"confirm"` // apply to prod
	Limit   int    `json:"limit"`   // preview: at most this many rows (default previewLimit)
	// Range, for preview, is the selected query text of uri (a model or
	// any .sql file of the project) to run instead of the model.
	Range *protocol.Range `json:"range"`
	// Text, for preview, is a query text to run, positioned from its own
	// line 1 (a buffer the server does not hold).
	Text string `json:"text"`
}

// lensArgs is the argument object the code lenses and source actions put
// in the commands they offer: a commandArgs naming the model, its file and
// the environment.
type lensArgs struct {
	Env   string `json:"env"`
	Model string `json:"model"`
	URI   string `json:"uri"`
}

func (s *Server) executeCommand(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Command       string            `json:"command"`
		Arguments     []json.RawMessage `json:"arguments"`
		WorkDoneToken json.RawMessage   `json:"workDoneToken"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	var a commandArgs
	if len(p.Arguments) > 0 {
		if err := json.Unmarshal(p.Arguments[0], &a.Model); err != nil {
			a.Model = ""
			if err := json.Unmarshal(p.Arguments[0], &a); err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: the argument must be an object: %v", p.Command, err)
			}
		}
	}
	renderEnv := a.Env // render: no env means the physical tables, as `efmesh render`
	if a.Env == "" {
		a.Env = s.environment()
	}
	if err := analysis.ValidateEnv(a.Env); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	for _, v := range s.allViews() {
		v.awaitLoad(ctx) // commands see the whole project
	}
	v, err := s.commandView(a)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	v.awaitLoad(ctx)
	if p.Command == cmdPlan || p.Command == cmdApply || p.Command == cmdPreview || p.Command == cmdRender && renderEnv != "" {
		if err := sameVariables(v.snapshot(), a.Env); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
	}
	switch p.Command {
	case cmdRender:
		a.Env = renderEnv
		return s.renderCommand(ctx, v, a)
	case cmdPlan:
		return s.planCommand(ctx, v, a, p.WorkDoneToken)
	case cmdApply:
		return s.applyCommand(ctx, v, a, p.WorkDoneToken)
	case cmdLineage:
		return s.lineageCommand(ctx, v, a)
	case cmdTest:
		return s.testCommand(ctx, v, a)
	case cmdPreview:
		return s.previewCommand(ctx, v, a)
	case cmdModels:
		return s.modelsCommand(ctx, v, a)
	case cmdEnvironments:
		return s.environmentsCommand(ctx, v, a)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
}

// sameVariables refuses a command about env when the editor's project,
// loaded with the variables of its own environment, would render some
// model otherwise in env: the command would answer about other versions
// of the models than `efmesh plan env` sees.
func sameVariables(snap *snapshot, env string) error {
	if env == snap.env || snap.proj == nil {
		return nil
	}
	want := project.EffectiveVariables(snap.cfg, env, nil)
	var differ []string
	for _, n := range project.UsedVariables(snap.proj) {
		if want[n] != snap.proj.Config.Variables[n] {
			differ = append(differ, n)
		}
	}
	if len(differ) == 0 {
		return nil
	}
	return fmt.Errorf("environment %s gives other values to %s than the editor's environment %s: set efmesh.environment to %s first",
		env, strings.Join(differ, ", "), snap.env, env)
}

// commandView picks the project a command is about: the one holding uri or
// root, the one defining model, or the only one.
func (s *Server) commandView(a commandArgs) (*view, error) {
	if a.URI != "" {
		path, err := pathOf(protocol.DocumentURI(a.URI))
		if err != nil {
			return nil, err
		}
		if v := s.ensureViewContaining(path); v != nil {
			return v, nil
		}
		return nil, fmt.Errorf("%s is not in an efmesh project", a.URI)
	}
	if a.Root != "" {
		if v := s.viewContaining(filepath.Join(filepath.Clean(a.Root), project.ConfigFile)); v != nil {
			return v, nil
		}
		return nil, fmt.Errorf("no efmesh project at %s", a.Root)
	}
	views := s.allViews()
	if a.Model != "" {
		var found []*view
		for _, v := range views {
			if snap := v.snapshot(); snap.proj != nil && snap.proj.ByName[a.Model] != nil {
				found = append(found, v)
			}
		}
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1:
			return nil, fmt.Errorf("several efmesh projects define %s: pass uri or root", a.Model)
		}
	}
	if len(views) == 1 {
		return views[0], nil
	}
	if len(views) == 0 {
		return nil, errors.New("no efmesh project is open")
	}
	return nil, errors.New("several efmesh projects are open: pass uri or root")
}

var errNotChecked = errors.New("the project is not checked yet")

// currentResult waits for the check of the view's latest snapshot.
func (s *Server) currentResult(ctx context.Context, v *view) (*checkResult, error) {
	wctx, cancel := context.WithTimeout(ctx, awaitTimeout*6)
	defer cancel()
	snap := v.snapshot()
	res := v.await(wctx, snap.seq)
	if res == nil || res.analysis == nil {
		return nil, errors.New("the project could not be checked; see the log")
	}
	return res, nil
}

// modelOf resolves the model a command is about: args.Model, else the
// model of args.URI.
func modelOf(res *checkResult, a commandArgs) (string, error) {
	if a.Model != "" {
		if res.analysis.Models[a.Model] == nil {
			return "", fmt.Errorf("unknown model %q", a.Model)
		}
		return a.Model, nil
	}
	if a.URI != "" {
		if path, err := pathOf(protocol.DocumentURI(a.URI)); err == nil {
			if rel, ok := res.snap.rel(path); ok {
				if m := res.snap.modelAt(rel); m != nil && m.Name != "" {
					return m.Name, nil
				}
			}
		}
	}
	return "", errors.New("which model? pass model or the uri of a model file")
}

// renderCommand returns the SQL a model runs in env, as text.
func (s *Server) renderCommand(ctx context.Context, v *view, a commandArgs) (any, error) {
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	model, err := modelOf(res, a)
	if err != nil {
		return nil, err
	}
	var sql string
	err = v.ck.do(ctx, func(wb analysis.Workbench) error {
		var rerr error
		sql, rerr = workspace.New(res.analysis, wb, s.workspaceOptions()).Render(model, a.Env, s.opts.Now())
		return rerr
	})
	if err != nil {
		return nil, err
	}
	return sql, nil
}

// planResult is what efmesh.plan returns (docs/json.md).
type planResult = jsonapi.EditorPlan

// planCommand plans env as `efmesh plan` does (workspace.Plan: the state
// store checked against what the warehouse holds), reading the store
// through the view's read-only reader, so a plan never creates one. Unlike
// the code lenses' plans it looks into the warehouse: a table dropped
// behind efmesh's back is rebuilt here as in the CLI. It sets no backfill
// limit: the editor shows a large backfill, its apply refuses it.
func (s *Server) planCommand(ctx context.Context, v *view, a commandArgs, token json.RawMessage) (any, error) {
	prog := s.beginProgress(ctx, token, "efmesh: plan "+a.Env)
	defer prog.end("")
	prog.report("checking the project", 10)
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	prog.report("comparing with "+a.Env, 60)
	st, _, err := v.store.reader(explicitly(ctx), res.snap.proj)
	if err != nil {
		return nil, err
	}
	// No workbench: the view's belongs to its checker, the plan opens its
	// own (a redacted environment binds the readers of redacted models
	// again).
	w := workspace.New(res.analysis, nil, s.workspaceOptions())
	defer w.Close()
	w.Reader = st
	plan, err := w.Plan(ctx, a.Env, planner.WithUser(appliedBy()))
	if err != nil {
		return nil, problemsText(err)
	}
	summary := workspace.PlanText(plan)
	out := &planResult{Env: plan.Env, HasChanges: plan.HasChanges, Models: workspace.JSONModelPlans(plan.Models)}
	// The unit tests apply runs first: a plan whose apply would stop says
	// so, with what differs.
	rep, err := w.PlanTests(ctx, plan)
	kind := protocol.MessageTypeInfo
	switch {
	case err != nil:
		summary += fmt.Sprintf("\nThe unit tests could not run: %v\n", err)
	case rep != nil:
		out.Tests = workspace.JSONTestResults(rep.Tests)
		if rep.Failed > 0 {
			kind = protocol.MessageTypeWarning
			var b strings.Builder
			fmt.Fprintf(&b, "\nApply would stop: %d of %d unit test(s) of the models it builds fail.\n", rep.Failed, len(rep.Tests))
			for _, t := range rep.Tests {
				if !t.Passed {
					workspace.WriteTestResult(&b, t)
				}
			}
			summary += b.String()
		}
	}
	out.Summary = summary
	prog.end(firstLine(summary))
	s.showMessage(kind, "%s", strings.TrimSuffix(summary, "\n"))
	return out, nil
}

// problemsText makes a plan's ProblemsError readable in an editor message.
func problemsText(err error) error {
	var pe *planner.ProblemsError
	if !errors.As(err, &pe) {
		return err
	}
	var lines []string
	for _, d := range pe.Diagnostics {
		if d.Severity == project.SeverityError {
			lines = append(lines, d.String())
		}
	}
	if len(lines) > 5 {
		lines = append(lines[:5], fmt.Sprintf("… and %d more", len(lines)-5))
	}
	return fmt.Errorf("%v:\n%s", err, strings.Join(lines, "\n"))
}

// intervalsText counts intervals: "1 interval", "17,746,392 intervals".
func intervalsText(n int) string {
	return planner.Thousands(n) + " interval" + plural(n)
}

// applyResult is what efmesh.apply returns (docs/json.md).
type applyResult = jsonapi.EditorApply

// applyCommand builds and promotes the plan for env, as `efmesh apply
// --yes` does, with the same call (workspace.Apply: a digest's answer, or
// the environment's lock, then the warehouse).
// Production is never applied without confirm; unsaved buffers stop it
// (apply builds what is on disk, and the check saw the buffers).
func (s *Server) applyCommand(ctx context.Context, v *view, a commandArgs, token json.RawMessage) (any, error) {
	if a.Env == analysis.ProdEnv && !a.Confirm {
		return nil, fmt.Errorf("refusing to apply to %s from the editor without an explicit confirmation (confirm: true)", analysis.ProdEnv)
	}
	if dirty := s.dirtyUnder(v.root); len(dirty) > 0 {
		sort.Strings(dirty)
		return nil, fmt.Errorf("save your changes first: %s", strings.Join(dirty, ", "))
	}
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	if res.analysis.Errors() {
		return nil, problemsText(&planner.ProblemsError{Diagnostics: res.analysis.Diagnostics})
	}
	prog := s.beginProgress(ctx, token, "efmesh: apply "+a.Env)
	defer prog.end("")
	// The apply `efmesh apply --yes` makes (workspace.Apply): the project
	// as it is on disk (no buffer is dirty), answered from a digest when
	// it can be, else loaded with the variables of env and applied.
	r, err := workspace.Apply(ctx, workspace.Loading{Dir: v.root, Open: workspace.OpenOptions{Options: s.workspaceOptions(), InServer: true}}, a.Env, workspace.ApplyRequest{
		Noop: &workspace.NoopRequest{Env: a.Env},
		Plan: []planner.PlanOption{planner.WithBackfillLimit(planner.DefaultBackfillLimit), planner.WithUser(appliedBy())},
		Apply: planner.ApplyOptions{
			AppliedBy: appliedBy(),
			Progress: func(done, total int, model string) {
				prog.report(fmt.Sprintf("built %s (%d/%d)", model, done, total), 100*done/max(total, 1))
			},
		},
	})
	var large *planner.LargeBackfillError
	var pe *planner.ProblemsError
	var failed *workspace.TestsFailedError
	switch {
	case errors.As(err, &failed):
		// The unit tests of what the apply builds failed: nothing was
		// built; what differs, as efmesh test prints it.
		var b strings.Builder
		for _, t := range failed.Failing() {
			workspace.WriteTestResult(&b, t)
		}
		s.showMessage(protocol.MessageTypeError, "%v", err)
		return nil, fmt.Errorf("%v:\n%s", err, strings.TrimSuffix(b.String(), "\n"))
	case errors.As(err, &large):
		return nil, fmt.Errorf("%v; apply a backfill this large from the command line: efmesh apply %s --allow-large-backfill", err, a.Env)
	case errors.As(err, &pe):
		return nil, problemsText(err)
	case err != nil:
		s.showMessage(protocol.MessageTypeError, "Apply to %s failed: %v", a.Env, err)
		return nil, err
	}
	out := &applyResult{Env: a.Env, Applied: r.Applied, PlanID: r.PlanID, Summary: workspace.PlanText(r.Plan),
		Built: nonNil(r.Built), Computed: nonNil(r.Computed), Promoted: nonNil(r.Promoted), Removed: nonNil(r.Removed), Exported: nonNil(r.Exported), DroppedViews: nonNil(r.DroppedViews)}
	if !r.Applied {
		prog.end(firstLine(out.Summary))
		return out, nil
	}
	msg := strings.TrimSuffix(workspace.AppliedText(a.Env, &r.ApplyResult), "\n")
	prog.end(firstLine(msg))
	s.showMessage(protocol.MessageTypeInfo, "%s", msg)
	s.goSafe("refresh code lenses", func() {
		_ = s.call(s.ctx, protocol.MethodCodeLensRefresh, nil, nil)
	})
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// lineageCommand returns the lineage graph of a model, or of one of its
// columns, for a client to draw.
func (s *Server) lineageCommand(ctx context.Context, v *view, a commandArgs) (any, error) {
	snap, res := v.current()
	w := &world{snap: snap, res: res}
	model := a.Model
	if model == "" && a.URI != "" {
		if path, err := pathOf(protocol.DocumentURI(a.URI)); err == nil {
			if rel, ok := snap.rel(path); ok {
				if m := snap.modelAt(rel); m != nil {
					model = m.Name
				}
			}
		}
	}
	if model == "" {
		return nil, errors.New("which model? pass model or the uri of a model file")
	}
	if res == nil || res.analysis == nil {
		res, err := s.currentResult(ctx, v)
		if err != nil {
			return nil, err
		}
		w.res = res
	}
	return w.lineage(model, strings.ToLower(a.Column))
}

// testCommand runs the unit tests of a model (its tests/*.yaml entries), or
// every test of the project when no model is given, on the workbench; it
// returns `efmesh test --json`'s shape.
func (s *Server) testCommand(ctx context.Context, v *view, a commandArgs) (any, error) {
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	var report *workspace.TestReport
	err = v.ck.do(ctx, func(wb analysis.Workbench) error {
		w := workspace.New(res.analysis, wb, s.workspaceOptions())
		var names []string
		model := a.Model
		if model == "" && a.URI != "" {
			if m, err := modelOf(res, a); err == nil {
				model = m
			}
		}
		if model != "" {
			if names = w.TestsOf(model); len(names) == 0 {
				report = &workspace.TestReport{Tests: []planner.TestResult{}}
				return nil
			}
		}
		var rerr error
		report, rerr = w.Test(ctx, names)
		return rerr
	})
	if err != nil {
		return nil, err
	}
	return &jsonapi.EditorTest{Passed: report.Passed, Failed: report.Failed, Tests: workspace.JSONTestResults(report.Tests)}, nil
}

// previewLimit is the number of rows efmesh.preview reads when no limit is
// given, as `efmesh show`.
const previewLimit = 20

// previewResult is what efmesh.preview returns (docs/json.md).
type previewResult = jsonapi.EditorPreview

// previewCommand reads a model's rows as env serves them, like `efmesh
// show` (workspace.Show), from the editor's analysis: a model edited in a
// buffer and not applied is previewed by running its query as the buffer
// has it. The state store is read through the view's read-only reader and
// the warehouse opened read-only: a preview never creates either.
func (s *Server) previewCommand(ctx context.Context, v *view, a commandArgs) (any, error) {
	if a.Limit < 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: limit %d: give a positive number of rows", cmdPreview, a.Limit)
	}
	limit := a.Limit
	if limit == 0 {
		limit = previewLimit
	}
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	if a.Range != nil || a.Text != "" {
		return s.previewSelection(ctx, res, a, limit)
	}
	model := a.Model // an unknown name is Show's error, with its suggestion
	if model == "" {
		if model, err = modelOf(res, a); err != nil {
			return nil, err
		}
	}
	st, _, err := v.store.reader(explicitly(ctx), res.snap.proj)
	if err != nil {
		return nil, err
	}
	// No workbench: the view's belongs to its checker, and the read may
	// take a while; the preview opens its own.
	w := workspace.New(res.analysis, nil, s.workspaceOptions())
	defer w.Close()
	w.Reader = st
	r, err := w.Show(ctx, model, a.Env, "", limit)
	if err != nil {
		return nil, problemsText(err)
	}
	cols := r.Rows.Columns
	if cols == nil {
		cols = []engine.Column{}
	}
	return &previewResult{Model: model, Env: a.Env, Preview: r.Preview, Columns: workspace.JSONColumns(cols), Rows: r.JSONRows(), Truncated: r.More}, nil
}

// previewSelection runs a query text of the editor, the range of uri's
// buffer (or a.Text), through the same core as `efmesh query`
// (workspace.QuerySelection): rendered as a body is, refs read from env's
// views, and its problems positioned in the buffer's coordinates.
func (s *Server) previewSelection(ctx context.Context, res *checkResult, a commandArgs, limit int) (any, error) {
	file, src := workspace.QueryFile, []byte(a.Text)
	start, end := 0, len(src)
	if a.Range != nil {
		if a.URI == "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: a range needs the uri of its file", cmdPreview)
		}
		path, err := pathOf(protocol.DocumentURI(a.URI))
		if err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
		rel, ok := res.snap.rel(path)
		if !ok {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s is not in the project at %s", a.URI, res.snap.root)
		}
		var m *Mapper
		if f := res.snap.file(rel); f != nil {
			src, m = f.src, f.Mapper()
		} else {
			// A .sql file the project does not load (a scratch query):
			// as saved.
			if src, err = os.ReadFile(path); err != nil {
				return nil, fmt.Errorf("%s: %w", cmdPreview, err)
			}
			m = NewMapper(src)
		}
		file = rel
		start, end = m.Offsets(*a.Range)
		if strings.TrimSpace(string(src[start:end])) == "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: the selection is empty: select a query", cmdPreview)
		}
	}
	model, _ := modelOf(res, commandArgs{URI: a.URI})
	// A query reads no state: only the warehouse, opened read-only.
	w := workspace.New(res.analysis, nil, s.workspaceOptions())
	defer w.Close()
	r, err := w.QuerySelection(ctx, file, src, start, end, a.Env, limit)
	if err != nil {
		return nil, problemsText(err)
	}
	cols := r.Rows.Columns
	if cols == nil {
		cols = []engine.Column{}
	}
	return &previewResult{Model: model, Env: a.Env, Preview: true, Selection: true, Columns: workspace.JSONColumns(cols), Rows: r.JSONRows(), Truncated: r.More}, nil
}

// workspaceOptions are the editor's: its clock and its log.
func (s *Server) workspaceOptions() workspace.Options {
	return workspace.Options{Now: s.opts.Now, Logger: s.log, Presence: s.presence}
}
