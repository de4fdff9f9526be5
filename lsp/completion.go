package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

func (s *Server) completion(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.CompletionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	if (d.f.model != nil && d.off >= d.f.model.BodyStart) || len(d.f.defs) > 0 || d.f.audit != nil {
		if items, ok := completeMacro(d, min(d.off, len(d.f.src))); ok {
			return &protocol.CompletionList{Items: items}, nil
		}
	}
	if d.f.model == nil {
		return nil, nil
	}
	items := completeAt(d)
	incomplete := false
	if items == nil {
		items, incomplete = s.completeBody(ctx, d)
	}
	if len(items) == 0 && !incomplete {
		return nil, nil
	}
	// A project of thousands of models would send them all on "@ref(":
	// send the first ones and let the client ask again as the user types.
	if len(items) > maxCompletions {
		items, incomplete = items[:maxCompletions], true
	}
	return &protocol.CompletionList{IsIncomplete: incomplete, Items: items}, nil
}

// maxCompletions bounds one completion answer.
const maxCompletions = 200

// The MODEL header vocabulary, in documentation order.
//
// Kind options here include the common reader options of EXTERNAL files,
// which the header passes through without naming them.
var (
	kindOptions = map[string][]string{
		"incremental_by_time_range": {"time_column", "batch_size", "lookback"},
		"incremental_by_unique_key": {"key"},
		"scd_type_2":                {"key", "valid_from", "valid_to"},
		"seed":                      {"path"},
		"external":                  {"table", "files", "format", "union_by_name", "header", "delim"},
	}
	propertyValues = map[string][]string{
		"interval": {"day", "hour"},
		"target":   {"table", "parquet", "ducklake"},
	}
)

// macroArgAt finds whether off is in the argument of macro (e.g. "@ref")
// being typed: "@ref(" then a partial name; rs is where the name starts.
func macroArgAt(src []byte, off int, macro string) (rs int, ok bool) {
	rs = off
	for rs > 0 && (sqlscan.IsIdentByte(src[rs-1]) || src[rs-1] == '.' || src[rs-1] == '"') {
		rs--
	}
	j := rs
	for j > 0 && (src[j-1] == ' ' || src[j-1] == '\t') {
		j--
	}
	if j == 0 || src[j-1] != '(' {
		return 0, false
	}
	j--
	for j > 0 && (src[j-1] == ' ' || src[j-1] == '\t') {
		j--
	}
	if j < len(macro) || !strings.EqualFold(string(src[j-len(macro):j]), macro) {
		return 0, false
	}
	return rs, true
}

// completeVar completes the variable names inside @var(: those in force
// in the editor's environment (efmesh.yaml's vars and the environment's
// overrides), each with its value and where it is set.
func completeVar(d *docPos, off int) ([]protocol.CompletionItem, bool) {
	src := d.f.src
	rs, ok := macroArgAt(src, off, "@var")
	if !ok {
		return nil, false
	}
	snap := d.w.snap
	r := d.f.Mapper().Range(rs, off)
	typed := strings.Trim(string(src[rs:off]), `"`)
	names := map[string]bool{}
	for n := range snap.cfg.Variables {
		names[n] = true
	}
	for n := range snap.cfg.Environments[snap.env].Variables {
		names[n] = true
	}
	items := []protocol.CompletionItem{}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if !fuzzyMatch(typed, n) {
			continue
		}
		o, _ := snap.variable(n)
		items = append(items, protocol.CompletionItem{
			Label:    n,
			Kind:     protocol.CompletionItemKindVariable,
			Detail:   fmt.Sprintf("%q (%s)", o.Value, variableWhere(o)),
			TextEdit: &protocol.TextEdit{Range: r, NewText: n},
		})
	}
	return items, true
}

// variableWhere says where a variable's value is set, for hover and
// completion: "efmesh.yaml vars, line 3" or "efmesh.yaml
// environments.dev.vars, line 7, over the top-level vars".
func variableWhere(o project.VariableOrigin) string {
	if o.Setting == "--var" {
		return "--var"
	}
	s := fmt.Sprintf("%s %s, line %d", project.ConfigFile, o.Setting, o.Range.Start.Line)
	if o.Setting != "vars" {
		s += ", over the top-level vars"
	}
	return s
}

// completeAt is the completion feature.
func completeAt(d *docPos) []protocol.CompletionItem {
	src, off := d.f.src, min(d.off, len(d.f.src))
	ws := off
	for ws > 0 && sqlscan.IsIdentByte(src[ws-1]) {
		ws--
	}
	if items, ok := completeRef(d, off); ok {
		return items
	}
	if items, ok := completeVar(d, off); ok {
		return items
	}
	if items, ok := completeHeader(d, ws, off); ok {
		return items
	}
	if items, ok := completeFields(d, ws, off); ok {
		return items
	}
	if ws > 0 && src[ws-1] == '.' {
		ae := ws - 1
		as := ae
		for as > 0 && sqlscan.IsIdentByte(src[as-1]) {
			as--
		}
		if as < ae {
			return completeColumnsOf(d, strings.ToLower(string(src[as:ae])), ws, off)
		}
	}
	return nil
}

