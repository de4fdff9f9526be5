package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
)

// A non-breaking change appends columns to a model: its existing columns
// keep their rows. Its children may inherit their tables only if each of
// them reads exactly what it read before — but a query's meaning can
// depend on a parent's full column set, not just on the columns it names:
// a NATURAL JOIN joins on every common name, an unqualified name resolves
// to the innermost relation that has it, a * or COLUMNS(…) expands to
// every column. This file binds each direct child's outline against the
// parent's columns before and after the change, scope by scope, and says
// where a reference would resolve differently.
//
// It reads only the outline (engine.Outline) and the columns children
// bind against (analysis.ModelInfo.Columns); what it cannot read it calls
// a change (when in doubt: breaking).

// rebinds lists, for each direct child of parent, how the child would
// read its parents differently once parent yields the columns added (as
// "child: why"), sorted; nil when every child binds as before.
func rebinds(a *analysis.Analysis, parent string, old []engine.Column, added []string) []string {
	if len(added) == 0 || a.Outliner() == nil {
		return nil
	}
	var out []string
	for _, child := range a.Project.Children[parent] {
		info := a.Models[child]
		if info == nil || info.Canonical == nil {
			continue
		}
		o, err := a.Outliner().Outline(info.Canonical)
		if err != nil || o.Query == nil {
			out = append(out, child+": its query cannot be read to check how it reads "+parent)
			continue
		}
		b := &binder{a: a, parent: parent, old: names(old), added: lower(added)}
		b.query(o.Query, nil, nil)
		if !b.found {
			b.note("it reads " + parent + " in a way efmesh cannot follow (not as a table of a FROM clause)")
		}
		for _, why := range b.why {
			out = append(out, child+": "+why)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// addedColumns are the names new has and old has not, lower-case; when
// either is unknown, the names of the appended select items.
func addedColumns(old, new []engine.Column, appended []engine.Item) []string {
	if old == nil || new == nil {
		var out []string
		for _, it := range appended {
			if it.Name != "" {
				out = append(out, strings.ToLower(it.Name))
			}
		}
		return out
	}
	have := names(old)
	var out []string
	for _, c := range new {
		if n := strings.ToLower(c.Name); !have[n] {
			out = append(out, n)
		}
	}
	return out
}

// A relation is what one FROM entry (or a query) yields, for binding.
type relation struct {
	name string          // what the query calls it, lower-case
	cols map[string]bool // the names it yielded before the change; nil when unknown
	// gains are the names it yields now and did not before.
	gains []string
	// what says what it is, for messages ("x", "q.p").
	what string
}

func (r relation) has(n string) bool { return r.cols[n] }

func (r relation) gained(n string) bool { return slices.Contains(r.gains, n) }

// A scope is the relations of one query's FROM clause.
type scope []relation

// binder walks one child's outline.
type binder struct {
	a      *analysis.Analysis
	parent string
	old    map[string]bool
	added  []string
	found  bool // the parent was met as a table
	why    []string
}

func (b *binder) note(why string) {
	if !slices.Contains(b.why, why) {
		b.why = append(b.why, why)
	}
}

// query binds q whose outer scopes are outer (innermost last) and whose
// visible CTEs are ctes, and returns what q yields.
func (b *binder) query(q *engine.Query, outer []scope, ctes map[string]relation) relation {
	if q == nil {
		return relation{}
	}
	if len(q.CTEs) > 0 {
		inner := make(map[string]relation, len(ctes)+len(q.CTEs))
		for k, v := range ctes {
			inner[k] = v
		}
		for _, c := range q.CTEs {
			r := b.query(c.Query, outer, inner)
			r.name, r.what = strings.ToLower(c.Name), c.Name
			inner[r.name] = r
		}
		ctes = inner
	}
	switch q.Kind {
	case engine.Select:
		return b.selectQuery(q, outer, ctes)
	case engine.SetOperation:
		var out relation
		for i, br := range q.Branches {
			r := b.query(br, outer, ctes)
			if i == 0 {
				out = r
			}
			if len(r.gains) > 0 {
				b.note("a set operation's branch now also yields " + strings.Join(r.gains, ", ") + " (through a *)")
				out.gains = union(out.gains, r.gains)
			}
		}
		return out
	}
	return relation{}
}

func (b *binder) selectQuery(q *engine.Query, outer []scope, ctes map[string]relation) relation {
	var sc scope
	for i, s := range q.From {
		r := b.source(s, outer, ctes)
		switch s.Join {
		case "natural":
			b.natural(sc, r)
		}
		sc = append(sc, r)
		// A join condition sees the relations joined so far.
		b.refs(s.On, append(outer, sc[:i+1]))
		b.refs(s.Args, append(outer, sc[:i+1]))
	}
	scopes := append(outer, sc)
	for _, it := range q.Items {
		b.refs(it.Refs, scopes)
		for _, f := range it.Fields {
			b.refs(f.Refs, scopes)
		}
	}
	b.refs(q.Reads, scopes)
	for _, rel := range q.Stars {
		for _, r := range covered(sc, rel) {
			if len(r.gains) > 0 {
				b.note(fmt.Sprintf("a * or COLUMNS(…) over %s now also covers %s", r.what, strings.Join(r.gains, ", ")))
			}
		}
	}
	for _, sub := range q.Subqueries {
		b.query(sub, scopes, ctes)
	}
	// What the query yields: named items, and the stars' expansions.
	out := relation{cols: map[string]bool{}}
	for _, it := range q.Items {
		if !it.Star {
			out.cols[strings.ToLower(it.Name)] = true
			continue
		}
		for _, r := range covered(sc, it.StarOf) {
			if r.cols == nil {
				out.cols = nil
			}
			for n := range r.cols {
				if out.cols != nil && !excluded(it, n) {
					out.cols[n] = true
				}
			}
			for _, g := range r.gains {
				if !excluded(it, g) {
					out.gains = union(out.gains, []string{g})
				}
			}
		}
	}
	if len(out.gains) > 0 {
		star := engine.Item{Star: true}
		if why := rowKey(q, q.Items, star); why != "" {
			b.note(fmt.Sprintf("a * now also yields %s and %s", strings.Join(out.gains, ", "), why))
		}
	}
	return out
}

// source binds one FROM entry.
func (b *binder) source(s engine.Source, outer []scope, ctes map[string]relation) relation {
	name := strings.ToLower(s.Name())
	switch {
	case s.Query != nil:
		r := b.query(s.Query, outer, ctes)
		r.name, r.what = name, name
		return aliased(r, s.Columns)
	case s.Function != "":
		r := relation{name: name, what: name}
		if len(s.Columns) > 0 {
			r.cols = lower2set(s.Columns)
		}
		return r
	case s.Table == "":
		return relation{name: name, what: name}
	}
	full := strings.ToLower(s.Schema + "." + s.Table)
	if s.Schema == "" {
		if r, ok := ctes[strings.ToLower(s.Table)]; ok {
			r.name = name
			return r
		}
	}
	if full == b.parent {
		b.found = true
		return relation{name: name, what: full, cols: b.old, gains: b.added}
	}
	if info := b.a.Models[full]; info != nil && info.Columns != nil {
		return relation{name: name, what: full, cols: names(info.Columns)}
	}
	return relation{name: name, what: name}
}

// aliased renames a relation's columns as AS x(a, b) does: the first
// len(cols) columns are renamed, so what they are called no longer
// depends on the relation.
func aliased(r relation, cols []string) relation {
	if len(cols) == 0 {
		return r
	}
	if r.cols != nil {
		for _, c := range cols {
			r.cols[strings.ToLower(c)] = true
		}
	}
	return r
}

// natural checks a NATURAL JOIN of r to the relations before it: it joins
// on every name both sides yield, so a name either side gains that the
// other has (or may have) becomes a join column.
func (b *binder) natural(left scope, r relation) {
	for _, l := range left {
		for _, g := range r.gains {
			if l.cols == nil || l.has(g) || l.gained(g) {
				b.note(fmt.Sprintf("NATURAL JOIN now also joins on %s (%s gains it, %s has it)", g, r.what, l.what))
			}
		}
		for _, g := range l.gains {
			if r.cols == nil || r.has(g) {
				b.note(fmt.Sprintf("NATURAL JOIN now also joins on %s (%s gains it, %s has it)", g, l.what, r.what))
			}
		}
	}
}

// refs checks that each reference resolves where it did: an unqualified
// name resolves to the innermost scope having it, so a relation that gains
// the name in a scope inside (or at) the one that had it captures it.
func (b *binder) refs(refs []engine.ColumnRef, scopes []scope) {
	for _, r := range refs {
		first := r.Column
		if len(r.Path) > 0 {
			first = r.Path[0]
		} else if r.Qualifier != "" {
			first = r.Qualifier
		}
		first = strings.ToLower(first)
		if (len(r.Path) > 0 || r.Qualifier != "") && isRelation(scopes, first) {
			continue // qualified by a relation: it reads that relation's column
		}
		b.resolve(first, scopes)
	}
}

// resolve follows an unqualified name n outward through scopes.
func (b *binder) resolve(n string, scopes []scope) {
	for i := len(scopes) - 1; i >= 0; i-- {
		had, gainer := false, ""
		for _, r := range scopes[i] {
			had = had || r.has(n)
			if r.gained(n) && gainer == "" {
				gainer = r.name
			}
		}
		if had {
			return // it resolved here before (a gain beside it is ambiguous: the check reports it)
		}
		if gainer != "" {
			b.note(fmt.Sprintf("%s now resolves to %s.%s", n, gainer, n))
			return
		}
		for _, r := range scopes[i] {
			if r.name == n && len(r.gains) > 0 {
				b.note(fmt.Sprintf("%s reads the whole row of %s, which now also has %s", n, r.what, strings.Join(r.gains, ", ")))
				return
			}
		}
	}
}

// isRelation reports a relation named n in any scope.
func isRelation(scopes []scope, n string) bool {
	for _, sc := range scopes {
		for _, r := range sc {
			if r.name == n {
				return true
			}
		}
	}
	return false
}

// covered lists the relations of sc a star over rel ("" for all) expands.
func covered(sc scope, rel string) []relation {
	if rel == "" {
		return sc
	}
	for _, r := range sc {
		if r.name == strings.ToLower(rel) {
			return []relation{r}
		}
	}
	return nil
}

func excluded(it engine.Item, n string) bool {
	for _, e := range it.Exclude {
		if strings.EqualFold(e, n) {
			return true
		}
	}
	return false
}

func names(cols []engine.Column) map[string]bool {
	if cols == nil {
		return nil
	}
	out := make(map[string]bool, len(cols))
	for _, c := range cols {
		out[strings.ToLower(c.Name)] = true
	}
	return out
}

func lower(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

func lower2set(ss []string) map[string]bool {
	out := make(map[string]bool, len(ss))
	for _, s := range ss {
		out[strings.ToLower(s)] = true
	}
	return out
}

func union(a, b []string) []string {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}

// judge categorizes a model's own change against its previous snapshot
// (categorize) and, when that is non-breaking, checks that every direct
// child binds as before (rebinds): a child that would read the parent
// differently makes the change breaking, for the plan, --explain and the
// editor's hint alike.
func judge(a *analysis.Analysis, info *analysis.ModelInfo, prevDef analysis.Definition, prevCanon []byte) verdict {
	v := categorize(prevDef, analysis.DefinitionOfInfo(info), prevCanon, info.Canonical, a.Outliner())
	if v.change != NonBreaking {
		return v
	}
	// What children bound against: the declared columns, else the
	// inferred ones.
	old := prevDef.Schema
	if prevDef.Columns != nil {
		old = make([]engine.Column, len(prevDef.Columns))
		for i, c := range prevDef.Columns {
			old[i] = engine.Column{Name: c.Name, Type: c.Type}
		}
	}
	var appended []engine.Item
	if old == nil || info.Columns == nil {
		oo, oerr := a.Outliner().Outline(prevCanon)
		no, nerr := a.Outliner().Outline(info.Canonical)
		if oerr == nil && nerr == nil && oo.Query != nil && no.Query != nil && len(no.Query.Items) > len(oo.Query.Items) {
			appended = no.Query.Items[len(oo.Query.Items):]
		}
	}
	added := addedColumns(old, info.Columns, appended)
	if why := rebinds(a, info.Model.Name, old, added); len(why) > 0 {
		v.change = Breaking
		v.paths = append(v.paths, "children")
		v.reason = "columns were appended, but a child would read " + info.Model.Name + " differently"
		v.children = why
	}
	return v
}
