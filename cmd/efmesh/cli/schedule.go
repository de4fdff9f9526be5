package cli

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/ops"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// exitCodeContract is printed with every schedule: what the scheduler
// sees from `efmesh run`.
var exitCodeContract = []string{
	"Exit codes of efmesh run (a contract):",
	"  0  success: the due intervals were computed, or nothing was due",
	"  1  error: a failed interval, an engine or state error, a broken project; alert on it",
	"  2  awaiting a human: the project has changes nobody applied (or the env was never applied);",
	"     not a failure: run `efmesh apply <env>`. Overlapping ticks are safe: run takes the env lock.",
}

func (a *app) scheduleCmd() *cobra.Command {
	var printSystemd, printCron bool
	var bin string
	cmd := &cobra.Command{
		Use: "schedule <env>",
		Example: `  efmesh schedule prod
  efmesh schedule prod --print-cron
  efmesh schedule prod --print-systemd --bin /usr/local/bin/efmesh`,
		Short: "Print the OS scheduler entries that run the tick of an environment",
		Long: `Schedule prints what wires "efmesh run <env>" to the OS scheduler; it
installs nothing. The schedule comes from the models: every distinct cron
they declare, plus hourly (or daily) for incremental models without a
cron, by their finest interval.

  --print-systemd  a user .service and .timer (Persistent=true catches up
                   on ticks missed while the machine was off)
  --print-cron     crontab lines (local time zone; no catch-up)

` + strings.Join(exitCodeContract, "\n"),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := args[0]
			if err := analysis.ValidateEnv(env); err != nil {
				return err
			}
			if printSystemd == printCron {
				return errors.New("schedule: pass exactly one of --print-systemd or --print-cron")
			}
			root, err := project.FindRoot(a.dir)
			if err != nil {
				return err
			}
			if root, err = filepath.Abs(root); err != nil {
				return err
			}
			proj, err := project.Load(root)
			if err != nil {
				return err
			}
			if project.HasErrors(proj.Diagnostics) {
				return &planner.ProblemsError{Diagnostics: proj.Diagnostics}
			}
			s := ops.ScheduleOf(proj)
			name := unitName(proj, root, env)
			var text bytes.Buffer
			out := a.stdout
			if a.json {
				a.stdout = &text
				defer func() { a.stdout = out }()
			}
			format := "systemd"
			if printCron {
				format = "cron"
				a.printCron(s, root, env, bin)
			} else if err := a.printSystemd(s, name, root, env, bin); err != nil {
				return err
			}
			if a.json {
				a.stdout = out
				a.writeJSON(jsonapi.Schedule{Crons: nonNil(s.Crons), Env: env, Format: format, Reasons: nonNil(s.Reasons), Text: text.String()})
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&printSystemd, "print-systemd", false, "print systemd user units (.service + .timer)")
	cmd.Flags().BoolVar(&printCron, "print-cron", false, "print crontab lines")
	cmd.Flags().StringVar(&bin, "bin", "efmesh", "the efmesh executable the scheduler runs")
	return cmd
}

var unsafeUnit = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// unitName is efmesh-<project>-<env>, the project named by efmesh.yaml or
// its folder.
func unitName(p *project.Project, root, env string) string {
	n := p.Config.Name
	if n == "" {
		n = filepath.Base(root)
	}
	return "efmesh-" + strings.Trim(unsafeUnit.ReplaceAllString(n, "-"), "-") + "-" + env
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// systemdQuote quotes one ExecStart argument for systemd.
func systemdQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\%$") {
		return s
	}
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$").Replace(s)
	return `"` + s + `"`
}

func (a *app) printSystemd(s ops.Schedule, name, root, env, bin string) error {
	var cals []string
	for _, c := range s.Crons {
		cal, err := ops.OnCalendar(c)
		if err != nil {
			return err
		}
		cals = append(cals, cal)
	}
	exe := bin
	if !strings.Contains(bin, "/") {
		exe = "/usr/bin/env " + systemdQuote(bin)
	} else {
		exe = systemdQuote(bin)
	}
	w := a.stdout
	fmt.Fprintf(w, "# ~/.config/systemd/user/%s.service\n", name)
	for _, l := range exitCodeContract {
		fmt.Fprintf(w, "# %s\n", l)
	}
	fmt.Fprintf(w, "# Exit 2 is listed in SuccessExitStatus, so it does not trigger OnFailure=.\n")
	fmt.Fprintf(w, "[Unit]\nDescription=efmesh run tick of %s (%s)\n\n", filepath.Base(root), env)
	fmt.Fprintf(w, "[Service]\nType=oneshot\nWorkingDirectory=%s\nExecStart=%s -C %s run %s\nSuccessExitStatus=2\n\n",
		systemdQuote(root), exe, systemdQuote(root), env)
	fmt.Fprintf(w, "# ~/.config/systemd/user/%s.timer\n", name)
	fmt.Fprintf(w, "# Install: systemctl --user daemon-reload && systemctl --user enable --now %s.timer\n", name)
	fmt.Fprintf(w, "[Unit]\nDescription=efmesh run tick of %s (%s)\n\n[Timer]\n", filepath.Base(root), env)
	for i, cal := range cals {
		fmt.Fprintf(w, "# %s: %s\nOnCalendar=%s\n", s.Crons[i], s.Reasons[i], cal)
	}
	fmt.Fprintf(w, "Persistent=true\nUnit=%s.service\n\n[Install]\nWantedBy=timers.target\n", name)
	return nil
}

func (a *app) printCron(s ops.Schedule, root, env, bin string) {
	w := a.stdout
	fmt.Fprintf(w, "# efmesh run tick of %s (%s): add with crontab -e\n", filepath.Base(root), env)
	for _, l := range exitCodeContract {
		fmt.Fprintf(w, "# %s\n", l)
	}
	fmt.Fprintln(w, "# cron runs in the local time zone and does not catch up on missed ticks; --print-systemd does.")
	log := filepath.Join(root, ".efmesh", "run-"+env+".log")
	for i, c := range s.Crons {
		fmt.Fprintf(w, "# %s\n%s %s -C %s run %s >> %s 2>&1\n", s.Reasons[i], c, shellQuote(bin), shellQuote(root), env, shellQuote(log))
	}
}
