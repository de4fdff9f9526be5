package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// CreateTestOptions say where CreateTest samples and what it writes.
type CreateTestOptions struct {
	Env   string // the environment whose views are sampled; default prod
	Limit int    // rows sampled from the first parent; default 5
	// Out is the file written, relative to the project root; default
	// tests/<model>.yaml.
	Out string
	// Force overwrites an existing Out; Dry writes nothing.
	Force, Dry bool
}

// CreatedTest is what CreateTest wrote (or, dry, would write).
type CreatedTest struct {
	Model string `json:"model"`
	Test  string `json:"test"`
	File  string `json:"file"`
	Env   string `json:"env"`
	// Key are the columns the first parent was sampled by.
	Key    []string         `json:"key"`
	Inputs []CreatedFixture `json:"inputs"`
	// Expected is how many rows the model returns on the fixtures.
	Expected int `json:"expected"`
	// Interval is the test's [start, end) for an incremental model by
	// time range: the environment's coverage of the model.
	Interval []string `json:"interval,omitempty"`
	Written  bool     `json:"written"`
	// Unread is true when File matches none of the tests globs of
	// efmesh.yaml: efmesh test will not read it.
	Unread bool `json:"unread,omitempty"`
	// Warnings name the parents that sampled no row: the test does not
	// exercise what the query does with them.
	Warnings []string `json:"warnings,omitempty"`
	// YAML is the file's text.
	YAML string `json:"yaml"`
}

// CreatedFixture is the sample of one parent.
type CreatedFixture struct {
	Model string `json:"model"`
	Rows  int    `json:"rows"`
	// By are the equalities of the query this parent's rows were sampled
	// by ("id = raw.o.cust": its id matches the sampled cust of raw.o);
	// empty for the first parent and one the query joins by none.
	By []string `json:"by,omitempty"`
}

// link is a sampled parent a query joins another to, by one condition's
// equalities (A the other parent's column, B the sampled one's).
type link struct {
	parent string
	keys   []analysis.JoinKey
}

// joinedTo are the conditions of joins (analysis.JoinKeys) that match
// p's rows with a sampled parent's, one per condition: its equalities
// between p and the sampled parent it compares p with most.
func joinedTo(joins [][]analysis.JoinKey, p string, sampled map[string]string) []link {
	var out []link
	for _, group := range joins {
		by := map[string][]analysis.JoinKey{}
		var best string
		for _, k := range group {
			if k.B.Model == p {
				k.A, k.B = k.B, k.A
			}
			if k.A.Model != p {
				continue
			}
			if _, ok := sampled[k.B.Model]; !ok {
				continue
			}
			by[k.B.Model] = append(by[k.B.Model], k)
			if best == "" || len(by[k.B.Model]) > len(by[best]) {
				best = k.B.Model
			}
		}
		if best != "" {
			out = append(out, link{parent: best, keys: by[best]})
		}
	}
	return out
}

// ErrTestExists is CreateTest refusing to overwrite a file without Force.
var ErrTestExists = errors.New("the test file exists")

