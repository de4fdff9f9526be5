package analysis

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// ColumnRef names a column of a model.
type ColumnRef struct {
	Model  string `json:"model"`
	Column string `json:"column"`
	// Field is the struct field of Column that is read (name_parts.first),
	// "" for the whole column.
	Field string `json:"field,omitempty"`
}

// LineageNode is a model (or one of its columns) with what it is computed
// from, down to models that read no other model (raw sources).
type LineageNode struct {
	Model   string         `json:"model"`
	Column  string         `json:"column,omitempty"`
	Field   string         `json:"field,omitempty"`
	Kind    string         `json:"kind"`
	File    string         `json:"file"`
	Sources []*LineageNode `json:"sources"`
}

// Lineage traces a model, or one of its columns when column is not empty,
// to its raw sources. Column lineage reads the engine's outline of the
// canonical form: select items, aliases, CTEs, subqueries, joins, set
// operations and `*` (with EXCLUDE) are followed, struct fields
// (s.f, s['f'], struct_extract) to the field's value where a model builds
// the struct ({'f': …}, struct_pack) and to the struct column elsewhere,
// unnest (in the select list or FROM, lateral or not) to the list it
// expands; anything it cannot follow is left out rather than guessed.
func Lineage(a *Analysis, model, column string) (*LineageNode, error) {
	return FieldLineage(a, model, column, "")
}

// FieldLineage is Lineage of one struct field of a column (the whole
// column when field is "").
func FieldLineage(a *Analysis, model, column, field string) (*LineageNode, error) {
	info := a.Models[model]
	if info == nil {
		return nil, fmt.Errorf("unknown model %q%s", model, DidYouMean(model, a.Models))
	}
	if column != "" {
		// Matched as the engine matches names (ASCII case only), shown as
		// the model yields it.
		name, ok := modelColumnName(info, column)
		if !ok {
			return nil, fmt.Errorf("model %s has no column %s (it has %s)", model, ShowName(column), strings.Join(shownNames(columnNames(info)), ", "))
		}
		column = name
	}
	if field != "" {
		if err := checkField(info, model, column, field); err != nil {
			return nil, err
		}
	}
	return lineage(a, ColumnRef{Model: model, Column: column, Field: field}, map[ColumnRef]bool{}), nil
}

// checkField checks that a struct column has the field path field
// (first, or a.b for a struct in a struct); any path of a JSON column.
func checkField(info *ModelInfo, model, column, field string) error {
	typ := ""
	for _, c := range info.Columns {
		if sqlscan.SameName(c.Name, column) {
			typ = c.Type
		}
	}
	in := column
	for _, f := range strings.Split(field, ".") {
		if t := strings.ToLower(typ); t == "json" || t == "jsonb" {
			// A JSON value's keys are not in its type (Postgres' object
			// built with jsonb_build_object, read with ->>).
			return nil
		}
		names := engine.StructFields(typ)
		if names == nil {
			return fmt.Errorf("model %s: %s is not a struct (it is %s), so it has no field %s", model, in, typ, f)
		}
		t, ok := engine.StructFieldType(typ, f)
		if !ok {
			msg := fmt.Sprintf("model %s has no field %s in %s", model, f, in)
			if s, ok := project.DidYouMean(f, names); ok {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else {
				msg += fmt.Sprintf(" (it has %s)", strings.Join(names, ", "))
			}
			return errors.New(msg)
		}
		typ, in = t, in+"."+f
	}
	return nil
}

// ParseColumnPath reads a lineage argument as the lineage output prints
// it: model, model.column or model.column.field (field may go deeper,
// a.b); a part may be double-quoted ("Käufer"). The model is the longest
// leading run of parts the analysis has as a model; without one, the whole
// name is returned as the (unknown) model, so the error suggests the model
// meant. An empty part (a trailing dot) is an error.
func ParseColumnPath(a *Analysis, name string) (model, column, field string, err error) {
	parts, err := splitPath(name)
	if err != nil {
		return "", "", "", err
	}
	for i := len(parts); i >= 1; i-- {
		m := strings.Join(parts[:i], ".")
		if a.Models[m] == nil {
			continue
		}
		if i < len(parts) {
			column = parts[i]
		}
		if i+1 < len(parts) {
			field = strings.Join(parts[i+1:], ".")
		}
		return m, column, field, nil
	}
	return name, "", "", nil
}

// splitPath splits a dotted name outside double quotes, unquoting the
// quoted parts.
func splitPath(name string) ([]string, error) {
	var parts []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '"' && quoted && i+1 < len(name) && name[i+1] == '"':
			b.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		case c == '.' && !quoted:
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return nil, fmt.Errorf("%s: a double quote is not closed", name)
	}
	parts = append(parts, b.String())
	for _, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("%s: an empty name part (write model, model.column or model.column.field, without a leading, trailing or double dot)", name)
		}
	}
	return parts, nil
}

