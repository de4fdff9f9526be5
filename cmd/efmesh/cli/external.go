package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) createExternalCmd() *cobra.Command {
	var all, dry bool
	cmd := &cobra.Command{
		Use: "create-external [model…] | --all",
		Example: `  efmesh create-external raw.orders
  efmesh create-external --all --dry-run
  efmesh create-external raw.orders raw.customers --json`,
		Short: "Write the columns the engine infers for an EXTERNAL source into its header",
		Long: `Create-external asks the engine for the columns of an EXTERNAL model's
source — the files of its glob as DuckDB's reader infers them, or the
table as the warehouse's catalog lists it — and writes them, typed as the
engine names them, into the columns property of the model's header: an
existing columns list is replaced, else one is added after the last
property. Every other byte of the file (other properties, comments, the
body) is kept. --all does every EXTERNAL model; --dry-run prints the new
headers and writes nothing. A source that is not there is the error plan
gives, and then no file is written.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case all && len(args) > 0:
				return &usageError{cmd: cmd, err: errors.New("give model names or --all, not both")}
			case !all && len(args) == 0:
				return &usageError{cmd: cmd, err: errors.New("name an EXTERNAL model, or give --all")}
			}
			w, err := a.loadScoped(false, func(p *project.Project) project.Scope {
				names := args
				if all {
					for _, m := range p.Models {
						if m.Kind.Name == project.KindExternal {
							names = append(names, m.Name)
						}
					}
				}
				sc, _ := p.ScopeOf(names, nil)
				return sc
			})
			if err != nil {
				return err
			}
			defer w.Close()
			res, err := w.CreateExternal(a.ctx, args, dry)
			if err != nil {
				return phraseBusy(err)
			}
			if a.json {
				a.writeJSON(jsonapi.External{APIVersion: APIVersion, DryRun: dry, Models: workspace.JSONExternalColumns(res)})
				return nil
			}
			for _, r := range res {
				switch {
				case dry:
					fmt.Fprintf(a.stdout, "-- %s (%s)%s\n%s\n", r.File, r.Model, map[bool]string{true: "", false: ": unchanged"}[r.Changed], r.Header)
				case r.Changed:
					fmt.Fprintf(a.stdout, "%s: wrote %d column(s) of %s\n", r.File, len(r.Columns), r.Model)
				default:
					fmt.Fprintf(a.stdout, "%s: the columns of %s are up to date\n", r.File, r.Model)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every EXTERNAL model of the project")
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print the new headers instead of writing them")
	return cmd
}
