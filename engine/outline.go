package engine

import (
	"crypto/sha256"
	"encoding/hex"
)

// An Outline is what efmesh reads of a model's query, whichever parser
// produced its canonical form: the select items with the columns they
// read, the relations they read them from, CTEs and set operations, the
// window calls, and a hash of every other part so two versions can be
// compared. Lineage, change categories and plan warnings read only the
// outline; each engine converts its own parse tree to it (Outliner).
//
// Names are as the parser gives them (an engine may fold unquoted
// identifiers); readers compare them without case.
type Outline struct {
	Query *Query
	// Windows names the window functions called anywhere in the
	// statement (select items, QUALIFY, ORDER BY, subqueries) as the
	// parser names them ("?" for a nameless one), sorted, without repeats.
	Windows []string
	// Calls names every function the statement calls anywhere (select
	// items, WHERE, joins, subqueries, CTEs), lower-case, sorted, without
	// repeats; window functions are in Windows.
	Calls []string
	// Files are the file paths and globs the statement reads by name,
	// anywhere (CTEs and subqueries included): the string arguments of a
	// file-reading table function (read_csv('x.csv'),
	// read_parquet(['a.parquet', 'b/*.parquet'])) and a FROM that names a
	// file as a string (FROM 'x.csv'), as written (relative paths, URLs),
	// sorted, without repeats. They are inputs of the model like its
	// parents: the check and the plan read them.
	Files []string
}

// QueryKind says what a query is. A kind other than Select and
// SetOperation is the engine's own name for it (a VALUES list, a
// recursive CTE's body, …): readers treat it as opaque.
type QueryKind string

const (
	// Select is a plain SELECT: Items, From, Distinct and Grouped are
	// filled.
	Select QueryKind = "select"
	// SetOperation is UNION, INTERSECT or EXCEPT: Branches are filled.
	SetOperation QueryKind = "set_operation"
	// RecursiveCTE is the body of a WITH RECURSIVE CTE that reads itself:
	// Branches are its anchor and its recursive part, which reads the
	// CTE's rows so far under the CTE's name.
	RecursiveCTE QueryKind = "recursive_cte"
)

// A Query is one query node: the statement's top-level query, a CTE's, a
// subquery's, or a branch of a set operation.
type Query struct {
	Kind QueryKind
	// CTEs are the WITH clause's queries in order; each sees the ones
	// before it.
	CTEs []CTE
	// Branches are a set operation's operands, left to right (a recursive
	// CTE's anchor and recursive part); the output columns are the first
	// branch's names.
	Branches []*Query
	Items    []Item
	// From lists the relations of the FROM clause in order, joins
	// flattened (their conditions are part of Rest).
	From     []Source
	Distinct bool // SELECT DISTINCT (or DISTINCT ON)
	Grouped  bool // a GROUP BY clause, GROUP BY ALL included
	// Where are the columns the WHERE clause reads, outside subqueries.
	Where []ColumnRef
	// WhereEqual are the equalities at the top of the WHERE clause (see
	// Source.Equal): how a comma join pairs its relations.
	WhereEqual []Equality
	// Reads are the columns every part outside the select list and the
	// FROM clause reads (WHERE, GROUP BY, HAVING, QUALIFY, ORDER BY,
	// LIMIT), outside subqueries; a lambda's parameters are not columns.
	// (The FROM clause's are its Sources' On and Args.)
	Reads []ColumnRef
	// Subqueries are the queries of subquery expressions (EXISTS, IN, a
	// scalar subquery) anywhere in this query outside its CTEs and FROM
	// subqueries (the clauses' first, then the select list's, then the
	// join conditions'): they see this query's relations as an outer
	// scope.
	Subqueries []*Query
	// Stars are the relations (alias or table name; "" for all) of a * or
	// COLUMNS(…) nested inside an expression of this query (max(COLUMNS(*)),
	// WHERE COLUMNS(*) IS NOT NULL), outside subqueries: what they cover
	// depends on the relations' full column sets. A select item that is a
	// star is an Item, and ORDER BY ALL is OrderAll.
	Stars []string
	// GroupAll is GROUP BY ALL: the select items without an aggregate are
	// the grouping keys. OrderAll is ORDER BY ALL (every select item is a
	// sort key); Limited a LIMIT or OFFSET.
	GroupAll, OrderAll, Limited bool
	// Rest maps each part of the query outside the select list (the FROM
	// clause, WHERE, GROUP BY, HAVING, QUALIFY, ORDER BY and LIMIT, CTEs,
	// a set operation's branches, the statement's parameters) to a hash of
	// its canonical form. A part's name is the engine's, stable across
	// versions of efmesh: "from_table", "where_clause", "modifiers", …
	// Two versions of a query whose Rest are equal differ at most in
	// their select lists.
	Rest map[string]string
}

// A CTE is a named query of a WITH clause.
type CTE struct {
	Name  string
	Query *Query
	// Columns are the names its column list gives the query's first
	// columns (WITH c(a, b) AS …); nil without one.
	Columns []string
}

