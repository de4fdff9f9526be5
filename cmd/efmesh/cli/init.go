package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/dbtimport"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlmeshimport"
	"github.com/efmesh/efmesh/workspace"
)

// starter is the project `efmesh init` writes: a seed, an incremental
// table, a table with an audit, a view and a unit test — each kind of
// thing a project holds, small enough to read in a minute — and a README
// of what to do next. Its first plan is clean (a test checks it).
var starter = map[string]string{
	project.ConfigFile: `name: {{name}}
models: ["models/**/*.sql"]
tests: ["tests/**/*.yaml"]
start: 2026-01-01
engine: {type: duckdb, path: efmesh.duckdb}
state: {type: sqlite, path: .efmesh/state.db}
`,
	"seeds/orders.csv": `order_id,customer,ordered_at,amount
1,ada,2026-01-01 09:30:00,19.90
2,grace,2026-01-01 11:05:00,5.00
3,ada,2026-01-02 16:45:00,42.00
4,linus,2026-01-03 08:15:00,12.50
5,grace,2026-01-03 19:20:00,7.25
`,
	"models/shop/orders.sql": `MODEL (
  name shop.orders,
  kind SEED (path 'seeds/orders.csv'),
  grain (order_id),
  columns (order_id INTEGER, customer TEXT, ordered_at TIMESTAMP, amount DECIMAL(10, 2)),
  audits (not_null(order_id, customer), unique(order_id)),
  description 'Orders, loaded from a CSV file'
);
`,
	"models/shop/daily_revenue.sql": `MODEL (
  name shop.daily_revenue,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day),
  interval day,
  grain (day),
  columns (day TIMESTAMP, orders BIGINT, revenue DECIMAL(38, 2)),
  description 'Revenue per day, built a day at a time: a run adds the days that have passed'
);

SELECT date_trunc('day', ordered_at)::TIMESTAMP AS day, count(*) AS orders, sum(amount) AS revenue
FROM @ref(shop.orders)
WHERE ordered_at >= @start AND ordered_at < @end
GROUP BY ALL
`,
	"models/shop/customers.sql": `MODEL (
  name shop.customers,
  kind FULL,
  grain (customer),
  columns (customer TEXT, orders BIGINT, spent DECIMAL(38, 2), first_order TIMESTAMP),
  audits (not_null(customer), unique(customer)),
  description 'One row per customer: how often and how much they ordered'
);

SELECT customer, count(*) AS orders, sum(amount) AS spent, min(ordered_at) AS first_order
FROM @ref(shop.orders)
GROUP BY customer
`,
	"models/shop/top_customers.sql": `MODEL (
  name shop.top_customers,
  kind VIEW,
  description 'Customers by what they spent'
);

SELECT customer, spent
FROM @ref(shop.customers)
ORDER BY spent DESC
`,
	"tests/customers.yaml": `# Unit tests: efmesh test runs them, and apply runs them before it builds.
# Inputs are rows of the models a model reads; expect names only the
# columns it cares about.
customers_add_up_their_orders:
  model: shop.customers
  inputs:
    shop.orders:
      - {order_id: 1, customer: ada, ordered_at: '2026-01-01T09:30:00', amount: 10.50}
      - {order_id: 2, customer: ada, ordered_at: '2026-01-02T10:00:00', amount: 4.50}
      - {order_id: 3, customer: grace, ordered_at: '2026-01-03T11:00:00', amount: 2.00}
  expect:
    - {customer: ada, orders: 2, spent: 15.00, first_order: '2026-01-01T09:30:00'}
    - {customer: grace, orders: 1, spent: 2.00}
`,
	"README.md": `# {{name}}

An efmesh project: SQL models under models/, a seed under seeds/, unit
tests under tests/.

## Next steps

    efmesh plan dev             # what a first apply builds
    efmesh apply dev --yes      # build it into the dev environment
    efmesh test                 # the unit tests
    efmesh query "SELECT * FROM @ref(shop.top_customers)" --env dev
    efmesh apply prod --yes     # promote: prod points at dev's tables, nothing is rebuilt
    efmesh run prod             # the nightly job: adds the days that have passed

Then open the folder in an editor with the efmesh language server (VS
Code, Neovim, Emacs, Helix): unknown columns, breaking changes and lineage
show while you type. Edit models/shop/customers.sql (add a column, say)
and plan again to see what the change breaks.
`,
	".gitignore": `.efmesh/
*.duckdb
*.duckdb.wal
`,
}

