package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) passportCmd() *cobra.Command {
	return &cobra.Command{
		Use: "passport <env>",
		Example: `  efmesh passport prod
  efmesh passport dev --json`,
		Short: "What each model's data in an environment may be believed to answer",
		Long: `Passport reports, for every model an environment points at, its declared
answerable value and caveats, its freshness from the interval ledger
(complete through the first gap), and the effective passport: the worst
value over the model and its ancestors, naming the ancestor that limited it.

It reads the versions the environment points at and their ledgers; the
model files on disk are not consulted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, st, err := a.loadStore(args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			ps, err := planner.EnvPassports(a.ctx, st, proj.Config, args[0])
			if err != nil {
				return err
			}
			if a.json {
				a.writeJSON(jsonapi.Passports{APIVersion: APIVersion, Env: args[0], Models: workspace.JSONPassports(ps)})
				return nil
			}
			a.printPassports(args[0], ps)
			return nil
		},
	}
}

func (a *app) printPassports(env string, ps []planner.Passport) {
	w := a.stdout
	if len(ps) == 0 {
		fmt.Fprintf(w, "environment %q points at no model\n", env)
		return
	}
	fmt.Fprintf(w, "environment %q: what its data can be trusted to answer\n", env)
	for _, p := range ps {
		e := p.Effective
		mark := "✓"
		if e.Answerable != p.Answerable || e.LimitedBy != "" && e.LimitedBy != p.Model || e.HasGaps || len(e.Caveats) > 0 {
			mark = "~"
		}
		line := fmt.Sprintf("  %s %s  %s", mark, p.Model, e.Answerable)
		if e.Answerable != p.Answerable {
			line += fmt.Sprintf(" — declared %s (from %s)", p.Answerable, e.AnswerableFrom)
		}
		if e.CompleteThrough != nil {
			line += ", complete through " + e.CompleteThrough.UTC().Format(time.RFC3339)
			if e.LimitedBy != p.Model {
				line += " (limited by " + e.LimitedBy + ")"
			}
		}
		if e.HasGaps {
			line += ", later intervals exist past a gap"
		}
		fmt.Fprintln(w, line)
		if f := p.Freshness; f != nil && f.FailedIntervals > 0 {
			fmt.Fprintf(w, "      · %d failed interval(s)\n", f.FailedIntervals)
		}
		for _, c := range e.Caveats {
			from := ""
			if c.Model != p.Model {
				from = " [from " + c.Model + "]"
			}
			fmt.Fprintf(w, "      · %s%s\n", strings.TrimSpace(c.Text), from)
		}
	}
}
