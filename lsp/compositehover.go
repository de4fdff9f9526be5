package lsp

import (
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// parenFieldAt finds a field of a composite (or struct) column read with
// parentheses at off ((p.np).first, (np).first, (p.np).a.b with the
// cursor on a field): the scope of the column reference inside the
// parentheses, the path of the field (the reference's parts, then the
// fields up to the one under the cursor) and the field name's span.
func parenFieldAt(src []byte, q *sqlread.Query, off int) (scope *sqlread.Query, path []string, start, end int, ok bool) {
	toks := sqlscan.Tokens(src, q.Start)
	isName := func(t sqlscan.Token) bool { return t.Kind == sqlscan.Ident || t.Kind == sqlscan.QuotedIdent }
	for i, t := range toks {
		if t.Start > off {
			break
		}
		if off > t.End || !isName(t) {
			continue
		}
		// Back over ".f" to the ")" that closes the column reference.
		fields := []string{sqlscan.FoldName(t.Value(src))}
		j := i
		for j >= 2 && toks[j-1].Text(src) == "." && isName(toks[j-2]) {
			fields = append([]string{sqlscan.FoldName(toks[j-2].Value(src))}, fields...)
			j -= 2
		}
		if j < 2 || toks[j-1].Text(src) != "." || toks[j-2].Text(src) != ")" {
			return nil, nil, 0, 0, false
		}
		// Inside the parentheses: a dotted name alone (not a call's
		// arguments: the "(" follows no name).
		k := j - 3
		var parts []string
		for k >= 0 && isName(toks[k]) {
			parts = append([]string{sqlscan.FoldName(toks[k].Value(src))}, parts...)
			if k >= 1 && toks[k-1].Text(src) == "." {
				k -= 2
				continue
			}
			k--
			break
		}
		if len(parts) == 0 || k < 0 || toks[k].Text(src) != "(" || k >= 1 && isName(toks[k-1]) && !isClauseWord(toks[k-1].Text(src)) {
			return nil, nil, 0, 0, false
		}
		close := toks[j-2].Start
		sqlread.Walk(q, func(s *sqlread.Query) {
			if ok {
				return
			}
			refs := s.Refs
			for _, it := range s.Items {
				refs = append(refs[:len(refs):len(refs)], it.Refs...)
			}
			for _, r := range refs {
				if r.End == close {
					scope, path, ok = s, append(parts, fields...), true
					return
				}
			}
		})
		return scope, path, t.Start, t.End, ok
	}
	return nil, nil, 0, 0, false
}

// isClauseWord: a keyword a parenthesised expression may follow (SELECT
// (p.np).first, WHERE (np).last = …), unlike a function's name.
func isClauseWord(w string) bool {
	return sqlread.IsReserved(sqlscan.FoldName(w)) || sqlread.IsKeyword(sqlscan.FoldName(w))
}

// fieldProbe is an expression whose type is that of the field path of a
// value of type typ: (NULL::typ).f.g, for the engine to describe when the
// type's fields are not written in it (a Postgres composite type).
func fieldProbe(typ string, fields []string) string {
	e := "NULL::" + typ
	for _, f := range fields {
		e = "(" + e + ")." + engine.QuoteIdent(f)
	}
	return e
}
