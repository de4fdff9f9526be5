package postgres

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/efmesh/efmesh/engine"
)

// The bind*.go files are the server-less column binder for Postgres
// projects: what DESCRIBE against stand-in tables does for DuckDB, done over
// pg_query's parse tree. It follows PostgreSQL's own name resolution
// (parse_relation.c, parse_clause.c, parse_target.c) for the cases a model
// body meets, and says "unknown" rather than guess where only the catalog
// could tell. This file holds the entry point and the namespace types;
// bindquery.go binds query levels, bindfrom.go FROM items, bindref.go
// column references, bindexpr.go expressions and bindtype.go their types.
//
// Every position is a 0-based byte offset into the SQL text: pg_query's
// node locations and scanner tokens are byte offsets (the server's error
// cursor is the one that counts characters; see parseError).

// Bind resolves every column reference of sql, which must be exactly one
// SELECT statement (VALUES and set operations included), against relations
// — the declared columns of each relation the body may read, keyed by the
// name as written in SQL: "schema.table", or "table" for an unqualified
// name — and returns the statement's output columns.
//
// Names are PostgreSQL's: an alias, else the column or function name, else
// "?column?". Types are the declared text for plain column references
// (through aliases, CTEs and subqueries), format_type-style names for
// casts, literals and common functions ("integer", "numeric(10,2)",
// "timestamp with time zone"), and "" where the binder cannot know without
// a server; callers skip type checks for "".
//
// When the output depends on something only a server could tell (a `*`
// over a function result in FROM, a data-modifying CTE), Bind returns nil
// columns and a nil error: no problem found, shape unknown.
//
// Problems are *engine.SQLError values with PostgreSQL's messages (a HINT
// on a second line), byte Positions, the offending Name and "did you mean"
// Candidates, by Type and Subtype:
//
//   - Parser, SYNTAX_ERROR: syntax errors, and what PostgreSQL files under
//     them: SELECT * without FROM, a non-integer constant in ORDER BY or
//     GROUP BY, set-operation arms of different widths. Parser without a
//     Subtype (Position -1): not exactly one SELECT.
//   - Catalog, UNDEFINED_TABLE: a relation missing from relations.
//   - Binder, COLUMN_NOT_FOUND or AMBIGUOUS_COLUMN: an unknown or ambiguous
//     column, including USING lists and ORDER BY output names.
//   - Binder, UNDEFINED_TABLE: a qualifier that names no FROM item ("missing
//     FROM-clause entry"), or one this part of the query cannot see.
//   - Binder, DUPLICATE_ALIAS, AMBIGUOUS_ALIAS, INVALID_COLUMN_REFERENCE: a
//     reference name used twice, a qualifier matching two items, an ordinal
//     out of range or more column aliases than columns.
//
// Names are never reported against what the binder cannot see into: the
// columns of a relation missing from relations or of a function in FROM.
// One problem is returned as the *engine.SQLError itself; several as an
// errors.Join of them in source order, one per position, so errors.As
// finds the first and Unwrap() []error yields all. Columns are nil whenever
// the error is not.
func (Parser) Bind(sql string, relations map[string][]engine.Column) ([]engine.Column, error) {
	sel, err := parseSelect(sql)
	if err != nil {
		return nil, err
	}
	b := &binder{sql: sql, relations: relations, sublinks: map[*pg_query.SubLink]string{}}
	out := b.query(sel, nil, false, nil)
	if err := b.err(); err != nil {
		return nil, err
	}
	if out.opaque {
		return nil, nil
	}
	cols := make([]engine.Column, len(out.cols))
	for i, c := range out.cols {
		cols[i] = engine.Column{Name: c.name, Type: c.typ}
	}
	return cols, nil
}

// oneSelect reports why sql is not one SELECT statement, or nil.
func oneSelect(sql string) error {
	_, err := parseSelect(sql)
	return err
}

// parseSelect parses sql, which must be exactly one SELECT statement.
func parseSelect(sql string) (*pg_query.SelectStmt, error) {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil, parseError(err, sql)
	}
	if len(tree.Stmts) != 1 {
		return nil, &engine.SQLError{Type: "Parser", Subtype: engine.SubtypeStatementCount, Name: strconv.Itoa(len(tree.Stmts)), Message: "a model body must be exactly one SELECT statement, found " + strconv.Itoa(len(tree.Stmts)), Position: -1}
	}
	stmt := tree.Stmts[0].GetStmt()
	sel := stmt.GetSelectStmt()
	if sel == nil {
		kind := "an empty statement"
		if stmt != nil && stmt.Node != nil {
			kind = strings.TrimPrefix(fmt.Sprintf("%T", stmt.Node), "*pg_query.Node_")
		}
		return nil, &engine.SQLError{Type: "Parser", Message: "a model body must be a SELECT statement, found " + kind, Position: -1}
	}
	return sel, nil
}

