package sqlmeshimport

import (
	"sort"
	"strings"

	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// stmtKind is what a top-level statement after a header is.
type stmtKind int

const (
	stmtQuery stmtKind = iota // SELECT, WITH, FROM, VALUES, (…
	stmtDef                   // @DEF(…): a macro efmesh runs as it is
	stmtAudit                 // AUDIT (…): an audit defined in the file
	stmtJinja                 // JINJA_QUERY_BEGIN … and the like
	stmtOther                 // anything else: sqlmesh's pre- and post-statements
)

// stmt is one top-level statement: src[start:end], without its ';'.
type stmt struct {
	kind       stmtKind
	start, end int
}

// statements splits src[from:] at its top-level semicolons, with sqlscan's
// tokens (so a ';' in a string or comment is no end).
func statements(src []byte, from int) []stmt {
	toks := sqlscan.Tokens(src, from)
	var out []stmt
	depth, first := 0, -1
	flush := func(last int) {
		if first < 0 {
			return
		}
		s := stmt{start: toks[first].Start, end: toks[last].End, kind: classify(src, toks[first:last+1])}
		out = append(out, s)
		first = -1
	}
	for i, t := range toks {
		text := string(src[t.Start:t.End])
		if t.Kind == sqlscan.Punct && text == ";" && depth == 0 {
			flush(i - 1)
			continue
		}
		if first < 0 {
			first = i
		}
		switch {
		case t.Kind == sqlscan.Punct && (text == "(" || text == "["):
			depth++
		case t.Kind == sqlscan.Punct && (text == ")" || text == "]") && depth > 0:
			depth--
		}
	}
	flush(len(toks) - 1)
	return out
}

func classify(src []byte, toks []sqlscan.Token) stmtKind {
	t := toks[0]
	word := strings.ToUpper(t.Text(src))
	switch {
	case t.Kind == sqlscan.Ident && strings.HasPrefix(word, "JINJA_"):
		return stmtJinja
	case t.Kind == sqlscan.Ident && word == "AUDIT" && len(toks) > 1 && toks[1].Text(src) == "(":
		return stmtAudit
	case t.Kind == sqlscan.Ident && (word == "SELECT" || word == "WITH" || word == "FROM" || word == "VALUES"):
		return stmtQuery
	case t.Kind == sqlscan.Punct && word == "(":
		return stmtQuery
	case t.Kind == sqlscan.Macro && sqlscan.MacroName(src, t) == "def":
		return stmtDef
	}
	return stmtOther
}

// hasJinja reports whether src[from:to] holds a Jinja tag ({{, {%) outside
// strings and comments.
func hasJinja(src []byte, from, to int) (int, bool) {
	toks := sqlscan.Tokens(src[:to], from)
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].Text(src) == "{" && (toks[i+1].Text(src) == "{" || strings.HasPrefix(toks[i+1].Text(src), "%")) && toks[i+1].Start == toks[i].End {
			return toks[i].Start, true
		}
	}
	return 0, false
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

func apply(src string, edits []edit) string {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.start < at {
			continue
		}
		b.WriteString(src[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.WriteString(src[at:])
	return b.String()
}

// tableUse is a relation a query reads by name: where its name is written.
type tableUse struct {
	name       string // lower case, dotted as written
	start, end int
}

// tables lists the relations src[from:to] reads by name (FROM and JOIN,
// in every scope): CTEs and table functions are no tables.
func tables(src []byte, from, to int) []tableUse {
	text := src[:to]
	q := sqlread.Parse(text, from)
	var out []tableUse
	var walk func(q *sqlread.Query)
	walk = func(q *sqlread.Query) {
		if q == nil {
			return
		}
		for _, s := range q.Sources {
			if s.Table == "" || s.CTE != nil {
				continue
			}
			if at := sqlscan.SkipBlank(text, s.NameEnd); at < len(text) && text[at] == '(' {
				continue // a table function
			}
			out = append(out, tableUse{name: s.Table, start: s.NameStart, end: s.NameEnd})
		}
		for _, c := range q.CTEs {
			walk(c.Query)
		}
		for _, s := range q.Subs {
			walk(s)
		}
		for _, s := range q.Branches {
			walk(s)
		}
	}
	walk(q)
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	// A scope can be reached twice (a subquery source is also a Sub).
	uniq := out[:0]
	for i, u := range out {
		if i == 0 || u.start != out[i-1].start {
			uniq = append(uniq, u)
		}
	}
	return uniq
}

// runVars are sqlmesh's time variables and their efmesh SQL. sqlmesh's end
// variables are inclusive (the last instant of the range: a daily
// interval's @end_date is its own day); efmesh's @end is exclusive, so they
// step back one microsecond. @start_ds, @start_ts and @execution_ds mean
// the same in both and stay.
var runVars = map[string]string{
	"start_date": "CAST(@start AS DATE)",
	"end_date":   "CAST(@end - INTERVAL '1 microsecond' AS DATE)",
	"start_dt":   "CAST(@start AS TIMESTAMP)",
	"end_dt":     "CAST(@end - INTERVAL '1 microsecond' AS TIMESTAMP)",
	"end_ds":     "CAST(CAST(@end - INTERVAL '1 microsecond' AS DATE) AS TEXT)",
	"end_ts":     "CAST(CAST(@end - INTERVAL '1 microsecond' AS TIMESTAMP) AS TEXT)",
}

// unsupportedVars are sqlmesh variables efmesh has no equivalent for.
var unsupportedVars = map[string]bool{
	"start_epoch": true, "end_epoch": true, "start_millis": true, "end_millis": true,
	"start_hour": true, "end_hour": true, "execution_date": true, "execution_dt": true,
	"execution_ts": true, "execution_epoch": true, "execution_millis": true, "execution_hour": true,
	"gateway": true, "this_env": true, "schema": true, "snapshot": true, "table_name": true,
}

// macroUse is one @name in a text.
type macroUse struct {
	name       string // lower case
	start, end int
}

func macros(src []byte, from, to int) []macroUse {
	var out []macroUse
	for _, t := range sqlscan.Tokens(src[:to], from) {
		if t.Kind == sqlscan.Macro {
			out = append(out, macroUse{name: sqlscan.MacroName(src, t), start: t.Start, end: t.Start + 1 + len(sqlscan.MacroName(src, t))})
		}
	}
	return out
}
