package planner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// testSchema holds the fixture tables of the unit test being run.
const testSchema = "__efmesh_test"

// TestResult is the outcome of one unit test.
type TestResult struct {
	Name     string        `json:"name"`
	File     string        `json:"file"`
	Model    string        `json:"model"`
	Passed   bool          `json:"passed"`
	Error    string        `json:"error,omitempty"` // the test could not run (a fixture that does not cast, a query error)
	Columns  []string      `json:"columns,omitempty"`
	Missing  [][]string    `json:"missing,omitempty"`    // expected rows the model did not produce
	Extra    [][]string    `json:"unexpected,omitempty"` // produced rows nobody expected
	Duration time.Duration `json:"-"`                    // wall time; not in --json, which stays reproducible
}

// RunTests runs the project's unit tests (those named, or all) on wb: each
// referenced model becomes a table holding the test's fixture rows (cast to
// that model's columns, so a fixture cannot lie about its shape), the model
// runs over them, and its rows are compared with the expected ones —
// as a multiset unless the test is ordered, on the columns the expectation
// names.
func RunTests(ctx context.Context, a *analysis.Analysis, wbench analysis.Workbench, names []string) ([]TestResult, error) {
	wb, ok := wbench.(engine.Engine)
	if !ok {
		return nil, noUnitTests(wbench.Dialect())
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	found := map[string]bool{}
	var out []TestResult
	for _, t := range a.Project.Tests {
		if len(want) > 0 && !want[t.Name] {
			continue
		}
		found[t.Name] = true
		start := time.Now()
		r := runTest(ctx, a, wb, t)
		r.Duration = time.Since(start)
		out = append(out, r)
	}
	for _, n := range names {
		if !found[n] {
			var all []string
			for _, t := range a.Project.Tests {
				all = append(all, t.Name)
			}
			msg := fmt.Sprintf("no unit test named %q", n)
			if s, ok := project.DidYouMean(n, all); ok {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return out, errors.New(msg)
		}
	}
	_ = wb.Exec(ctx, "DROP SCHEMA IF EXISTS "+engine.QuoteIdent(testSchema)+" CASCADE")
	return out, nil
}

func runTest(ctx context.Context, a *analysis.Analysis, wb engine.Engine, t *project.UnitTest) TestResult {
	res := TestResult{Name: t.Name, File: t.File, Model: t.Model}
	fail := func(format string, args ...any) TestResult {
		res.Error = fmt.Sprintf(format, args...)
		return res
	}
	info := a.Models[t.Model]
	if info == nil {
		return fail("unknown model %q", t.Model)
	}
	if !info.Model.Kind.Name.HasBody() {
		return fail("%s is %s model: it has no query to test", t.Model, info.Model.Kind.Name.WithArticle())
	}
	outCols, err := runOnFixtures(ctx, a, wb, t, info)
	if err != nil {
		return fail("%v", err)
	}
	q := engine.QuoteIdent
	actual := q(testSchema) + "." + q("__actual")
	types := map[string]engine.Column{}
	for _, c := range outCols {
		types[strings.ToLower(c.Name)] = c
	}

	// The compared columns: every column an expected row names.
	var cols []string
	seen := map[string]bool{}
	for _, row := range t.Expect {
		for _, v := range row.Values {
			k := strings.ToLower(v.Column)
			if _, ok := types[k]; !ok {
				return fail("%s:%d:%d: expect, row %d: the model yields no column %q (it yields %s)", t.File, v.Range.Start.Line, v.Range.Start.Column, row.Index+1, v.Column, analysis.ColumnList(outCols))
			}
			if !seen[k] {
				seen[k] = true
				cols = append(cols, types[k].Name)
			}
		}
	}
	res.Columns = cols
	// Expected values, normalized by the engine: cast to the column's type
	// and back to text, so '2026-01-01T10:00:00Z' equals the timestamp.
	expected := make([][]*string, len(t.Expect))
	for i, row := range t.Expect {
		expected[i] = make([]*string, len(cols))
		if len(row.Values) == 0 {
			continue
		}
		vtypes := make([]string, len(row.Values))
		for j, v := range row.Values {
			vtypes[j] = types[strings.ToLower(v.Column)].Type
		}
		rows, err := castValues(ctx, wb, row.Values, vtypes)
		if err != nil {
			return fail("%s:%d:%d: expect, row %d does not fit the model's columns: %s", t.File, row.Range.Start.Line, row.Range.Start.Column, row.Index+1, analysis.FirstLine(analysis.ErrMessage(err)))
		}
		if err := lossy(t.File, "expect", row, vtypes, rows); err != nil {
			return fail("%v", err)
		}
		for j, v := range row.Values {
			idx := indexFold(cols, v.Column)
			s := "NULL"
			if x := rows.Values[0][2*j]; x != nil {
				s = fmt.Sprint(x)
			}
			expected[i][idx] = &s
		}
	}
	var got [][]string
	if len(cols) > 0 {
		sel := make([]string, len(cols))
		for i, c := range cols {
			sel[i] = "coalesce(CAST(" + q(c) + " AS VARCHAR), 'NULL')"
		}
		rows, err := wb.Query(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+actual)
		if err != nil {
			return fail("%v", err)
		}
		for _, r := range rows.Values {
			row := make([]string, len(r))
			for i, v := range r {
				row[i] = fmt.Sprint(v)
			}
			got = append(got, row)
		}
	} else {
		rows, err := wb.Query(ctx, "SELECT count(*) FROM "+actual)
		if err != nil {
			return fail("%v", err)
		}
		n, _ := strconv.Atoi(fmt.Sprint(rows.Values[0][0]))
		got = make([][]string, n)
	}
	res.Missing, res.Extra = compareRows(expected, got, t.Ordered)
	res.Passed = len(res.Missing) == 0 && len(res.Extra) == 0
	return res
}

// runOnFixtures makes a fresh test schema holding t's fixture tables, runs
// the model of info over them into its table __actual, and describes it.
func runOnFixtures(ctx context.Context, a *analysis.Analysis, wb engine.Engine, t *project.UnitTest, info *analysis.ModelInfo) ([]engine.Column, error) {
	d := wb.Dialect()
	q := engine.QuoteIdent
	if err := wb.Exec(ctx, "DROP SCHEMA IF EXISTS "+q(testSchema)+" CASCADE; CREATE SCHEMA "+q(testSchema)); err != nil {
		return nil, err
	}
	fixtures := map[string]project.TestInput{}
	for _, in := range t.Inputs {
		fixtures[in.Model] = in
	}
	table := func(model string) string { return q(testSchema) + "." + q(strings.ReplaceAll(model, ".", "__")) }

	// Fixture tables for every model the test's query reads, directly or
	// through embedded models.
	made := map[string]bool{}
	var makeTables func(m *project.Model) error
	makeTables = func(m *project.Model) error {
		for _, r := range m.Refs() {
			pi := a.Models[r]
			if pi == nil || made[r] {
				continue
			}
			made[r] = true
			in, hasFixture := fixtures[r]
			if pi.Model.Kind.Name == project.KindEmbedded && !hasFixture {
				if err := makeTables(pi.Model); err != nil {
					return err
				}
				continue
			}
			if pi.Columns == nil {
				return fmt.Errorf("the columns of %s are unknown; declare them to use it in a test", r)
			}
			defs := make([]string, len(pi.Columns))
			types := map[string]string{}
			for i, c := range pi.Columns {
				defs[i] = q(c.Name) + " " + c.Type
				types[strings.ToLower(c.Name)] = c.Type
			}
			if err := wb.Exec(ctx, "CREATE TABLE "+table(r)+" ("+strings.Join(defs, ", ")+")"); err != nil {
				return fmt.Errorf("fixture table for %s: %w", r, err)
			}
			for _, row := range in.Rows {
				cols := make([]string, 0, len(row.Values))
				vals := make([]string, 0, len(row.Values))
				vtypes := make([]string, 0, len(row.Values))
				for _, v := range row.Values {
					typ, ok := types[strings.ToLower(v.Column)]
					if !ok {
						return fmt.Errorf("%s:%d:%d: inputs of %s, row %d: no column %q", t.File, v.Range.Start.Line, v.Range.Start.Column, r, row.Index+1, v.Column)
					}
					cols = append(cols, q(v.Column))
					vals = append(vals, "CAST("+literal(v.Value)+" AS "+typ+")")
					vtypes = append(vtypes, typ)
				}
				if len(cols) == 0 {
					if err := wb.Exec(ctx, "INSERT INTO "+table(r)+" DEFAULT VALUES"); err != nil {
						return err
					}
					continue
				}
				doesNotFit := func(err error) error {
					return fmt.Errorf("%s:%d:%d: inputs of %s, row %d does not fit the model's columns: %s",
						t.File, row.Range.Start.Line, row.Range.Start.Column, r, row.Index+1, analysis.FirstLine(analysis.ErrMessage(err)))
				}
				cast, err := castValues(ctx, wb, row.Values, vtypes)
				if err != nil {
					return doesNotFit(err)
				}
				if err := lossy(t.File, "inputs of "+r, row, vtypes, cast); err != nil {
					return err
				}
				stmt := "INSERT INTO " + table(r) + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")"
				if err := wb.Exec(ctx, stmt); err != nil {
					return doesNotFit(err)
				}
			}
		}
		return nil
	}
	if err := makeTables(info.Model); err != nil {
		return nil, err
	}

	startLit, endLit := d.TimestampLiteral("1970-01-01T00:00:00Z"), d.TimestampLiteral("9999-12-31T00:00:00Z")
	for i, s := range t.Interval {
		if s == "" {
			continue
		}
		ts, err := project.ParseTime(s)
		if err != nil {
			return nil, fmt.Errorf("interval bound %q: %v", s, err)
		}
		if i == 0 {
			startLit = d.TimestampLiteral(ts.Format(time.RFC3339))
		} else {
			endLit = d.TimestampLiteral(ts.Format(time.RFC3339))
		}
	}
	var render func(m *project.Model) string
	render = func(m *project.Model) string {
		r, _ := analysis.RenderBody(m, analysis.MacroText{
			Ref: func(name string) (string, bool) {
				pi := a.Models[name]
				if _, fx := fixtures[name]; pi != nil && pi.Model.Kind.Name == project.KindEmbedded && !fx {
					return "(\n" + render(pi.Model) + "\n)", true
				}
				return table(name), true
			},
			Start: startLit, End: endLit, This: "NULL",
			Vars: a.Project.Config.Variables, Literal: d.Literal, Columns: a.ColumnsOf, Env: a.Project.Config.Env,
		})
		return r.SQL
	}
	actual := engine.Relation{Schema: testSchema, Name: "__actual"}
	stmts, err := storeStatements(ctx, a, wb, info, actual, render(info.Model), startLit, endLit)
	if err == nil {
		err = wb.Tx(ctx, stmts)
	}
	if err != nil {
		return nil, fmt.Errorf("the model's query failed on the fixtures: %s", analysis.FirstLine(analysis.ErrMessage(err)))
	}
	return wb.Describe(ctx, "SELECT * FROM "+d.QuoteRelation(actual))
}

// storeStatements are the statements that write q's rows into the empty
// table rel the way apply and run store a model's rows in its physical
// table, so a unit test compares what the warehouse would hold: a
// time-range model keeps only the rows of [start, end) (the dialect's
// ReplaceRange, the statements a backfill batch runs), and every kind casts
// to the declared columns (typed, the select a build runs; the insert into
// the declared table of an incremental or refreshed model).
func storeStatements(ctx context.Context, a *analysis.Analysis, wb engine.Engine, info *analysis.ModelInfo, rel engine.Relation, q, start, end string) ([]string, error) {
	d := wb.Dialect()
	m := info.Model
	switch m.Kind.Name {
	case project.KindIncrementalByTimeRange, project.KindIncrementalByUniqueKey, project.KindSCDType2:
		cols := analysis.Declared(m)
		if cols == nil {
			var err error
			if cols, err = wb.Describe(ctx, q); err != nil {
				return nil, err
			}
		}
		create := d.CreateTable(rel, cols)
		if m.Kind.Name != project.KindIncrementalByTimeRange {
			// A merge into an empty table inserts the query's rows.
			return append([]string{create}, d.ReplaceRows(rel, namesOf(cols), q)...), nil
		}
		if err := hasTimeColumn(m, cols); err != nil {
			return nil, err
		}
		return append([]string{create}, d.ReplaceRange(rel, namesOf(cols), m.Kind.TimeColumn, start, end, q)...), nil
	}
	b := &builder{a: a, d: d}
	return []string{d.CreateTableAs(rel, b.typed(info, q))}, nil
}

// compareRows matches expected rows (nil cells match anything) with actual
// ones and returns what is left over on each side.
func compareRows(expected [][]*string, got [][]string, ordered bool) (missing, extra [][]string) {
	match := func(e []*string, g []string) bool {
		for i, c := range e {
			if c != nil && *c != g[i] {
				return false
			}
		}
		return true
	}
	show := func(e []*string) []string {
		out := make([]string, len(e))
		for i, c := range e {
			if c == nil {
				out[i] = "*"
			} else {
				out[i] = *c
			}
		}
		return out
	}
	if ordered {
		for i := 0; i < max(len(expected), len(got)); i++ {
			switch {
			case i >= len(got):
				missing = append(missing, show(expected[i]))
			case i >= len(expected):
				extra = append(extra, got[i])
			case !match(expected[i], got[i]):
				missing = append(missing, show(expected[i]))
				extra = append(extra, got[i])
			}
		}
		return missing, extra
	}
	used := make([]bool, len(got))
	// Most specific expectations first, so a wildcard row does not take
	// the row an exact one needs.
	order := make([]int, len(expected))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return wildcards(expected[order[a]]) < wildcards(expected[order[b]]) })
	for _, i := range order {
		ok := false
		for j := range got {
			if !used[j] && match(expected[i], got[j]) {
				used[j], ok = true, true
				break
			}
		}
		if !ok {
			missing = append(missing, show(expected[i]))
		}
	}
	for j, u := range used {
		if !u {
			extra = append(extra, got[j])
		}
	}
	return missing, extra
}