// CreateTest writes a unit test of model (the format `efmesh test` reads)
// whose fixtures are rows of the model's parents as env serves them and
// whose expectation is what the model returns for them, run through the
// unit-test machinery (planner.FixtureOutput), so the written test passes;
// it is run once more before it is written, to be sure.
//
// The sample is deterministic, so two runs on the same data write the
// same bytes. Key columns: the model's unique key, else its grain, else
// its first column. The sampled parent — the first parent (in order of
// @ref in the body, embedded models expanded as a test expands them)
// holding a key column, else the first parent — gives its first Limit rows
// ordered by the key columns it has (else by its first column), then by
// every column; it comes first in the file. Every other parent gives the
// rows the query matches with the rows sampled before it: those equal on
// the columns a join condition compares it by (analysis.JoinKeys: ON,
// USING, WHERE equalities, in CTEs and subqueries too), the parents
// sampled in the order that follows a chain of joins link by link; a
// parent joined by no equality gives, when it has the key columns, its
// rows matching the sampled keys, else its first rows in the same order;
// at most Limit each. A parent that sampled no row is a warning: the test
// would not exercise the join. For an INCREMENTAL_BY_TIME_RANGE model the
// test's interval is the environment's coverage of the model (its done
// intervals), and parents holding the time column are sampled inside it.
func (w *Workspace) CreateTest(ctx context.Context, model string, o CreateTestOptions) (*CreatedTest, error) {
	info, name, unread, err := w.createTestTarget(model, &o)
	if err != nil {
		return nil, err
	}
	m := info.Model
	ptrs, err := w.environment(ctx, o.Env)
	if err != nil {
		return nil, err
	}
	if _, ok := ptrs[model]; !ok {
		return nil, fmt.Errorf("%s is not applied in environment %s: apply it there first (efmesh apply %s), then sample it", model, o.Env, o.Env)
	}
	parents := w.fixtureParents(m)
	if len(parents) == 0 {
		return nil, fmt.Errorf("%s reads no model: there is nothing to sample for its fixtures", model)
	}
	wb, err := w.workbench()
	if err != nil {
		return nil, err
	}

	// The interval of an incremental model: what env covers of it.
	var span [2]time.Time
	if m.Kind.Name == project.KindIncrementalByTimeRange {
		if span, err = w.coverage(ctx, ptrs[model].Fingerprint); err != nil {
			return nil, err
		}
	}

	wh, err := connect.ReadWarehouse(ctx, w.Project, w.opts.Warehouse...)
	if err != nil {
		return nil, err
	}
	if wh == nil {
		return nil, ErrNoWarehouse
	}
	defer wh.Close()

	key := sampleKey(m, info)
	// The sampled parent is the first one holding a key column.
	for i, p := range parents {
		if pi := w.Analysis.Models[p]; pi != nil && slices.ContainsFunc(pi.Columns, func(c engine.Column) bool { return hasFold(key, c.Name) }) {
			parents = append([]string{p}, slices.Delete(parents, i, i+1)...)
			break
		}
	}
	s := &sampler{w: w, m: m, o: o, ptrs: ptrs, wb: wb, d: wb.Dialect(), wh: wh, span: span, key: key,
		joins: analysis.JoinKeys(w.Analysis, model), parents: parents, samples: map[string]string{},
		ut:  &project.UnitTest{Name: name, File: o.Out, Model: model},
		res: &CreatedTest{Model: model, Test: name, File: o.Out, Env: o.Env, Unread: unread}}
	// The file lists the sampled parent first, then the others in order,
	// whatever order they are sampled in.
	rank := map[string]int{}
	for i, p := range parents {
		rank[p] = i
	}
	for i := range parents {
		if err := s.sample(ctx, i); err != nil {
			return nil, err
		}
	}
	ut, res := s.ut, s.res
	slices.SortStableFunc(ut.Inputs, func(a, b project.TestInput) int { return rank[a.Model] - rank[b.Model] })
	slices.SortStableFunc(res.Inputs, func(a, b CreatedFixture) int { return rank[a.Model] - rank[b.Model] })
	res.Key = s.firstKey
	if !span[0].IsZero() {
		ut.Interval = [2]string{timeText(span[0]), timeText(span[1])}
		res.Interval = ut.Interval[:]
	}
	if err := w.expectTest(ctx, wb, m, ut, res); err != nil {
		return nil, err
	}
	if o.Dry {
		return res, nil
	}
	path := filepath.Join(w.Project.Root, filepath.FromSlash(o.Out))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(res.YAML), 0o644); err != nil {
		return nil, err
	}
	res.Written = true
	return res, nil
}

