package lint

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// Check runs the rules sev turns on over the named models of a (every
// model when names is nil) and returns their findings, sorted by file and
// position. A model whose query could not be read (a syntax error, a
// broken parent) gets only the findings that need no query.
func Check(a *analysis.Analysis, sev Severities, names []string) []project.Diagnostic {
	if names == nil {
		for _, m := range a.Project.Models {
			names = append(names, m.Name)
		}
	}
	var out []project.Diagnostic
	for _, n := range names {
		info := a.Models[n]
		if info == nil || info.Model == nil {
			continue
		}
		c := &checker{a: a, sev: sev, info: info, m: info.Model}
		c.model()
		out = append(out, c.out...)
	}
	project.SortDiagnostics(out)
	return out
}

// checker lints one model.
type checker struct {
	a    *analysis.Analysis
	sev  Severities
	info *analysis.ModelInfo
	m    *project.Model
	t    *text
	out  []project.Diagnostic
}

// report adds a finding of rule at the bytes [start, end) of the model's
// file, unless the rule is off.
func (c *checker) report(rule string, start, end int, msg string, fixes ...project.Fix) {
	s := c.sev[rule]
	if s == 0 {
		return
	}
	d := c.m.Diagnostic(start, end, s, rule, msg)
	d.Fixes = fixes
	d = c.m.MapDiagnostic(d)
	c.out = append(c.out, d)
}

func (c *checker) edit(start, end int, text string) project.TextEdit {
	return project.TextEdit{File: c.m.File, Start: start, End: end, NewText: text}
}

func (c *checker) model() {
	c.contract()
	if c.info.Canonical == nil || c.a.Outliner() == nil || !c.m.Kind.Name.HasBody() {
		return
	}
	o, err := c.a.Outliner().Outline(c.info.Canonical)
	if err != nil || o == nil || o.Query == nil {
		return
	}
	c.t = newText(c.m.Source, c.m.BodyStart)
	c.nondeterministic(o)
	c.filesInBody(o)
	c.t.placeQuery(o.Query, whole(c.t.q), nil, func(p *place) {
		c.unusedCTEs(p)
		if p.q.Kind != engine.Select {
			return
		}
		c.selectStar(p)
		c.unqualifiedColumns(p)
		c.crossJoins(p)
	})
}

// relation is what lint knows of one FROM source.
type relation struct {
	src   engine.Source
	cols  []string // its columns; nil when unknown
	model *project.Model
}

// relations resolves a Select query's FROM sources against the CTEs it
// sees and the project's models.
func (c *checker) relations(p *place) []relation {
	out := make([]relation, len(p.q.From))
	for i, s := range p.q.From {
		r := relation{src: s}
		switch {
		case s.Query != nil:
			r.cols = renamed(outputNames(s.Query), s.Columns)
		case s.Schema == "" && cte(p.visible, s.Table) != nil:
			r.cols = renamed(outputNames(cte(p.visible, s.Table)), s.Columns)
		default:
			if info := c.a.Models[strings.ToLower(s.Schema+"."+s.Table)]; info != nil {
				r.model = info.Model
				for _, col := range info.Columns {
					r.cols = append(r.cols, col.Name)
				}
				r.cols = renamed(r.cols, s.Columns)
			}
		}
		out[i] = r
	}
	return out
}

// renamed is cols with the first len(names) renamed, as a column list
// (AS t(a, b)) does; nil (unknown) stays unknown.
func renamed(cols, names []string) []string {
	if cols == nil || len(names) == 0 {
		return cols
	}
	out := append([]string(nil), cols...)
	for i, n := range names {
		if i < len(out) {
			out[i] = n
		}
	}
	return out
}

// cte is the query of the nearest visible CTE called name; nil for none.
func cte(visible []engine.CTE, name string) *engine.Query {
	for i := len(visible) - 1; i >= 0; i-- {
		if strings.EqualFold(visible[i].Name, name) {
			return visible[i].Query
		}
	}
	return nil
}

// outputNames are the names of a query's output columns; nil when a star
// or a nameless item makes them unknown here.
func outputNames(q *engine.Query) []string {
	if q == nil {
		return nil
	}
	if q.Kind == engine.SetOperation && len(q.Branches) > 0 {
		return outputNames(q.Branches[0])
	}
	var out []string
	for _, it := range q.Items {
		if it.Star || it.Name == "" {
			return nil
		}
		out = append(out, it.Name)
	}
	return out
}