func lineage(a *Analysis, ref ColumnRef, seen map[ColumnRef]bool) *LineageNode {
	model, column := ref.Model, ref.Column
	info := a.Models[model]
	n := &LineageNode{Model: model, Column: column, Field: ref.Field, Sources: []*LineageNode{}}
	if info == nil {
		return n
	}
	n.Kind, n.File = string(info.Model.Kind.Name), info.Model.File
	key := ref
	if seen[key] {
		return n
	}
	seen[key] = true
	defer delete(seen, key)
	if column == "" {
		for _, r := range info.Model.Refs() {
			n.Sources = append(n.Sources, lineage(a, ColumnRef{Model: r}, seen))
		}
		return n
	}
	for _, src := range FieldSources(a, model, column, ref.Field) {
		n.Sources = append(n.Sources, lineage(a, src, seen))
	}
	return n
}

// ColumnSources returns the parent columns a model's column is computed
// from directly (one step up), sorted.
func ColumnSources(a *Analysis, model, column string) []ColumnRef {
	return FieldSources(a, model, column, "")
}

// FieldSources returns what a model's column, or one field of it when
// field is not empty, is computed from directly, sorted. A field of a
// struct the model builds comes from that field's value; a field of a
// struct the model passes through comes from the same field upstream.
func FieldSources(a *Analysis, model, column, field string) []ColumnRef {
	info := a.Models[model]
	if info == nil {
		return nil
	}
	o := a.outline(info.Canonical)
	if o == nil {
		return nil
	}
	lt := &lineageTracer{a: a}
	set := map[ColumnRef]bool{}
	for _, out := range lt.yielded(o.Query, columnNames(info)) {
		if strings.EqualFold(out.name, column) {
			for _, s := range out.field(field) {
				set[s] = true
			}
		}
	}
	out := make([]ColumnRef, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sortRefs(out)
	return out
}

// AllColumnSources is ColumnSources of every column of a model, keyed
// by the column's name as the model yields it, reading the model's
// outline once (ColumnSources reads it per column): what a page of every
// column's lineage needs.
func AllColumnSources(a *Analysis, model string) map[string][]ColumnRef {
	info := a.Models[model]
	if info == nil {
		return nil
	}
	o := a.outline(info.Canonical)
	if o == nil {
		return nil
	}
	lt := &lineageTracer{a: a}
	outs := lt.yielded(o.Query, columnNames(info))
	res := map[string][]ColumnRef{}
	for _, c := range info.Columns {
		set := map[ColumnRef]bool{}
		for _, out := range outs {
			if strings.EqualFold(out.name, c.Name) {
				for _, s := range out.field("") {
					set[s] = true
				}
			}
		}
		refs := make([]ColumnRef, 0, len(set))
		for s := range set {
			refs = append(refs, s)
		}
		sortRefs(refs)
		res[c.Name] = refs
	}
	return res
}

func sortRefs(out []ColumnRef) {
	sort.Slice(out, func(i, j int) bool {
		if out[i].Model != out[j].Model {
			return out[i].Model < out[j].Model
		}
		if out[i].Column != out[j].Column {
			return out[i].Column < out[j].Column
		}
		return out[i].Field < out[j].Field
	})
}

// outline is the engine's outline of a canonical form; nil for none or
// one the engine cannot read.
func (a *Analysis) outline(canonical []byte) *engine.Outline {
	if canonical == nil || a.outliner == nil {
		return nil
	}
	o, err := a.outliner.Outline(canonical)
	if err != nil {
		return nil
	}
	return o
}

// modelColumnName is a model's column named column, as the model yields
// it; names match as the engine matches them (sqlscan.SameName).
func modelColumnName(info *ModelInfo, column string) (string, bool) {
	for _, c := range info.Columns {
		if sqlscan.SameName(c.Name, column) {
			return c.Name, true
		}
	}
	return "", false
}

// ShowName writes a column or field name as the engine keeps it, quoted
// unless it is plain lower case and not a keyword (sqlscan.WriteIdent), so
// that it reads back as the same name: "Käufer", "Two Words", "select".
func ShowName(name string) string { return sqlscan.WriteIdent(name) }

func shownNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ShowName(n)
	}
	return out
}

