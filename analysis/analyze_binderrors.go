package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// maxBinderErrors bounds the re-binds of one body: past it, the rest of
// the typos wait for the next check.
const maxBinderErrors = 32

// A describer binds a query and returns its output columns, or the
// engine's error positioned in the query: an engine describing against
// its stand-in tables, or a server binder against its stand-ins
// (serverDescriber).
type describer interface {
	Describe(ctx context.Context, sql string) ([]engine.Column, error)
}

// serverDescriber describes with a ServerBinder, the body's relations
// standing in for its refs.
type serverDescriber struct {
	server    ServerBinder
	relations map[string][]engine.Column
}

func (d serverDescriber) Describe(ctx context.Context, sql string) ([]engine.Column, error) {
	return d.server.BindContext(ctx, sql, d.relations)
}

// UntypedNull reports whether the server's NULL has no type until context
// gives it one (PostgreSQL's unknown), so that a NULL replacing a column
// can make an error of its own (see describeAll).
func (d serverDescriber) UntypedNull() bool {
	u, ok := d.server.(interface{ UntypedNull() bool })
	return ok && u.UntypedNull()
}

// describeAll describes sql and, where the engine stops at a reference it
// cannot bind (an unknown column or struct field, an ambiguous or
// ungrouped column), replaces that reference and binds again, so a body
// with N typos yields N errors, not the first one only. The errors'
// positions are in sql's coordinates; the columns are nil when any error
// was found.
func describeAll(ctx context.Context, eng describer, sql string) ([]engine.Column, []error) {
	untyped := false
	if u, ok := eng.(interface{ UntypedNull() bool }); ok {
		untyped = u.UntypedNull()
	}
	var errs []error
	var edits []sqlEdit
	groupNulled := false // a GROUP BY item was replaced by NULL
	cur := sql
	for range maxBinderErrors {
		cols, err := eng.Describe(ctx, cur)
		if err == nil {
			if errs != nil {
				withAliases([]byte(sql), errs, cols)
				return nil, inTextOrder(errs)
			}
			return cols, nil
		}
		var se *engine.SQLError
		if !errors.As(err, &se) {
			return nil, append(errs, err)
		}
		if len(edits) > 0 && se.Type == "Parser" {
			// Our replacement broke the text: what is left is unknown.
			return nil, inTextOrder(errs)
		}
		e := *se
		if len(edits) > 0 && e.Position >= 0 && inEdit(edits, e.Position) {
			// The error is about our replacement (ORDER BY NULL), not
			// the user's text: what is left is unknown.
			return nil, inTextOrder(errs)
		}
		if e.Position < 0 && strings.Contains(e.Message, "QUALIFY with GROUP BY ALL") {
			// Said at QUALIFY (namedClause); the engine stops there,
			// before the select list: bind again without the clause.
			errs = append(errs, &e)
			start, end, ok := qualifyClause(cur)
			if !ok {
				return nil, inTextOrder(errs)
			}
			cur = cur[:start] + cur[end:]
			edits = append(edits, sqlEdit{at: start, oldLen: end - start})
			continue
		}
		if e.Subtype == engine.SubtypeNotGrouped && e.Position < 0 {
			havingRef(ctx, eng, cur, &e)
		}
		var start, end int
		var with string
		var ok bool
		if e.Subtype == engine.SubtypeColumnNotFound && e.Position < 0 && e.Name != "" {
			start, end, with, ok = usingRef(ctx, eng, cur, &e)
		} else {
			start, end, with, ok = rebindable(cur, &e)
		}
		if len(edits) > 0 && untyped && (e.Position < 0 || !nameError(e.Subtype)) {
			// Where NULL has no type, an error past our replacements
			// that no position ties to the user's text, or that is not
			// about a name, may be about a NULL of ours: PostgreSQL's
			// NULL is of type unknown, so to_jsonb(NULL) and NULL -> 'k'
			// fail to resolve where the column they replace resolves.
			// What is left is unknown; the next check, past the first
			// error, reports it.
			return nil, inTextOrder(errs)
		}
		if ok && e.Subtype == engine.SubtypeColumnNotFound && len(e.Candidates) == 0 {
			e.Candidates = unqualifiedCandidates(ctx, eng, cur, start, end)
		}
		if ok && e.Subtype == engine.SubtypeColumnNotFound && len(e.Candidates) == 0 {
			e.Candidates = fromCandidates(ctx, eng, cur, start, end, cur[start:end])
		}
		if ok && e.Subtype == engine.SubtypeColumnNotFound && len(e.Candidates) == 0 {
			// A qualified one (p.yy in QUALIFY): the engine names no
			// candidates for the qualifier's relation; unqualified, it
			// names those of every relation in scope.
			if last, _ := lastPartAt([]byte(cur), start); last > start {
				e.Candidates = fromCandidates(ctx, eng, cur, start, end, cur[last:end])
			}
		}
		if ok && e.Subtype == engine.SubtypeColumnNotFound && with == "NULL" {
			switch {
			case clauseAt([]byte(cur), start) == "ORDER":
				with = "1" // ORDER BY NULL is refused as a constant
			case queryClauseAt([]byte(cur), start) == "GROUP":
				// ALL groups by the select list where the name is the
				// only item (ALL is a parser error anywhere else); NULL
				// groups by nothing, and the columns it leaves ungrouped
				// are not the user's mistake.
				if soleGroupItem([]byte(cur), start, end) {
					with = "ALL"
				} else {
					groupNulled = true
				}
			}
		}
		if e.Position >= 0 {
			e.Position = unshift(edits, e.Position)
		}
		if groupNulled && e.Subtype == engine.SubtypeNotGrouped && ok {
			// Ungrouped because a GROUP BY item of ours is NULL: bind
			// past it without reporting it.
		} else {
			errs = append(errs, &e)
		}
		if !ok {
			return nil, inTextOrder(errs)
		}
		cur = cur[:start] + with + cur[end:]
		edits = append(edits, sqlEdit{at: start, oldLen: end - start, newLen: len(with)})
	}
	return nil, inTextOrder(errs)
}