func hasName(names []string, n string) bool {
	return slices.ContainsFunc(names, func(x string) bool { return strings.EqualFold(x, n) })
}

// ident spells a name for SQL as every writer of names does
// (sqlscan.WriteIdent): bare when plain lower case and not a keyword,
// quoted (keeping its case) otherwise.
func ident(n string) string { return sqlscan.WriteIdent(n) }

// --- no_select_star ---

func (c *checker) selectStar(p *place) {
	t := c.t
	// The stars of the select list, in order: the * of a bare * or of
	// rel.*, as sqlread reads the items.
	var stars []int
	for _, it := range p.r.Items {
		if it.Star {
			stars = append(stars, t.index(it.StarEnd)-1)
		}
	}
	// FROM x without a select list (DuckDB's FROM-first) is SELECT *: its
	// star is the FROM keyword, with nothing to expand in place.
	fromOnly := len(stars) == 0 && p.sel.empty() && !p.from.empty() && p.from.lo > 0 && t.kw(p.from.lo-1, "from")
	if fromOnly {
		stars = []int{p.from.lo - 1}
	}
	rels := c.relations(p)
	k := 0
	for _, it := range p.q.Items {
		if !it.Star {
			continue
		}
		at := -1
		if k < len(stars) {
			at = stars[k]
		}
		k++
		var covered []relation
		for _, r := range rels {
			if it.StarOf == "" || strings.EqualFold(r.src.Name(), it.StarOf) {
				covered = append(covered, r)
			}
		}
		var parents []string
		for _, r := range covered {
			if r.model != nil && r.model.Kind.Name != project.KindExternal {
				parents = append(parents, r.model.Name)
			}
		}
		if len(parents) == 0 || at < 0 {
			continue
		}
		start, end := t.start(at), t.end(at)
		if it.StarOf != "" && t.punct(at-1, ".") && at >= 2 {
			start = t.start(at - 2)
		}
		msg := fmt.Sprintf("SELECT * over %s: list the columns, so that a change of the parent does not silently change this model", strings.Join(parents, ", "))
		var fixes []project.Fix
		if len(covered) == 1 && covered[0].cols != nil && !fromOnly {
			fixes = c.expandStar(at, start, end, it, covered[0])
		}
		c.report(NoSelectStar, start, end, msg, fixes...)
	}
}

// expandStar replaces a star (and its EXCLUDE list) by the columns it
// yields.
func (c *checker) expandStar(at, start, end int, it engine.Item, r relation) []project.Fix {
	t := c.t
	i := at + 1
	if t.kw(i, "exclude") {
		switch {
		case t.punct(i+1, "(") && t.match[i+1] > 0:
			end = t.end(t.match[i+1])
		case t.name(i+1) != "":
			end = t.end(i + 1)
		default:
			return nil
		}
		i = -1
	}
	if i >= 0 && t.kwIn(i, "replace", "rename", "columns") {
		return nil
	}
	qual := ""
	if it.StarOf != "" {
		qual = ident(it.StarOf) + "."
	}
	var cols []string
	for _, col := range r.cols {
		if !hasName(it.Exclude, col) {
			cols = append(cols, qual+ident(col))
		}
	}
	if len(cols) == 0 {
		return nil
	}
	return []project.Fix{{Title: "Expand * to the columns of " + r.src.Name(), Edits: []project.TextEdit{c.edit(start, end, strings.Join(cols, ", "))}}}
}

// --- unqualified_column ---

func (c *checker) unqualifiedColumns(p *place) {
	if len(p.q.From) < 2 || c.sev[UnqualifiedColumn] == 0 {
		return
	}
	var using []string
	for _, s := range p.q.From {
		if s.Join == "natural" {
			return
		}
		using = append(using, s.Using...)
	}
	rels := c.relations(p)
	used := map[int]bool{}
	for _, it := range p.q.Items {
		c.unqualified(p, rels, using, it.Refs, c.bareNames(p.sel), used)
	}
	for _, s := range p.q.From {
		c.unqualified(p, rels, using, s.On, c.bareNames(p.from), used)
	}
	// WHERE, GROUP BY, HAVING, WINDOW, QUALIFY, ORDER BY; a name the select
	// list gives to an expression is the expression's there, not a column.
	var reads []engine.ColumnRef
	for _, ref := range p.q.Reads {
		if !hasName(exprAliases(p.q), ref.Column) {
			reads = append(reads, ref)
		}
	}
	c.unqualified(p, rels, using, reads, c.bareNames(p.rest), used)
}