func wildcards(e []*string) int {
	n := 0
	for _, c := range e {
		if c == nil {
			n++
		}
	}
	return n
}

func indexFold(ss []string, s string) int {
	for i, x := range ss {
		if strings.EqualFold(x, s) {
			return i
		}
	}
	return -1
}

// castValues casts each value of a fixture or expected row to its column's
// type (types[i] for values[i]) and answers, for each, the cast value as
// text (NULL for NULL) and whether the cast kept the value whole.
func castValues(ctx context.Context, wb engine.Engine, values []project.TestValue, types []string) (*engine.Rows, error) {
	sel := make([]string, 0, 2*len(values))
	for j, v := range values {
		lit := literal(v.Value)
		sel = append(sel, "CAST(CAST("+lit+" AS "+types[j]+") AS VARCHAR)", keepsValue(lit, types[j]))
	}
	return wb.Query(ctx, "SELECT "+strings.Join(sel, ", "))
}

// keepsValue is a SQL condition true when the literal lit, cast to typ,
// loses nothing: cast to typ and back to a type of the same family wide
// enough to hold lit whole (DECIMAL(38,18) for exact numbers, TIMESTAMP for
// a date, TIMESTAMP_NS for a timestamp), it equals lit cast to that wide
// type directly. So 1.6 does not fit an INT (it would be 2), '10.5041' not
// a DECIMAL(18,2) (10.50) and '2026-01-25 13:45:00' not a DATE. A literal
// the wide type cannot hold, and a type with no wider one of its family
// (text, floats, timestamps with a zone), are taken as they cast.
func keepsValue(lit, typ string) string {
	wide := ""
	base := strings.ToUpper(strings.TrimSpace(typ))
	if i := strings.IndexByte(base, '('); i >= 0 {
		base = strings.TrimSpace(base[:i])
	}
	switch engine.TypeFamily(typ) {
	case "integer":
		wide = "DECIMAL(38,18)"
	case "fractional":
		if base == "DECIMAL" || base == "NUMERIC" || base == "DEC" {
			wide = "DECIMAL(38,18)"
		}
	case "date":
		wide = "TIMESTAMP"
	case "timestamp":
		switch base {
		case "TIMESTAMP", "DATETIME", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_US", "TIMESTAMP WITHOUT TIME ZONE":
			wide = "TIMESTAMP_NS"
		}
	}
	if wide == "" || lit == "NULL" {
		return "TRUE"
	}
	whole := "TRY_CAST(" + lit + " AS " + wide + ")"
	return "(" + whole + " IS NULL OR CAST(CAST(" + lit + " AS " + typ + ") AS " + wide + ") = " + whole + ")"
}

