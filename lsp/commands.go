package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
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
	if err := planner.ValidateEnv(a.Env); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	v, err := s.commandView(a)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
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
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
}

// commandView picks the project a command is about: the one holding uri or
// root, the one defining model, or the only one.
func (s *Server) commandView(a commandArgs) (*view, error) {
	if a.URI != "" {
		path, err := pathOf(protocol.DocumentURI(a.URI))
		if err != nil {
			return nil, err
		}
		if v := s.viewFor(path); v != nil {
			return v, nil
		}
		return nil, fmt.Errorf("%s is not in an efmesh project", a.URI)
	}
	if a.Root != "" {
		if v := s.viewOf(filepath.Join(filepath.Clean(a.Root), project.ConfigFile)); v != nil {
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
	err = v.ck.do(ctx, func(wb planner.Workbench) error {
		var rerr error
		sql, rerr = planner.Render(res.analysis, wb, model, a.Env, s.opts.Now())
		return rerr
	})
	if err != nil {
		return nil, err
	}
	return sql, nil
}

// planResult is what efmesh.plan returns: the CLI's --json plan plus the
// human summary.
type planResult struct {
	Env        string              `json:"env"`
	HasChanges bool                `json:"hasChanges"`
	Summary    string              `json:"summary"`
	Models     []planner.ModelPlan `json:"models"`
}

func (s *Server) planCommand(ctx context.Context, v *view, a commandArgs, token json.RawMessage) (any, error) {
	prog := s.beginProgress(ctx, token, "efmesh: plan "+a.Env)
	defer prog.end("")
	prog.report("checking the project", 10)
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	prog.report("comparing with "+a.Env, 60)
	plan, err := v.planFor(explicitly(ctx), res, a.Env)
	if err != nil {
		return nil, problemsText(err)
	}
	summary := planSummary(plan)
	prog.end(firstLine(summary))
	s.showMessage(protocol.MessageTypeInfo, "%s", summary)
	return &planResult{Env: plan.Env, HasChanges: plan.HasChanges, Summary: summary, Models: plan.Models}, nil
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

// planSummary renders a plan for a message, like `efmesh plan`: the
// models that change or have intervals due, then the totals ("3 models
// change (1 added, 2 breaking); 2 to build, 42 intervals to backfill.").
func planSummary(p *planner.Plan) string {
	if !p.HasChanges {
		return fmt.Sprintf("No changes: environment %s is up to date (%d models).", p.Env, len(p.Models))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Plan for environment %s:\n", p.Env)
	changed := 0
	var kinds []string
	for c, n := range p.Counts() {
		if c != planner.Unchanged {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, c))
			changed += n
		}
	}
	sort.Strings(kinds)
	for _, m := range p.Models {
		if m.Change == planner.Unchanged && !m.Build && m.Intervals == 0 && !m.Missing && m.StaleView == "" {
			continue
		}
		var notes []string
		if m.Missing {
			notes = append(notes, "missing")
		}
		if m.Build {
			notes = append(notes, "build")
		}
		if m.StaleView != "" {
			notes = append(notes, "drop stale view "+m.StaleView)
		}
		if m.Intervals > 0 {
			notes = append(notes, intervalsText(m.Intervals))
		}
		line := fmt.Sprintf("  %s %s", m.Name, m.Change)
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, ", ") + ")"
		}
		b.WriteString(line + "\n")
	}
	switch changed {
	case 0:
		b.WriteString("No model changes")
	case 1:
		fmt.Fprintf(&b, "1 model changes (%s)", strings.Join(kinds, ", "))
	default:
		fmt.Fprintf(&b, "%d models change (%s)", changed, strings.Join(kinds, ", "))
	}
	fmt.Fprintf(&b, "; %d to build", p.Builds())
	if n := p.Intervals(); n > 0 {
		fmt.Fprintf(&b, ", %s to backfill", intervalsText(n))
	}
	b.WriteString(".")
	return b.String()
}

// intervalsText counts intervals: "1 interval", "17,746,392 intervals".
func intervalsText(n int) string {
	return planner.Thousands(n) + " interval" + plural(n)
}

// applyResult is what efmesh.apply returns.
type applyResult struct {
	Env      string   `json:"env"`
	Applied  bool     `json:"applied"`
	PlanID   string   `json:"planId,omitempty"`
	Built    []string `json:"built"`
	Promoted []string `json:"promoted"`
	// DroppedViews are the stale views of EXTERNAL models the plan listed.
	DroppedViews []string `json:"droppedViews,omitempty"`
	Summary      string   `json:"summary"`
}