// createTestTarget checks what CreateTest is asked for, filling o's
// defaults: the model (one with a query), the file (inside the project,
// not there yet unless forced) and the test's name (sampled_<model>, no
// other file's). unread: the file is outside the project's test globs.
func (w *Workspace) createTestTarget(model string, o *CreateTestOptions) (info *analysis.ModelInfo, name string, unread bool, err error) {
	if o.Env == "" {
		o.Env = analysis.ProdEnv
	}
	if o.Limit <= 0 {
		o.Limit = 5
	}
	if err := analysis.ValidateEnv(o.Env); err != nil {
		return nil, "", false, err
	}
	info = w.Analysis.Models[model]
	if info == nil {
		return nil, "", false, fmt.Errorf("unknown model %q%s", model, analysis.DidYouMean(model, w.Analysis.Models))
	}
	m := info.Model
	if !m.Kind.Name.HasBody() {
		return nil, "", false, fmt.Errorf("%s is %s model: it has no query to test", model, m.Kind.Name.WithArticle())
	}
	if o.Out == "" {
		o.Out = "tests/" + model + ".yaml"
	}
	o.Out = filepath.ToSlash(filepath.Clean(o.Out))
	if filepath.IsAbs(o.Out) || o.Out == ".." || strings.HasPrefix(o.Out, "../") {
		return nil, "", false, fmt.Errorf("--out %s: the test file goes inside the project, relative to its root", o.Out)
	}
	path := filepath.Join(w.Project.Root, filepath.FromSlash(o.Out))
	if !o.Dry && !o.Force {
		if _, err := os.Stat(path); err == nil {
			return nil, "", false, fmt.Errorf("%w: %s (give --force to overwrite it)", ErrTestExists, o.Out)
		}
	}
	name = "sampled_" + strings.ReplaceAll(model, ".", "_")
	unread = !slices.ContainsFunc(w.Project.Config.Tests, func(g string) bool { return project.MatchGlob(g, o.Out) })
	for _, t := range w.Project.Tests {
		if t.Name == name && t.File != o.Out && !unread {
			return nil, "", false, fmt.Errorf("%s already holds a test named %s", t.File, name)
		}
	}
	return info, name, unread, nil
}

// sampler samples the fixtures of one CreateTest, parent by parent, into
// its test (ut) and its report (res).
type sampler struct {
	w    *Workspace
	m    *project.Model
	o    CreateTestOptions
	ptrs map[string]state.Pointer
	wb   analysis.Workbench
	d    engine.Dialect
	wh   engine.Engine
	span [2]time.Time // an incremental model's interval; zero: none
	key  []string     // the model's key columns (sampleKey)
	// joins are the column equalities the model's query joins its
	// parents by; parents, the parents in the order sampled so far.
	joins    [][]analysis.JoinKey
	parents  []string
	samples  map[string]string // each sampled parent's sample, as a query
	firstKey []string          // the key columns the first parent has
	ut       *project.UnitTest
	res      *CreatedTest
}

// sample samples the i-th parent: after the first, the next parent is the
// first one the query joins to a parent already sampled (so a chain of
// joins is followed link by link), else the next in order.
func (s *sampler) sample(ctx context.Context, i int) error {
	if i > 0 {
		for j := i; j < len(s.parents); j++ {
			if len(joinedTo(s.joins, s.parents[j], s.samples)) > 0 {
				pj := s.parents[j]
				s.parents = slices.Insert(slices.Delete(s.parents, j, j+1), i, pj)
				break
			}
		}
	}
	p := s.parents[i]
	pi := s.w.Analysis.Models[p]
	if pi == nil || pi.Columns == nil {
		return fmt.Errorf("the columns of %s are unknown; declare them to sample it", p)
	}
	from, err := s.w.servedFrom(s.ptrs, pi, s.o.Env, s.wb)
	if err != nil {
		return err
	}
	names := make([]string, len(pi.Columns))
	for j, c := range pi.Columns {
		names[j] = c.Name
	}
	sample, by := s.query(i, p, names, from)
	s.samples[p] = sample
	return s.fetch(ctx, i, p, names, sample, by)
}

