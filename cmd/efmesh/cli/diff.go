package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) diffCmd() *cobra.Command {
	var (
		data   bool
		models []string
		sample float64
	)
	cmd := &cobra.Command{
		Use: "diff <envA> <envB>",
		Example: `  efmesh diff dev prod
  efmesh diff dev prod --data
  efmesh diff dev prod --data --model mart.daily_metrics --sample 0.1`,
		Short: "Which models two environments point at different versions of; with --data, how their rows differ",
		Long: `Diff lists the models whose snapshots differ between two environments.

With --data it compares what the views serve, for the models named with
--model (default: every model that differs): row counts, keys matched by the
model's grain (a FULL OUTER JOIN: keys in both, only in A, only in B), per
column the number of matched keys whose value differs, and schema drift
(columns added, removed, retyped). --sample P compares only the keys whose
hash falls into P% of buckets — the same buckets on both sides.

Diff reads the state store and the warehouse and changes nothing.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sample != 0 && !data {
				return fmt.Errorf("--sample needs --data")
			}
			if len(models) > 0 && !data {
				return fmt.Errorf("--model needs --data")
			}
			proj, st, err := a.loadStore("")
			if err != nil {
				return err
			}
			defer st.Close()
			var wh engine.Engine
			if data {
				if wh, err = a.warehouse(proj, true); err != nil {
					return err
				}
				defer wh.Close()
			}
			d, err := planner.Diff(a.ctx, st, wh, args[0], args[1], planner.DiffOptions{Data: data, Models: models, Sample: sample})
			if err != nil {
				return err
			}
			if a.json {
				a.writeJSON(jsonapi.Diff{APIVersion: APIVersion, A: d.A, B: d.B, Models: workspace.JSONModelDiffs(d.Models)})
				return nil
			}
			printDiff(a, d)
			return nil
		},
	}
	cmd.Flags().BoolVar(&data, "data", false, "compare the rows the environments serve")
	cmd.Flags().StringSliceVar(&models, "model", nil, "with --data: compare these models (repeat or separate with commas)")
	cmd.Flags().Float64Var(&sample, "sample", 0, "with --data: compare P percent of the keys, the same on both sides")
	return cmd
}

func short(fp string) string {
	if len(fp) > 8 {
		return fp[:8]
	}
	return fp
}

func printDiff(a *app, d *planner.EnvDiff) {
	w := a.stdout
	width := 0
	for _, m := range d.Models {
		width = max(width, len(m.Name))
	}
	same := 0
	fmt.Fprintf(w, "Diff %s → %s:\n", d.A, d.B)
	for _, m := range d.Models {
		switch m.Status {
		case planner.DiffSame:
			same++
			if m.Data == nil {
				continue
			}
			fmt.Fprintf(w, "  = %-*s  the same snapshot %s\n", width, m.Name, short(m.A))
		case planner.DiffChanged:
			fmt.Fprintf(w, "  ~ %-*s  %s %s → %s %s\n", width, m.Name, d.A, short(m.A), d.B, short(m.B))
		case planner.DiffOnlyA:
			fmt.Fprintf(w, "  - %-*s  only in %s\n", width, m.Name, d.A)
		case planner.DiffOnlyB:
			fmt.Fprintf(w, "  + %-*s  only in %s\n", width, m.Name, d.B)
		}
		if m.Data != nil {
			printDataDiff(a, d, m.Data)
		}
	}
	if same > 0 {
		fmt.Fprintf(w, "  = %d model(s) point at the same snapshot\n", same)
	}
}

func printDataDiff(a *app, d *planner.EnvDiff, dd *planner.DataDiff) {
	w := a.stdout
	sampled := ""
	if dd.Sample > 0 {
		sampled = fmt.Sprintf(" (a %g%% sample by grain)", dd.Sample)
	}
	fmt.Fprintf(w, "      rows%s: %s %d, %s %d\n", sampled, d.A, dd.RowsA, d.B, dd.RowsB)
	if len(dd.Grain) > 0 && (dd.Matched+dd.OnlyA+dd.OnlyB > 0) {
		fmt.Fprintf(w, "      keys (%s): %d in both, %d only in %s, %d only in %s\n",
			strings.Join(dd.Grain, ", "), dd.Matched, dd.OnlyA, d.A, dd.OnlyB, d.B)
		var parts []string
		for _, c := range dd.Columns {
			parts = append(parts, fmt.Sprintf("%s %d", c.Name, c.Changed))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "      changed values among keys in both: %s\n", strings.Join(parts, ", "))
		}
	}
	for _, c := range dd.Schema.Added {
		fmt.Fprintf(w, "      + column %s %s\n", c.Name, c.Type)
	}
	for _, c := range dd.Schema.Removed {
		fmt.Fprintf(w, "      - column %s %s\n", c.Name, c.Type)
	}
	for _, c := range dd.Schema.Retyped {
		fmt.Fprintf(w, "      ~ column %s %s → %s\n", c.Name, c.A, c.B)
	}
	for _, n := range dd.Notes {
		fmt.Fprintf(w, "      note: %s\n", n)
	}
}