// completeRef offers model names inside @ref( … ).
func completeRef(d *docPos, off int) ([]protocol.CompletionItem, bool) {
	src := d.f.src
	rs, ok := macroArgAt(src, off, "@ref")
	if !ok {
		return nil, false
	}
	w := d.w
	if w.snap.proj == nil {
		return []protocol.CompletionItem{}, true
	}
	r := d.f.Mapper().Range(rs, off)
	typed := strings.Trim(string(src[rs:off]), `"`)
	items := []protocol.CompletionItem{}
	for _, m := range w.snap.proj.Models {
		if m == d.f.model || !fuzzyMatch(typed, m.Name) {
			continue
		}
		it := protocol.CompletionItem{
			Label:    m.Name,
			Kind:     protocol.CompletionItemKindModule,
			Detail:   kindText(m.Kind),
			TextEdit: &protocol.TextEdit{Range: r, NewText: m.Name},
		}
		if m.Description != "" {
			it.Documentation = m.Description
		}
		items = append(items, it)
		if len(items) > maxCompletions { // enough to say the list is incomplete
			break
		}
	}
	return items, true
}

// completeColumnsOf offers the columns of the source an alias is bound to.
func completeColumnsOf(d *docPos, alias string, ws, off int) []protocol.CompletionItem {
	q := d.f.query()
	if q == nil {
		return nil
	}
	src := q.ScopeAt(off).SourceByAlias(alias)
	if src == nil {
		sqlread.Walk(q, func(s *sqlread.Query) {
			for _, x := range s.Sources {
				if src == nil && x.Alias == alias {
					src = x
				}
			}
		})
	}
	if src == nil {
		return nil
	}
	w := d.w
	r := d.f.Mapper().Range(ws, off)
	items := []protocol.CompletionItem{}
	// Names are offered as the engine keeps them ("Käufer", not
	// käufer) and written quoted where SQL needs it.
	add := func(name, typ string) {
		items = append(items, protocol.CompletionItem{
			Label: name, Kind: protocol.CompletionItemKindField, Detail: typ,
			TextEdit: &protocol.TextEdit{Range: r, NewText: bareOrQuoted(name)},
		})
	}
	if src.Model != "" {
		for _, c := range w.columns(src.Model) {
			add(c.Name, c.Type)
		}
		return items
	}
	names, _ := w.sourceColumns(src, 0)
	for _, n := range names {
		add(w.sourceSpelling(d.f.src, src, n, 0), w.sourceType(src, n, 0))
	}
	return items
}

// sourceSpelling is column n (folded) of a source as the engine names
// it: as its model declares or yields it, or as the CTE's or subquery's
// select item writes it (unquoted), through `*`.
func (w *world) sourceSpelling(src []byte, s *sqlread.Source, n string, depth int) string {
	if s == nil || depth > maxDepth {
		return n
	}
	var q *sqlread.Query
	switch {
	case len(s.ColAliases) > 0:
		return n
	case s.Model != "":
		for _, c := range w.columns(s.Model) {
			if sqlscan.SameName(c.Name, n) {
				return c.Name
			}
		}
		return n
	case s.CTE != nil:
		q = s.CTE.Query
	case s.Sub != nil:
		q = s.Sub
	default:
		return n
	}
	it, star := w.outputItem(q, n, depth)
	switch {
	case star != nil:
		return w.sourceSpelling(src, star, n, depth+1)
	case it != nil && it.NameEnd > it.NameStart && it.NameEnd <= len(src):
		for _, t := range sqlread.Scan(src, it.NameStart, it.NameEnd) {
			if t.Kind == sqlscan.QuotedIdent {
				return t.Val
			}
		}
		return string(src[it.NameStart:it.NameEnd])
	}
	return n
}

// bareOrQuoted writes a name in SQL as every writer of names does
// (sqlscan.WriteIdent).
func bareOrQuoted(name string) string { return sqlscan.WriteIdent(name) }

// headerFrame is one open parenthesis of the MODEL header while reading it
// up to the cursor.
type headerFrame struct {
	owner string // the word before '(' (lower case): model, kind name, audits, …
	head  string // the first word of the current entry
	n     int    // tokens in the current entry so far
}