// ShowPath writes model.column.field for lineage output, each name part
// as ShowName writes it; ParseColumnPath reads it back.
func ShowPath(model, column, field string) string {
	out := model
	if column != "" {
		out += "." + ShowName(column)
	}
	if field != "" {
		for _, f := range strings.Split(field, ".") {
			out += "." + ShowName(f)
		}
	}
	return out
}

func columnNames(info *ModelInfo) []string {
	out := make([]string, len(info.Columns))
	for i, c := range info.Columns {
		out[i] = c.Name
	}
	return out
}

type outCol struct {
	name string
	srcs []ColumnRef
	// pass: the column is another's value unchanged (a bare reference),
	// so a field of it is the same field of its source.
	pass bool
	// same: the column's values are its sources' values unchanged, all
	// the way down (bare references through CTEs, subqueries and set
	// operations), not computed from them (sum(x), rank() OVER (…)): what
	// a join on it matches parents' rows by (JoinKeys).
	same bool
	// fields: the sources of each field of a struct the item builds,
	// by lower-case name.
	fields map[string][]ColumnRef
}

// field is where a field of the column comes from ("" for the whole
// column): the built field's value, the same field of a passed-through
// column, or else the whole column's sources.
func (c outCol) field(f string) []ColumnRef {
	if f == "" {
		return c.srcs
	}
	if fs, ok := c.fields[strings.ToLower(f)]; ok {
		return fs
	}
	if !c.pass {
		return c.srcs
	}
	out := make([]ColumnRef, len(c.srcs))
	for i, s := range c.srcs {
		if s.Field == "" {
			s.Field = f
		}
		out[i] = s
	}
	return out
}

type relation struct {
	name string // alias, or the table name
	cols []outCol
}

// cteScope maps CTE names visible at a query to their outputs.
type cteScope map[string][]outCol

type lineageTracer struct {
	a     *Analysis
	depth int
}

// outputs computes the output columns of a query with their sources.
func (lt *lineageTracer) outputs(q *engine.Query, ctes cteScope) []outCol {
	if q == nil || lt.depth > 64 {
		return nil
	}
	lt.depth++
	defer func() { lt.depth-- }()
	scope := cteScope{}
	for k, v := range ctes {
		scope[k] = v
	}
	for _, c := range q.CTEs {
		scope[strings.ToLower(c.Name)] = lt.cteOutputs(c, scope)
	}
	switch q.Kind {
	case engine.SetOperation:
		// Columns are the first branch's, fed by every branch's column at
		// the same position.
		var outs []outCol
		for i, b := range q.Branches {
			bo := lt.outputs(b, scope)
			if i == 0 {
				outs = bo
				continue
			}
			for j := range outs {
				if j < len(bo) {
					outs[j].srcs = append(outs[j].srcs, bo[j].srcs...)
					outs[j].same = outs[j].same && bo[j].same
				} else {
					outs[j].same = false
				}
			}
		}
		return outs
	case engine.Select:
	default:
		return nil
	}
	var rels []relation
	for _, src := range q.From {
		rels = append(rels, lt.relation(src, scope, rels))
	}
	var outs []outCol
	for _, item := range q.Items {
		outs = append(outs, lt.itemOutputs(item, rels)...)
	}
	return outs
}