// An Item is one entry of a select list.
type Item struct {
	// Name is the output column's name when the query says it (an alias,
	// a bare column reference) or the engine names it so; "" otherwise.
	Name string
	// Star is a `*` or `rel.*`: the columns of StarOf (every relation
	// when empty) except Exclude.
	Star    bool
	StarOf  string
	Exclude []string
	// StarShape identifies a star's canonical form without its EXCLUDE
	// list: two stars with equal shapes differ at most in the columns they
	// exclude. "" when the engine does not say (then no reader may assume
	// anything of two stars but by Hash).
	StarShape string
	// Replace are a star's REPLACE expressions (name and the columns its
	// value reads); Rename its RENAME list, the old name's lower case to
	// the new name.
	Replace []Field
	Rename  map[string]string
	// Expands is an item that yields the engine's expansion of a * or
	// COLUMNS(…): a star item, or an expression holding one
	// (max(COLUMNS(* EXCLUDE (s)))), whose relation is then StarOf and its
	// EXCLUDE list Exclude. How many columns it yields, and which, only
	// the bound query tells.
	Expands bool
	// Refs are the columns the expression reads, outside subqueries.
	Refs []ColumnRef
	// Calls are the functions the expression calls outside window calls
	// and subqueries, lower-case, each once; Windows the window functions
	// it calls (outside subqueries). Refs, Calls and Windows come in an
	// order fixed by the canonical form.
	Calls   []string
	Windows []string
	// Fields are the fields of a struct the item builds at its top
	// ({'first': a.c}, struct_pack(first := a.c)), each with the columns
	// its value reads; nil for any other expression.
	Fields []Field
	// Plain is an item that is a bare column reference: its value is the
	// column's, struct fields included.
	Plain bool
	// Subquery: the expression holds a subquery, whose reads are not in
	// Refs.
	Subquery bool
	// Hash identifies the item's canonical form (expression and name):
	// equal items of two versions have equal hashes.
	Hash string
}

// A ColumnRef is a column an expression reads: Column, qualified by the
// relation (alias or table name) Qualifier when it is not empty. Path is
// the dotted name as written when it has more than one part (s.t.c,
// t.c.field, c.field): which part names the column depends on the
// sources in scope, so a reader tries the parts from the most qualified
// reading (Qualifier, Column are the last two parts) to the least.
//
// A struct field read by subscript (c['f'], struct_extract(c, 'f')) is
// given as the dotted name would be: Path c, f.
type ColumnRef struct {
	Qualifier string
	Column    string
	Path      []string
}

// An Equality is a condition Left = Right between the one column each
// side reads.
type Equality struct {
	Left, Right ColumnRef
}

// A Field is one field of a struct an item builds.
type Field struct {
	Name string
	Refs []ColumnRef
}

// A Source is one relation of a FROM clause.
type Source struct {
	// Schema and Table name a table, a view or (without a schema) a CTE.
	// The canonical form names a model it reads by the model's own
	// schema and table.
	Schema, Table string
	// Alias is the name the query gives the relation; "" when none.
	Alias string
	// Query is a subquery's; nil for a table.
	Query *Query
	// Join is how the relation joins those before it, lower-case: ""
	// for the first, "regular" (ON or USING), "cross" (CROSS JOIN or a
	// comma), "natural", "positional", "asof", … as the engine names it.
	Join string
	// Using are the columns of a USING clause; On the columns its ON
	// condition reads.
	Using []string
	On    []ColumnRef
	// Equal are the equalities at the top of the ON condition: its
	// conjuncts (joined by AND) that compare two expressions with =, each
	// reading exactly one column (o.cust = c.id, o.cust = c.id + 1); the
	// columns the join matches rows by.
	Equal []Equality
	// Function is a table function's name, lower-case (unnest,
	// read_parquet, …); Args the columns its arguments read (a lateral
	// call reads the relations before it).
	Function string
	Args     []ColumnRef
	// Columns are the names the query gives the relation's first columns
	// (a table function's AS u(x), a subquery's or a table's AS t(a, b));
	// the columns after them keep their names.
	Columns []string
	// Pivot is a PIVOT or UNPIVOT of other relations; nil for none.
	Pivot *Pivot
}

// A Pivot is a PIVOT or an UNPIVOT in a FROM clause (a PIVOT or UNPIVOT
// statement is a SELECT * FROM one).
type Pivot struct {
	// Of are the relations it reads (joins flattened).
	Of      []Source
	Unpivot bool
	// An UNPIVOT's Names are its name columns (INTO NAME n) and Values its
	// value columns (VALUE v, …). On lists the unpivoted columns of each
	// entry of the ON list (q1, or (q1, q2) AS h), Patterns the regular
	// expressions of its COLUMNS('re') entries ("" for COLUMNS(*)) and
	// Exclude what their EXCLUDE lists leave out. The output is the
	// relation's other columns, then Names, then Values.
	Names, Values []string
	On            [][]string
	Patterns      []string
	Exclude       []string
	// A PIVOT's Groups are its GROUP BY columns, Columns the names of
	// the columns it makes (the IN lists' values crossed, each joined
	// with an aggregate's alias; nil when the data decides them, or an
	// aggregate has no alias among several), and Aggregates the columns
	// each aggregate reads and Reads those its ON expressions read.
	Groups     []string
	Columns    [][]string // per aggregate, the names of its columns
	Aggregates [][]ColumnRef
	Reads      []ColumnRef
}

// Name is what the query calls the relation: its alias, or its table's
// name.
func (s Source) Name() string {
	if s.Alias != "" {
		return s.Alias
	}
	return s.Table
}

// Outliner is the part of a Parser that outlines a canonical form. It
// reads the bytes only: it needs no connection and may be called after
// the engine is closed.
type Outliner interface {
	// Outline converts the canonical form Canonicalize returned (possibly
	// by an earlier run, read back from the state store) to an outline.
	Outline(canonical []byte) (*Outline, error)
}

// Hash is the hash an outline gives a part of the canonical form, of
// that part's bytes in a fixed encoding.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}