// completeHeader offers property names, kinds, kind options, audit names
// and column names inside the MODEL header.
func completeHeader(d *docPos, ws, off int) ([]protocol.CompletionItem, bool) {
	toks := sqlread.Scan(d.f.src, 0, ws)
	if len(toks) < 2 || !toks[0].Is("model") || !toks[1].IsPunct("(") {
		return nil, false
	}
	stack := []headerFrame{{owner: "model"}}
	var props []string
	for i := 2; i < len(toks); i++ {
		t := toks[i]
		top := &stack[len(stack)-1]
		switch {
		case t.IsPunct("("):
			owner := ""
			if p := toks[i-1]; p.IsIdent() {
				owner = strings.ToLower(p.Val)
			}
			top.n++
			stack = append(stack, headerFrame{owner: owner})
		case t.IsPunct(")"):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil, false // the header is closed before the cursor
			}
		case t.IsPunct(","):
			top.head, top.n = "", 0
		case t.IsPunct(";"):
			return nil, false
		case len(stack) == 1 && (t.Is("select") || t.Is("with")) && top.n == 0:
			return nil, false // the body began: the header was never closed
		default:
			if top.n == 0 {
				top.head = strings.ToLower(t.Val)
				if len(stack) == 1 {
					props = append(props, top.head)
				}
			}
			top.n++
		}
	}
	r := d.f.Mapper().Range(ws, off)
	mk := func(kind protocol.CompletionItemKind, detail string, words ...string) []protocol.CompletionItem {
		items := []protocol.CompletionItem{}
		for _, wd := range words {
			items = append(items, protocol.CompletionItem{Label: wd, Kind: kind, Detail: detail,
				TextEdit: &protocol.TextEdit{Range: r, NewText: wd}})
		}
		return items
	}
	top := stack[len(stack)-1]
	parent := ""
	if len(stack) > 1 {
		parent = stack[len(stack)-2].owner
	}
	switch {
	case len(stack) == 1 && top.n == 0:
		var left []string
		for _, p := range project.PropertyNames() {
			if !slices.Contains(props, p) {
				left = append(left, p)
			}
		}
		return mk(protocol.CompletionItemKindProperty, "MODEL property", left...), true
	case len(stack) == 1 && top.n == 1 && top.head == "kind":
		return mk(protocol.CompletionItemKindEnum, "model kind", project.KindNames()...), true
	case len(stack) == 1 && top.n == 1 && propertyValues[top.head] != nil:
		return mk(protocol.CompletionItemKindEnumMember, top.head, propertyValues[top.head]...), true
	case top.owner == "audits" && top.n == 0:
		builtins, wrappers := auditNames()
		return slices.Concat(mk(protocol.CompletionItemKindFunction, "audit", builtins...),
			mk(protocol.CompletionItemKindFunction, "custom audit", customAudits(d)...),
			mk(protocol.CompletionItemKindFunction, "audit wrapper", wrappers...)), true
	case isAuditWrapper(top.owner) && parent == "audits" && top.n == 0:
		builtins, _ := auditNames()
		return slices.Concat(mk(protocol.CompletionItemKindFunction, "audit", builtins...),
			mk(protocol.CompletionItemKindFunction, "custom audit", customAudits(d)...)), true
	case kindOptions[top.owner] != nil && top.n == 0:
		return mk(protocol.CompletionItemKindProperty, strings.ToUpper(top.owner)+" option", kindOptions[top.owner]...), true
	case kindOptions[top.owner] != nil && top.n == 1 && slices.Contains([]string{"time_column", "valid_from", "valid_to"}, top.head),
		(top.owner == "grain" || top.owner == "key" || project.IsBuiltinAudit(top.owner)) && top.n == 0:
		return mk(protocol.CompletionItemKindField, "column", ownColumns(d)...), true
	}
	return []protocol.CompletionItem{}, true
}

// auditNames splits project.BuiltinAudits into audits and wrappers.
func auditNames() (builtins, wrappers []string) {
	for _, n := range project.BuiltinAudits() {
		if project.IsBuiltinAudit(n) {
			builtins = append(builtins, n)
		} else {
			wrappers = append(wrappers, n)
		}
	}
	return builtins, wrappers
}

func isAuditWrapper(name string) bool {
	_, wrappers := auditNames()
	return slices.Contains(wrappers, name)
}

// customAudits lists the project's audits/*.sql names.
func customAudits(d *docPos) []string {
	var out []string
	if p := d.w.snap.proj; p != nil {
		for _, a := range p.Audits {
			if a.Name != "" {
				out = append(out, a.Name)
			}
		}
	}
	return out
}

// ownColumns lists the output columns of the model being edited.
func ownColumns(d *docPos) []string {
	m, w := d.f.model, d.w
	var out []string
	for _, c := range inferredColumns(w.res, m.Name) {
		out = append(out, c.Name)
	}
	if out == nil {
		for _, c := range m.Columns {
			out = append(out, c.Name)
		}
	}
	if out == nil && m.Kind.Name.HasBody() {
		out, _ = w.outputs(d.f.query(), 0)
	}
	return out
}
