package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) createTestCmd() *cobra.Command {
	var o workspace.CreateTestOptions
	cmd := &cobra.Command{
		Use: "create-test <model>",
		Example: `  efmesh create-test mart.orders
  efmesh create-test mart.orders --env dev --limit 5
  efmesh create-test core.events --out tests/events.yaml --force
  efmesh create-test mart.orders --dry-run --json`,
		Short: "Write a unit test from rows sampled in an environment",
		Long: `Create-test writes a unit test (the format efmesh test reads) whose
fixtures are rows of the model's parents as the environment (--env,
default prod) serves them, and whose expected rows are what the model
returns for those fixtures — so efmesh test passes on it right away.
The sample is deterministic. The key is the model's unique key, else its
grain, else its first column; the first parent holding a key column
gives its first --limit rows ordered by the key and then every column.
Each other parent gives the rows the query matches with the rows
sampled before: those equal on the columns its joins compare (ON, USING,
a WHERE equality of a comma join, in subqueries and CTEs too, following
a chain of joins link by link); a parent joined by no equality gives its
rows with the sampled keys when it has the key columns, else its first
rows (at most --limit each). A parent that sampled no row is warned
about: the test would not exercise the join.
An incremental model by time range gets the environment's coverage as
the test's interval. The file (--out, default tests/<model>.yaml,
relative to the project root) is not overwritten without --force;
--dry-run prints it instead.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := analysis.ValidateEnv(o.Env); err != nil {
				return err
			}
			if o.Limit <= 0 {
				return &usageError{cmd: cmd, err: fmt.Errorf("--limit must be at least 1, got %d", o.Limit)}
			}
			w, err := a.loadScoped(false, func(p *project.Project) project.Scope {
				sc, _ := p.ScopeOf(args, nil)
				return sc
			})
			if err != nil {
				return err
			}
			defer w.Close()
			res, err := w.CreateTest(a.ctx, strings.ToLower(args[0]), o)
			if err != nil {
				return phraseBusy(err)
			}
			if res.Unread {
				fmt.Fprintf(a.stderr, "efmesh: %s matches none of the tests globs of efmesh.yaml: efmesh test will not read it\n", res.File)
			}
			for _, warn := range res.Warnings {
				fmt.Fprintf(a.stderr, "efmesh: warning: %s\n", warn)
			}
			if a.json {
				a.writeJSON(jsonapi.CreateTest{APIVersion: APIVersion, DryRun: o.Dry, Test: workspace.JSONCreatedTest(res)})
				return nil
			}
			if o.Dry {
				fmt.Fprint(a.stdout, res.YAML)
				return nil
			}
			parts := make([]string, len(res.Inputs))
			for i, in := range res.Inputs {
				parts[i] = fmt.Sprintf("%s: %d row(s)", in.Model, in.Rows)
			}
			fmt.Fprintf(a.stdout, "%s: wrote test %s of %s, sampled in %s by %s (%s; %d expected row(s))\n",
				res.File, res.Test, res.Model, res.Env, strings.Join(res.Key, ", "), strings.Join(parts, ", "), res.Expected)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Env, "env", analysis.ProdEnv, "sample this environment's views")
	cmd.Flags().IntVar(&o.Limit, "limit", 5, "rows sampled from the first parent (and at most from each other)")
	cmd.Flags().StringVar(&o.Out, "out", "", "the file to write, relative to the project root (default tests/<model>.yaml)")
	cmd.Flags().BoolVar(&o.Force, "force", false, "overwrite the file when it exists")
	cmd.Flags().BoolVar(&o.Dry, "dry-run", false, "print the test file instead of writing it")
	return cmd
}
