package lsp

import (
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// completeFields offers the fields of a struct column after a dot: p.st.
// (a struct column of the relation p), st. (a struct column in scope that
// is not a relation's alias), p.st.inner. (a nested struct), each with its
// type, the struct's type followed as hover follows it (through CTEs,
// struct fields and unnests). ws is where the word being typed starts.
// ok is false when the text before the dot is not a struct column, so
// that the other completions apply.
func completeFields(d *docPos, ws, off int) ([]protocol.CompletionItem, bool) {
	src := d.f.src
	path, ok := dottedBefore(src, ws)
	if !ok || d.f.model == nil {
		return nil, false
	}
	q := d.f.query()
	if q == nil {
		return nil, false
	}
	scope := q.ScopeAt(off)
	if len(path) == 1 && scope.SourceByAlias(path[0]) != nil {
		return nil, false // a relation's columns: completeColumnsOf
	}
	col, fields, qual := path[0], path[1:], ""
	if len(path) >= 2 && scope.SourceByAlias(path[0]) != nil {
		col, fields, qual = path[1], path[2:], path[0]
	}
	typ := d.w.deepType(src, scope, sqlread.ColRef{Qual: qual, Name: col}, 0)
	for _, f := range fields {
		t, ok := engine.StructFieldType(typ, f)
		if !ok {
			return nil, false
		}
		typ = t
	}
	names := engine.StructFields(typ)
	if names == nil {
		return nil, false
	}
	r := d.f.Mapper().Range(ws, off)
	items := make([]protocol.CompletionItem, 0, len(names))
	for _, n := range names {
		ft, _ := engine.StructFieldType(typ, n)
		items = append(items, protocol.CompletionItem{
			Label: n, Kind: protocol.CompletionItemKindField, Detail: ft,
			TextEdit: &protocol.TextEdit{Range: r, NewText: columnName(n)},
		})
	}
	return items, true
}

// dottedBefore reads the dotted name that ends with a dot just before ws
// (p.st. → p, st), lower case; quoted parts keep their case.
func dottedBefore(src []byte, ws int) ([]string, bool) {
	if ws == 0 || src[ws-1] != '.' {
		return nil, false
	}
	var path []string
	end := ws - 1 // the dot
	for {
		start := end
		var part string
		if start > 0 && src[start-1] == '"' {
			// A quoted part: back to its opening quote.
			i := start - 2
			for i >= 0 && src[i] != '"' {
				i--
			}
			if i < 0 {
				return nil, false
			}
			part, start = strings.ReplaceAll(string(src[i+1:end-1]), `""`, `"`), i
		} else {
			for start > 0 && sqlscan.IsIdentByte(src[start-1]) {
				start--
			}
			if start == end {
				return nil, false
			}
			part = sqlscan.FoldName(string(src[start:end]))
		}
		path = append([]string{part}, path...)
		if start == 0 || src[start-1] != '.' {
			break
		}
		end = start - 1
	}
	return path, true
}
