package cli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/ops"
	"github.com/efmesh/efmesh/planner"
)

func (a *app) janitorCmd() *cobra.Command {
	var (
		ttl    string
		dryRun bool
	)
	cmd := &cobra.Command{
		Use: "janitor",
		Example: `  efmesh janitor
  efmesh janitor --dry-run
  efmesh janitor --ttl 0`,
		Short: "Remove physical storage no environment has used for longer than the ttl",
		Long: `Janitor removes the physical tables, views and parquet prefixes of snapshots
that no environment points at, once they have been orphaned for longer than
the ttl (janitor.ttl of efmesh.yaml, 168h by default): until then a rollback
is a view swap. Storage shared by several versions goes with the last one.

The removal is claimed in the state store first, so a concurrent apply can
never point an environment at storage the janitor removed: it stops and
asks for a new plan instead. --dry-run lists what would go.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, st, err := a.loadStore()
			if err != nil {
				return err
			}
			defer st.Close()
			opt := ops.JanitorOptions{TTL: proj.Config.Janitor.TTL, DryRun: dryRun, Now: a.now(), Logger: a.log}
			if ttl != "" {
				if opt.TTL, err = parseTTL(ttl); err != nil {
					return err
				}
			}
			lake := proj.Config.Lake
			if lake == "" {
				lake = "lake"
			}
			if !strings.Contains(lake, "://") {
				if !filepath.IsAbs(lake) {
					lake = filepath.Join(proj.Root, filepath.FromSlash(lake))
				}
				opt.Lake = lake
			}
			if !dryRun {
				// The lock before the warehouse, as apply does.
				lk, err := planner.AcquireLock(a.ctx, st, planner.JanitorLock, 0)
				if err != nil {
					return err
				}
				defer lk.Release()
				opt.Lock = lk
			}
			var res *ops.JanitorResult
			if dryRun {
				res, err = ops.Janitor(a.ctx, st, nil, opt)
			} else {
				wh, werr := a.warehouse(proj, true)
				if werr != nil {
					return werr
				}
				defer wh.Close()
				res, err = ops.Janitor(a.ctx, st, wh, opt)
			}
			if err != nil {
				return err
			}
			failed := 0
			for _, r := range res.Removed {
				if r.Error != "" {
					failed++
				}
			}
			if a.json {
				a.writeJSON(map[string]any{"apiVersion": APIVersion, "dryRun": res.DryRun, "ttl": opt.TTL.String(),
					"cutoff": rfc(res.Cutoff), "removed": res.Removed, "waiting": res.Waiting})
			} else {
				printJanitor(a, res, opt.TTL)
			}
			if failed > 0 {
				return &exitError{code: ExitError}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&ttl, "ttl", "", "remove storage orphaned longer than this (168h, 7d, 0); default janitor.ttl")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be removed, remove nothing")
	return cmd
}

// parseTTL reads a Go duration, or a whole number of days ("7d").
func parseTTL(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n >= 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--ttl %q: write a duration such as 168h, 30m or 7d", s)
	}
	return d, nil
}

func printJanitor(a *app, res *ops.JanitorResult, ttl time.Duration) {
	w := a.stdout
	verb := "Removed"
	if res.DryRun {
		verb = "Would remove"
	}
	if len(res.Removed) == 0 {
		fmt.Fprintf(w, "Nothing to remove: no storage orphaned before %s (ttl %s).\n", rfc(res.Cutoff), ttl)
	} else {
		fmt.Fprintf(w, "%s %d physical relation(s) orphaned before %s (ttl %s):\n", verb, len(res.Removed), rfc(res.Cutoff), ttl)
	}
	for _, r := range res.Removed {
		line := fmt.Sprintf("  %s  (%s, orphaned %s)", r.PhysicalTable, r.Model, rfc(r.OrphanedAt))
		if r.Lake != "" {
			line += "  and " + r.Lake
		}
		if r.Error != "" {
			line += "\n    failed: " + r.Error
		}
		fmt.Fprintln(w, line)
	}
	if res.Waiting > 0 {
		fmt.Fprintf(w, "%d more orphaned relation(s) wait for their ttl.\n", res.Waiting)
	}
}
