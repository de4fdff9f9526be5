package sqlread

// A Query is one query of a body as far as navigation needs it: its CTEs,
// its select items with their output names, its FROM sources with their
// aliases, and the queries nested in it as scopes of their own. Names are
// folded to lower case (sqlscan.FoldName); spans are byte offsets in the
// source Parse read.
type Query struct {
	Start, End int // byte span
	Parent     *Query
	CTEs       []*CTE
	Items      []*SelectItem
	Sources    []*Source
	Refs       []ColRef // column references outside the select list
	Subs       []*Query // nested queries: CTE bodies, subqueries
	Branches   []*Query // UNION / EXCEPT / INTERSECT operands after the first
	// Inner is the query in parentheses that the first operand is, as in
	// (SELECT …) UNION SELECT …; nil otherwise. It is one of Subs, and its
	// items are the query's.
	Inner *Query
	// Where the clauses of the first operand are written. Select is the
	// select list, after SELECT and DISTINCT [ON (…)] or ALL; From the
	// sources and joins after FROM (before SELECT in DuckDB's FROM-first
	// form); Rest the clauses after them, WHERE to LIMIT, up to the
	// operand's end. A missing SELECT or FROM is the empty span 0,0.
	Select, From, Rest Span
}

// A Span is the bytes [Start, End) of the source.
type Span struct{ Start, End int }

// Empty reports whether the span holds nothing.
func (s Span) Empty() bool { return s.End <= s.Start }

// A CTE is one entry of a WITH clause.
type CTE struct {
	Name               string
	NameStart, NameEnd int
	Query              *Query      // never nil: an empty query when the body is missing
	Cols               []CTEColumn // name(col, …): they rename the query's outputs in order
	End                int         // where the entry ends: after the ')' closing its query
}

// A CTEColumn is a name of a CTE's column list, `name(col, …)`.
type CTEColumn struct {
	Name       string // lower case
	Start, End int
}

// A SelectItem is one entry of a select list.
type SelectItem struct {
	Name               string // output name, lower case; "" when the engine invents one
	NameStart, NameEnd int    // where the name is written: the alias, or the column
	Start, End         int
	Star               bool
	StarEnd            int      // the end of a star's '*'
	StarQual           string   // s in s.*
	Exclude            []string // * EXCLUDE (a, b)
	// Replaced: the columns a star's REPLACE (expr AS a) and RENAME (a AS
	// b) lists name, lower case.
	Replaced []string
	Refs     []ColRef
	Plain    bool // the expression is one column reference
}

// A ColRef is a column reference: a name or a dotted name that is not a
// function, a type, a keyword or a lambda's parameter.
type ColRef struct {
	Qual               string // alias or table, lower case; "" when bare
	QualStart, QualEnd int
	Name               string // lower case
	Start, End         int    // the column name
	// Outer is the part before Qual (p in p.s.f, where s may be a struct
	// column and f its field), lower case; "" when none.
	Outer string
	// Path is every part of the dotted name, lower case (p, s, a, b in
	// p.s.a.b).
	Path []string
	// Using marks a column of JOIN … USING (…): it names the column of
	// both joined sides.
	Using bool
}

// A Source is one item of a FROM clause: a model (@ref), a CTE, a
// subquery, or any other relation or table function.
type Source struct {
	Alias                string // lower case
	AliasStart, AliasEnd int    // where the alias is written; 0,0 when implicit
	Model                string // @ref(model)
	ArgStart, ArgEnd     int
	CTE                  *CTE
	Sub                  *Query
	Table                string // any other relation or table function
	NameStart, NameEnd   int    // where a CTE or table name is written
	ColAliases           []string
	Start, End           int
	// Join is how the source is joined to the ones before it: "," for a
	// comma, else the join's words as lower case words, one space apart
	// ("join", "left outer join", "cross join"); "" for the first source.
	Join               string
	JoinStart, JoinEnd int // where Join is written
}

// ScopeAt returns the innermost query whose span holds off.
func (q *Query) ScopeAt(off int) *Query {
	for _, s := range append(q.Subs, q.Branches...) {
		if off >= s.Start && off <= s.End && s.End > s.Start {
			return s.ScopeAt(off)
		}
	}
	return q
}

// SourceByAlias finds the source an alias (or a table name) names, in q
// and then in the enclosing queries.
func (q *Query) SourceByAlias(alias string) *Source {
	for s := q; s != nil; s = s.Parent {
		for _, src := range s.Sources {
			if src.Alias == alias {
				return src
			}
		}
	}
	return nil
}

// Walk calls f for q and every query nested in it.
func Walk(q *Query, f func(*Query)) {
	if q == nil {
		return
	}
	f(q)
	for _, s := range q.Subs {
		Walk(s, f)
	}
	for _, b := range q.Branches {
		Walk(b, f)
	}
}

// findCTE finds the CTE a name in q's FROM clause names, in q and then in
// the enclosing queries.
func findCTE(q *Query, name string) *CTE {
	for s := q; s != nil; s = s.Parent {
		for _, c := range s.CTEs {
			if c.Name == name {
				return c
			}
		}
	}
	return nil
}