// cteOutputs are a CTE's output columns, named by its column list. A
// recursive CTE's are its anchor's, each also fed by the recursive part's
// column at the same position, the part reading the CTE's name as the
// anchor's columns (what a row of it is made of, however deep).
func (lt *lineageTracer) cteOutputs(c engine.CTE, scope cteScope) []outCol {
	q := c.Query
	if q == nil || q.Kind != engine.RecursiveCTE || len(q.Branches) != 2 {
		return renamed(lt.outputs(q, scope), c.Columns)
	}
	outs := renamed(lt.outputs(q.Branches[0], scope), c.Columns)
	inner := cteScope{}
	for k, v := range scope {
		inner[k] = v
	}
	inner[strings.ToLower(c.Name)] = outs
	rec := lt.outputs(q.Branches[1], inner)
	merged := make([]outCol, len(outs))
	for j, o := range outs {
		o.srcs = append([]ColumnRef(nil), o.srcs...)
		if j < len(rec) {
			o.srcs = append(o.srcs, rec[j].srcs...)
			o.same = o.same && rec[j].same
		} else {
			o.same = false
		}
		merged[j] = o
	}
	return merged
}

// itemOutputs are the columns one select item yields, with their
// sources: a star's (or an expression over COLUMNS(…)'s) every column it
// may cover, by name; which of them the engine really yields only the
// bound query says (yielded).
func (lt *lineageTracer) itemOutputs(item engine.Item, rels []relation) []outCol {
	if item.Star {
		return starColumns(item, rels)
	}
	var refs []ColumnRef
	for _, ref := range item.Refs {
		refs = append(refs, resolveColumn(ref, rels)...)
	}
	if item.Expands {
		// The engine names each column of max(COLUMNS(…)) after the
		// column it expands to; with an alias (a pattern such as
		// "max_\0") the names are the engine's to say, so none is
		// followed rather than guessed.
		if item.Name != "" {
			return nil
		}
		var outs []outCol
		for _, c := range starColumns(engine.Item{StarOf: item.StarOf, Exclude: item.Exclude}, rels) {
			outs = append(outs, outCol{name: c.name, srcs: append(append([]ColumnRef(nil), c.srcs...), refs...)})
		}
		return outs
	}
	oc := outCol{name: item.Name, srcs: refs, pass: item.Plain}
	oc.same = item.Plain && len(item.Refs) == 1 && sameColumn(item.Refs[0], rels)
	for _, f := range item.Fields {
		if oc.fields == nil {
			oc.fields = map[string][]ColumnRef{}
		}
		var fs []ColumnRef
		for _, ref := range f.Refs {
			fs = append(fs, resolveColumn(ref, rels)...)
		}
		oc.fields[strings.ToLower(f.Name)] = fs
	}
	return []outCol{oc}
}