// lossy reports the first value of row that its column's type would
// change (castValues answered rows), naming the test file, the row and
// the column, at the column's key.
func lossy(file, where string, row project.TestRow, types []string, rows *engine.Rows) error {
	r := rows.Values[0]
	for j, v := range row.Values {
		if keeps, _ := r[2*j+1].(bool); keeps {
			continue
		}
		return fmt.Errorf("%s:%d:%d: %s, row %d: %s does not fit column %s %s exactly: it would be %v",
			file, v.Range.Start.Line, v.Range.Start.Column, where, row.Index+1, literal(v.Value), v.Column, types[j], r[2*j])
	}
	return nil
}

// literal renders a YAML scalar as SQL.
func literal(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return engine.QuoteString(x)
	case bool:
		if x {
			return "TRUE"
		}
		return "FALSE"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return engine.QuoteString(fmt.Sprint(v))
}

// RunTest runs one unit test, t, which need not be one of the project's
// (a test being written, checked before it is saved).
func RunTest(ctx context.Context, a *analysis.Analysis, wbench analysis.Workbench, t *project.UnitTest) (TestResult, error) {
	wb, ok := wbench.(engine.Engine)
	if !ok {
		return TestResult{}, noUnitTests(wbench.Dialect())
	}
	defer wb.Exec(ctx, "DROP SCHEMA IF EXISTS "+engine.QuoteIdent(testSchema)+" CASCADE")
	return runTest(ctx, a, wb, t), nil
}