// Bind binds sql with the connection-free parser; see Parser.Bind.
func (d *DB) Bind(sql string, relations map[string][]engine.Column) ([]engine.Column, error) {
	return Parser{}.Bind(sql, relations)
}

// typUnknown is PostgreSQL's type of a string literal or bare NULL until
// context resolves it: it takes the other side's type in CASE, UNION,
// COALESCE and VALUES, and becomes text in a SELECT's output.
const typUnknown = "unknown"

type column struct {
	name string
	typ  string // "" when not known
	// src is the reference name that reaches the column qualified, for
	// "did you mean t.col" on an ambiguous name; "" when there is none.
	src string
}

// rel is one entry of a query level's namespace (PostgreSQL's
// ParseNamespaceItem): a FROM item, or a join's merged column list.
type rel struct {
	name    string // reference name: alias, CTE, table or function name; "" for none
	schema  string // an unaliased table's schema and catalog, for s.t.col
	catalog string
	// table marks an unaliased relation from the relations map: two of
	// them may share a name when their schemas differ.
	table bool
	cols  []column
	// opaque: the item may have columns beyond cols (a function result),
	// so an unknown name is not an error against it.
	opaque bool
	// scalar: a function in FROM returning a base type, whose name alone
	// (a whole-row reference) is its one column's value, of its type.
	scalar      bool
	qualified   bool // reachable as name.column and name.*
	unqualified bool // its columns resolve unqualified and expand in *
	loc         int32
}

// cte is a WITH query visible by name.
type cte struct {
	name   string
	cols   []column
	opaque bool
}

// scope is one query level's namespace; outer is the enclosing level (or
// the items a LATERAL item may see), whose columns correlated references
// reach.
type scope struct {
	outer *scope
	rels  []*rel
	ctes  []*cte
	// hidden are items of the same level this scope may not reference
	// (a non-LATERAL subquery's siblings, the FROM items outside a JOIN
	// condition's join): a reference to one gets PostgreSQL's "cannot be
	// referenced from this part of the query" instead of "missing".
	// needsLateral says adding LATERAL would make them visible.
	hidden       []*rel
	needsLateral bool
}

// sibling returns a level that sees rels and this level's CTEs and outer
// levels, but not this level's own FROM items: the scope of a subquery in
// FROM, of a LATERAL item (rels: the items to its left) and of a JOIN
// condition (rels: the join's two sides).
func (s *scope) sibling(rels, hidden []*rel, needsLateral bool) *scope {
	return &scope{outer: s.outer, ctes: s.ctes, rels: append([]*rel(nil), rels...),
		hidden: append([]*rel(nil), hidden...), needsLateral: needsLateral}
}

// own marks r's columns as reached through r's name.
func (r *rel) own() *rel {
	src := ""
	if r.qualified {
		src = r.name
	}
	r.cols = append([]column(nil), r.cols...)
	for i := range r.cols {
		r.cols[i].src = src
	}
	return r
}

func (s *scope) cte(name string) *cte {
	for ; s != nil; s = s.outer {
		for i := len(s.ctes) - 1; i >= 0; i-- {
			if s.ctes[i].name == name {
				return s.ctes[i]
			}
		}
	}
	return nil
}

// result is what a query yields.
type result struct {
	cols []column
	// opaque: cols is incomplete (a * over an opaque item).
	opaque bool
}

type binder struct {
	sql       string
	relations map[string][]engine.Column
	errs      []*engine.SQLError
	// sublinks holds each scalar subquery's first output name, which
	// PostgreSQL uses as the subquery expression's column name.
	sublinks map[*pg_query.SubLink]string
	using    *usingIndex
	// ctx is where the expression being bound sits in its level.
	ctx exprCtx
	// refsLocal and refsOuter count the column references resolved at
	// the level of the scope they are looked up from, and at outer ones.
	refsLocal, refsOuter int
}

func (b *binder) fail(typ, sub string, pos int32, name string, cands []string, format string, args ...any) {
	b.errs = append(b.errs, &engine.SQLError{Type: typ, Subtype: sub, Message: fmt.Sprintf(format, args...),
		Position: int(pos), Name: name, Candidates: cands})
}

// err returns the collected problems in source order, one per position
// (the first found, as PostgreSQL stops at it); problems without a
// position come last.
func (b *binder) err() error {
	if len(b.errs) == 0 {
		return nil
	}
	for _, e := range b.errs {
		if e.Position < 0 || e.Position > len(b.sql) {
			e.Position = -1
		}
	}
	sort.SliceStable(b.errs, func(i, j int) bool {
		pi, pj := b.errs[i].Position, b.errs[j].Position
		if (pi < 0) != (pj < 0) {
			return pj < 0
		}
		return pi < pj
	})
	var errs []error
	for i, e := range b.errs {
		if i > 0 && e.Position == b.errs[i-1].Position && (e.Position >= 0 || e.Message == b.errs[i-1].Message) {
			continue
		}
		errs = append(errs, e)
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}
