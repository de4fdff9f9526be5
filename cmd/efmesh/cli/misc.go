package cli

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/ops"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use: "version",
		Example: `  efmesh version
  efmesh --version
  efmesh version --json`,
		Short: "Print the efmesh version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.json {
				a.writeJSON(jsonapi.VersionInfo{APIVersion: APIVersion, FingerprintVersion: analysis.FingerprintVersion,
					Go: runtime.Version(), Version: Version})
				return nil
			}
			fmt.Fprintln(a.stdout, versionLine())
			return nil
		},
	}
}

// versionLine is what efmesh version and efmesh --version print.
func versionLine() string {
	return fmt.Sprintf("efmesh %s (%s, fingerprint version %d)", Version, runtime.Version(), analysis.FingerprintVersion)
}

func (a *app) renderCmd() *cobra.Command {
	var env string
	var sel selection
	cmd := &cobra.Command{
		Use: "render <model> | --select <selector>",
		Example: `  efmesh render core.events
  efmesh render mart.daily_metrics --env dev
  efmesh render core.events --json
  efmesh render --select 'core.*' --exclude core.events`,
		Short: "Print the SQL a model runs",
		Long: `Render prints a model's SQL with its macros expanded. Refs resolve to the
physical tables of the project's snapshots, or with --env to that
environment's views. With --select (and --exclude), every selected model's
SQL, parents first, each under a "-- model" line.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if env != "" {
				if err := analysis.ValidateEnv(env); err != nil {
					return err
				}
			}
			a.varEnv = env
			if sel.active() {
				if len(args) > 0 {
					return fmt.Errorf("render takes a model or --select, not both")
				}
				return a.renderSelected(&sel, env)
			}
			if len(args) == 0 {
				return fmt.Errorf("render needs a model or --select")
			}
			w, err := a.loadScoped(false, func(p *project.Project) project.Scope {
				sc, _ := p.ScopeOf(args, nil)
				return sc
			})
			if err != nil {
				return err
			}
			defer w.Close()
			sql, err := w.Render(args[0], env, a.now())
			if err != nil {
				return err
			}
			if a.json {
				a.writeJSON(jsonapi.Render{APIVersion: APIVersion, Env: env, Model: args[0], SQL: sql})
				return nil
			}
			fmt.Fprintln(a.stdout, sql)
			return nil
		},
	}
	cmd.Flags().StringVar(&env, "env", "", "render refs as this environment's views")
	sel.register(cmd)
	a.registerVars(cmd)
	return cmd
}

// renderSelected renders every selected model, parents first.
func (a *app) renderSelected(sel *selection, env string) error {
	w, names, err := a.loadSelected(sel)
	if err != nil {
		return err
	}
	defer w.Close()
	out := []jsonapi.RenderedModel{}
	for _, n := range names {
		sql, err := w.Render(n, env, a.now())
		if err != nil {
			return err
		}
		out = append(out, jsonapi.RenderedModel{Model: n, SQL: sql})
	}
	if a.json {
		a.writeJSON(jsonapi.RenderSelected{APIVersion: APIVersion, Env: env, Models: out})
		return nil
	}
	for i, r := range out {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprintf(a.stdout, "-- %s\n%s\n", r.Model, r.SQL)
	}
	return nil
}

func (a *app) graphCmd() *cobra.Command {
	var html bool
	var outPath string
	var sel selection
	cmd := &cobra.Command{
		Use: "graph [model…] | --select <selector>",
		Example: `  efmesh graph
  efmesh graph mart.daily_metrics
  efmesh graph --html -o graph.html
  efmesh graph --select '+mart.daily_metrics+'`,
		Short: "Print the model DAG, or the named models and their ancestors (--html: one self-contained page)",
		Long: `Graph prints the models and their refs. With model names, only those
models and their ancestors. Problems in files the graph does not read (unit
tests, audits, models outside the named ones' ancestry) are left aside with
a warning. With --select (and --exclude), only the selected models and the
refs between them: +model draws a model's ancestors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if sel.active() && len(args) > 0 {
				return fmt.Errorf("graph takes model names or --select, not both")
			}
			p, err := a.loadProject("")
			if err != nil {
				return err
			}
			sc := p.ModelFiles()
			if len(args) > 0 {
				sc, _ = p.ScopeOf(args, nil)
			}
			var chosen map[string]bool
			if sel.active() {
				names, err := p.Select(sel.selects, sel.excludes)
				if err != nil {
					return err
				}
				sc, _ = p.ScopeOf(names, nil)
				chosen = map[string]bool{}
				for _, n := range names {
					chosen[n] = true
				}
			}
			in, out := sc.Split(p.Diagnostics)
			if project.HasErrors(in) {
				return &planner.ProblemsError{Diagnostics: in}
			}
			a.warnOutOfScope(out)
			for _, n := range args {
				if p.ByName[strings.ToLower(n)] == nil {
					return fmt.Errorf("unknown model %q%s", n, analysis.DidYouMeanName(n, p))
				}
			}
			all := ops.Graph(p)
			graph := all[:0:0]
			for _, n := range all {
				switch {
				case chosen != nil && chosen[n.Name]:
					n.Parents = slices.DeleteFunc(slices.Clone(n.Parents), func(p string) bool { return !chosen[p] })
					graph = append(graph, n)
				case chosen == nil && sc.Has(n.File):
					graph = append(graph, n)
				}
			}
			if html {
				w := a.stdout
				if outPath != "" {
					f, err := os.Create(outPath)
					if err != nil {
						return err
					}
					defer f.Close()
					w = f
				}
				if err := writeGraphHTML(w, p.Config.Name, graph); err != nil {
					return err
				}
				if outPath != "" {
					fmt.Fprintf(a.stderr, "wrote %s\n", outPath)
				}
				return nil
			}
			nodes := []jsonapi.GraphNode{}
			edges := [][2]string{}
			for _, m := range graph {
				nodes = append(nodes, jsonapi.GraphNode{Name: m.Name, Kind: m.Kind, File: m.File, Parents: m.Parents})
				for _, r := range m.Parents {
					edges = append(edges, [2]string{r, m.Name})
				}
			}
			if a.json {
				a.writeJSON(jsonapi.Graph{APIVersion: APIVersion, Edges: edges, Models: nodes})
				return nil
			}
			for _, n := range nodes {
				if len(n.Parents) == 0 {
					fmt.Fprintf(a.stdout, "%s (%s)\n", n.Name, n.Kind)
					continue
				}
				fmt.Fprintf(a.stdout, "%s (%s) <- %s\n", n.Name, n.Kind, joinComma(n.Parents))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&html, "html", false, "write a self-contained HTML page drawing the DAG")
	cmd.Flags().StringVarP(&outPath, "output", "o", "", "with --html: the file to write (default stdout)")
	sel.register(cmd)
	return cmd
}

func joinComma(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

func (a *app) migrateCmd() *cobra.Command {
	return &cobra.Command{
		Use: "migrate",
		Example: `  efmesh migrate
  efmesh migrate --json`,
		Short: "Upgrade the state store to this efmesh's schema and fingerprint version (backing it up first)",
		Long: `Migrate brings the state store up to this efmesh: first its schema
version, then the snapshots made by an older fingerprint algorithm. A
snapshot whose definition the project still has is renamed to its current
fingerprint (its data, intervals and environment pointers are kept, so the
next plan rebuilds nothing); any other is marked current under its old
name, and a plan compares it as any previous version. A SQLite store is
copied to a backup file before each step that changes it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := project.FindRoot(a.dir)
			if err != nil {
				return err
			}
			p, err := project.Load(root)
			if err != nil {
				return err
			}
			if project.HasErrors(p.Diagnostics) {
				return &planner.ProblemsError{Diagnostics: p.Diagnostics}
			}
			from, to, backup, err := connect.Migrate(a.ctx, p)
			if err != nil {
				return err
			}
			fm, fpBackup, err := a.migrateFingerprints(p)
			if err != nil {
				return err
			}
			if a.json {
				out := jsonapi.Migrate{APIVersion: APIVersion, Backup: backup, From: from, To: to}
				if fm != nil {
					out.Fingerprints = &jsonapi.FingerprintMigration{Backup: fpBackup, From: fm.From, Remapped: fm.Remapped,
						Restamped: fm.Restamped, To: fm.To}
				}
				a.writeJSON(out)
				return nil
			}
			if from == to {
				fmt.Fprintf(a.stdout, "State store is up to date (schema version %d).\n", to)
			} else {
				fmt.Fprintf(a.stdout, "Migrated state store from schema version %d to %d (backup: %s).\n", from, to, backup)
			}
			if fm == nil {
				fmt.Fprintf(a.stdout, "Snapshots are up to date (fingerprint version %d).\n", analysis.FingerprintVersion)
				return nil
			}
			fmt.Fprintf(a.stdout, "Migrated snapshots from fingerprint version %s to %d: %d kept their data under their current fingerprint, %d changed since and were marked current",
				joinInts(fm.From), fm.To, fm.Remapped, fm.Restamped)
			if fpBackup != "" {
				fmt.Fprintf(a.stdout, " (backup: %s)", fpBackup)
			}
			fmt.Fprintln(a.stdout, ".")
			return nil
		},
	}
}

// migrateFingerprints carries snapshots of an older fingerprint version
// over, after a backup of a SQLite store; nil when there are none.
func (a *app) migrateFingerprints(p *project.Project) (*ops.FingerprintMigration, string, error) {
	st, err := openStore(a.ctx, p)
	if err != nil {
		return nil, "", err
	}
	defer st.Close()
	m, ok := st.(state.FingerprintMigrator)
	if !ok {
		return nil, "", nil
	}
	vs, err := m.FingerprintVersions(a.ctx)
	if err != nil {
		return nil, "", err
	}
	older := 0
	for _, v := range vs {
		if v > analysis.FingerprintVersion {
			return nil, "", &analysis.FingerprintVersionError{Have: v, Want: analysis.FingerprintVersion}
		}
		if v < analysis.FingerprintVersion && older == 0 {
			older = v
		}
	}
	if older == 0 {
		return nil, "", nil
	}
	// Recognizing an unchanged definition takes the project analyzed.
	w, err := a.load(false)
	if err != nil {
		return nil, "", err
	}
	defer w.Close()
	backup, err := connect.BackupStore(a.ctx, p, st, fmt.Sprintf("fp%d", older))
	if err != nil {
		return nil, "", err
	}
	fm, err := ops.MigrateFingerprints(a.ctx, w.Analysis, st)
	if err != nil {
		if backup != "" {
			return nil, "", fmt.Errorf("%w (backup in %s)", err, backup)
		}
		return nil, "", err
	}
	return fm, backup, nil
}

func joinInts(vs []int) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.Itoa(v)
	}
	return strings.Join(out, ", ")
}