// nameError reports whether subtype is one of the errors about a name
// that describeAll replaces and binds past.
func nameError(subtype string) bool {
	switch subtype {
	case engine.SubtypeColumnNotFound, engine.SubtypeNotGrouped, engine.SubtypeAmbiguousColumn, engine.SubtypeFieldNotFound:
		return true
	}
	return false
}

// qualifyClause is the range of sql's QUALIFY clause, from its keyword
// to the next clause at its depth (WINDOW, ORDER BY, LIMIT, a set
// operation, the ")" that closes its query, or the end): the outermost
// one when there are several.
func qualifyClause(sql string) (start, end int, ok bool) {
	src := []byte(sql)
	toks := sqlscan.Tokens(src, 0)
	depth, at, best := 0, -1, -1
	for i, t := range toks {
		switch {
		case t.Kind == sqlscan.Punct && t.Text(src) == "(":
			depth++
		case t.Kind == sqlscan.Punct && t.Text(src) == ")":
			depth--
		case t.Is(src, "qualify") && (at < 0 || depth < best):
			at, best = i, depth
		}
	}
	if at < 0 {
		return 0, 0, false
	}
	start, end, depth = toks[at].Start, len(sql), 0
	for _, t := range toks[at+1:] {
		text := strings.ToLower(t.Text(src))
		switch {
		case t.Kind == sqlscan.Punct && text == "(":
			depth++
		case t.Kind == sqlscan.Punct && text == ")":
			depth--
		}
		if depth < 0 || depth == 0 && (t.Kind == sqlscan.Punct && text == ";" ||
			t.Kind == sqlscan.Ident && afterQualify[text]) {
			return start, t.Start, true
		}
	}
	return start, end, true
}

// afterQualify are the keywords that end a QUALIFY clause.
var afterQualify = map[string]bool{
	"window": true, "order": true, "limit": true, "offset": true, "union": true, "intersect": true, "except": true,
}

// inTextOrder sorts errors by position (the binder's order is its own:
// FROM, WHERE, then the select list); unpositioned ones keep their place
// at the end.
func inTextOrder(errs []error) []error {
	pos := func(err error) int {
		var se *engine.SQLError
		if errors.As(err, &se) && se.Position >= 0 {
			return se.Position
		}
		return math.MaxInt
	}
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(pos(a), pos(b)) })
	return errs
}

// unqualifiedCandidates binds sql with the qualified reference at
// [start, end) written without its qualifier, for the candidates the
// engine gives only for an unqualified one (a CTE's or VALUES list's
// columns).
func unqualifiedCandidates(ctx context.Context, eng describer, sql string, start, end int) []string {
	last, _ := lastPartAt([]byte(sql), start)
	if last <= start {
		return nil
	}
	_, err := eng.Describe(ctx, sql[:start]+sql[last:end]+sql[end:])
	var se *engine.SQLError
	if errors.As(err, &se) && se.Subtype == engine.SubtypeColumnNotFound && se.Position == start {
		return se.Candidates
	}
	return nil
}

