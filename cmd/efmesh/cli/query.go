package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"golang.org/x/text/width"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
)

// rowsFlags are the flags query and show share.
type rowsFlags struct {
	env    string
	limit  int
	format string
	model  string // show's model, named in its JSON
}

func (f *rowsFlags) add(cmd *cobra.Command, limit int) {
	cmd.Flags().StringVar(&f.env, "env", analysis.ProdEnv, "read this environment's views")
	cmd.Flags().IntVar(&f.limit, "limit", limit, "print at most this many rows (0: all of them)")
	cmd.Flags().StringVar(&f.format, "format", "", "table, csv or json (default: table at a terminal, else csv; --json is --format json)")
}

// check validates the flags before any work.
func (f *rowsFlags) check(a *app) error {
	if f.limit < 0 {
		return fmt.Errorf("--limit %d: write a number of rows, or 0 for all of them", f.limit)
	}
	if a.json {
		if f.format != "" && f.format != "json" {
			return fmt.Errorf("--json and --format %s disagree: give one of them", f.format)
		}
		f.format = "json"
	}
	switch f.format {
	case "":
		f.format = "csv"
		if isTerminal(a.stdout) {
			f.format = "table"
		}
	case "table", "csv", "json":
	default:
		return fmt.Errorf("--format %q: write table, csv or json", f.format)
	}
	return analysis.ValidateEnv(f.env)
}

func (a *app) queryCmd() *cobra.Command {
	var f rowsFlags
	cmd := &cobra.Command{
		Use: "query <sql>",
		Example: `  efmesh query "SELECT count(*) FROM @ref(mart.orders)"
  efmesh query "SELECT * FROM @ref(mart.orders) WHERE amount > 100" --env dev --limit 10
  efmesh query "SELECT * FROM @ref(mart.orders)" --format json`,
		Short: "Run a query on the warehouse; @ref(model) reads an environment's views",
		Long: `Query runs one SQL query on the warehouse, opened read-only: nothing
is changed, and a statement that is not a query is refused. @ref(model)
reads the model as the environment (--env, default prod) serves it.

Rows print as an aligned table at a terminal, as CSV otherwise; --format
or --json choose. At most --limit rows are read (0: all); a cut result is
said on stderr.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(a); err != nil {
				return err
			}
			a.varEnv = f.env
			w, err := a.load(false)
			if err != nil {
				return err
			}
			defer w.Close()
			res, err := w.Query(a.ctx, args[0], f.env, f.limit)
			if err != nil {
				return phraseBusy(err)
			}
			return a.printRows(res, f)
		},
	}
	f.add(cmd, 100)
	a.registerVars(cmd)
	return cmd
}

func (a *app) showCmd() *cobra.Command {
	var (
		f     rowsFlags
		where string
	)
	cmd := &cobra.Command{
		Use: "show <model>",
		Example: `  efmesh show mart.orders
  efmesh show mart.orders --env dev --limit 5
  efmesh show mart.orders --where "amount > 100" --json`,
		Short: "Print a model's rows as an environment serves them",
		Long: `Show prints a model's rows from its view in the environment (--env,
default prod), read-only. A model the environment does not have at this
version (not applied there yet, or changed since) is previewed: its
query is run with its refs read from the environment's views, which
stderr says.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(a); err != nil {
				return err
			}
			a.varEnv = f.env
			w, err := a.loadScoped(false, func(p *project.Project) project.Scope {
				sc, _ := p.ScopeOf(args, nil)
				return sc
			})
			if err != nil {
				return err
			}
			defer w.Close()
			f.model = args[0]
			res, err := w.Show(a.ctx, args[0], f.env, where, f.limit)
			if err != nil {
				return phraseBusy(err)
			}
			// A virtual model (EXTERNAL, EMBEDDED) is read in place in every
			// environment: running its query is what the environment serves.
			if info := w.Analysis.Models[args[0]]; res.Preview && (info == nil || !info.Model.Kind.Name.Virtual()) {
				fmt.Fprintf(a.stderr, "efmesh: %s is not applied in %s: a preview of its query, refs read from %s's views\n", args[0], f.env, f.env)
			}
			return a.printRows(res, f)
		},
	}
	f.add(cmd, 20)
	cmd.Flags().StringVar(&where, "where", "", `keep the rows this SQL condition holds for, e.g. "amount > 100"`)
	a.registerVars(cmd)
	return cmd
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// printRows prints a result in f.format; a result the limit cut is said on
// stderr (in the JSON too).
func (a *app) printRows(res *workspace.QueryResult, f rowsFlags) error {
	rows := res.Rows
	if res.More && f.format != "json" {
		fmt.Fprintf(a.stderr, "efmesh: the first %d rows; --limit 0 prints them all\n", f.limit)
	}
	switch f.format {
	case "json":
		a.writeJSON(jsonapi.Query{APIVersion: APIVersion, Columns: workspace.JSONColumns(rows.Columns), Env: f.env,
			Model: f.model, Preview: res.Preview, Rows: res.JSONRows(), Truncated: res.More})
		return nil
	case "csv":
		cw := csv.NewWriter(a.stdout)
		head := make([]string, len(rows.Columns))
		for i, c := range rows.Columns {
			head[i] = c.Name
		}
		_ = cw.Write(head)
		for _, r := range rows.Values {
			rec := make([]string, len(r))
			for i, v := range r {
				rec[i] = cellText(v, "")
			}
			_ = cw.Write(rec)
		}
		cw.Flush()
		return cw.Error()
	}
	table := [][]string{make([]string, len(rows.Columns)), make([]string, len(rows.Columns))}
	for i, c := range rows.Columns {
		table[0][i] = tableCell(c.Name)
		table[1][i] = strings.Repeat("-", max(1, textWidth(table[0][i])))
	}
	for _, r := range rows.Values {
		line := make([]string, len(r))
		for i, v := range r {
			line[i] = tableCell(cellText(v, "NULL"))
		}
		table = append(table, line)
	}
	writeTable(a.stdout, table)
	fmt.Fprintf(a.stderr, "%d row(s)\n", len(rows.Values))
	return nil
}

// cellText is a value as text; null is what NULL prints as.
func cellText(v any, null string) string {
	switch x := v.(type) {
	case nil:
		return null
	case string:
		return x
	case []byte:
		return fmt.Sprintf("\\x%x", x)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.UTC().Format(time.DateOnly)
		}
		return x.UTC().Format("2006-01-02 15:04:05.999999")
	case *big.Int:
		return x.String()
	case fmt.Stringer:
		return x.String()
	}
	if b, err := json.Marshal(v); err == nil && (strings.HasPrefix(string(b), "{") || strings.HasPrefix(string(b), "[")) {
		return string(b)
	}
	return fmt.Sprint(v)
}

// tableCell keeps a cell on one line of the table: control characters
// (newlines, tabs) are escaped.
func tableCell(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := fmt.Sprintf("%q", s)
	return q[1 : len(q)-1]
}

// writeTable prints cells in columns two spaces apart, aligned by the
// width a terminal gives each character (a wide East Asian one takes two
// columns; text/tabwriter counts it as one).
func writeTable(w io.Writer, table [][]string) {
	var widths []int
	for _, line := range table {
		for i, c := range line {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], textWidth(c))
		}
	}
	var b strings.Builder
	for _, line := range table {
		b.Reset()
		for i, c := range line {
			b.WriteString(c)
			if i < len(line)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-textWidth(c)+2))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// textWidth is the number of terminal columns s takes.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			if !unicode.Is(unicode.Mn, r) { // a combining mark takes no column
				n++
			}
		}
	}
	return n
}
