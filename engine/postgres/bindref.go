package postgres

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// The binder's column references: finding a name, a qualifier or a * in
// the visible query levels.

type hit struct {
	r *rel
	i int
}

// find returns the columns called name that level s exposes unqualified,
// and whether an opaque item might have one too.
func (s *scope) find(name string) (hits []hit, maybe bool) {
	for _, r := range s.rels {
		if !r.unqualified {
			continue
		}
		for i, c := range r.cols {
			if c.name == name {
				hits = append(hits, hit{r, i})
			}
		}
		maybe = maybe || r.opaque
	}
	return hits, maybe
}

func isStar(cr *pg_query.ColumnRef) bool {
	n := len(cr.Fields)
	return n > 0 && cr.Fields[n-1].GetAStar() != nil
}

// refParts splits a column reference into its qualifier and final name.
func refParts(cr *pg_query.ColumnRef) (qual []string, name string) {
	for i, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			continue
		}
		if i == len(cr.Fields)-1 {
			name = s.Sval
		} else {
			qual = append(qual, s.Sval)
		}
	}
	return qual, name
}

// columnRef resolves a reference and returns its type and, when it names
// one column of a FROM item, which.
func (b *binder) columnRef(cr *pg_query.ColumnRef, sc *scope) (string, *hit) {
	qual, name := refParts(cr)
	if isStar(cr) {
		if len(qual) > 0 {
			b.findRel(qual, cr.Location, sc) // t.* as a whole-row value
		}
		return "", nil
	}
	if len(qual) == 0 {
		return b.unqualified(name, cr.Location, sc)
	}
	if len(qual) > 3 {
		b.fail("Parser", "SYNTAX_ERROR", cr.Location, name, nil, "improper qualified name (too many dotted names)")
		return "", nil
	}
	r := b.findRel(qual, cr.Location, sc)
	if r == nil {
		return "", nil
	}
	idx := indexes(r.cols, name)
	switch {
	case len(idx) == 1:
		return r.cols[idx[0]].typ, &hit{r, idx[0]}
	case len(idx) > 1:
		b.fail("Binder", "AMBIGUOUS_COLUMN", cr.Location, name, nil, "column reference %q is ambiguous", qual[len(qual)-1]+"."+name)
	case !r.opaque:
		b.fail("Binder", "COLUMN_NOT_FOUND", cr.Location, name, closest(name, names(r.cols)),
			"column %s.%s does not exist", qual[len(qual)-1], name)
	}
	return "", nil
}

// unqualified resolves a bare name the way colNameToVar does: the
// innermost level that has the name wins, and two items of that level
// having it is ambiguous. A name no level has as a column may be a
// relation's name: a whole-row reference.
func (b *binder) unqualified(name string, loc int32, sc *scope) (string, *hit) {
	for s := sc; s != nil; s = s.outer {
		hits, maybe := s.find(name)
		if len(hits) > 1 {
			var cands []string
			for _, h := range hits {
				if src := h.r.cols[h.i].src; src != "" {
					cands = append(cands, src+"."+name)
				}
			}
			b.fail("Binder", "AMBIGUOUS_COLUMN", loc, name, cands, "column reference %q is ambiguous", name)
			return "", nil
		}
		if len(hits) == 1 {
			b.countRef(s == sc)
			return hits[0].r.cols[hits[0].i].typ, &hits[0]
		}
		if maybe {
			return "", nil
		}
	}
	for s := sc; s != nil; s = s.outer {
		for _, r := range s.rels {
			if r.qualified && r.name == name {
				if r.scalar && len(r.cols) == 1 {
					// A whole-row reference to a function of a base
					// type is its value (makeWholeRowVar).
					return r.cols[0].typ, nil
				}
				return "", nil
			}
		}
	}
	var pool []string
	for s := sc; s != nil; s = s.outer {
		for _, r := range s.rels {
			if r.unqualified {
				pool = append(pool, names(r.cols)...)
			}
		}
	}
	msg := fmt.Sprintf("column %q does not exist", name)
	if r, _ := sc.hiddenRel(func(r *rel) bool { return r.unqualified && indexes(r.cols, name) != nil }); r != nil {
		msg += fmt.Sprintf("\nHINT: There is a column named %q in table %q, but it cannot be referenced from this part of the query.", name, r.name)
	}
	b.fail("Binder", "COLUMN_NOT_FOUND", loc, name, closest(name, pool), "%s", msg)
	return "", nil
}