// exprAliases are the names the select list gives to what is not the
// column of that name.
func exprAliases(q *engine.Query) []string {
	var out []string
	for _, it := range q.Items {
		if it.Name != "" && !(len(it.Refs) == 1 && strings.EqualFold(it.Refs[0].Column, it.Name)) {
			out = append(out, it.Name)
		}
	}
	return out
}

// bareNames are the tokens of s that are unqualified names (not a
// qualifier, a function or an alias), outside subqueries, in order.
func (c *checker) bareNames(s span) []int {
	t := c.t
	var words []int
	for i := s.lo; i < s.hi; i++ {
		if t.punct(i, "(") && t.match[i] > i && t.kwIn(i+1, "select", "with", "from", "values") {
			i = t.match[i]
			continue
		}
		if t.name(i) != "" && !t.punct(i-1, ".") && !t.punct(i+1, ".") && !t.punct(i+1, "(") && !t.kw(i-1, "as") {
			words = append(words, i)
		}
	}
	return words
}

// unqualified reports each of refs that names, unqualified, a column only
// one of rels has, at the first unused of words that spells it.
func (c *checker) unqualified(p *place, rels []relation, using []string, refs []engine.ColumnRef, words []int, used map[int]bool) {
	t := c.t
	for _, ref := range refs {
		if ref.Qualifier != "" || len(ref.Path) > 0 || hasName(using, ref.Column) {
			continue
		}
		var owners []relation
		for _, r := range rels {
			if hasName(r.cols, ref.Column) {
				owners = append(owners, r)
			}
		}
		if len(owners) != 1 {
			// None: an alias of the select list, or a column lint cannot
			// place. Several: the engine's binder refuses the query and the
			// check reports it as an error with one fix per qualifier.
			continue
		}
		at := -1
		for _, w := range words {
			if !used[w] && t.isName(w, ref.Column) {
				at = w
				break
			}
		}
		if at < 0 {
			continue
		}
		used[at] = true
		var names []string
		var fixes []project.Fix
		for _, r := range owners {
			names = append(names, r.src.Name())
			q := ident(r.src.Name())
			if r.model != nil && r.src.Alias == "" {
				// An unaliased ref renders with an implicit alias:
				// its table name, <schema>__<table> where another
				// unaliased ref of the scope has the same one.
				q = ident(implicitAlias(r, rels))
			}
			fixes = append(fixes, project.Fix{Title: "Qualify as " + q + "." + t.written(at),
				Edits: []project.TextEdit{c.edit(t.start(at), t.start(at), q+".")}})
		}
		msg := fmt.Sprintf("column %s is not qualified in a query that reads %d relations; it is %s's", t.written(at), len(rels), names[0])
		c.report(UnqualifiedColumn, t.start(at), t.end(at), msg, fixes...)
	}
}

// implicitAlias is the alias an unaliased ref r renders with (see
// analysis.RenderBody): the model's table name, or <schema>__<table> when
// another unaliased ref among rels is to a model of the same table name.
func implicitAlias(r relation, rels []relation) string {
	schema, table, _ := strings.Cut(r.model.Name, ".")
	for _, o := range rels {
		if o.model == nil || o.src.Alias != "" || o.model == r.model {
			continue
		}
		if _, ot, _ := strings.Cut(o.model.Name, "."); strings.EqualFold(ot, table) {
			return schema + "__" + table
		}
	}
	return table
}

// --- unused_cte ---

