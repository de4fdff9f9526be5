package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/workspace"
)

// loadStore finds the project, loaded with the variables in force for env
// (loadProject), and opens its state store, for commands that read or
// change state without analyzing the models (status, restate): a model
// with errors must not hide what the environment holds.
func (a *app) loadStore(env string) (*project.Project, state.Store, error) {
	proj, err := a.loadProject(env)
	if err != nil {
		return nil, nil, err
	}
	st, err := openStore(a.ctx, proj)
	if err != nil {
		return nil, nil, err
	}
	return proj, st, nil
}

func (a *app) statusCmd() *cobra.Command {
	var (
		check bool
		ticks int
	)
	cmd := &cobra.Command{
		Use: "status <env>",
		Example: `  efmesh status prod
  efmesh status prod --check
  efmesh status dev --ticks 20 --json`,
		Short: "Last plan, interval lag, failed intervals and recent ticks of an environment",
		Long: `Status reports what an environment holds: the last applied plan, the
interval coverage of each incremental model it points at, failed intervals
and the recent run ticks.

With --check, status exits 1 when the environment is unhealthy, and says
why (--json: problems):
  - never applied;
  - a relation the state store trusts missing from the warehouse (a
    deleted warehouse file, a table or view dropped by hand);
  - failed intervals;
  - the last run tick did not complete: error, awaiting-human (the
    project changed and nobody applied it), lock-held, interrupted, or a
    tick that started and never finished (killed, crashed);
  - a model is overdue: an interval its cron made due (without a cron,
    every interval once it closes) is not computed;
  - a source is stale: the newest value of an EXTERNAL model's freshness
    column is older than its error_after (older than its warn_after is a
    warning; --json: freshness).
Lag a cron does not call for yet is normal, and so is a tick in progress
(a note; its lag is not judged).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, st, err := a.loadStore(args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			var opts []planner.StatusOption
			wh, whErr := a.warehouseToCheck(proj)
			var busy *connect.BusyTimeoutError
			switch {
			case whErr == nil:
				if wh != nil {
					defer wh.Close()
				}
				opts = append(opts, planner.StatusWarehouse(wh, proj.Root), planner.StatusFreshness(proj))
			case errors.As(whErr, &busy):
				// A run or an apply is writing it: the normal case, not
				// a problem (health checks must not flap).
				opts = append(opts, planner.StatusWarehouseBusy(busy.Busy))
				whErr = nil
			}
			s, err := planner.GetStatus(a.ctx, st, proj.Config, args[0], a.now(), ticks, opts...)
			if err != nil {
				return err
			}
			if whErr != nil {
				s.Problems = append(s.Problems, whErr.Error())
			}
			for _, f := range s.Freshness {
				if f.Status == planner.FreshWarn {
					fmt.Fprintf(a.stderr, "efmesh: warning: source %s\n", f.Text())
				}
			}
			if a.json {
				a.writeJSON(workspace.JSONStatus(s))
			} else {
				a.printStatus(s)
			}
			ce := s.Corrupt
			if ce == nil {
				errors.As(whErr, &ce)
			}
			if ce != nil {
				a.printCorruptBeside(ce)
			}
			if check && !s.Healthy() {
				return &exitError{code: ExitError}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "exit 1 when the environment is unhealthy")
	cmd.Flags().IntVar(&ticks, "ticks", 10, "how many recent run ticks to show")
	a.registerVars(cmd)
	return cmd
}

func rfc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func (a *app) printStatus(s *planner.Status) {
	w := a.stdout
	fmt.Fprintf(w, "Environment %s\n", s.Env)
	if p := s.LastPlan; p != nil {
		fmt.Fprintf(w, "  last plan  %s applied by %s at %s\n", p.ID, p.AppliedBy, rfc(p.CreatedAt))
		if s.Deleted {
			fmt.Fprintln(w, "  deleted    since: the environment serves nothing")
		}
	} else {
		fmt.Fprintln(w, "  last plan  none: never applied")
	}
	if s.Preview != nil {
		fmt.Fprintf(w, "  preview    %s: incremental models are due inside this range only\n", s.Preview)
	}
	if len(s.Models) > 0 {
		fmt.Fprintln(w, "\nIncremental models:")
	}
	for _, m := range s.Models {
		covered := "nothing computed"
		if !m.CoveredThrough.IsZero() {
			covered = "covered through " + rfc(m.CoveredThrough)
		}
		if holes := m.Holes(); len(holes) > 0 {
			// "covered through" alone would hide them.
			rs := make([]string, len(holes))
			for i, r := range holes {
				rs[i] = r.String()
			}
			covered = fmt.Sprintf("%d interval(s) missing: %s; computed through %s otherwise", m.HoleIntervals(), strings.Join(rs, ", "), rfc(m.CoveredThrough))
		}
		fmt.Fprintf(w, "  %s  (%s)  %s, due through %s, lag %d interval(s)\n", m.Name, m.Grain, covered, rfc(m.DueThrough), m.Missing)
		for _, r := range m.Failed {
			fmt.Fprintf(w, "    failed %s\n", r)
		}
	}
	if len(s.Freshness) > 0 {
		fmt.Fprintln(w, "\nSources:")
	}
	for _, f := range s.Freshness {
		fmt.Fprintf(w, "  %-5s %s\n", f.Status, f.Text())
	}
	if len(s.Ticks) > 0 {
		fmt.Fprintln(w, "\nRecent ticks:")
	}
	for _, t := range s.Ticks {
		fmt.Fprintf(w, "  %s  %-14s %s\n", rfc(t.StartedAt), t.Outcome, string(t.Detail))
	}
	fmt.Fprintln(w)
	for _, n := range s.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	if s.Healthy() {
		fmt.Fprintln(w, "Healthy.")
		return
	}
	fmt.Fprintln(w, "Unhealthy:")
	for _, p := range s.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

// warehouseToCheck opens the warehouse a status checks the store against,
// read-only: nil when it does not exist yet (nothing is present). A DuckDB
// file another process is writing is waited for, as apply waits
// (--lock-timeout). One that cannot be opened (not a DuckDB file, or still
// busy after the wait) is an error: the store cannot be trusted unchecked.
func (a *app) warehouseToCheck(p *project.Project) (engine.Engine, error) {
	wh, err := a.openWarehouse(connect.ReadWarehouse, p)
	if err != nil {
		return nil, &workspace.UncheckedStoreError{Err: err}
	}
	return wh, nil
}