// FixtureOutput is what t's model returns on t's fixture rows (its
// expectations are ignored), run exactly as a unit test runs it: its
// columns, and each row's values as the engine writes them as text (nil
// for NULL) — the text a unit test's expectation compares.
func FixtureOutput(ctx context.Context, a *analysis.Analysis, wbench analysis.Workbench, t *project.UnitTest) ([]engine.Column, [][]*string, error) {
	wb, ok := wbench.(engine.Engine)
	if !ok {
		return nil, nil, noUnitTests(wbench.Dialect())
	}
	info := a.Models[t.Model]
	if info == nil || !info.Model.Kind.Name.HasBody() {
		return nil, nil, fmt.Errorf("planner: %s has no query to run on fixtures", t.Model)
	}
	q := engine.QuoteIdent
	defer wb.Exec(ctx, "DROP SCHEMA IF EXISTS "+q(testSchema)+" CASCADE")
	cols, err := runOnFixtures(ctx, a, wb, t, info)
	if err != nil {
		return nil, nil, err
	}
	if len(cols) == 0 {
		return cols, nil, nil
	}
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "CAST(" + q(c.Name) + " AS VARCHAR)"
	}
	rows, err := wb.Query(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+q(testSchema)+"."+q("__actual"))
	if err != nil {
		return nil, nil, err
	}
	out := make([][]*string, len(rows.Values))
	for i, r := range rows.Values {
		out[i] = make([]*string, len(r))
		for j, v := range r {
			if v != nil {
				s := fmt.Sprint(v)
				out[i][j] = &s
			}
		}
	}
	return cols, out, nil
}

// noUnitTests is the error of unit tests asked of a project whose engine
// (d's) does not run in efmesh's process: they run on a scratch instance
// of an engine that does.
func noUnitTests(d engine.Dialect) error {
	return fmt.Errorf("unit tests run on an embedded engine (%s); %s projects cannot run them yet", InProcessTitles(), d.Name())
}

// InProcessTitles names the engines that run inside efmesh's process, on
// which unit tests run ("DuckDB").
func InProcessTitles() string {
	return engine.TitlesWith(func(c engine.Capabilities) bool { return c.InProcess })
}
