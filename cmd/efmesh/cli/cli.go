// Package cli is the efmesh command line: it parses flags, wires the engine
// and state store named by efmesh.yaml, calls the planner and prints. It
// holds no logic of its own and never calls os.Exit: Run returns the exit
// code, so tests drive the CLI in-process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/workspace"
)

// Exit codes: a contract for CI and cron.
const (
	ExitOK       = 0
	ExitError    = 1
	ExitAwaiting = 2 // awaiting a human: a non-TTY apply without --yes
	// ExitInterrupted is 128+SIGINT, as shells report a process ended by
	// Ctrl-C: efmesh stopped on SIGINT or SIGTERM after cleaning up.
	ExitInterrupted = 130
)

// APIVersion is the version of every --json shape (jsonapi.Version).
const APIVersion = jsonapi.Version

// Version is set at build time with -ldflags "-X …/cli.Version=…".
var Version = "dev"

// exitError carries an exit code through cobra; its message, if any, has
// already been printed.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

type app struct {
	ctx      context.Context
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	live     *liveProgress // the status line of a running apply, nil when none
	dir      string
	logLevel string
	json     bool
	log      *slog.Logger
	// lockTimeout is --lock-timeout; nil: efmesh.yaml's or the default.
	lockTimeout *time.Duration
	// varEnv is the environment whose vars load opens the project with
	// (plan, apply, run, render --env, query and show --env); varFlags are
	// --var name=value.
	varEnv   string
	varFlags []string
}

// registerVars adds --var to a command that loads the project.
func (a *app) registerVars(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&a.varFlags, "var", nil, "set a variable of @var(name), over efmesh.yaml's vars (repeatable: --var country=FR)")
}

// Run runs the efmesh command line with args (without the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	defer startProfiles(stderr)()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "efmesh: internal error: %v\nplease report this with the command you ran\n", r)
			code = ExitError
		}
	}()
	root := a.rootCmd(args)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	var ee *exitError
	if ie, ok := interrupted(ctx); ok && err != nil {
		// Whatever the command made of its cancelled context, the user
		// stopped it: say so once, unless it reported already. (A command
		// that finished before it noticed the signal succeeded.)
		if !errors.As(err, &ee) {
			a.fail(fmt.Errorf("%w: the batch in flight was rolled back and nothing was promoted; run the command again to resume", ie))
		}
		return ExitInterrupted
	}
	if err == nil {
		return ExitOK
	}
	if errors.As(err, &ee) {
		return ee.code
	}
	a.fail(err)
	return ExitError
}

// subcommands are efmesh's commands, by name: each is built only when it
// is the one that runs (or all, for help, completion and a command that is
// not one of them), so that a command pays no start-up for the others.
var subcommands = []struct {
	name  string
	build func(*app) *cobra.Command
}{
	{"version", (*app).versionCmd}, {"init", (*app).initCmd}, {"plan", (*app).planCmd}, {"apply", (*app).applyCmd},
	{"render", (*app).renderCmd}, {"graph", (*app).graphCmd}, {"lineage", (*app).lineageCmd}, {"test", (*app).testCmd},
	{"migrate", (*app).migrateCmd}, {"run", (*app).runCmd}, {"restate", (*app).restateCmd}, {"status", (*app).statusCmd},
	{"audit", (*app).auditCmd}, {"diff", (*app).diffCmd}, {"janitor", (*app).janitorCmd}, {"lsp", (*app).lspCmd},
	{"passport", (*app).passportCmd}, {"schedule", (*app).scheduleCmd}, {"compact", (*app).compactCmd}, {"query", (*app).queryCmd},
	{"show", (*app).showCmd}, {"env", (*app).envCmd}, {"create-external", (*app).createExternalCmd}, {"create-test", (*app).createTestCmd},
	{"lint", (*app).lintCmd}, {"format", (*app).formatCmd}, {"man", (*app).manCmd}, {"state", (*app).stateCmd}, {"docs", (*app).docsCmd},
}

