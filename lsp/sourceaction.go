package lsp

import (
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
)

// The source actions on a model: the commands its code lenses run, for
// clients that show no lenses (Neovim, Helix, Emacs invoke code actions).
const (
	kindSourceEfmesh protocol.CodeActionKind = "source.efmesh"
	kindRender       protocol.CodeActionKind = "source.efmesh.render"
	kindPlan         protocol.CodeActionKind = "source.efmesh.plan"
	kindApply        protocol.CodeActionKind = "source.efmesh.apply"
)

// sourceActions are the render, plan and apply actions of the model in d,
// with the arguments its code lenses pass (codeLenses). Apply is offered
// for the editor's environment only when it is not prod, as the lens is.
func sourceActions(d *docPos, env string) []protocol.CodeAction {
	m := d.f.model
	if m == nil || m.Name == "" {
		return nil
	}
	args := lensArgs{Env: env, Model: m.Name, URI: string(d.w.snap.uri(d.rel))}
	action := func(title string, kind protocol.CodeActionKind, cmd string) protocol.CodeAction {
		return protocol.CodeAction{Title: title, Kind: kind, Command: &protocol.Command{Title: title, Command: cmd, Arguments: []any{args}}}
	}
	out := []protocol.CodeAction{
		action("efmesh: render "+m.Name, kindRender, cmdRender),
		action("efmesh: plan "+env, kindPlan, cmdPlan),
	}
	if env != analysis.ProdEnv {
		out = append(out, action("efmesh: apply "+env, kindApply, cmdApply))
	}
	return out
}

// onlyKinds keeps the actions whose kind is one of only or below one of
// them ("source" selects "source.efmesh.plan"); no filter keeps all.
func onlyKinds(actions []protocol.CodeAction, only []protocol.CodeActionKind) []protocol.CodeAction {
	if len(only) == 0 {
		return actions
	}
	out := actions[:0:0]
	for _, a := range actions {
		for _, k := range only {
			if a.Kind == k || strings.HasPrefix(string(a.Kind), string(k)+".") {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// onlySource reports whether the client asks for source actions only.
func onlySource(only []protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return false
	}
	for _, k := range only {
		if k != protocol.Source && !strings.HasPrefix(string(k), string(protocol.Source)+".") {
			return false
		}
	}
	return true
}

// wantsSource reports whether only names source actions: "source" or a
// source.* kind. An empty only (every kind) does not: clients send it for
// the quick-fix menu, where render, plan and apply are clutter.
func wantsSource(only []protocol.CodeActionKind) bool {
	for _, k := range only {
		if k == protocol.Source || strings.HasPrefix(string(k), string(protocol.Source)+".") {
			return true
		}
	}
	return false
}