// query is the sample of the i-th parent p (its columns names, served by
// from) as a query: the first parent's first rows by the key columns it
// has; any other's rows matching, by the columns the query compares, the
// rows of the parents it joins to (by says which), else those matching
// the first parent's keys, else its first rows; inside the model's
// interval where p has the time column.
func (s *sampler) query(i int, p string, names []string, from string) (sample string, by []string) {
	q := s.d.Quote
	var where []string
	if tc := s.m.Kind.TimeColumn; !s.span[0].IsZero() && hasFold(names, tc) {
		col := q(columnFold(names, tc))
		where = append(where, col+" >= "+s.d.TimestampLiteral(s.span[0].Format(time.RFC3339)), col+" < "+s.d.TimestampLiteral(s.span[1].Format(time.RFC3339)))
	}
	var order []string
	if i == 0 {
		for _, k := range s.key {
			if hasFold(names, k) {
				s.firstKey = append(s.firstKey, columnFold(names, k))
			}
		}
		if len(s.firstKey) == 0 {
			s.firstKey = []string{names[0]}
		}
		order = s.firstKey
	} else if links := joinedTo(s.joins, p, s.samples); len(links) > 0 {
		// The rows the query matches with the sampled rows of the
		// parents it joins p to, by the columns it compares.
		var exists []string
		for _, l := range links {
			conds := make([]string, len(l.keys))
			for j, k := range l.keys {
				conds[j] = "s." + q(k.B.Column) + " = p." + q(columnFold(names, k.A.Column))
				by = append(by, k.A.Column+" = "+k.B.Model+"."+k.B.Column)
				if !slices.Contains(order, columnFold(names, k.A.Column)) {
					order = append(order, columnFold(names, k.A.Column))
				}
			}
			exists = append(exists, "EXISTS (SELECT 1 FROM ("+s.samples[l.parent]+") AS s WHERE "+strings.Join(conds, " AND ")+")")
		}
		where = append(where, "("+strings.Join(exists, " OR ")+")")
	} else {
		shared := true
		for _, k := range s.firstKey {
			shared = shared && hasFold(names, k)
		}
		if shared {
			conds := make([]string, len(s.firstKey))
			for j, k := range s.firstKey {
				conds[j] = "s." + q(k) + " = p." + q(columnFold(names, k))
			}
			where = append(where, "EXISTS (SELECT 1 FROM ("+s.samples[s.parents[0]]+") AS s WHERE "+strings.Join(conds, " AND ")+")")
			for _, k := range s.firstKey {
				order = append(order, columnFold(names, k))
			}
		} else {
			order = []string{names[0]}
		}
	}
	for _, n := range names {
		if !slices.Contains(order, n) {
			order = append(order, n)
		}
	}
	quoted := func(ss []string, prefix string) string {
		out := make([]string, len(ss))
		for j, s := range ss {
			out[j] = prefix + q(s)
		}
		return strings.Join(out, ", ")
	}
	sample = "SELECT " + quoted(names, "p.") + " FROM " + from + " AS p"
	if len(where) > 0 {
		sample += " WHERE " + strings.Join(where, " AND ")
	}
	sample += " ORDER BY " + quoted(order, "p.") + " LIMIT " + strconv.Itoa(s.o.Limit)
	return sample, by
}

// fetch runs the i-th parent p's sample on the warehouse and adds its rows
// (as text) to the test's inputs; no row is a warning.
func (s *sampler) fetch(ctx context.Context, i int, p string, names []string, sample string, by []string) error {
	q := s.d.Quote
	text := make([]string, len(names))
	for j, n := range names {
		text[j] = "CAST(" + q(n) + " AS VARCHAR)"
	}
	rows, err := s.wh.Query(ctx, "SELECT "+strings.Join(text, ", ")+" FROM ("+sample+") AS sampled")
	if err != nil {
		return fmt.Errorf("sample %s in %s: %s", p, s.o.Env, analysis.FirstLine(analysis.ErrMessage(err)))
	}
	in := project.TestInput{Model: p}
	for r, row := range rows.Values {
		tr := project.TestRow{Index: r}
		for j, v := range row {
			tv := project.TestValue{Column: names[j]}
			if v != nil {
				tv.Value = fmt.Sprint(v)
			}
			tr.Values = append(tr.Values, tv)
		}
		in.Rows = append(in.Rows, tr)
	}
	s.ut.Inputs = append(s.ut.Inputs, in)
	s.res.Inputs = append(s.res.Inputs, CreatedFixture{Model: p, Rows: len(in.Rows), By: by})
	if len(in.Rows) == 0 {
		what := "the join"
		if i == 0 {
			what = "the model's query"
		}
		s.res.Warnings = append(s.res.Warnings, fmt.Sprintf("%s sampled 0 rows in %s: the test will not exercise %s", p, s.o.Env, what))
	}
	return nil
}