// commandOf is the name of the subcommand args run: the first argument
// that is not a root flag or a root flag's value; "" when there is none
// (efmesh --version, efmesh alone) and ok false when args cannot be read
// this way (then every command is built, and cobra reads them).
func commandOf(args []string) (name string, ok bool) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return "", false
		case !strings.HasPrefix(arg, "-") || arg == "-":
			return arg, true
		case strings.Contains(arg, "="), arg == "--json", arg == "--version", arg == "-v", arg == "--help", arg == "-h":
			// a flag with its value, or without one
		case arg == "-C", arg == "--project", arg == "--log-level", arg == "--lock-timeout":
			i++ // its value follows
		case strings.HasPrefix(arg, "-C"):
			// -Cdir
		default:
			return "", false // a flag the root does not have: cobra says so
		}
	}
	return "", true
}

// rootCmd is the command tree args need: the root with the one
// subcommand args name when it is one of subcommands, the root alone when
// args name none (efmesh --version), else every command.
func (a *app) rootCmd(args []string) *cobra.Command {
	name, ok := commandOf(args)
	all := !ok
	var only []*cobra.Command
	if ok && name != "" {
		all = true
		for _, c := range subcommands {
			// man writes a page of every command: it needs them all.
			if c.name == name && name != "man" {
				only, all = []*cobra.Command{c.build(a)}, false
				break
			}
		}
	}
	if ok && name == "" && !slices.ContainsFunc(args, func(s string) bool { return s == "--version" || s == "-v" }) {
		all = true // efmesh alone, or --help: the help lists every command
	}
	if all {
		for _, c := range subcommands {
			only = append(only, c.build(a))
		}
		// The help topics: `efmesh help environments` finds them as
		// commands that do not run.
		only = append(only, topicCmds()...)
	}
	return a.root(only)
}

func (a *app) root(commands []*cobra.Command) *cobra.Command {
	root := &cobra.Command{
		Use:   "efmesh",
		Short: "Plan and apply SQL model projects; environments are views over shared snapshots",
		Long: `efmesh plans and applies projects of SQL models.

Exit codes: 0 success, 1 error, 2 awaiting a human (a non-TTY apply with
changes and no --yes), 130 interrupted (SIGINT or SIGTERM: the batch in
flight is rolled back, the lock released, the journal says interrupted).`,
		Example: `  efmesh init my-project
  efmesh -C my-project plan dev
  efmesh apply dev --yes
  source <(efmesh completion bash)`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setup(cmd)
		},
	}
	root.PersistentFlags().StringVarP(&a.dir, "project", "C", ".", "project directory (or any folder below it)")
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	root.PersistentFlags().BoolVar(&a.json, "json", false, "print machine-readable JSON on stdout")
	root.PersistentFlags().Var(durationFlag{&a.lockTimeout}, "lock-timeout",
		"how long to wait for a DuckDB warehouse another process is writing, e.g. 30s or 0s (default: engine lock_timeout in efmesh.yaml, else 10s)")
	root.AddCommand(commands...)
	root.SetHelpCommand(helpCmd(root))
	// --version prints what efmesh version prints.
	root.Version = Version
	root.SetVersionTemplate(versionLine() + "\n")
	a.decorate(root)
	return root
}