// yielded is the top-level query's outputs as the engine yields them
// (names, the bound query's column list): with at most one item that
// expands a star or COLUMNS(…), the items before and after it yield one
// column each, so the columns between are its expansion, each traced to
// the column of that name it covers. Otherwise (several expansions, or
// no column list) the outputs by name.
func (lt *lineageTracer) yielded(q *engine.Query, names []string) []outCol {
	outs := lt.outputs(q, nil)
	if q == nil || len(names) == 0 {
		return outs
	}
	first := q
	for first.Kind == engine.SetOperation && len(first.Branches) > 0 && first.Branches[0] != nil {
		first = first.Branches[0]
	}
	if first.Kind != engine.Select {
		return outs
	}
	at := -1
	for i, it := range first.Items {
		if it.Star || it.Expands {
			if at >= 0 {
				return outs
			}
			at = i
		}
	}
	if at < 0 {
		// One column per item, in order: an item the query does not
		// name (sum(x), a CASE) is called what the engine calls it.
		if len(outs) == len(names) {
			for i := range outs {
				outs[i].name = names[i]
			}
		}
		return outs
	}
	if q != first {
		return outs
	}
	n := len(names) - (len(q.Items) - 1)
	if n < 0 {
		return outs
	}
	lt.depth++
	defer func() { lt.depth-- }()
	scope := cteScope{}
	for _, c := range q.CTEs {
		scope[strings.ToLower(c.Name)] = lt.cteOutputs(c, scope)
	}
	var rels []relation
	for _, src := range q.From {
		rels = append(rels, lt.relation(src, scope, rels))
	}
	var out []outCol
	for i, it := range q.Items {
		cols := lt.itemOutputs(it, rels)
		if i != at {
			if len(cols) != 1 {
				return outs
			}
			c := cols[0]
			c.name = names[len(out)]
			out = append(out, c)
			continue
		}
		for _, name := range names[len(out) : len(out)+n] {
			c := outCol{name: name}
			for _, cand := range cols {
				if sqlscan.SameName(cand.name, name) {
					c = cand
					break
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// renamed is cols with the first len(names) renamed, as a column list
// does (AS t(a, b), WITH c(a, b) AS …); cols itself is left as it is (a
// CTE's outputs serve each reference).
func renamed(cols []outCol, names []string) []outCol {
	if len(names) == 0 {
		return cols
	}
	out := append([]outCol(nil), cols...)
	for i, n := range names {
		if i < len(out) {
			out[i].name = n
		}
	}
	return out
}

// relation is what one FROM source binds: a model's columns, a CTE's or a
// subquery's outputs, a table function's columns (unnest's from the list
// it expands, read in the relations before it), or a name without known
// columns.
func (lt *lineageTracer) relation(src engine.Source, ctes cteScope, before []relation) relation {
	name := src.Name()
	if src.Pivot != nil {
		return relation{name: name, cols: renamed(lt.pivotColumns(src.Pivot, ctes, before), src.Columns)}
	}
	if src.Function != "" {
		var srcs []ColumnRef
		for _, ref := range src.Args {
			srcs = append(srcs, resolveColumn(ref, before)...)
		}
		names := src.Columns
		if len(names) == 0 {
			// Unaliased, the column is named after the relation.
			names = []string{name}
			if src.Alias == "" {
				names = []string{src.Function}
			}
		}
		r := relation{name: name}
		if src.Alias == "" {
			r.name = src.Function
		}
		for _, n := range names {
			r.cols = append(r.cols, outCol{name: n, srcs: srcs})
		}
		return r
	}
	if src.Query != nil {
		return relation{name: name, cols: renamed(lt.outputs(src.Query, ctes), src.Columns)}
	}
	if src.Table == "" {
		return relation{name: name}
	}
	if src.Schema == "" {
		if cols, ok := ctes[strings.ToLower(src.Table)]; ok {
			return relation{name: name, cols: renamed(cols, src.Columns)}
		}
	}
	model := strings.ToLower(src.Schema + "." + src.Table)
	info := lt.a.Models[model]
	if info == nil {
		return relation{name: name}
	}
	cols := make([]outCol, len(info.Columns))
	for i, c := range info.Columns {
		cols[i] = outCol{name: c.Name, srcs: []ColumnRef{{Model: model, Column: c.Name}}, pass: true, same: true}
	}
	return relation{name: name, cols: renamed(cols, src.Columns)}
}

// pivotColumns are the columns a PIVOT or UNPIVOT yields. An UNPIVOT's
// are the columns it leaves as they are, its name columns (made of column
// names, no source) and its value columns, each fed by the unpivoted
// columns it stacks. A PIVOT's are its groups (GROUP BY's, else every
// column neither its ON nor its aggregates read), then each aggregate's
// columns, fed by what the aggregate and the ON expressions read; when
// the data names them, only the groups are known.
func (lt *lineageTracer) pivotColumns(p *engine.Pivot, ctes cteScope, before []relation) []outCol {
	var rels []relation
	for _, s := range p.Of {
		rels = append(rels, lt.relation(s, ctes, append(before[:len(before):len(before)], rels...)))
	}
	var in []outCol
	for _, r := range rels {
		in = append(in, r.cols...)
	}
	find := func(name string) (outCol, bool) {
		for _, c := range in {
			if strings.EqualFold(c.name, name) {
				return c, true
			}
		}
		return outCol{}, false
	}
	var out []outCol
	if p.Unpivot {
		used := map[string]bool{}
		values := make([][]ColumnRef, len(p.Values))
		stack := func(i int, name string) {
			if c, ok := find(name); ok && i < len(values) {
				used[strings.ToLower(c.name)] = true
				values[i] = append(values[i], c.srcs...)
			}
		}
		for _, entry := range p.On {
			for i, name := range entry {
				stack(i, name)
			}
		}
		for _, pat := range p.Patterns {
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil // the engine's regex, not Go's: unknown
			}
			for _, c := range in {
				if re.MatchString(c.name) && !hasFold(p.Exclude, c.name) {
					stack(0, c.name)
				}
			}
		}
		for _, c := range in {
			if !used[strings.ToLower(c.name)] {
				out = append(out, c)
			}
		}
		for _, n := range p.Names {
			out = append(out, outCol{name: n})
		}
		for i, n := range p.Values {
			out = append(out, outCol{name: n, srcs: values[i]})
		}
		return out
	}
	var reads []ColumnRef
	for _, ref := range p.Reads {
		reads = append(reads, resolveColumn(ref, rels)...)
	}
	if len(p.Groups) > 0 {
		for _, g := range p.Groups {
			if c, ok := find(g); ok {
				out = append(out, c)
			}
		}
	} else {
		read := map[string]bool{}
		for _, refs := range append(p.Aggregates, p.Reads) {
			for _, r := range refs {
				read[strings.ToLower(r.Column)] = true
			}
		}
		for _, c := range in {
			if !read[strings.ToLower(c.name)] {
				out = append(out, c)
			}
		}
	}
	// Each IN value's columns, one per aggregate, in turn.
	srcs := make([][]ColumnRef, len(p.Columns))
	rows := 0
	for i, names := range p.Columns {
		if i < len(p.Aggregates) {
			for _, ref := range p.Aggregates[i] {
				srcs[i] = append(srcs[i], resolveColumn(ref, rels)...)
			}
		}
		srcs[i] = append(srcs[i], reads...)
		rows = max(rows, len(names))
	}
	for j := range rows {
		for i, names := range p.Columns {
			if j < len(names) {
				out = append(out, outCol{name: names[j], srcs: srcs[i]})
			}
		}
	}
	return out
}

func hasFold(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

func starColumns(item engine.Item, rels []relation) []outCol {
	exclude := map[string]bool{}
	for _, e := range item.Exclude {
		exclude[strings.ToLower(e)] = true
	}
	var out []outCol
	for _, r := range rels {
		if item.StarOf != "" && !strings.EqualFold(item.StarOf, r.name) {
			continue
		}
		for _, c := range r.cols {
			if exclude[strings.ToLower(c.name)] {
				continue
			}
			for _, rp := range item.Replace {
				if strings.EqualFold(rp.Name, c.name) {
					var srcs []ColumnRef
					for _, ref := range rp.Refs {
						srcs = append(srcs, resolveColumn(ref, rels)...)
					}
					c = outCol{name: c.name, srcs: srcs}
				}
			}
			if to, ok := item.Rename[strings.ToLower(c.name)]; ok {
				c.name = to
			}
			out = append(out, c)
		}
	}
	return out
}

func resolveColumn(ref engine.ColumnRef, rels []relation) []ColumnRef {
	_, _, out := lookupColumn(ref, rels)
	return out
}

// sameColumn reports whether ref reads a whole column (no struct field)
// whose values are its sources' unchanged (outCol.same).
func sameColumn(ref engine.ColumnRef, rels []relation) bool {
	cols, field, _ := lookupColumn(ref, rels)
	if len(cols) == 0 || field != "" {
		return false
	}
	for _, c := range cols {
		if !c.same {
			return false
		}
	}
	return true
}

// lookupColumn finds the columns ref reads, the struct field it reads of
// them ("" for the whole column), and their sources.
func lookupColumn(ref engine.ColumnRef, rels []relation) ([]outCol, string, []ColumnRef) {
	// A dotted name is read as the binder reads it: the most qualified
	// reading that names a column in scope (s.t.c, then t.c.field, then
	// c.field.field).
	// The part after the column, if any, is the struct field read.
	for k := len(ref.Path) - 1; k >= 0; k-- {
		r := engine.ColumnRef{Column: ref.Path[k]}
		if k > 0 {
			r.Qualifier = ref.Path[k-1]
		}
		field := ""
		if k+1 < len(ref.Path) {
			field = ref.Path[k+1]
		}
		if cols, out := resolveName(r, field, rels); len(out) > 0 {
			return cols, field, out
		}
	}
	cols, out := resolveName(ref, "", rels)
	if len(cols) == 0 && (ref.Qualifier == "" || len(ref.Path) > 0) {
		// No column of the name: a relation's name alone is a whole-row
		// reference (to_jsonb(s), a function's alias e ->> 'k'), which
		// reads every column of the relation.
		name := ref.Column
		if len(ref.Path) > 0 {
			name = ref.Path[0]
		}
		for _, r := range rels {
			if strings.EqualFold(r.name, name) {
				for _, c := range r.cols {
					cols = append(cols, c)
					out = append(out, c.srcs...)
				}
				break
			}
		}
	}
	return cols, "", out
}

func resolveName(ref engine.ColumnRef, field string, rels []relation) ([]outCol, []ColumnRef) {
	var cols []outCol
	var out []ColumnRef
	for _, r := range rels {
		if ref.Qualifier != "" && !strings.EqualFold(ref.Qualifier, r.name) {
			continue
		}
		for _, c := range r.cols {
			if strings.EqualFold(c.name, ref.Column) {
				cols = append(cols, c)
				out = append(out, c.field(field)...)
			}
		}
		if ref.Qualifier == "" && len(out) > 0 {
			return cols, out // the first relation that has it, as the binder would for an unambiguous name
		}
	}
	return cols, out
}

// WindowFunctions names the window calls of a canonical form, sorted,
// without repeats, as the engine's outline of it says.
func (a *Analysis) WindowFunctions(canonical []byte) []string {
	if o := a.outline(canonical); o != nil {
		return o.Windows
	}
	return nil
}

// ReferenceSources returns what a column reference in the top-level query
// of a model reads (qualifier may be ""): the parent columns behind the
// relation of its FROM clause that binds it, e.g. the list an unnest in
// FROM expands. Sorted as ColumnSources; nil when it cannot be told.
func ReferenceSources(a *Analysis, model, qualifier, column string) []ColumnRef {
	return ReferenceSourcesIn(a, model, "", qualifier, column)
}

// ReferenceSourcesIn is ReferenceSources for a reference in the body of
// the query's CTE named cte (the query itself when cte is "").
func ReferenceSourcesIn(a *Analysis, model, cte, qualifier, column string) []ColumnRef {
	return ReferenceFieldSourcesIn(a, model, cte, qualifier, column, "")
}

// ExpandedColumn is one column a * or COLUMNS(…) of a model's query
// yields, as the engine yields it: name, type and where it comes from.
type ExpandedColumn struct {
	Name, Type string
	Sources    []ColumnRef
}

// Expansion is what the one select item of a model's top-level query
// that expands a * or COLUMNS(…) yields: its index among items items, and
// the columns the bound query yields for it (the model's columns between
// those of the items before and after it). ok is false when the query has
// no such item, or more than one.
func Expansion(a *Analysis, model string) (item, items int, cols []ExpandedColumn, ok bool) {
	info := a.Models[model]
	if info == nil || info.Columns == nil {
		return 0, 0, nil, false
	}
	o := a.outline(info.Canonical)
	if o == nil || o.Query == nil || o.Query.Kind != engine.Select {
		return 0, 0, nil, false
	}
	q := o.Query
	at := -1
	for i, it := range q.Items {
		if it.Star || it.Expands {
			if at >= 0 {
				return 0, 0, nil, false
			}
			at = i
		}
	}
	n := len(info.Columns) - (len(q.Items) - 1)
	if at < 0 || n < 0 {
		return 0, 0, nil, false
	}
	for _, c := range info.Columns[at : at+n] {
		cols = append(cols, ExpandedColumn{Name: c.Name, Type: c.Type, Sources: FieldSources(a, model, c.Name, "")})
	}
	return at, len(q.Items), cols, true
}