// expectTest runs the model m on the test's sampled fixtures (ut) and
// writes the test's text, with what it returned as the expectation, into
// res; the text is read back and run as a test, which must pass.
func (w *Workspace) expectTest(ctx context.Context, wb analysis.Workbench, m *project.Model, ut *project.UnitTest, res *CreatedTest) error {
	cols, out, err := planner.FixtureOutput(ctx, w.Analysis, wb, ut)
	if err != nil {
		return fmt.Errorf("%s on its sampled fixtures: %w", m.Name, err)
	}
	// A stable order of the expected rows: by their text, NULL first.
	slices.SortFunc(out, func(a, b []*string) int {
		for i := range a {
			switch {
			case a[i] == nil && b[i] == nil:
			case a[i] == nil:
				return -1
			case b[i] == nil:
				return 1
			default:
				if c := strings.Compare(*a[i], *b[i]); c != 0 {
					return c
				}
			}
		}
		return 0
	})
	res.Expected = len(out)
	res.YAML = testYAML(ut, m, cols, out, w.Analysis)

	// The written text must be a test that passes: parse it and run it.
	parsed, diags := project.ParseTests(ut.File, []byte(res.YAML))
	if project.HasErrors(diags) || len(parsed) != 1 {
		return fmt.Errorf("workspace: create-test wrote a test file it cannot read: %v", diags)
	}
	r, err := planner.RunTest(ctx, w.Analysis, wb, parsed[0])
	if err != nil {
		return err
	}
	if !r.Passed {
		return fmt.Errorf("the sampled test of %s does not pass on its own rows (a value that does not survive the YAML text?): %s%v%v", m.Name, r.Error, r.Missing, r.Extra)
	}
	return nil
}

// fixtureParents are the models a unit test of m needs fixtures for, in
// order of first reference: m's refs, an embedded one replaced by its own.
func (w *Workspace) fixtureParents(m *project.Model) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(m *project.Model)
	walk = func(m *project.Model) {
		for _, r := range m.Refs() {
			if seen[r] {
				continue
			}
			seen[r] = true
			if pi := w.Analysis.Models[r]; pi != nil && pi.Model.Kind.Name == project.KindEmbedded {
				walk(pi.Model)
				continue
			}
			out = append(out, r)
		}
	}
	walk(m)
	return out
}

// servedFrom is the relation (or parenthesized query) that serves a
// parent in env, as Show reads it: its view when env has this version,
// else its rendered query, refs read from env's views.
func (w *Workspace) servedFrom(ptrs map[string]state.Pointer, pi *analysis.ModelInfo, env string, wb analysis.Workbench) (string, error) {
	d := wb.Dialect()
	if !pi.Model.Kind.Name.Virtual() {
		if ptr, ok := ptrs[pi.Model.Name]; ok && pi.Fingerprint != "" && ptr.Fingerprint == pi.Fingerprint {
			return d.QuoteRelation(analysis.EnvRelation(d, env, pi.Model)), nil
		}
	}
	sql, err := planner.Render(w.Analysis, wb, pi.Model.Name, env, w.opts.now())
	if err != nil {
		return "", err
	}
	return "(\n" + sql + "\n)", nil
}

// coverage is [first start, last end) of the done intervals of fp.
func (w *Workspace) coverage(ctx context.Context, fp string) ([2]time.Time, error) {
	var rd state.Reader = w.Reader
	if rd == nil && w.Store != nil {
		rd = w.Store
	}
	if rd == nil {
		st, err := connect.ExistingStore(ctx, w.Project)
		if err != nil || st == nil {
			return [2]time.Time{}, err
		}
		defer st.Close()
		rd = st
	}
	ivs, err := rd.Intervals(ctx, fp)
	if err != nil {
		return [2]time.Time{}, err
	}
	var span [2]time.Time
	for _, iv := range ivs {
		if iv.Status != state.IntervalDone {
			continue
		}
		if span[0].IsZero() || iv.Start.Before(span[0]) {
			span[0] = iv.Start
		}
		if iv.End.After(span[1]) {
			span[1] = iv.End
		}
	}
	return span, nil
}