// helpCmd is efmesh help [command]: cobra's own prints the usage and
// succeeds on a topic that is no command; this one fails (exit 1) and
// names the commands the topic may have meant.
func helpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints the help of any command: efmesh help [command].",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var names []cobra.Completion
			for _, sub := range root.Commands() {
				if (sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand()) && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				topic := strings.Join(args, " ")
				msg := fmt.Sprintf("unknown help topic %q; run efmesh help for the list of commands", topic)
				// The hints are for the first word that names no command,
				// among the commands of the one before it.
				parent, word := root, args[0]
				for k := len(args) - 1; k >= 1; k-- {
					if c, rest, err := root.Find(args[:k]); err == nil && c != nil && len(rest) == 0 {
						parent, word = c, args[k]
						break
					}
				}
				if parent.SuggestionsMinimumDistance <= 0 {
					parent.SuggestionsMinimumDistance = 2 // what cobra takes for an unknown command
				}
				if hints := parent.SuggestionsFor(word); len(hints) > 0 {
					// cobra lists them by name; the closest goes first
					// (pln: plan before man).
					if best, ok := project.DidYouMean(word, hints); ok {
						i := slices.Index(hints, best)
						hints = append(append([]string{best}, hints[:i]...), hints[i+1:]...)
					}
					msg += "\n\nDid you mean this?\n\t" + strings.Join(hints, "\n\t")
				}
				return errors.New(msg)
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

func (a *app) setup(cmd *cobra.Command) error {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(a.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %q is not one of debug, info, warn, error", a.logLevel)
	}
	// A pinned clock that does not read is refused before any work: a
	// command must not plan or run at the wall clock when the operator
	// asked for another time. (The language server warns and keeps
	// serving instead.)
	if s := os.Getenv(analysis.ClockEnv); s != "" && cmd.Name() != "lsp" && cmd.Name() != "version" {
		if _, err := project.ParseTime(s); err != nil {
			return fmt.Errorf("%s=%q is not a time: write %s", analysis.ClockEnv, s, project.TimeForms)
		}
	}
	a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: lvl}))
	return nil
}

// fail prints an error (as JSON with --json) and returns the exit error.
func (a *app) fail(err error) {
	var pe *planner.ProblemsError
	if errors.As(err, &pe) {
		a.printDiagnostics(pe.Diagnostics)
		return
	}
	var ce *planner.ContractError
	if errors.As(err, &ce) {
		a.printDiagnostics(ce.Diagnostics)
		return
	}
	var corrupt *engine.CorruptError
	if errors.As(err, &corrupt) {
		a.printCorrupt(corrupt)
		return
	}
	var ue *usageError
	if errors.As(err, &ue) {
		if a.json {
			a.writeJSON(jsonapi.Error{APIVersion: APIVersion, Error: ue.Error(), Usage: ue.cmd.UseLine()})
			return
		}
		fmt.Fprintf(a.stderr, "efmesh: %s\n%s\n", ue.Error(), ue.usage())
		return
	}
	if a.json {
		a.writeJSON(jsonapi.Error{APIVersion: APIVersion, Error: phrase(err)})
		return
	}
	fmt.Fprintf(a.stderr, "efmesh: %s\n", phrase(err))
}

// fixesJSON positions the edits of fixes in their files as they are on
// disk under the project root (root "": found from the working folder);
// nil when there are none. An edit of a file that cannot be read keeps
// its offsets, with line and column 0.
func (a *app) fixesJSON(root string, fixes []project.Fix) []jsonapi.Fix {
	if len(fixes) == 0 {
		return nil
	}
	if root == "" {
		root, _ = project.FindRoot(a.dir)
	}
	srcs := map[string][]byte{}
	out := make([]jsonapi.Fix, 0, len(fixes))
	for _, f := range fixes {
		fj := jsonapi.Fix{Title: f.Title, Edits: make([]jsonapi.Edit, 0, len(f.Edits))}
		for _, e := range f.Edits {
			src, ok := srcs[e.File]
			if !ok && root != "" {
				src, _ = os.ReadFile(filepath.Join(root, filepath.FromSlash(e.File)))
				srcs[e.File] = src
			}
			ej := jsonapi.Edit{File: e.File, NewText: e.NewText, Start: jsonapi.Position{Offset: e.Start}, End: jsonapi.Position{Offset: e.End}}
			if src != nil && e.Start <= e.End && e.End <= len(src) {
				r := project.RangeAt(src, e.Start, e.End)
				ej.Start = jsonapi.Position{Line: r.Start.Line, Col: r.Start.Column, Offset: e.Start}
				ej.End = jsonapi.Position{Line: r.End.Line, Col: r.End.Column, Offset: e.End}
			}
			fj.Edits = append(fj.Edits, ej)
		}
		out = append(out, fj)
	}
	return out
}

