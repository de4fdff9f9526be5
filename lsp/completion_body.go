package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// Completion in a model's body, by clause (sqlread.PlaceAt): where an
// expression starts, the columns of every relation in scope (unqualified,
// their relation in the detail), then the relations' aliases, then the
// engine's functions and the keywords that fit; where an expression or a
// relation just ended, the keywords that continue or end it. Items are
// ranked by sortText in that order, so a column outranks a function of the
// same prefix (hou: the column hours before the function hour).
const (
	rankColumn   = "0"
	rankAlias    = "1"
	rankFunction = "2"
	rankKeyword  = "3"
)

// completeBody completes the word being typed (or none yet) at d in a
// model's body; incomplete when functions were left out because no prefix
// is typed yet (the client asks again as the user types).
func (s *Server) completeBody(ctx context.Context, d *docPos) (items []protocol.CompletionItem, incomplete bool) {
	m := d.f.model
	src, off := d.f.src, min(d.off, len(d.f.src))
	if m == nil || off < m.BodyStart || !m.Kind.Name.HasBody() {
		return nil, false
	}
	ws := sqlread.WordStart(src, m.BodyStart, off)
	if ws > 0 && (src[ws-1] == '.' || src[ws-1] == '@' || src[ws-1] == '"' || src[ws-1] == '$') {
		return nil, false
	}
	if ws < off && src[ws] >= '0' && src[ws] <= '9' {
		return nil, false // a number
	}
	p := sqlread.PlaceAt(src, m.BodyStart, off)
	if p.Comment || p.Alias {
		return nil, false
	}
	typed := string(src[ws:off])
	r := d.f.Mapper().Range(ws, off)
	match := func(label string) bool {
		return len(label) >= len(typed) && strings.EqualFold(label[:len(typed)], typed)
	}
	items = []protocol.CompletionItem{}
	if p.Type {
		for i, t := range sqlTypes {
			if match(t) {
				items = append(items, keywordItem(t, typed, "type", r, i))
			}
		}
		return items, false
	}
	expr := !p.After && (p.Clause.Expression() || p.Call != "" || p.InCase || p.Clause == sqlread.ClauseUsing)
	if expr {
		items = append(items, inScopeColumns(d, off, typed, r)...)
		if p.Clause != sqlread.ClauseUsing {
			items = append(items, inScopeAliases(d, off, typed, r)...)
			if typed == "" {
				incomplete = true
			} else {
				for _, it := range completeFunctions(d, s.functions(ctx, d.w.snap.proj, functionWait), ws, off) {
					it.SortText = rankFunction + it.Label
					items = append(items, it)
				}
			}
		}
	}
	if p.Clause == sqlread.ClauseFrom && !p.After {
		items = append(items, visibleCTEs(d, off, typed, r)...)
	}
	// A keyword the functions offer as a special form (CASE) is offered
	// once, as the form with its syntax.
	forms := map[string]bool{}
	for _, it := range items {
		if it.Kind == protocol.CompletionItemKindFunction {
			forms[it.Label] = true
		}
	}
	extended := d.w.snap.proj == nil || connect.EngineKind(d.w.snap.proj).Capabilities().ExtendedSyntax
	for i, k := range p.Keywords(extended) {
		if match(k) && !forms[strings.ToLower(k)] {
			items = append(items, keywordItem(k, typed, "keyword", r, i))
		}
	}
	return items, incomplete
}

// keywordItem is a keyword (or type) at rank i, written in the case the
// user types in: lower case after a lower-case prefix.
func keywordItem(k, typed, detail string, r protocol.Range, i int) protocol.CompletionItem {
	text := k
	if typed != "" && typed == strings.ToLower(typed) {
		text = strings.ToLower(k)
	}
	return protocol.CompletionItem{Label: k, Kind: protocol.CompletionItemKindKeyword, Detail: detail,
		SortText: fmt.Sprintf("%s%03d", rankKeyword, i), FilterText: text,
		TextEdit: &protocol.TextEdit{Range: r, NewText: text}}
}

