package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/project"
)

// The command tree's shared behaviour: what every command gets without
// saying so — the usage line on a bad argument or flag, and dynamic shell
// completion of model, environment and unit test names and of selectors. It is applied by
// walking the tree after it is built, so a command added later gets it too.

// usageError is a wrong number of arguments or a bad flag: printed with
// the command's usage line and where its examples are.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usage is the hint printed under a usage error.
func (e *usageError) usage() string {
	if e.cmd.HasParent() && e.cmd.HasAvailableSubCommands() {
		var subs []string
		for _, c := range e.cmd.Commands() {
			if c.IsAvailableCommand() && c.Name() != "help" {
				subs = append(subs, c.Name())
			}
		}
		return fmt.Sprintf("usage: %s <%s>\nrun '%s --help' for examples", e.cmd.CommandPath(), strings.Join(subs, "|"), e.cmd.CommandPath())
	}
	return fmt.Sprintf("usage: %s\nrun '%s --help' for examples", e.cmd.UseLine(), e.cmd.CommandPath())
}

// decorate gives every command of the tree below root its usage errors and
// its completions.
func (a *app) decorate(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{cmd: cmd, err: err}
	})
	// cobra adds its completion command only when it executes: added now,
	// it is decorated like the others. Its scripts go to the writer the
	// root has when it is added.
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.Runnable() && c.HasSubCommands() && c.HasParent() {
			// A group (env, completion) runs its subcommands only: cobra
			// would print its help and exit 0 on a misspelt one.
			c.Args = func(cmd *cobra.Command, as []string) error {
				if len(as) > 0 {
					return fmt.Errorf("unknown command %q for %q", as[0], cmd.CommandPath())
				}
				return nil
			}
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, as []string) error {
				if err := args(cmd, as); err != nil {
					return &usageError{cmd: cmd, err: err}
				}
				return nil
			}
		}
		if c.ValidArgsFunction == nil && c.ValidArgs == nil {
			if kinds := argKinds(c.Use); len(kinds) > 0 {
				c.ValidArgsFunction = a.completeArgs(kinds)
			}
		}
		for flag, kind := range completedFlags {
			if c.LocalFlags().Lookup(flag) == nil {
				continue
			}
			if _, ok := c.GetFlagCompletionFunc(flag); ok {
				continue
			}
			_ = c.RegisterFlagCompletionFunc(flag, a.completeFlag(kind))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// nameKind is what a positional argument or flag names.
type nameKind int

const (
	nameOther nameKind = iota
	nameModel
	nameEnv
	nameTest
	nameSelector // a --select or --exclude value: terms of the grammar
)

// completedFlags are the flags whose values are names efmesh knows.
var completedFlags = map[string]nameKind{
	"env":             nameEnv,
	"state":           nameEnv,
	"model":           nameModel,
	"restate":         nameModel,
	"forward-only":    nameModel,
	"rebuild-history": nameModel,
	"select":          nameSelector,
	"exclude":         nameSelector,
}

// argKinds reads what each positional argument names from the command's
// Use line ("plan <env>", "diff <envA> <envB>", "graph [model…]"): a
// placeholder naming an env or a model; a last one ending in … repeats.
func argKinds(use string) []nameKind {
	fields := strings.Fields(use)
	var kinds []nameKind
	for _, f := range fields[min(1, len(fields)):] {
		if !strings.HasPrefix(f, "<") && !strings.HasPrefix(f, "[") {
			break
		}
		ph := strings.ToLower(strings.Trim(f, "<>[]"))
		switch {
		case strings.HasPrefix(ph, "env"):
			kinds = append(kinds, nameEnv)
		case strings.HasPrefix(ph, "model"):
			kinds = append(kinds, nameModel)
		case strings.HasPrefix(ph, "name") && strings.HasPrefix(use, "test "):
			kinds = append(kinds, nameTest)
		default:
			kinds = append(kinds, nameOther)
		}
		if strings.HasSuffix(ph, "…") || strings.HasSuffix(ph, "...") {
			kinds = append(kinds, -kinds[len(kinds)-1]) // negative: repeats
			break
		}
	}
	if !slices.ContainsFunc(kinds, func(k nameKind) bool { return k != nameOther }) {
		return nil
	}
	return kinds
}

// completeArgs completes the positional argument at its position.
func (a *app) completeArgs(kinds []nameKind) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var kind nameKind
		switch i := len(args); {
		case i < len(kinds) && kinds[i] >= 0:
			kind = kinds[i]
		case kinds[len(kinds)-1] < 0:
			kind = -kinds[len(kinds)-1]
		default:
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return a.completeNames(cmd.Context(), kind, args), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFlag completes a flag's value.
func (a *app) completeFlag(kind nameKind) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if kind == nameSelector {
			return a.completeSelector(toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		}
		return a.completeNames(cmd.Context(), kind, nil), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeNames lists the names of one kind in the project of -C, leaving
// out those already given. It reads efmesh.yaml and the model files, and
// for environments the state store when there is one; it never creates or
// changes anything, and a project it cannot read completes nothing.
func (a *app) completeNames(ctx context.Context, kind nameKind, given []string) []cobra.Completion {
	if ctx == nil {
		ctx = a.ctx
	}
	root, err := project.FindRoot(a.dir)
	if err != nil {
		return nil
	}
	p, err := project.Load(root)
	if err != nil {
		return nil
	}
	var names []string
	switch kind {
	case nameModel:
		for _, m := range p.Models {
			names = append(names, m.Name)
		}
	case nameTest:
		for _, t := range p.Tests {
			names = append(names, t.Name)
		}
	case nameEnv:
		names = append(names, "prod")
		for name := range p.Config.Environments {
			names = append(names, name)
		}
		if st, err := connect.ExistingStore(ctx, p); err == nil && st != nil {
			envs, _ := st.Environments(ctx)
			names = append(names, envs...)
			st.Close()
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return slices.DeleteFunc(names, func(n string) bool { return slices.Contains(given, n) })
}

// completeSelector completes the selector typed so far in the project of
// -C (project.CompleteSelector); a project it cannot read completes
// nothing.
func (a *app) completeSelector(typed string) []cobra.Completion {
	root, err := project.FindRoot(a.dir)
	if err != nil {
		return nil
	}
	p, err := project.Load(root)
	if err != nil {
		return nil
	}
	return project.CompleteSelector(p, typed)
}
