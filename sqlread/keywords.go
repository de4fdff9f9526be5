package sqlread

import (
	"slices"
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// The clause keywords, written once: the editor's reader, lint's placing
// of the outline in the text, analysis's clause diff and select-list
// reader, and the formatter all cut a query at them. A package that needs
// a slightly different set derives it from these, saying why. Words are
// bare and lower case; compare a word folded by sqlscan.FoldName.

// setOperations combine two queries.
var setOperations = []string{"union", "intersect", "except"}

// clausesAfterFrom start the clauses that may follow a FROM clause at its
// query's own level, the set operations included.
var clausesAfterFrom = append([]string{"where", "group", "having", "qualify", "window", "order", "limit", "offset"}, setOperations...)

// joinWords are the words of a join: JOIN and what may precede it (LEFT
// OUTER JOIN, ASOF JOIN, POSITIONAL JOIN, SEMI JOIN, …).
var joinWords = []string{"join", "left", "right", "full", "inner", "outer", "cross", "natural", "asof", "positional", "semi", "anti"}

// IsSetOperation reports whether w is UNION, INTERSECT or EXCEPT.
func IsSetOperation(w string) bool { return slices.Contains(setOperations, w) }

// IsClauseAfterFrom reports whether w starts a clause that may follow a
// FROM clause at its query's level: WHERE, GROUP, HAVING, QUALIFY,
// WINDOW, ORDER, LIMIT, OFFSET or a set operation. These words end a FROM
// clause and a WHERE clause.
func IsClauseAfterFrom(w string) bool { return slices.Contains(clausesAfterFrom, w) }

// IsClauseStart reports whether w starts a clause of a query at the
// query's own level: WITH, SELECT, FROM, or a clause after FROM.
func IsClauseStart(w string) bool {
	return w == "with" || w == "select" || w == "from" || IsClauseAfterFrom(w)
}

// ClauseSecondWord is the word that completes the clause keyword w: "by"
// after GROUP and ORDER; "" for the others.
func ClauseSecondWord(w string) string {
	if w == "group" || w == "order" {
		return "by"
	}
	return ""
}

// IsJoinWord reports whether w is JOIN or a word that may precede it.
func IsJoinWord(w string) bool { return slices.Contains(joinWords, w) }

// IsReserved reports whether w cannot be an implicit alias after a table:
// a join word, a clause after FROM, or one of the words that may follow a
// FROM item (ON, USING, TABLESAMPLE, PIVOT, AS, …).
func IsReserved(w string) bool {
	switch w {
	case "on", "using", "select", "from", "tablesample", "pivot", "unpivot", "as", "lateral":
		return true
	}
	return IsJoinWord(w) || IsClauseAfterFrom(w)
}

// IsKeyword reports whether w is a word that is never a bare column name
// in practice: a clause keyword or one of sqlKeywords.
func IsKeyword(w string) bool {
	_, ok := sqlKeywords[w]
	return ok || IsClauseStart(w)
}

// sqlKeywords are the keywords besides the clause keywords.
var sqlKeywords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`
and or not null is in as on case when then else end distinct all by
join left right inner outer full cross interval
true false asc desc nulls first last over partition rows range groups between unbounded preceding
following current row exclude replace like ilike glob similar escape cast try_cast exists any some filter
within using natural lateral values recursive materialized collate default
current_date current_time current_timestamp localtime localtimestamp
integer int int4 int8 int2 bigint smallint tinyint hugeint uinteger ubigint usmallint utinyint
double float float4 float8 real decimal numeric varchar char text string boolean bool blob bytea uuid json
date time timestamp timestamptz zone at struct map list array union_by_name`) {
		m[w] = struct{}{}
	}
	return m
}()

// The reader's own token predicates, over the shared sets.

func isSetOp(t Token) bool { return t.Kind == sqlscan.Ident && IsSetOperation(t.Val) }

// isClauseKeyword reports the keywords that end a select list or a FROM
// item: FROM and the clauses after it, and ON and USING, which end a join's
// right side.
func isClauseKeyword(t Token) bool {
	if t.Kind != sqlscan.Ident {
		return false
	}
	return t.Val == "from" || t.Val == "on" || t.Val == "using" || IsClauseAfterFrom(t.Val)
}

func isJoinWord(t Token) bool { return t.Kind == sqlscan.Ident && IsJoinWord(t.Val) }
