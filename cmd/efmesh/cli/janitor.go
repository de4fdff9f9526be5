package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/ops"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
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
			proj, st, err := a.loadStore("")
			if err != nil {
				return err
			}
			defer st.Close()
			if err := a.checkConfig(proj); err != nil {
				return err
			}
			opt := ops.JanitorOptions{TTL: proj.Config.Janitor.TTL, DryRun: dryRun, Now: a.now(), Logger: a.log}
			if ttl != "" {
				if opt.TTL, err = parseTTL(ttl); err != nil {
					return err
				}
			}
			opt.Lake = lakeRoot(proj)
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
			var wh engine.Engine
			if !dryRun {
				if wh, err = a.warehouse(proj, true); err != nil {
					return err
				}
				defer wh.Close()
			}
			// Idle environments go first, so that what only they used is
			// freed in the same pass.
			expired, err := ops.ExpireEnvironments(a.ctx, st, wh, proj.Config.EnvironmentsTTL, dryRun,
				ops.EnvDeleteOptions{Now: opt.Now, Lake: opt.Lake, Logger: a.log, JanitorLock: opt.Lock})
			if err != nil {
				return err
			}
			if res, err = ops.Janitor(a.ctx, st, wh, opt); err != nil {
				return err
			}
			// The text lists what an expired environment freed under it;
			// the JSON's removed holds both.
			orphans := *res
			orphans.Removed = slices.Clone(res.Removed)
			for _, e := range expired {
				if e.Deleted != nil {
					res.Removed = append(res.Removed, e.Deleted.Freed...)
				}
			}
			sort.Slice(res.Removed, func(i, j int) bool { return res.Removed[i].PhysicalTable < res.Removed[j].PhysicalTable })
			failed := 0
			for _, r := range res.Removed {
				if r.Error != "" {
					failed++
				}
			}
			for _, e := range expired {
				if e.Error != "" {
					failed++
				}
			}
			if a.json {
				a.writeJSON(jsonapi.Janitor{APIVersion: APIVersion, Cutoff: rfc(res.Cutoff), DryRun: res.DryRun,
					EnvironmentsTTL: durationJSON(proj.Config.EnvironmentsTTL), Expired: workspace.JSONEnvExpiries(expired),
					Removed: workspace.JSONRemovals(res.Removed), TTL: opt.TTL.String(), Waiting: res.Waiting})
			} else {
				printExpired(a, expired, res.DryRun, proj.Config.EnvironmentsTTL)
				printJanitor(a, &orphans, opt.TTL)
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

// lakeRoot is the absolute root of the project's local parquet lake; ""
// for a remote one.
func lakeRoot(proj *project.Project) string {
	lake := proj.Config.Lake
	if lake == "" {
		lake = "lake"
	}
	if strings.Contains(lake, "://") {
		return ""
	}
	if !filepath.IsAbs(lake) {
		lake = filepath.Join(proj.Root, filepath.FromSlash(lake))
	}
	return lake
}

// durationJSON is a duration for --json readers: "" when unset.
func durationJSON(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return days(d)
}

// days writes a whole number of days as efmesh.yaml does (7d), any other
// duration as Go does.
func days(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return d.String()
}

func printExpired(a *app, expired []ops.EnvExpiry, dryRun bool, ttl time.Duration) {
	for _, e := range expired {
		switch {
		case e.Error != "":
			fmt.Fprintf(a.stdout, "Kept idle environment %s (last applied %s): %s\n", e.Env, rfc(e.LastApplied), e.Error)
		case dryRun:
			fmt.Fprintf(a.stdout, "Would expire environment %s: last applied %s, idle longer than %s.\n", e.Env, rfc(e.LastApplied), days(ttl))
		default:
			fmt.Fprintf(a.stdout, "Expired environment %s: last applied %s, idle longer than %s; ",
				e.Env, rfc(e.LastApplied), days(ttl))
			printDeletion(a.stdout, e.Deleted)
		}
	}
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