// havingRef positions a not-grouped error the engine gives without a
// position (a name in HAVING) at the name, and tells an unknown name from
// a column that is not grouped: aggregated, a known column binds, an
// unknown one is reported with its candidates.
func havingRef(ctx context.Context, eng describer, sql string, e *engine.SQLError) {
	src := []byte(sql)
	toks := sqlscan.Tokens(src, 0)
	for i, t := range toks {
		if !names(src, t, e.Name) || i > 0 && toks[i-1].Text(src) == "." || clauseAt(src, t.Start) != "HAVING" {
			continue
		}
		const agg = "any_value("
		_, err := eng.Describe(ctx, sql[:t.Start]+agg+sql[t.Start:t.End]+")"+sql[t.End:])
		var se *engine.SQLError
		if errors.As(err, &se) && se.Subtype == engine.SubtypeColumnNotFound && se.Position == t.Start+len(agg) {
			e.Subtype, e.Candidates = engine.SubtypeColumnNotFound, se.Candidates
		}
		e.Position = t.Start
		return
	}
}

// usingRef positions an unknown name of a USING (…) list, which the
// engine reports without a position, at its token, with the columns of
// both sides as candidates, and returns the text that lets the binder go
// past it: the list without the name (and a comma beside it), or ON true
// for the whole USING where the name is its only item.
func usingRef(ctx context.Context, eng describer, sql string, e *engine.SQLError) (start, end int, with string, ok bool) {
	src := []byte(sql)
	toks := sqlscan.Tokens(src, 0)
	punct := func(i int, p string) bool {
		return i < len(toks) && toks[i].Kind == sqlscan.Punct && toks[i].Text(src) == p
	}
	for u := range toks {
		if !toks[u].Is(src, "USING") || !punct(u+1, "(") {
			continue
		}
		var items []int
		closing := -1
		for j := u + 2; j < len(toks); j++ {
			if punct(j, ")") {
				closing = j
				break
			}
			if isName(toks[j]) {
				items = append(items, j)
			}
		}
		if closing < 0 {
			return 0, 0, "", false
		}
		k := slices.IndexFunc(items, func(j int) bool { return names(src, toks[j], e.Name) })
		if k < 0 {
			continue
		}
		item := toks[items[k]]
		e.Position = item.Start
		whole := [2]int{toks[u].Start, toks[closing].End}
		_, err := eng.Describe(ctx, sql[:whole[0]]+"ON "+item.Text(src)+sql[whole[1]:])
		var se *engine.SQLError
		if errors.As(err, &se) && se.Subtype == engine.SubtypeColumnNotFound {
			for _, c := range se.Candidates {
				if !sqlscan.SameName(lastParts([]string{c})[0], e.Name) {
					e.Candidates = append(e.Candidates, c)
				}
			}
		}
		switch {
		case len(items) == 1:
			return whole[0], whole[1], "ON true", true
		case k+1 < len(items):
			return item.Start, toks[items[k+1]].Start, "", true
		default:
			return toks[items[k-1]].End, item.End, "", true
		}
	}
	return 0, 0, "", false
}

// fromCandidates binds sql with the reference at [start, end) of the
// top-level query written last in its select list instead (as ref), for
// the candidates the engine gives there and not in every clause (QUALIFY).
func fromCandidates(ctx context.Context, eng describer, sql string, start, end int, ref string) []string {
	src := []byte(sql)
	from := -1
	// query[i]: the parentheses open at depth i hold a query (a
	// subquery's scope is its own).
	query := []bool{true}
	for _, t := range sqlscan.Tokens(src, 0) {
		if t.Start >= start {
			break
		}
		top := len(query) - 1
		switch {
		case t.Kind == sqlscan.Punct && t.Text(src) == "(":
			query = append(query, false)
		case t.Kind == sqlscan.Punct && t.Text(src) == ")":
			if top > 0 {
				query = query[:top]
			}
		case top > 0 && t.Is(src, "SELECT"):
			query[top] = true
		case top == 0 && t.Is(src, "FROM"):
			from = t.Start
		}
	}
	if from < 0 || slices.Contains(query[1:], true) {
		return nil
	}
	// The clause's other unknown names are bound before the select
	// list: each is replaced too, until the engine reaches ours.
	// (The engine may bind QUALIFY before the select list: the select
	// list's unknown names are replaced as well.)
	probe := sql[:from] + ", " + ref + " " + sql[from:start] + "NULL" + sql[end:]
	at := from + 2
	for range maxBinderErrors {
		_, err := eng.Describe(ctx, probe)
		var se *engine.SQLError
		if !errors.As(err, &se) {
			return nil
		}
		if se.Position == at && se.Subtype == engine.SubtypeColumnNotFound {
			return se.Candidates
		}
		s, e, with, ok := rebindable(probe, se)
		if !ok || s < at+len(ref) && e > at {
			return nil
		}
		probe = probe[:s] + with + probe[e:]
		if s < at {
			at += len(with) - (e - s)
		}
	}
	return nil
}

