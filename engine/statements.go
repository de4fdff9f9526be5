package engine

import "strings"

// Standard writes the statements of Dialect that standard SQL spells the
// same way on every engine efmesh supports. A dialect embeds it and
// overrides the statements its engine writes otherwise. Identifiers are
// quoted with QuoteIdent; queries and SQL expressions (bounds, times) are
// used as given.
type Standard struct{}

// CreateTable returns an idempotent CREATE TABLE of r with cols, empty: the
// table an incremental model's batches, merges and histories write into.
func (Standard) CreateTable(r Relation, cols []Column) string {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = QuoteIdent(c.Name) + " " + c.Type
	}
	return "CREATE TABLE IF NOT EXISTS " + quoteRelation(r) + " (" + strings.Join(defs, ", ") + ")"
}

// CreateTableAs returns an idempotent CREATE TABLE of r holding what query
// yields (nothing happens when r exists).
func (Standard) CreateTableAs(r Relation, query string) string {
	return "CREATE TABLE IF NOT EXISTS " + quoteRelation(r) + " AS " + query
}

// AddColumn returns the statement adding column c to table r; the rows r
// holds read NULL in it.
func (Standard) AddColumn(r Relation, c Column) string {
	return "ALTER TABLE " + quoteRelation(r) + " ADD COLUMN " + QuoteIdent(c.Name) + " " + c.Type
}

// AlterColumnType returns the statement converting column c.Name of table
// r to c.Type, rows and all.
func (Standard) AlterColumnType(r Relation, c Column) string {
	return "ALTER TABLE " + quoteRelation(r) + " ALTER COLUMN " + QuoteIdent(c.Name) + " TYPE " + c.Type
}

// ReplaceRange returns the statements, run in one transaction, that
// replace the rows of table r whose timeColumn is in [start, end) with
// query's rows in that range, into columns cols (query yields at least
// them). start and end are SQL expressions. Running them twice leaves the
// same rows: a batch repeated after a crash never duplicates.
func (Standard) ReplaceRange(r Relation, cols []string, timeColumn, start, end, query string) []string {
	rel, list := quoteRelation(r), quoteList(cols)
	inRange := RangeCondition(timeColumn, start, end)
	return []string{
		"DELETE FROM " + rel + " WHERE " + inRange,
		"INSERT INTO " + rel + " (" + list + ") SELECT " + list + " FROM (\n" + query + "\n) AS _efmesh_batch WHERE " + inRange,
	}
}

// ReplaceRows returns the statements, run in one transaction, that replace
// every row of table r with query's rows, into columns cols. The table
// stays in place (views that read it keep reading it) and readers see the
// old rows until the commit.
func (Standard) ReplaceRows(r Relation, cols []string, query string) []string {
	rel, list := quoteRelation(r), quoteList(cols)
	return []string{
		"DELETE FROM " + rel,
		"INSERT INTO " + rel + " (" + list + ") SELECT " + list + " FROM (\n" + query + "\n) AS _efmesh_refill",
	}
}

// Upsert returns the statements, run in one transaction, that merge
// query's rows into table r by key: a row of query replaces r's rows of
// the same key (NULL matching NULL); keys query does not yield stay. cols
// are the columns written, keys those of them that make the key (spelled
// as in cols).
func (Standard) Upsert(r Relation, cols, keys []string, query string) []string {
	rel, list := quoteRelation(r), quoteList(cols)
	src := "(\n" + query + "\n) AS _efmesh_src"
	keyMatch, _ := matchSource(rel, cols, keys)
	return []string{
		"DELETE FROM " + rel + " WHERE EXISTS (SELECT 1 FROM " + src + " WHERE " + strings.Join(keyMatch, " AND ") + ")",
		"INSERT INTO " + rel + " (" + list + ") SELECT " + list + " FROM " + src,
	}
}

// MergeHistory returns the statements, run in one transaction, that merge
// query's rows into the type 2 history r at time at (an SQL expression):
// the current version of a key (validTo NULL) is closed at at when query's
// row for the key differs or the key is gone; a key without a current
// version gets one, valid from at. An identical row keeps its version.
// cols are query's columns, keys those of them that make the key.
func (Standard) MergeHistory(r Relation, cols, keys []string, validFrom, validTo, at, query string) []string {
	rel, list := quoteRelation(r), quoteList(cols)
	src := "(\n" + query + "\n) AS _efmesh_src"
	keyMatch, sameRow := matchSource(rel, cols, keys)
	qf, qt := QuoteIdent(validFrom), QuoteIdent(validTo)
	current := rel + "." + qt + " IS NULL"
	same := append(append([]string{}, keyMatch...), sameRow...)
	return []string{
		// Close current versions whose row changed or whose key is gone.
		"UPDATE " + rel + " SET " + qt + " = " + at + " WHERE " + current +
			" AND NOT EXISTS (SELECT 1 FROM " + src + " WHERE " + strings.Join(same, " AND ") + ")",
		// Open a version for every key without a current one.
		"INSERT INTO " + rel + " (" + list + ", " + qf + ", " + qt + ") SELECT " + list + ", " + at + ", NULL FROM " + src +
			" WHERE NOT EXISTS (SELECT 1 FROM " + rel + " WHERE " + current + " AND " + strings.Join(keyMatch, " AND ") + ")",
	}
}

// RangeCondition is the condition that column is in [start, end), start
// and end being SQL expressions.
func RangeCondition(column, start, end string) string {
	c := QuoteIdent(column)
	return c + " >= " + start + " AND " + c + " < " + end
}

// matchSource returns, for each column of cols in order, the condition
// that rel's value equals _efmesh_src's (NULL equal to NULL), split into
// the key's columns and the others.
func matchSource(rel string, cols, keys []string) (keyMatch, rest []string) {
	isKey := make(map[string]bool, len(keys))
	for _, k := range keys {
		isKey[k] = true
	}
	for _, c := range cols {
		n := QuoteIdent(c)
		cond := rel + "." + n + " IS NOT DISTINCT FROM _efmesh_src." + n
		if isKey[c] {
			keyMatch = append(keyMatch, cond)
		} else {
			rest = append(rest, cond)
		}
	}
	return keyMatch, rest
}

func quoteRelation(r Relation) string { return QuoteIdent(r.Schema) + "." + QuoteIdent(r.Name) }

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = QuoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// CountRelationsQuery returns the query counting the tables and views of
// schema, one row of one number, from the standard information schema
// that every engine efmesh supports keeps.
func CountRelationsQuery(d Dialect, schema string) string {
	return "SELECT count(*) FROM information_schema.tables WHERE table_schema = " + d.Literal(schema)
}

// RelationsQuery returns the query listing the relations of schema, one
// row each: its name and its type ("BASE TABLE", "VIEW"; engines differ in
// case), from the standard information schema.
func RelationsQuery(d Dialect, schema string) string {
	return "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = " + d.Literal(schema)
}

// ViewDefinitionsQuery returns the query listing the views of the schemas
// named (all but except when schemas is empty and except is not), one row
// each: schema, name and definition, from the standard information schema.
func ViewDefinitionsQuery(d Dialect, schemas []string, except string) string {
	q := "SELECT table_schema, table_name, view_definition FROM information_schema.views"
	switch {
	case len(schemas) > 0:
		lits := make([]string, len(schemas))
		for i, s := range schemas {
			lits[i] = d.Literal(s)
		}
		q += " WHERE table_schema IN (" + strings.Join(lits, ", ") + ")"
	case except != "":
		q += " WHERE table_schema <> " + d.Literal(except)
	}
	return q
}
