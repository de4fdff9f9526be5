package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) lineageCmd() *cobra.Command {
	var sel selection
	cmd := &cobra.Command{
		Use: "lineage <model[.column[.field]]> | --select <selector>",
		Example: `  efmesh lineage mart.daily_metrics
  efmesh lineage mart.daily_metrics.revenue
  efmesh lineage core.events --json
  efmesh lineage --select '+mart.daily_metrics'`,
		Short: "Trace a model or a column down to its raw sources",
		Long: `Lineage follows a model's refs, or one column through select items,
CTEs, subqueries, joins and * down to the models that read no other model.
It is the same function the editor's hover uses. With --select (and
--exclude), the lineage of every selected model, parents first.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sel.active() {
				if len(args) > 0 {
					return fmt.Errorf("lineage takes a model or --select, not both")
				}
				return a.lineageSelected(&sel)
			}
			if len(args) == 0 {
				return &usageError{cmd: cmd, err: errors.New("lineage needs a model, model.column or --select")}
			}
			w, err := a.loadScoped(false, func(p *project.Project) project.Scope {
				// The longest leading run of parts that is a model.
				name := args[0]
				for name != "" && p.ByName[strings.ToLower(name)] == nil {
					i := strings.LastIndexByte(name, '.')
					if i <= 0 {
						name = args[0]
						break
					}
					name = name[:i]
				}
				sc, _ := p.ScopeOf([]string{name}, nil)
				return sc
			})
			if err != nil {
				return err
			}
			defer w.Close()
			model, column, field, err := analysis.ParseColumnPath(w.Analysis, args[0])
			if err != nil {
				return err
			}
			n, err := analysis.FieldLineage(w.Analysis, model, column, field)
			if err != nil {
				return err
			}
			if a.json {
				a.writeJSON(jsonapi.Lineage{APIVersion: APIVersion, Lineage: workspace.JSONLineage(n)})
				return nil
			}
			printLineage(a.stdout, n, "")
			return nil
		},
	}
	sel.register(cmd)
	a.registerVars(cmd)
	return cmd
}

// lineageSelected traces every selected model, parents first.
func (a *app) lineageSelected(sel *selection) error {
	w, names, err := a.loadSelected(sel)
	if err != nil {
		return err
	}
	defer w.Close()
	out := []*analysis.LineageNode{}
	for _, n := range names {
		l, err := w.Lineage(n, "")
		if err != nil {
			return err
		}
		out = append(out, l)
	}
	if a.json {
		a.writeJSON(jsonapi.LineageSelected{APIVersion: APIVersion, Lineages: workspace.JSONLineages(out)})
		return nil
	}
	for _, l := range out {
		printLineage(a.stdout, l, "")
	}
	return nil
}

func printLineage(w io.Writer, n *analysis.LineageNode, indent string) {
	// Names as the engine keeps them, quoted where needed: the line reads
	// back as a lineage argument.
	name := analysis.ShowPath(n.Model, n.Column, n.Field)
	fmt.Fprintf(w, "%s%s (%s)\n", indent, name, n.Kind)
	for _, s := range n.Sources {
		printLineage(w, s, indent+"  ")
	}
}