// queryClauseAt names the clause that offset off is in, of the innermost
// query around it: like clauseAt, inside subqueries too, and through the
// parentheses of a call (GROUP BY upper(x) is in GROUP).
func queryClauseAt(sql []byte, off int) string {
	stack := []string{""}
	for _, t := range sqlscan.Tokens(sql, 0) {
		if t.Start >= off {
			break
		}
		top := len(stack) - 1
		switch {
		case t.Kind == sqlscan.Punct && t.Text(sql) == "(":
			stack = append(stack, stack[top])
		case t.Kind == sqlscan.Punct && t.Text(sql) == ")":
			if top > 0 {
				stack = stack[:top]
			}
		case t.Kind == sqlscan.Ident:
			for _, kw := range []string{"SELECT", "FROM", "WHERE", "GROUP", "HAVING", "QUALIFY", "WINDOW", "ORDER", "LIMIT", "OVER"} {
				if t.Is(sql, kw) {
					stack[top] = kw
				}
			}
		}
	}
	return stack[len(stack)-1]
}

// soleGroupItem reports whether the reference at [start, end) is the
// whole of its GROUP BY list.
func soleGroupItem(src []byte, start, end int) bool {
	toks := sqlscan.Tokens(src, 0)
	i := slices.IndexFunc(toks, func(t sqlscan.Token) bool { return t.Start == start })
	if i < 1 || !toks[i-1].Is(src, "BY") {
		return false
	}
	j := slices.IndexFunc(toks, func(t sqlscan.Token) bool { return t.Start >= end })
	if j < 0 {
		return true
	}
	next := toks[j]
	if next.Kind == sqlscan.Punct {
		return next.Text(src) == ")" || next.Text(src) == ";"
	}
	for _, kw := range []string{"HAVING", "QUALIFY", "WINDOW", "ORDER", "LIMIT", "OFFSET", "UNION", "EXCEPT", "INTERSECT"} {
		if next.Is(src, kw) {
			return true
		}
	}
	return false
}

// inEdit reports whether offset p of the edited text falls in the text
// one of the edits wrote.
func inEdit(edits []sqlEdit, p int) bool {
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		switch {
		case p >= e.at+e.newLen:
			p += e.oldLen - e.newLen
		case p >= e.at:
			return true
		}
	}
	return false
}

// withAliases adds the output columns of the query (its select list's
// names) to the candidates of an unknown column where the engine resolves
// a select list alias: in the top-level ORDER BY, GROUP BY, HAVING and
// QUALIFY.
func withAliases(sql []byte, errs []error, cols []engine.Column) {
	for _, err := range errs {
		var se *engine.SQLError
		if !errors.As(err, &se) || se.Subtype != engine.SubtypeColumnNotFound || se.Position < 0 {
			continue
		}
		switch clauseAt(sql, se.Position) {
		case "ORDER", "GROUP", "HAVING", "QUALIFY":
		default:
			continue
		}
		for _, c := range cols {
			if !slices.Contains(lastParts(se.Candidates), c.Name) {
				se.Candidates = append(se.Candidates, c.Name)
			}
		}
	}
}

// clauseAt names the clause of the top-level query that offset off is in
// (SELECT, FROM, WHERE, GROUP, HAVING, QUALIFY, WINDOW, ORDER, LIMIT), ""
// when off is inside parentheses (a subquery, a CTE, a call).
func clauseAt(sql []byte, off int) string {
	depth, clause := 0, ""
	for _, t := range sqlscan.Tokens(sql, 0) {
		if t.Start >= off {
			break
		}
		switch {
		case t.Kind == sqlscan.Punct && t.Text(sql) == "(":
			depth++
		case t.Kind == sqlscan.Punct && t.Text(sql) == ")":
			depth--
		case depth == 0 && t.Kind == sqlscan.Ident:
			for _, kw := range []string{"SELECT", "FROM", "WHERE", "GROUP", "HAVING", "QUALIFY", "WINDOW", "ORDER", "LIMIT"} {
				if t.Is(sql, kw) {
					clause = kw
				}
			}
		}
	}
	if depth != 0 {
		return ""
	}
	return clause
}