func (a *app) initCmd() *cobra.Command {
	var fromDbt, fromSqlmesh, start string
	cmd := &cobra.Command{
		Use: "init [dir]",
		Example: `  efmesh init my-project
  efmesh init shop --from-dbt ../jaffle_shop --start 2026-01-01
  efmesh init sushi --from-sqlmesh ../sqlmesh/examples/sushi
  efmesh init --json`,
		Short: "Create a starter project, or convert a dbt (--from-dbt) or sqlmesh project (--from-sqlmesh)",
		Long: `Init writes a starter project into dir (default: the current folder).

With --from-dbt it converts the dbt project in that folder instead: models
with their Jinja (evaluated with dbt's context; the project's macros and
those in dbt_packages/ are loaded, plain macros become efmesh macros and
dbt_utils's common macros efmesh's built-ins), sources in YAML (EXTERNAL
models), seeds (SEED models) and dbt_project.yml's folder configs and
vars. What needs the warehouse at compile time (run_query,
dbt_utils.get_column_values, …) or has no efmesh equivalent is listed with
file:line:col. Exit codes: 0 when everything converted, 2 when pieces await
a human (the files are written), 1 on bad input (Jinja that does not
evaluate, YAML that does not parse) or when dir already holds an efmesh
project or a file it would write (then nothing is written).

With --from-sqlmesh it converts the sqlmesh project in that folder:
config.yaml (the default gateway's engine, model_defaults), SQL models and
their MODEL headers, seeds, audits, external_models.yaml and unit tests.
Tables a body names that are models become @ref(…); sqlmesh's macros stay
as they are. Python models and macros, Jinja, CUSTOM kinds and the rest
efmesh has no equivalent for are listed with file:line:col, and so is every
problem of the written project, which must load cleanly. The exit codes
are --from-dbt's.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := a.dir
			if len(args) == 1 {
				if strings.TrimSpace(args[0]) == "" {
					return errors.New("init: the directory name is empty (omit it for the current directory)")
				}
				dir = args[0]
				if !filepath.IsAbs(dir) && a.dir != "." {
					dir = filepath.Join(a.dir, dir)
				}
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(abs, project.ConfigFile)); err == nil {
				return fmt.Errorf("%s already holds a project (%s)", abs, project.ConfigFile)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if fromDbt != "" && fromSqlmesh != "" {
				return &usageError{cmd: cmd, err: errors.New("--from-dbt and --from-sqlmesh: convert one project at a time")}
			}
			if fromDbt != "" {
				return a.fromDbt(fromDbt, abs, dir, start)
			}
			if fromSqlmesh != "" {
				return a.fromSqlmesh(fromSqlmesh, abs, dir, start)
			}
			if start != "" {
				return &usageError{cmd: cmd, err: errors.New("--start goes with --from-dbt or --from-sqlmesh (the starter project has its own start)")}
			}
			name := strings.ToLower(filepath.Base(abs))
			name = strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
					return r
				}
				return '_'
			}, name)
			files := make([]string, 0, len(starter))
			for f := range starter {
				files = append(files, f)
			}
			sort.Strings(files)
			for _, f := range files {
				path := filepath.Join(abs, filepath.FromSlash(f))
				if _, err := os.Stat(path); err == nil {
					continue // never overwrite the user's files
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(path, []byte(strings.ReplaceAll(starter[f], "{{name}}", name)), 0o644); err != nil {
					return err
				}
			}
			if a.json {
				a.writeJSON(jsonapi.Init{APIVersion: APIVersion, Files: files, Root: abs})
				return nil
			}
			q := shellQuote(dir)
			fmt.Fprintf(a.stdout, "Created a project in %s.\nNext: efmesh -C %s plan dev && efmesh -C %s apply dev --yes (%s has what comes after)\n", abs, q, q, shellQuote(filepath.Join(dir, "README.md")))
			return nil
		},
	}
	cmd.Flags().StringVar(&fromDbt, "from-dbt", "", "convert the dbt project in this folder")
	cmd.Flags().StringVar(&fromSqlmesh, "from-sqlmesh", "", "convert the sqlmesh project in this folder")
	cmd.Flags().StringVar(&start, "start", "", "with --from-dbt or --from-sqlmesh: efmesh.yaml's start (YYYY-MM-DD), the first interval of incremental models")
	return cmd
}

// fromDbt is init --from-dbt: convert, then report what was converted and
// what awaits a human.
func (a *app) fromDbt(from, abs, dir, start string) error {
	if !filepath.IsAbs(from) && a.dir != "." {
		from = filepath.Join(a.dir, from)
	}
	if start != "" {
		if _, err := project.ParseTime(start); err != nil {
			return fmt.Errorf("init: --start %q is not a date: write YYYY-MM-DD", start)
		}
	}
	res, err := dbtimport.Convert(from, abs, dbtimport.Options{Start: start})
	if err != nil {
		return err
	}
	code := ExitOK
	if len(res.Unconverted) > 0 {
		code = ExitAwaiting
	}
	if a.json {
		a.writeJSON(jsonapi.InitDBT{APIVersion: APIVersion, Files: res.Files, From: res.From, Models: dbtModelsJSON(res.Models),
			Name: res.Name, Root: res.Root, Unconverted: dbtPiecesJSON(res.Unconverted), Vars: res.Vars})
	} else {
		done := 0
		for _, m := range res.Models {
			if m.Converted {
				done++
			}
		}
		fmt.Fprintf(a.stdout, "Converted the dbt project in %s into %s: %d models, %d converted in full.\n\n", res.From, res.Root, len(res.Models), done)
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		for _, m := range res.Models {
			mark := " "
			if !m.Converted {
				mark = "!"
			}
			fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", mark, m.Name, m.Kind, m.File)
		}
		tw.Flush()
		if len(res.Unconverted) > 0 {
			fmt.Fprintf(a.stdout, "\nNot converted (left in the models as SQL comments; finish them by hand):\n")
			for _, p := range res.Unconverted {
				fmt.Fprintf(a.stdout, "  %s\n", p)
			}
		}
		q := shellQuote(dir)
		fmt.Fprintf(a.stdout, "\nNext: efmesh -C %s plan dev\n", q)
	}
	if code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// fromSqlmesh is init --from-sqlmesh: convert, load the written project,
// then report what was converted and what awaits a human (pieces of the
// sqlmesh project, and problems of the written one).
func (a *app) fromSqlmesh(from, abs, dir, start string) error {
	if !filepath.IsAbs(from) && a.dir != "." {
		from = filepath.Join(a.dir, from)
	}
	if start != "" {
		if _, err := project.ParseTime(start); err != nil {
			return fmt.Errorf("init: --start %q is not a date: write YYYY-MM-DD", start)
		}
	}
	res, err := sqlmeshimport.Convert(from, abs, sqlmeshimport.Options{Start: start})
	if err != nil {
		return err
	}
	problems, err := a.checkWritten(abs)
	if err != nil {
		return err
	}
	code := ExitOK
	if len(res.Unconverted) > 0 || len(problems) > 0 {
		code = ExitAwaiting
	}
	if a.json {
		a.writeJSON(jsonapi.InitSQLMesh{APIVersion: APIVersion, Files: res.Files, From: res.From, Models: sqlmeshModelsJSON(res.Models),
			Name: res.Name, Problems: a.diagnosticsJSON(problems), Root: res.Root, Unconverted: sqlmeshPiecesJSON(res.Unconverted)})
	} else {
		done := 0
		for _, m := range res.Models {
			if m.Converted {
				done++
			}
		}
		fmt.Fprintf(a.stdout, "Converted the sqlmesh project in %s into %s: %d models, %d converted in full.\n\n", res.From, res.Root, len(res.Models), done)
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		for _, m := range res.Models {
			mark := " "
			if !m.Converted {
				mark = "!"
			}
			fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", mark, m.Name, m.Kind, m.File)
		}
		tw.Flush()
		if len(res.Unconverted) > 0 {
			fmt.Fprintf(a.stdout, "\nNot converted (in the sqlmesh project; left as SQL comments or out; finish them by hand):\n")
			for _, p := range res.Unconverted {
				fmt.Fprintf(a.stdout, "  %s\n", p)
			}
		}
		if len(problems) > 0 {
			fmt.Fprintf(a.stdout, "\nProblems of the written project (in %s):\n", res.Root)
			for _, d := range problems {
				fmt.Fprintf(a.stdout, "  %s\n", d)
			}
		}
		q := shellQuote(dir)
		fmt.Fprintf(a.stdout, "\nNext: efmesh -C %s plan dev\n", q)
	}
	if code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// checkWritten loads a converted project and, for DuckDB, checks every body
// in an in-memory workbench, as a plan would: its errors (a reference left
// as written, a time column that holds text, a macro efmesh lacks) await a
// human too. Nothing is written into the project.
func (a *app) checkWritten(root string) ([]project.Diagnostic, error) {
	p, err := workspace.Load(root, nil)
	if err != nil {
		return nil, err
	}
	ds := p.Diagnostics
	if !project.HasErrors(ds) && connect.EngineKind(p).Capabilities().InProcess {
		wb, err := connect.Workbench(p)
		if err != nil {
			return nil, err
		}
		defer wb.Close()
		an, err := analysis.Analyze(a.ctx, p, wb)
		if err != nil {
			return nil, err
		}
		ds = an.Diagnostics
	}
	var errs []project.Diagnostic
	for _, d := range ds {
		if d.Severity == project.SeverityError {
			errs = append(errs, d)
		}
	}
	return errs, nil
}

// The converters' results as init --json shows them (package jsonapi): a
// nil list stays nil, as JSON's null.

func dbtModelsJSON(ms []dbtimport.Model) []jsonapi.ImportedModel {
	if ms == nil {
		return nil
	}
	out := make([]jsonapi.ImportedModel, len(ms))
	for i, m := range ms {
		out[i] = jsonapi.ImportedModel{Name: m.Name, Kind: m.Kind, File: m.File, From: m.From, Converted: m.Converted}
	}
	return out
}

func dbtPiecesJSON(ps []dbtimport.Piece) []jsonapi.Unconverted {
	if ps == nil {
		return nil
	}
	out := make([]jsonapi.Unconverted, len(ps))
	for i, p := range ps {
		out[i] = jsonapi.Unconverted{File: p.File, Line: p.Line, Col: p.Col, Text: p.Text, Reason: p.Reason}
	}
	return out
}

func sqlmeshModelsJSON(ms []sqlmeshimport.Model) []jsonapi.ImportedModel {
	if ms == nil {
		return nil
	}
	out := make([]jsonapi.ImportedModel, len(ms))
	for i, m := range ms {
		out[i] = jsonapi.ImportedModel{Name: m.Name, Kind: m.Kind, File: m.File, From: m.From, Converted: m.Converted}
	}
	return out
}

func sqlmeshPiecesJSON(ps []sqlmeshimport.Piece) []jsonapi.Unconverted {
	if ps == nil {
		return nil
	}
	out := make([]jsonapi.Unconverted, len(ps))
	for i, p := range ps {
		out[i] = jsonapi.Unconverted{File: p.File, Line: p.Line, Col: p.Col, Text: p.Text, Reason: p.Reason}
	}
	return out
}