func (c *checker) unusedCTEs(p *place) {
	t := c.t
	for k, d := range p.ctes {
		used := false
		for i := d.close + 1; i < len(t.toks) && !used; i++ {
			used = t.isName(i, d.cte.Name) && !t.kwIn(i-1, "as")
		}
		if used {
			continue
		}
		// Delete the CTE with its comma; the WITH too when it is the only one.
		var start, end int
		switch {
		case len(p.ctes) == 1:
			start, end = t.start(p.withAt), skipBlanks(c.m.Source, t.end(d.close), true)
		case !d.final:
			start, end = t.start(d.name), t.start(p.ctes[k+1].name)
		default:
			start, end = t.end(p.ctes[k-1].close), t.end(d.close)
		}
		c.report(UnusedCTE, t.start(d.name), t.end(d.name), fmt.Sprintf("CTE %s is never read", t.written(d.name)),
			project.Fix{Title: "Delete CTE " + t.written(d.name), Edits: []project.TextEdit{c.edit(start, end, "")}})
	}
}

// skipBlanks moves past the spaces after end (and one line break when
// whole) so that deleting a part leaves no blank gap.
func skipBlanks(src []byte, end int, whole bool) int {
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	if whole && end < len(src) && src[end] == '\n' {
		end++
	}
	return end
}

// --- missing_columns_contract ---

func (c *checker) contract() {
	switch c.m.Kind.Name {
	case project.KindFull, project.KindIncrementalByTimeRange, project.KindIncrementalByUniqueKey, project.KindSCDType2:
	default:
		return
	}
	if c.m.Columns != nil {
		return
	}
	r := c.m.NameRange
	if r.End.Offset <= r.Start.Offset {
		r = c.m.Header
	}
	var fixes []project.Fix
	if e, ok := c.declareColumns(); ok {
		fixes = append(fixes, project.Fix{Title: "Declare columns (…) from the query", Edits: []project.TextEdit{e}})
	}
	c.report(MissingColumnsContract, r.Start.Offset, r.End.Offset,
		fmt.Sprintf("%s model %s declares no columns (…): its schema is whatever its query yields today", c.m.Kind.Name, c.m.Name), fixes...)
}

// declareColumns adds `columns (...)` with the inferred schema as the last
// header property.
func (c *checker) declareColumns() (project.TextEdit, bool) {
	m := c.m
	cols := c.info.Inferred
	if len(cols) == 0 || len(m.Properties) == 0 {
		return project.TextEdit{}, false
	}
	entries := make([]string, len(cols))
	for i, col := range cols {
		entries[i] = ident(col.Name) + " " + col.Type
	}
	last := m.Properties[len(m.Properties)-1]
	at := last.Range.End.Offset
	sep := ", "
	if bytes.Contains(m.Source[m.Header.Start.Offset:at], []byte("\n")) {
		ls := bytes.LastIndexByte(m.Source[:last.Range.Start.Offset], '\n') + 1
		sep = ",\n" + string(m.Source[ls:last.Range.Start.Offset])
	}
	return c.edit(at, at, sep+"columns ("+strings.Join(entries, ", ")+")"), true
}

// --- nondeterministic_incremental ---

// nondeterministic are the functions whose result differs between two runs
// over the same input, as the engines name them.
var nondeterministic = []string{
	"now", "current_timestamp", "get_current_timestamp", "transaction_timestamp", "statement_timestamp", "clock_timestamp",
	"current_date", "current_time", "get_current_time", "localtimestamp", "localtime", "today",
	"random", "uuid", "gen_random_uuid", "uuidv4", "uuidv7", "setseed",
}

// bareCalls are the nondeterministic functions SQL calls without parens.
var bareCalls = []string{"current_timestamp", "current_date", "current_time", "localtimestamp", "localtime"}