// sqlTypes are offered after :: and in CAST(… AS: the types both engines
// name alike, then DuckDB's and Postgres's common others.
var sqlTypes = []string{"INTEGER", "BIGINT", "SMALLINT", "DOUBLE", "REAL", "DECIMAL", "NUMERIC", "VARCHAR", "TEXT", "BOOLEAN",
	"DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "INTERVAL", "UUID", "JSON", "BLOB", "BYTEA", "HUGEINT", "UBIGINT"}

// sourceText says what a FROM source reads, for a detail: its model,
// CTE or subquery, and the alias it goes by.
func sourceText(src *sqlread.Source) string {
	name := src.Alias
	switch {
	case src.Model != "":
		if _, table, _ := strings.Cut(src.Model, "."); name == "" || name == table {
			return src.Model
		}
		return src.Model + " AS " + name
	case src.CTE != nil:
		if name == "" || name == src.CTE.Name {
			return "CTE " + src.CTE.Name
		}
		return "CTE " + src.CTE.Name + " AS " + name
	case src.Sub != nil:
		return "subquery " + name
	}
	return strings.TrimSpace(src.Table + " " + name)
}

// inScopeColumns offers the columns of every relation of the query at
// off, unqualified where one relation has the name and qualified by each
// relation's alias where several do (unqualified it would not bind).
func inScopeColumns(d *docPos, off int, typed string, r protocol.Range) []protocol.CompletionItem {
	q := d.f.query()
	if q == nil {
		return nil
	}
	scope := q.ScopeAt(off)
	type col struct {
		name, typ string
		src       *sqlread.Source
		outer     bool
	}
	var cols []col
	owners := map[string]int{}
	w := d.w
	sources := scope.Sources
	// A subquery in an expression (EXISTS (…), IN (…), a scalar one) sees
	// the relations of the queries around it, after its own.
	var outer []*sqlread.Source
	for s := scope; s.Parent != nil && isExpressionSubquery(s); s = s.Parent {
		outer = append(outer, s.Parent.Sources...)
	}
	for i, src := range append(sources[:len(sources):len(sources)], outer...) {
		isOuter := i >= len(sources)
		if src.Model != "" && len(src.ColAliases) == 0 {
			for _, c := range w.columns(src.Model) {
				if isOuter && owners[sqlscan.FoldName(c.Name)] > 0 {
					continue // the inner relation's column hides it
				}
				cols = append(cols, col{c.Name, c.Type, src, isOuter})
				if !isOuter {
					owners[sqlscan.FoldName(c.Name)]++
				}
			}
			continue
		}
		names, _ := w.sourceColumns(src, 0)
		for _, n := range names {
			if isOuter && owners[sqlscan.FoldName(n)] > 0 {
				continue
			}
			cols = append(cols, col{w.sourceSpelling(d.f.src, src, n, 0), w.sourceType(src, n, 0), src, isOuter})
			if !isOuter {
				owners[sqlscan.FoldName(n)]++
			}
		}
	}
	var items []protocol.CompletionItem
	for i, c := range cols {
		if len(c.name) < len(typed) || !strings.EqualFold(c.name[:len(typed)], typed) {
			continue
		}
		detail := sourceText(c.src)
		if c.outer {
			detail = "outer " + detail
		}
		if c.typ != "" {
			detail = c.typ + " · " + detail
		}
		label, text := c.name, bareOrQuoted(c.name)
		if !c.outer && owners[sqlscan.FoldName(c.name)] > 1 {
			qual := c.src.Alias
			if qual == "" {
				continue
			}
			label = qual + "." + c.name
			text = bareOrQuoted(qual) + "." + text
		}
		items = append(items, protocol.CompletionItem{
			Label: label, Kind: protocol.CompletionItemKindField, Detail: detail,
			SortText: fmt.Sprintf("%s%04d", rankColumn, i), FilterText: c.name,
			TextEdit: &protocol.TextEdit{Range: r, NewText: text},
		})
	}
	return items
}

// isExpressionSubquery reports whether q is a subquery of an expression
// of its parent: not a CTE's body, a FROM subquery or a set operation's
// branch.
func isExpressionSubquery(q *sqlread.Query) bool {
	p := q.Parent
	for _, c := range p.CTEs {
		if c.Query == q {
			return false
		}
	}
	for _, s := range p.Sources {
		if s.Sub == q {
			return false
		}
	}
	return !slices.Contains(p.Branches, q) && p.Inner != q
}

// inScopeAliases offers the names the relations of the query at off go
// by, to qualify a column with.
func inScopeAliases(d *docPos, off int, typed string, r protocol.Range) []protocol.CompletionItem {
	q := d.f.query()
	if q == nil {
		return nil
	}
	var items []protocol.CompletionItem
	scope := q.ScopeAt(off)
	sources := scope.Sources
	for s := scope; s.Parent != nil && isExpressionSubquery(s); s = s.Parent {
		sources = append(sources[:len(sources):len(sources)], s.Parent.Sources...)
	}
	seen := map[string]bool{}
	for _, src := range sources {
		a := src.Alias
		if a == "" || seen[a] || !strings.HasPrefix(a, strings.ToLower(typed)) {
			continue
		}
		seen[a] = true
		items = append(items, protocol.CompletionItem{
			Label: a, Kind: protocol.CompletionItemKindVariable, Detail: sourceText(src),
			SortText: rankAlias + a, TextEdit: &protocol.TextEdit{Range: r, NewText: bareOrQuoted(a)},
		})
	}
	return items
}

// visibleCTEs offers the CTEs a FROM clause at off may read.
func visibleCTEs(d *docPos, off int, typed string, r protocol.Range) []protocol.CompletionItem {
	q := d.f.query()
	if q == nil {
		return nil
	}
	var items []protocol.CompletionItem
	seen := map[string]bool{}
	for s := q.ScopeAt(off); s != nil; s = s.Parent {
		for _, c := range s.CTEs {
			if seen[c.Name] || c.End > off || !strings.HasPrefix(c.Name, strings.ToLower(typed)) {
				continue
			}
			seen[c.Name] = true
			items = append(items, protocol.CompletionItem{
				Label: c.Name, Kind: protocol.CompletionItemKindClass, Detail: "CTE",
				SortText: rankAlias + c.Name, TextEdit: &protocol.TextEdit{Range: r, NewText: bareOrQuoted(c.Name)},
			})
		}
	}
	return items
}
