package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/ops"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) compactCmd() *cobra.Command {
	var (
		dryRun bool
		model  string
		grace  time.Duration
	)
	cmd := &cobra.Command{
		Use: "compact",
		Example: `  efmesh compact
  efmesh compact --dry-run
  efmesh compact --model core.events --grace 10m`,
		Short: "Merge the small files of settled parquet partitions into one",
		Long: `Compact merges every settled partition of the project's
INCREMENTAL_BY_TIME_RANGE models with target parquet into one data.parquet,
keeping one row per grain key (the first file to arrive wins).

It never touches a partition dated today or later, nor one whose newest
file is younger than the grace period; it writes a temporary file and
renames it, and deletes only the files it listed before merging, so a file
arriving during the run stays. It is cooperative, not transactional: it
takes no lock and does not serialize with another compactor.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := project.FindRoot(a.dir)
			if err != nil {
				return err
			}
			proj, err := project.Load(root)
			if err != nil {
				return err
			}
			if project.HasErrors(proj.Diagnostics) {
				return &planner.ProblemsError{Diagnostics: proj.Diagnostics}
			}
			lake := proj.Config.Lake
			if lake == "" {
				lake = "lake"
			}
			if !filepath.IsAbs(lake) {
				lake = filepath.Join(proj.Root, filepath.FromSlash(lake))
			}
			wb, err := connect.Workbench(proj)
			if err != nil {
				return err
			}
			defer wb.Close()
			eng, ok := wb.(engine.Engine)
			if !ok {
				return errors.New("compact: parquet partitions are compacted with DuckDB; this project's engine has no parquet target")
			}
			if grace < 0 {
				grace = 0
			}
			opt := ops.CompactOptions{Lake: lake, Model: model, DryRun: dryRun, Now: a.now(), Grace: grace}
			if grace == 0 {
				opt.Grace = -1
			}
			res, err := ops.Compact(a.ctx, proj, eng, opt)
			if err != nil {
				return err
			}
			if a.json {
				a.writeJSON(jsonapi.Compact{APIVersion: APIVersion, DryRun: res.DryRun, Partitions: workspace.JSONCompactPartitions(res.Partitions)})
				return nil
			}
			a.printCompact(res)
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "report what would be merged; write nothing")
	cmd.Flags().StringVar(&model, "model", "", "only this model")
	cmd.Flags().DurationVar(&grace, "grace", ops.DefaultCompactGrace, "leave a partition whose newest file is younger than this (0: no wait)")
	return cmd
}

func (a *app) printCompact(res *ops.CompactResult) {
	w := a.stdout
	if len(res.Partitions) == 0 {
		fmt.Fprintln(w, "Nothing to compact: no partition of a parquet incremental model.")
		return
	}
	merged, left := 0, 0
	for _, p := range res.Partitions {
		switch p.Action {
		case "left":
			left++
			fmt.Fprintf(w, "  left        %s  (%s, %d file(s))\n", p.Partition, p.Reason, p.Files)
		default:
			merged++
			fmt.Fprintf(w, "  %-11s %s  (%d files into one)\n", p.Action, p.Partition, p.Files)
		}
	}
	verb := "merged"
	if res.DryRun {
		verb = "would merge"
	}
	fmt.Fprintf(w, "\n%s %d partition(s), left %d alone.\n", verb, merged, left)
}