// hiddenRel finds an item a scope on the chain hides that matches.
func (sc *scope) hiddenRel(match func(*rel) bool) (*rel, *scope) {
	for s := sc; s != nil; s = s.outer {
		for _, r := range s.hidden {
			if match(r) {
				return r, s
			}
		}
	}
	return nil, nil
}

// findRel finds the item a qualifier names, innermost level first:
// name, schema.name or catalog.schema.name.
func (b *binder) findRel(qual []string, loc int32, sc *scope) *rel {
	name := qual[len(qual)-1]
	var schema, catalog string
	if len(qual) >= 2 {
		schema = qual[len(qual)-2]
	}
	if len(qual) >= 3 {
		catalog = qual[len(qual)-3]
	}
	for s := sc; s != nil; s = s.outer {
		var found []*rel
		for _, r := range s.rels {
			if !r.qualified || r.name != name {
				continue
			}
			if schema != "" && (!r.table || r.schema != schema) {
				continue
			}
			if catalog != "" && r.catalog != "" && r.catalog != catalog {
				continue
			}
			found = append(found, r)
		}
		if len(found) > 1 {
			b.fail("Binder", "AMBIGUOUS_ALIAS", loc, name, nil, "table reference %q is ambiguous", name)
			return nil
		}
		if len(found) == 1 {
			b.countRef(s == sc)
			return found[0]
		}
	}
	var pool []string
	for s := sc; s != nil; s = s.outer {
		for _, r := range s.rels {
			if r.qualified && r.name != "" {
				pool = append(pool, r.name)
			}
		}
	}
	if r, s := sc.hiddenRel(func(r *rel) bool { return r.qualified && r.name == name }); r != nil {
		hint := fmt.Sprintf("There is an entry for table %q, but it cannot be referenced from this part of the query.", name)
		if s.needsLateral {
			hint = "To reference that table, you must mark this subquery with LATERAL."
		}
		b.fail("Binder", "UNDEFINED_TABLE", loc, name, nil, "invalid reference to FROM-clause entry for table %q\nHINT: %s", name, hint)
		return nil
	}
	b.fail("Binder", "UNDEFINED_TABLE", loc, name, closest(name, pool), "missing FROM-clause entry for table %q", name)
	return nil
}

// expandStar expands * (this level's items in FROM order) or t.*.
func (b *binder) expandStar(cr *pg_query.ColumnRef, sc *scope) ([]column, []hit, bool) {
	var cols []column
	var hits []hit
	opaque := false
	add := func(r *rel) {
		for i, c := range r.cols {
			cols = append(cols, c)
			hits = append(hits, hit{r, i})
		}
		opaque = opaque || r.opaque
	}
	qual, _ := refParts(cr)
	if len(qual) > 0 {
		if r := b.findRel(qual, cr.Location, sc); r != nil {
			add(r)
		} else {
			opaque = true
		}
		return cols, hits, opaque
	}
	any := false
	for _, r := range sc.rels {
		if r.unqualified {
			any = true
			add(r)
		}
	}
	if !any {
		b.fail("Parser", "SYNTAX_ERROR", cr.Location, "", nil, "SELECT * with no tables specified is not valid")
	}
	return cols, hits, opaque
}

// countRef counts a reference resolved at the level it is looked up
// from (local) or at an outer one.
func (b *binder) countRef(local bool) {
	if local {
		b.refsLocal++
	} else {
		b.refsOuter++
	}
}