func (c *checker) nondeterministic(o *engine.Outline) {
	switch c.m.Kind.Name {
	case project.KindIncrementalByTimeRange, project.KindIncrementalByUniqueKey:
	default:
		return
	}
	var called []string
	for _, f := range o.Calls {
		if slices.Contains(nondeterministic, f) {
			called = append(called, f)
		}
	}
	if len(called) == 0 {
		return
	}
	t := c.t
	found := false
	for i := range t.toks {
		w := t.toks[i].Val
		if t.toks[i].Kind != sqlscan.Ident || !slices.Contains(nondeterministic, w) || t.punct(i-1, ".") {
			continue
		}
		if !t.punct(i+1, "(") && !slices.Contains(bareCalls, w) {
			continue
		}
		found = true
		call := t.written(i)
		if t.punct(i+1, "(") {
			call += "()"
		}
		c.report(NondeterministicIncremental, t.start(i), t.end(i),
			fmt.Sprintf("%s in %s model %s: each interval is computed once, so a re-run or restatement yields other rows; use @start/@end or a column of the input", call, c.m.Kind.Name, c.m.Name))
	}
	if !found {
		r := c.m.NameRange
		c.report(NondeterministicIncremental, r.Start.Offset, r.End.Offset,
			fmt.Sprintf("%s model %s calls %s: each interval is computed once, so a re-run or restatement yields other rows", c.m.Kind.Name, c.m.Name, strings.Join(called, ", ")))
	}
}

// --- implicit_cross_join ---

func (c *checker) crossJoins(p *place) {
	if len(p.q.From) < 2 || p.from.empty() {
		return
	}
	t := c.t
	// The sources as written, each with the comma or JOIN before it.
	srcs := p.r.Sources
	if len(srcs) != len(p.q.From) {
		return
	}
	rels := c.relations(p)
	for k, s := range p.q.From[1:] {
		sep := t.index(srcs[k+1].JoinStart)
		if s.Join != "cross" || srcs[k+1].Join != "," || t.kw(sep+1, "lateral") {
			continue
		}
		if s.Query == nil && s.Table == "" {
			continue // a table function (unnest(o.items), …) reads the rows before it
		}
		if s.Query != nil && correlated(s.Query, rels[:k+1]) {
			continue // a lateral subquery: its WHERE is the join predicate
		}
		if c.linked(p, rels, k+1) {
			continue
		}
		// A side of one row is no hazard: each row meets that one row.
		if c.oneRow(p, k+1) || c.oneRowEach(p, k+1) {
			continue
		}
		var before []string
		for _, r := range rels[:k+1] {
			before = append(before, r.src.Name())
		}
		c.report(ImplicitCrossJoin, t.start(sep), t.end(min(sep+1, len(t.toks)-1)),
			fmt.Sprintf("%s is joined to %s with a comma and no WHERE predicate links them: every row meets every row; write JOIN … ON, or CROSS JOIN if that is meant", s.Name(), strings.Join(before, ", ")),
			project.Fix{Title: "Make it an explicit CROSS JOIN", Edits: []project.TextEdit{c.edit(t.start(sep), t.end(sep), " CROSS JOIN")}})
	}
}

// oneRow reports whether FROM source i of p yields at most one row: a
// subquery or CTE that aggregates without GROUP BY, selects without FROM,
// ends in LIMIT 1, or is a VALUES list of one row.
func (c *checker) oneRow(p *place, i int) bool {
	s := p.q.From[i]
	q, r := s.Query, p.r.Sources[i].Sub
	if q == nil && s.Schema == "" {
		if d := p.r.Sources[i].CTE; d != nil {
			q, r = cte(p.visible, s.Table), d.Query
		}
	}
	if q == nil || r == nil {
		return false
	}
	return c.t.limitOne(r) || c.t.oneValuesRow(r) || aggregatesOnly(q)
}

// oneRowEach reports whether each of p's first n FROM sources yields at
// most one row.
func (c *checker) oneRowEach(p *place, n int) bool {
	for i := range n {
		if !c.oneRow(p, i) {
			return false
		}
	}
	return true
}

// aggregatesOnly reports whether q is a plain SELECT that yields one row:
// without FROM, or aggregating without GROUP BY, and calling no function
// that yields rows of its own (unnest(…) in the select list).
func aggregatesOnly(q *engine.Query) bool {
	if q.Kind != engine.Select || q.Grouped || q.GroupAll || len(q.Items) == 0 {
		return false
	}
	agg := false
	for _, it := range q.Items {
		if it.Star || it.Expands {
			return false
		}
		for _, f := range it.Calls {
			if slices.Contains(rowMakers, f) {
				return false
			}
			agg = agg || slices.Contains(aggregates, f)
		}
	}
	return agg || noFrom(q)
}

// noFrom reports whether q has no FROM clause (an engine may give it one
// empty source).
func noFrom(q *engine.Query) bool {
	for _, s := range q.From {
		if s.Table != "" || s.Query != nil || s.Function != "" || s.Pivot != nil {
			return false
		}
	}
	return true
}