// diagnosticsJSON is ds as --json writes them (an empty list, not null).
func (a *app) diagnosticsJSON(ds []project.Diagnostic) []jsonapi.Diagnostic {
	out := make([]jsonapi.Diagnostic, 0, len(ds))
	for _, d := range ds {
		dj := jsonapi.Diagnostic{File: d.File, Line: d.Range.Start.Line, Column: d.Range.Start.Column,
			EndLine: d.Range.End.Line, EndColumn: d.Range.End.Column, Severity: d.Severity.String(), Code: d.Code, Message: d.Message,
			Fixes: a.fixesJSON("", d.Fixes)}
		for _, r := range d.Related {
			dj.Related = append(dj.Related, jsonapi.Related{File: r.File, Line: r.Range.Start.Line, Column: r.Range.Start.Column, Message: r.Message})
		}
		out = append(out, dj)
	}
	return out
}

func (a *app) printDiagnostics(ds []project.Diagnostic) {
	if a.json {
		a.writeJSON(jsonapi.Problems{APIVersion: APIVersion, Diagnostics: a.diagnosticsJSON(ds)})
		return
	}
	errs := 0
	for _, d := range ds {
		fmt.Fprintln(a.stderr, d.String())
		for _, r := range d.Related {
			fmt.Fprintf(a.stderr, "  %s:%d:%d: %s\n", r.File, r.Range.Start.Line, r.Range.Start.Column, r.Message)
		}
		if d.Severity == project.SeverityError {
			errs++
		}
	}
	if errs > 0 {
		fmt.Fprintf(a.stderr, "%d error(s); nothing was changed\n", errs)
	}
}