// applyCommand builds and promotes the plan for env, like `efmesh apply
// --yes`. Production is never applied without confirm; unsaved buffers
// stop it (apply builds what is on disk, and the check saw the buffers).
func (s *Server) applyCommand(ctx context.Context, v *view, a commandArgs, token json.RawMessage) (any, error) {
	if a.Env == planner.ProdEnv && !a.Confirm {
		return nil, fmt.Errorf("refusing to apply to %s from the editor without an explicit confirmation (confirm: true)", planner.ProdEnv)
	}
	if dirty := s.dirtyUnder(v.root); len(dirty) > 0 {
		sort.Strings(dirty)
		return nil, fmt.Errorf("save your changes first: %s", strings.Join(dirty, ", "))
	}
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	p := res.snap.proj
	if res.analysis.Errors() {
		return nil, problemsText(&planner.ProblemsError{Diagnostics: res.analysis.Diagnostics})
	}
	prog := s.beginProgress(ctx, token, "efmesh: apply "+a.Env)
	defer prog.end("")
	st, err := connect.Store(ctx, p)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	// The plan is checked against what the warehouse holds (a relation
	// dropped by hand is rebuilt), as the CLI's apply does.
	wh, err := connect.WarehouseIfExists(ctx, p)
	if err != nil {
		return nil, err
	}
	defer func() {
		if wh != nil {
			wh.Close()
		}
	}()
	// A workbench of its own (the view's belongs to its checker): a
	// redacted environment binds the readers of redacted models again.
	wb, err := connect.Workbench(p)
	if err != nil {
		return nil, err
	}
	defer wb.Close()
	plan, err := planner.MakePlan(ctx, res.analysis, st, a.Env, planner.PlanAt(s.opts.Now()), planner.WithBackfillLimit(planner.DefaultBackfillLimit),
		planner.WithWarehouse(wh), planner.WithWorkbench(wb))
	var large *planner.LargeBackfillError
	if errors.As(err, &large) {
		return nil, fmt.Errorf("%v; apply a backfill this large from the command line: efmesh apply %s --allow-large-backfill", err, a.Env)
	}
	if err != nil {
		return nil, problemsText(err)
	}
	out := &applyResult{Env: a.Env, Built: []string{}, Promoted: []string{}, Summary: planSummary(plan)}
	if !plan.HasChanges {
		prog.end(out.Summary)
		return out, nil
	}
	if wh == nil {
		if wh, err = connect.Warehouse(ctx, p); err != nil {
			return nil, err
		}
	}
	r, err := planner.Apply(ctx, plan, wh, st, planner.ApplyOptions{
		AppliedBy: appliedBy(),
		Now:       s.opts.Now,
		Logger:    s.log,
		Progress: func(done, total int, model string) {
			prog.report(fmt.Sprintf("built %s (%d/%d)", model, done, total), 100*done/max(total, 1))
		},
	})
	if err != nil {
		s.showMessage(protocol.MessageTypeError, "Apply to %s failed: %v", a.Env, err)
		return nil, err
	}
	out.Applied, out.PlanID = true, r.PlanID
	out.Built = append(out.Built, r.Built...)
	out.Promoted = append(out.Promoted, r.Promoted...)
	out.DroppedViews = r.DroppedViews
	msg := fmt.Sprintf("Applied to %s: built %d, promoted %d.", a.Env, len(r.Built), len(r.Promoted))
	prog.end(msg)
	s.showMessage(protocol.MessageTypeInfo, "%s", msg)
	s.goSafe("refresh code lenses", func() {
		_ = s.call(s.ctx, protocol.MethodCodeLensRefresh, nil, nil)
	})
	return out, nil
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

// testResult is what efmesh.test returns: `efmesh test --json`'s shape.
type testResult struct {
	Passed int                  `json:"passed"`
	Failed int                  `json:"failed"`
	Tests  []planner.TestResult `json:"tests"`
}

// testCommand runs the unit tests of a model (its tests/*.yaml entries), or
// every test of the project when no model is given, on the workbench.
func (s *Server) testCommand(ctx context.Context, v *view, a commandArgs) (any, error) {
	res, err := s.currentResult(ctx, v)
	if err != nil {
		return nil, err
	}
	var names []string
	model := a.Model
	if model == "" && a.URI != "" {
		if m, err := modelOf(res, a); err == nil {
			model = m
		}
	}
	if model != "" {
		for _, t := range res.analysis.Project.Tests {
			if t.Model == model {
				names = append(names, t.Name)
			}
		}
		if len(names) == 0 {
			return testResult{Tests: []planner.TestResult{}}, nil
		}
	}
	var results []planner.TestResult
	err = v.ck.do(ctx, func(wb planner.Workbench) error {
		var rerr error
		results, rerr = planner.RunTests(ctx, res.analysis, wb, names)
		return rerr
	})
	if err != nil {
		return nil, err
	}
	out := testResult{Tests: results}
	if out.Tests == nil {
		out.Tests = []planner.TestResult{}
	}
	for _, r := range results {
		if r.Passed {
			out.Passed++
		} else {
			out.Failed++
		}
	}
	return out, nil
}