// sampleKey are the columns a model's sample is keyed by: its unique key,
// else its grain, else its first column.
func sampleKey(m *project.Model, info *analysis.ModelInfo) []string {
	switch {
	case len(m.Kind.Key) > 0:
		return m.Kind.Key
	case len(m.Grain) > 0:
		return m.Grain
	case len(info.Columns) > 0:
		return []string{info.Columns[0].Name}
	}
	return nil
}

func hasFold(ss []string, s string) bool { return columnFold(ss, s) != "" }

func columnFold(ss []string, s string) string {
	for _, x := range ss {
		if strings.EqualFold(x, s) {
			return x
		}
	}
	return ""
}

func timeText(t time.Time) string {
	t = t.UTC()
	if t.Equal(t.Truncate(24 * time.Hour)) {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}

// testYAML writes the test file: fixtures and expected rows one flow
// mapping a line, every value quoted text (or null) but integers and
// booleans, so that what the engine wrote comes back as it was.
func testYAML(t *project.UnitTest, m *project.Model, cols []engine.Column, out [][]*string, a *analysis.Analysis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Sampled by efmesh create-test: rows of the parents of %s and what it returns for them.\n", t.Model)
	fmt.Fprintf(&b, "%s:\n  model: %s\n", t.Name, t.Model)
	if t.Interval[0] != "" {
		fmt.Fprintf(&b, "  interval: [%s, %s]\n", yamlString(t.Interval[0]), yamlString(t.Interval[1]))
	}
	b.WriteString("  inputs:\n")
	for _, in := range t.Inputs {
		fmt.Fprintf(&b, "    %s:", yamlKey(in.Model))
		if len(in.Rows) == 0 {
			b.WriteString(" []\n")
			continue
		}
		b.WriteString("\n")
		types := map[string]string{}
		for _, c := range a.Models[in.Model].Columns {
			types[c.Name] = c.Type
		}
		for _, r := range in.Rows {
			cells := make([]string, len(r.Values))
			for i, v := range r.Values {
				var s *string
				if v.Value != nil {
					x := v.Value.(string)
					s = &x
				}
				cells[i] = yamlKey(v.Column) + ": " + yamlValue(s, types[v.Column])
			}
			fmt.Fprintf(&b, "      - {%s}\n", strings.Join(cells, ", "))
		}
	}
	b.WriteString("  expect:")
	if len(out) == 0 {
		b.WriteString(" []\n")
		return b.String()
	}
	b.WriteString("\n")
	for _, r := range out {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = yamlKey(cols[i].Name) + ": " + yamlValue(v, cols[i].Type)
		}
		fmt.Fprintf(&b, "    - {%s}\n", strings.Join(cells, ", "))
	}
	return b.String()
}

var (
	plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)
	plainInt = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,17})$`)
)

// yamlValue is one value: null, a bare integer or boolean where the
// column's type is one, else a double-quoted string.
func yamlValue(v *string, typ string) string {
	if v == nil {
		return "null"
	}
	switch engine.TypeFamily(typ) {
	case "integer":
		if plainInt.MatchString(*v) {
			return *v
		}
	case "boolean":
		if *v == "true" || *v == "false" {
			return *v
		}
	}
	return yamlString(*v)
}

func yamlKey(s string) string {
	if plainKey.MatchString(s) && !slices.Contains([]string{"null", "true", "false", "y", "n", "yes", "no", "on", "off"}, strings.ToLower(s)) {
		return s
	}
	return yamlString(s)
}

// yamlString double-quotes s, escaping what YAML's double-quoted style
// needs; other characters (non-ASCII included) are written as they are.
func yamlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