// A sqlEdit replaced oldLen bytes at at with newLen bytes.
type sqlEdit struct{ at, oldLen, newLen int }

// unshift maps an offset of the edited text back to the original's.
func unshift(edits []sqlEdit, p int) int {
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		switch {
		case p >= e.at+e.newLen:
			p += e.oldLen - e.newLen
		case p >= e.at:
			p = e.at
		}
	}
	return p
}

// rebindable returns the range of the reference e is about in sql and
// the text that lets the binder go past it; ok is false when e is not
// about one reference. A struct field error without a position gets the
// position of the reference that names the field.
func rebindable(sql string, e *engine.SQLError) (start, end int, with string, ok bool) {
	src := []byte(sql)
	switch e.Subtype {
	case engine.SubtypeColumnNotFound, engine.SubtypeNotGrouped:
		if e.Position < 0 || e.Position >= len(src) || !nameAt(src, e.Position) {
			return 0, 0, "", false
		}
		_, end = lastPartAt(src, e.Position)
		return e.Position, end, "NULL", true
	case engine.SubtypeAmbiguousColumn:
		if e.Position < 0 || e.Position >= len(src) || !nameAt(src, e.Position) {
			return 0, 0, "", false
		}
		_, end = lastPartAt(src, e.Position)
		with = "NULL"
		if len(e.Candidates) > 0 {
			with = spellPath(e.Candidates[0])
		}
		return e.Position, end, with, true
	case engine.SubtypeFieldNotFound:
		start, end, ok = fieldRef(src, e.Name)
		if ok {
			if e.Position < 0 {
				e.Position = start
			}
			return start, end, "NULL", true
		}
		// s['f'] or struct_extract(s, 'f'): the error is at the string
		// that names the field; the whole access is replaced.
		var at int
		at, start, end, ok = fieldString(src, e.Name)
		if !ok {
			return 0, 0, "", false
		}
		if e.Position < 0 {
			e.Position = at
		}
		return start, end, "NULL", true
	}
	return 0, 0, "", false
}

// fieldRef finds a dotted reference (s.key, t.s.key) whose last part is
// the field name, outside strings and comments: the range of the whole
// reference.
func fieldRef(src []byte, name string) (start, end int, ok bool) {
	toks := sqlscan.Tokens(src, 0)
	for i, t := range toks {
		if i < 2 || !names(src, t, name) || toks[i-1].Text(src) != "." {
			continue
		}
		j := i - 2
		for j >= 2 && toks[j-1].Text(src) == "." && isName(toks[j-2]) {
			j -= 2
		}
		if !isName(toks[j]) {
			continue
		}
		return toks[j].Start, t.End, true
	}
	return 0, 0, false
}

// fieldString finds a struct field named by a string, outside comments:
// s['name'] (the access runs from the dotted name before the bracket to
// the bracket's end) or struct_extract(s, 'name') (the whole call). at is
// the string's offset, [start, end) the access's range.
func fieldString(src []byte, name string) (at, start, end int, ok bool) {
	toks := sqlscan.Tokens(src, 0)
	punct := func(i int, p string) bool {
		return i >= 0 && i < len(toks) && toks[i].Kind == sqlscan.Punct && toks[i].Text(src) == p
	}
	for i, t := range toks {
		if t.Kind != sqlscan.String || !sqlscan.SameName(t.Value(src), name) {
			continue
		}
		if punct(i-1, "[") && punct(i+1, "]") && i >= 2 && isName(toks[i-2]) {
			j := i - 2
			for j >= 2 && toks[j-1].Text(src) == "." && isName(toks[j-2]) {
				j -= 2
			}
			return t.Start, toks[j].Start, toks[i+1].End, true
		}
		if !punct(i-1, ",") || !punct(i+1, ")") {
			continue
		}
		// Back to the call's open parenthesis.
		depth := 0
		for j := i - 1; j >= 1; j-- {
			switch {
			case punct(j, ")") || punct(j, "]"):
				depth++
			case (punct(j, "(") || punct(j, "[")) && depth > 0:
				depth--
			case punct(j, "("):
				if toks[j-1].Is(src, "struct_extract") {
					return t.Start, toks[j-1].Start, toks[i+1].End, true
				}
				j = 0
			}
		}
	}
	return 0, 0, 0, false
}