// writeJSON prints a --json document: only a type of package jsonapi,
// so that every payload is one docs/json.md documents.
func (a *app) writeJSON(v jsonapi.Payload) {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// loadProject finds and loads the project with the variables in force for
// env (workspace.LoadFor): efmesh.yaml's, env's overrides and --var. Every
// command that reads the project goes through it or through load, so that
// they all see the models plan and apply see.
func (a *app) loadProject(env string) (*project.Project, error) {
	vars, err := project.ParseVarFlags(a.varFlags)
	if err != nil {
		return nil, err
	}
	p, unused, err := workspace.LoadFor(a.dir, env, vars)
	if err != nil {
		return nil, err
	}
	a.warnUnusedVars(unused)
	return p, nil
}

// warnUnusedVars tells on stderr about each --var that no model or audit
// reads and efmesh.yaml does not define: most likely a typo.
func (a *app) warnUnusedVars(unused []project.UnusedVar) {
	for _, u := range unused {
		fmt.Fprintf(a.stderr, "efmesh: warning: %s\n", u)
	}
}

// load finds, loads and analyzes the project (workspace.Open), with its
// store when withStore — plan, apply and run, which reach the warehouse
// anyway, so a Postgres project's bodies are bound by its server. Problems in the user's files come back as a
// *planner.ProblemsError.
func (a *app) load(withStore bool) (*workspace.Workspace, error) {
	return a.open(withStore, nil, withStore)
}

// loadScoped is load for a request that reads only part of the project:
// problems outside scope(p) do not stop it (as in the editor); they are
// summed up in a warning on stderr.
func (a *app) loadScoped(withStore bool, scope func(p *project.Project) project.Scope) (*workspace.Workspace, error) {
	return a.open(withStore, scope, false)
}

func (a *app) open(withStore bool, scope func(p *project.Project) project.Scope, inServer bool) (*workspace.Workspace, error) {
	vars, err := project.ParseVarFlags(a.varFlags)
	if err != nil {
		return nil, err
	}
	w, err := workspace.Open(a.ctx, a.dir, workspace.OpenOptions{Options: a.workspaceOptions(), Scope: scope, Env: a.varEnv, Vars: vars, InServer: inServer})
	if err != nil {
		return nil, err
	}
	a.warnUnusedVars(w.UnusedVars)
	a.warnOutOfScope(w.LeftAside)
	if withStore {
		if _, err := w.OpenStore(a.ctx); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// workspaceOptions are the CLI's: its clock and log, and the warehouse
// waited for as --lock-timeout says, telling on stderr.
func (a *app) workspaceOptions() workspace.Options {
	return workspace.Options{Now: a.now, Logger: a.log, Warehouse: a.warehouseOptions()}
}

// warnOutOfScope tells on stderr that files the command does not read have
// errors, naming the files (efmesh plan lists the problems).
func (a *app) warnOutOfScope(diags []project.Diagnostic) {
	var files []string
	n := 0
	for _, d := range diags {
		if d.Severity != project.SeverityError {
			continue
		}
		n++
		if !slices.Contains(files, d.File) {
			files = append(files, d.File)
		}
	}
	if n > 0 {
		fmt.Fprintf(a.stderr, "efmesh: warning: %d error(s) in files this command does not read, left aside: %s\n", n, strings.Join(files, ", "))
	}
}

func openStore(ctx context.Context, p *project.Project) (state.Store, error) {
	return connect.Store(ctx, p)
}

func isTTY(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// appliedBy names the operator in the journal: $EFMESH_USER or user@host.
func appliedBy() string {
	if u := os.Getenv("EFMESH_USER"); u != "" {
		return u
	}
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return strings.TrimSuffix(name+"@"+host, "@")
}

// durationFlag is an optional duration flag: nil until given.
type durationFlag struct{ d **time.Duration }

func (f durationFlag) String() string {
	if *f.d == nil {
		return ""
	}
	return (*f.d).String()
}

func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a duration such as 10s, 2m or 0s", s)
	}
	*f.d = &d
	return nil
}

func (durationFlag) Type() string { return "duration" }

// warehouse opens the project's warehouse (an existing one only, when
// existing is set). A DuckDB file another process is writing is waited
// for, up to --lock-timeout, saying who holds it.
func (a *app) warehouse(p *project.Project, existing bool) (engine.Engine, error) {
	if existing {
		return a.openWarehouse(connect.ExistingWarehouse, p)
	}
	return a.openWarehouse(connect.Warehouse, p)
}

// openWarehouse opens the warehouse with one of connect's openers, waiting
// for a DuckDB file another process is writing as warehouse says.
func (a *app) openWarehouse(open func(context.Context, *project.Project, ...connect.WarehouseOption) (engine.Engine, error), p *project.Project) (engine.Engine, error) {
	wh, err := open(a.ctx, p, a.warehouseOptions()...)
	return wh, phraseBusy(err)
}

// warehouseOptions wait for a DuckDB file another process writes up to
// --lock-timeout, saying so on stderr.
func (a *app) warehouseOptions() []connect.WarehouseOption {
	opts := []connect.WarehouseOption{connect.OnBusy(func(busy *engine.BusyError, timeout time.Duration) {
		fmt.Fprintf(a.stderr, "efmesh: %v; waiting up to %s for it to finish\n", busy, timeout)
	})}
	if a.lockTimeout != nil {
		opts = append(opts, connect.LockTimeout(*a.lockTimeout))
	}
	return opts
}

// phraseBusy tells a warehouse that stayed busy with the flag that waits
// longer.
func phraseBusy(err error) error {
	if ue, ok := err.(*workspace.UncheckedStoreError); ok {
		return &workspace.UncheckedStoreError{Err: phraseBusy(ue.Err)}
	}
	var bt *connect.BusyTimeoutError
	if errors.As(err, &bt) {
		var be *busyWarehouseError
		if errors.As(err, &be) {
			return err
		}
		return &busyWarehouseError{bt}
	}
	return err
}

// busyWarehouseError is a warehouse that stayed busy as the CLI tells it:
// with the flag that waits longer.
type busyWarehouseError struct{ *connect.BusyTimeoutError }

func (e *busyWarehouseError) Error() string {
	return fmt.Sprintf("%v; gave up after %s (wait longer with --lock-timeout 1m, or engine lock_timeout in efmesh.yaml)", e.Busy, e.Waited)
}

func (e *busyWarehouseError) Unwrap() error { return e.BusyTimeoutError }