// aggregates are the aggregate functions of DuckDB and PostgreSQL a query
// that yields one row calls: a select list with one of them outside a
// window and no GROUP BY aggregates its input to one row. A function not
// named here leaves the rule as cautious as before.
var aggregates = []string{
	"count", "count_star", "sum", "avg", "mean", "min", "max", "any_value", "arbitrary", "first", "last",
	"arg_min", "arg_max", "argmin", "argmax", "min_by", "max_by", "median", "mode", "quantile", "quantile_cont", "quantile_disc",
	"percentile_cont", "percentile_disc", "approx_count_distinct", "approx_quantile", "reservoir_quantile",
	"stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "corr", "covar_pop", "covar_samp",
	"regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy",
	"bool_and", "bool_or", "every", "bit_and", "bit_or", "bit_xor", "string_agg", "listagg", "group_concat", "array_agg", "list",
	"json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg", "histogram", "product", "fsum", "favg", "sumkahan", "kahan_sum",
	"geomean", "geometric_mean", "entropy", "kurtosis", "kurtosis_pop", "skewness", "bitstring_agg",
}

// rowMakers are the functions that yield several rows from a select list.
var rowMakers = []string{"unnest", "generate_series", "generate_subscripts", "range", "json_each", "regexp_split_to_table"}

// linked reports whether the WHERE clause reads a column of relation k and
// one of a relation before it. An unqualified column no relation is known
// to have may be one of a relation whose columns are unknown here (a
// subquery's *): it may link those, so no cross join is claimed.
func (c *checker) linked(p *place, rels []relation, k int) bool {
	owners := func(ref engine.ColumnRef) []int {
		if ref.Qualifier != "" {
			for i, r := range rels {
				if strings.EqualFold(r.src.Name(), ref.Qualifier) {
					return []int{i}
				}
			}
			return nil
		}
		for i, r := range rels {
			if hasName(r.cols, ref.Column) {
				return []int{i}
			}
		}
		var unknown []int
		for i, r := range rels {
			if r.cols == nil {
				unknown = append(unknown, i)
			}
		}
		return unknown
	}
	this, earlier := false, false
	for _, ref := range p.q.Where {
		for _, i := range owners(ref) {
			switch {
			case i == k:
				this = true
			case i < k:
				earlier = true
			}
		}
	}
	return this && earlier
}

// correlated reports whether q (or a query below it) reads a column of one
// of rels by its qualifier: a subquery joined laterally.
func correlated(q *engine.Query, rels []relation) bool {
	if q == nil {
		return false
	}
	reads := func(refs []engine.ColumnRef) bool {
		return slices.ContainsFunc(refs, func(r engine.ColumnRef) bool {
			return r.Qualifier != "" && slices.ContainsFunc(rels, func(rel relation) bool { return strings.EqualFold(rel.src.Name(), r.Qualifier) })
		})
	}
	if reads(q.Where) {
		return true
	}
	for _, it := range q.Items {
		if reads(it.Refs) {
			return true
		}
	}
	for _, s := range q.From {
		if reads(s.On) || correlated(s.Query, rels) {
			return true
		}
	}
	for _, b := range q.Branches {
		if correlated(b, rels) {
			return true
		}
	}
	for _, c := range q.CTEs {
		if correlated(c.Query, rels) {
			return true
		}
	}
	return false
}

// filesInBody finds the files a body reads by name: they are inputs the
// check and the plan follow, but only an EXTERNAL model declares their
// columns once, for every consumer and the editor.
func (c *checker) filesInBody(o *engine.Outline) {
	for _, f := range o.Files {
		lit := "'" + strings.ReplaceAll(f, "'", "''") + "'"
		start := c.m.BodyStart
		if i := strings.Index(string(c.m.Source[c.m.BodyStart:]), lit); i >= 0 {
			start += i
		}
		c.report(FileInBody, start, start+len(lit), fmt.Sprintf("%s reads the file %s directly: declare an EXTERNAL model (kind EXTERNAL (files '%s', …)) and read it with @ref, so its columns are declared once", c.m.Name, f, f))
	}
}