// nameAt reports whether a name (bare or quoted) starts at off.
func nameAt(src []byte, off int) bool {
	return src[off] == '"' || sqlscan.IsIdentStart(src, off)
}

func isName(t sqlscan.Token) bool { return t.Kind == sqlscan.Ident || t.Kind == sqlscan.QuotedIdent }

// names reports whether t is an identifier the engine binds to name:
// quoted or bare, equal but for ASCII case (sqlscan.FoldName).
func names(src []byte, t sqlscan.Token, name string) bool {
	switch t.Kind {
	case sqlscan.QuotedIdent:
		return sqlscan.SameName(t.Value(src), name)
	case sqlscan.Ident:
		return sqlscan.SameName(t.Text(src), name)
	}
	return false
}

var bareName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// spellName writes a name as SQL: bare when it is lower-case and plain,
// else quoted, so a quoted identifier keeps its case ("Käufer").
func spellName(n string) string {
	if bareName.MatchString(n) {
		return n
	}
	return engine.QuoteIdent(n)
}

// spellPath writes a dotted name (t.a) part by part.
func spellPath(p string) string {
	parts := strings.Split(p, ".")
	for i, s := range parts {
		parts[i] = spellName(s)
	}
	return strings.Join(parts, ".")
}

// lastParts returns the last dotted part of each candidate (t.a → a).
func lastParts(cands []string) []string {
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c[strings.LastIndexByte(c, '.')+1:]
	}
	return out
}

// referenceDiag is the diagnostic of an engine error about one reference,
// at [start, end) (its last part), with the fixes that apply: the nearest
// name in scope for an unknown column or field, one qualification per
// relation for an ambiguous column. ok is false for other errors.
func referenceDiag(m *project.Model, se *engine.SQLError, start, end int) (project.Diagnostic, bool) {
	written := string(m.Source[start:end])
	var code, msg string
	var fixes []project.Fix
	change := func(s string) {
		text := spellName(s)
		if strings.HasPrefix(written, "'") { // s['f'], struct_extract(s, 'f')
			text = "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
		fixes = append(fixes, project.Fix{Title: "Change to " + text,
			Edits: []project.TextEdit{{File: m.File, Start: start, End: end, NewText: text}}})
	}
	switch se.Subtype {
	case engine.SubtypeColumnNotFound, engine.SubtypeFieldNotFound:
		code = project.CodeUnknownColumn
		name := se.Name
		if name == "" {
			name = unquoted(written)
		}
		what := "column"
		if se.Subtype == engine.SubtypeFieldNotFound {
			what = "struct field"
		}
		msg = fmt.Sprintf("unknown %s %s", what, engine.QuoteIdent(name))
		cands := lastParts(se.Candidates)
		// Only a close name is suggested: no suggestion is better than
		// a far one.
		if s, ok := project.DidYouMean(name, cands); ok {
			msg += fmt.Sprintf("; did you mean %s?", engine.QuoteIdent(s))
			change(s)
		}
	case engine.SubtypeAmbiguousColumn:
		code = project.CodeBinder
		name := se.Name
		if name == "" {
			name = unquoted(written)
		}
		msg = fmt.Sprintf("ambiguous column %s: more than one relation in scope has it", engine.QuoteIdent(name))
		if len(se.Candidates) > 0 {
			msg += "; qualify it as " + strings.Join(se.Candidates, " or ")
		}
		for _, c := range se.Candidates {
			fixes = append(fixes, project.Fix{Title: "Qualify as " + spellPath(c),
				Edits: []project.TextEdit{{File: m.File, Start: start, End: end, NewText: spellPath(c)}}})
		}
	case engine.SubtypeNotGrouped:
		code = project.CodeBinder
		name := se.Name
		if name == "" {
			name = unquoted(written)
		}
		msg = fmt.Sprintf("column %s is neither grouped nor aggregated: cannot mix aggregates and non-aggregates; add it to GROUP BY or aggregate it", engine.QuoteIdent(name))
	default:
		return project.Diagnostic{}, false
	}
	d := m.Diagnostic(start, end, project.SeverityError, code, msg)
	d.Fixes = fixes
	return d, true
}

// unquoted is a name as written, without its double quotes.
func unquoted(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}
