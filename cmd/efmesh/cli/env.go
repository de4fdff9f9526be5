package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/ops"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) envCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "env",
		Example: `  efmesh env list
  efmesh env delete dev --yes`,
		Short: "List and delete environments",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(a.envListCmd(), a.envDeleteCmd())
	return cmd
}

func (a *app) envListCmd() *cobra.Command {
	return &cobra.Command{
		Use: "list",
		Example: `  efmesh env list
  efmesh env list --json`,
		Short: "One line per environment: models, last applied and by whom, coverage, size",
		Long: `List shows every environment of the state store: how many models it
points at, when it was last applied and by whom, the span of the intervals
computed for its incremental models, and the rows of the physical tables
it points at where the engine estimates them (DuckDB). It only reads: a
project never applied has no state store, and list says so.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, err := a.loadProject("")
			if err != nil {
				return err
			}
			if err := a.checkConfig(proj); err != nil {
				return err
			}
			st, err := connect.ExistingStore(a.ctx, proj)
			if err != nil {
				return err
			}
			envs := []ops.EnvSummary{}
			if st != nil {
				defer st.Close()
				// Sizes are a nicety: a warehouse that cannot be read
				// now (busy, missing) leaves them empty.
				wh, _ := connect.ReadWarehouse(a.ctx, proj)
				if wh != nil {
					defer wh.Close()
				}
				if envs, err = ops.ListEnvironments(a.ctx, st, wh); err != nil {
					return err
				}
			}
			if a.json {
				a.writeJSON(jsonapi.EnvList{APIVersion: APIVersion, Environments: workspace.JSONEnvSummaries(envs)})
				return nil
			}
			switch {
			case st == nil:
				fmt.Fprintln(a.stdout, "No environment: this project was never applied.")
				return nil
			case len(envs) == 0:
				fmt.Fprintln(a.stdout, "No environment: none is applied now.")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ENVIRONMENT\tMODELS\tLAST APPLIED\tBY\tCOVERAGE\tROWS")
			for _, e := range envs {
				cov := "—"
				if e.Coverage != nil {
					parts := make([]string, len(e.Coverage.Ranges))
					for i, r := range e.Coverage.Ranges {
						parts[i] = rfc(r.Start) + " → " + rfc(r.End)
					}
					cov = strings.Join(parts, ", ")
				}
				if e.Preview != nil {
					cov += " (preview " + e.Preview.String() + ")"
				}
				rows := ""
				if e.Rows != nil {
					rows = "~" + strconv.FormatInt(*e.Rows, 10)
				}
				by := e.AppliedBy
				if by == "" {
					by = "—"
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", e.Name, e.Models, rfc(e.LastApplied), by, cov, rows)
			}
			return tw.Flush()
		},
	}
}

func (a *app) envDeleteCmd() *cobra.Command {
	var yes, force bool
	cmd := &cobra.Command{
		Use: "delete <env>",
		Example: `  efmesh env delete dev
  efmesh env delete feature_x --yes
  efmesh env delete prod --force --yes`,
		Short: "Drop an environment's views and schemas and free the storage only it used",
		Long: `Delete removes an environment: its views, its schemas once empty, its
pointers in the state store; then the physical tables and parquet files no
other environment uses are removed, as the janitor removes them. It takes
the environment's lock first, as apply does.

prod needs --force. At a terminal delete asks for confirmation; without a
terminal and without --yes it asks nothing and exits 2.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := args[0]
			if err := analysis.ValidateEnv(env); err != nil {
				return err
			}
			proj, err := a.loadProject(env)
			if err != nil {
				return err
			}
			if err := a.checkConfig(proj); err != nil {
				return err
			}
			st, err := connect.ExistingStore(a.ctx, proj)
			if err != nil {
				return err
			}
			if st == nil {
				return &ops.UnknownEnvError{Env: env}
			}
			defer st.Close()
			e, err := planner.ReadEnvironment(a.ctx, st, env)
			if err != nil {
				return err
			}
			ptrs := e.Pointers
			if !e.Applied() {
				known, err := st.Environments(a.ctx)
				if err != nil {
					return err
				}
				return &ops.UnknownEnvError{Env: env, Known: known}
			}
			if env == analysis.ProdEnv && !force {
				return errors.New("refusing to delete prod: it serves the models' own schemas; pass --force if it is meant")
			}
			if !yes {
				if !isTTY(a.stdin) {
					fmt.Fprintf(a.stderr, "efmesh: not a terminal: pass --yes to delete environment %s (%d model(s))\n", env, len(ptrs))
					return &exitError{code: ExitAwaiting}
				}
				fmt.Fprintf(a.stdout, "Delete environment %s (%d model(s))? [y/N] ", env, len(ptrs))
				line, _ := bufio.NewReader(a.stdin).ReadString('\n')
				if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
					fmt.Fprintln(a.stdout, "Nothing deleted.")
					return &exitError{code: ExitError}
				}
			}
			// The lock before the warehouse, as apply does.
			lk, err := planner.AcquireLock(a.ctx, st, planner.EnvLock(env), 0)
			if err != nil {
				return err
			}
			defer lk.Release()
			wh, err := a.openWarehouse(connect.WarehouseIfExists, proj)
			if err != nil {
				return err
			}
			if wh != nil {
				defer wh.Close()
			}
			res, err := ops.DeleteEnvironment(a.ctx, st, wh, env, ops.EnvDeleteOptions{Now: a.now(), Lake: lakeRoot(proj), Logger: a.log, EnvLock: lk})
			if err != nil {
				return err
			}
			if a.json {
				a.writeJSON(jsonapi.EnvDelete{APIVersion: APIVersion, Deleted: workspace.JSONEnvDeletion(res)})
				return nil
			}
			fmt.Fprintf(a.stdout, "Deleted environment %s (%d model(s)): ", env, res.Models)
			printDeletion(a.stdout, res)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking")
	cmd.Flags().BoolVar(&force, "force", false, "allow deleting prod")
	return cmd
}

// checkConfig stops a command that acts on settings of efmesh.yaml (a
// ttl, the warehouse) when the file has errors: they are printed, with
// their positions, and nothing is done. Problems in model files do not
// stop it: it does not read them.
func (a *app) checkConfig(proj *project.Project) error {
	var ds []project.Diagnostic
	for _, d := range proj.Diagnostics {
		if filepath.Base(d.File) == project.ConfigFile && d.Severity == project.SeverityError {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return nil
	}
	a.printDiagnostics(ds)
	return &exitError{code: ExitError}
}

// printDeletion ends the line that names a deleted environment with what
// was dropped, then lists the relations it freed, one a line.
func printDeletion(w io.Writer, res *ops.EnvDeletion) {
	fmt.Fprintf(w, "dropped %d view(s)", len(res.DroppedViews))
	if len(res.DroppedSchemas) > 0 {
		fmt.Fprintf(w, " and schema(s) %s", strings.Join(res.DroppedSchemas, ", "))
	}
	fmt.Fprintln(w, ".")
	if len(res.Freed) == 0 && res.FreeError == "" {
		fmt.Fprintln(w, "No physical relation to free: other environments use them all.")
	}
	for _, r := range res.Freed {
		line := fmt.Sprintf("  freed %s  (%s)", r.PhysicalTable, r.Model)
		if r.Lake != "" {
			line += "  and " + r.Lake
		}
		if r.Error != "" {
			line += "\n    failed: " + r.Error
		}
		fmt.Fprintln(w, line)
	}
	if res.FreeError != "" {
		fmt.Fprintf(w, "Its storage was not freed now (%s); the janitor frees it later.\n", res.FreeError)
	}
}
