package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) stateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "state",
		Example: `  efmesh state adopt --dry-run
  efmesh state adopt`,
		Short: "Repair the state store from what the warehouse holds",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(a.adoptCmd())
	return cmd
}

func (a *app) adoptCmd() *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use: "adopt",
		Example: `  efmesh state adopt --dry-run
  efmesh state adopt && efmesh apply prod --force`,
		Short: "Record the warehouse's efmesh tables of this checkout's model versions in the state store",
		Long: `After the state store was deleted (or replaced by an older copy), the
warehouse still holds the physical tables efmesh built and the views of
every environment. Adopt records as built each physical table whose name
carries the fingerprint of this checkout's version of its model; the
warehouse is not changed. What cannot be proven is not recorded: the
intervals of incremental models (the next apply recomputes each into the
adopted table, without rebuilding it), FULL models' last refresh (the next
run refreshes them), and the environments. For each environment the
warehouse serves and the store does not know, adopt says how many of its
views read this checkout's versions; ` + "`efmesh apply <env> --force`" + ` then
registers it, building nothing for those. Views of other versions would be
moved to this checkout's: check out the commit that environment was
applied from and adopt from there first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := a.load(true)
			if err != nil {
				return err
			}
			defer w.Close()
			res, err := w.Adopt(a.ctx, dryRun)
			if err != nil {
				return err
			}
			if a.json {
				a.writeJSON(workspace.JSONAdoption(res, dryRun))
				return nil
			}
			a.printAdoption(res, dryRun)
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be recorded, record nothing")
	return cmd
}

func (a *app) printAdoption(res *planner.Adoption, dryRun bool) {
	verb := "Adopted"
	if dryRun {
		verb = "Would adopt"
	}
	fmt.Fprintf(a.stdout, "%s %d table(s) of this checkout's model versions", verb, len(res.Adopted))
	if len(res.Known) > 0 {
		fmt.Fprintf(a.stdout, " (%d already known)", len(res.Known))
	}
	fmt.Fprintln(a.stdout, ".")
	for _, n := range res.Adopted {
		fmt.Fprintf(a.stdout, "  + %s\n", n)
	}
	if len(res.Absent) > 0 {
		fmt.Fprintf(a.stdout, "Not in the warehouse at this checkout's version (the next apply builds them): %s\n", strings.Join(res.Absent, ", "))
	}
	for _, e := range res.Envs {
		if len(e.Others) == 0 {
			fmt.Fprintf(a.stdout, "Environment %s: all %d view(s) read this checkout's versions: `efmesh apply %s --force` registers it without building them.\n", e.Env, e.Views, e.Env)
			continue
		}
		fmt.Fprintf(a.stdout, "Environment %s: %d of %d view(s) read other versions (%s): apply would move them to this checkout's; adopt from the commit %s was applied from first.\n",
			e.Env, len(e.Others), e.Views, strings.Join(e.Others, ", "), e.Env)
	}
}
