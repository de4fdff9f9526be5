package lsp

import (
	"context"
	"encoding/json"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// The semantic token legend: the indexes are the wire format, so the order
// of semanticTypes is frozen (append only). The editor's TextMate grammar
// colours the lexical layer; these tokens add what only the server knows:
// which words are header properties, model names, macros and columns.
var semanticTypes = []protocol.SemanticTokenTypes{
	protocol.SemanticTokenMacro,      // @ref, @start, @end, @this, @var
	protocol.SemanticTokenClass,      // a model name: the header's name, a @ref argument
	protocol.SemanticTokenProperty,   // a MODEL header property name
	protocol.SemanticTokenEnumMember, // a model kind (FULL, VIEW, …)
	protocol.SemanticTokenVariable,   // a column: a select item's name, a column reference
}

const (
	semMacro = iota
	semModel
	semProperty
	semKind
	semColumn
)

var semanticModifiers = []protocol.SemanticTokenModifiers{
	protocol.SemanticTokenModifierDeclaration, // the model's own name, a select item's output name
}

const modDeclaration = 1 << 0

func semanticLegend() protocol.SemanticTokensLegend {
	return protocol.SemanticTokensLegend{TokenTypes: semanticTypes, TokenModifiers: semanticModifiers}
}

func (s *Server) semanticTokensFull(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.SemanticTokensParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.document(p.TextDocument.URI)
	if !ok || tooBig(d.f) {
		return &protocol.SemanticTokens{Data: []uint32{}}, nil
	}
	return &protocol.SemanticTokens{Data: encodeSemantic(d.f.Mapper(), semanticTokens(d.f))}, nil
}

// semToken is one token before encoding: a byte span of the file.
type semToken struct {
	start, end int
	typ, mods  int
}

// semanticTokens lists the tokens of a model or audit file, sorted by
// start, with no two overlapping (the first written wins: header, macros,
// then columns). An unreadable file or another file has none.
func semanticTokens(f *file) []semToken {
	var toks []semToken
	add := func(start, end, typ, mods int) {
		if start >= 0 && end > start && end <= len(f.src) {
			toks = append(toks, semToken{start, end, typ, mods})
		}
	}
	if a := f.audit; a != nil {
		if a.NameRange.End.Offset > a.NameRange.Start.Offset {
			add(a.NameRange.Start.Offset, a.NameRange.End.Offset, semModel, modDeclaration)
		}
		macroTokens(a.Macros, add)
		return sorted(toks)
	}
	m := f.model
	if m == nil {
		return nil
	}
	if m.NameRange.End.Offset > m.NameRange.Start.Offset {
		add(m.NameRange.Start.Offset, m.NameRange.End.Offset, semModel, modDeclaration)
	}
	for _, p := range m.Properties {
		start := p.Range.Start.Offset
		add(start, start+len(p.Name), semProperty, 0)
		if p.Name == "kind" {
			// The kind is the first word of the value; its own options
			// (time_column, key, …) are properties too.
			vs, ve := p.ValueRange.Start.Offset, p.ValueRange.End.Offset
			ts := sqlread.Scan(f.src, vs, ve)
			for i, t := range ts {
				switch {
				case i == 0 && t.Kind == sqlscan.Ident:
					add(t.Start, t.End, semKind, 0)
				case t.Kind == sqlscan.Ident && i > 0 && (ts[i-1].IsPunct("(") || ts[i-1].IsPunct(",")):
					add(t.Start, t.End, semProperty, 0)
				}
			}
		}
	}
	macroTokens(m.Macros, add)
	var walk func(q *sqlread.Query)
	walk = func(q *sqlread.Query) {
		if q == nil {
			return
		}
		for _, c := range q.CTEs {
			walk(c.Query)
		}
		for _, it := range q.Items {
			for _, r := range it.Refs {
				add(r.Start, r.End, semColumn, 0)
			}
			if !it.Star && it.Name != "" && !it.Plain {
				add(it.NameStart, it.NameEnd, semColumn, modDeclaration)
			}
		}
		for _, r := range q.Refs {
			add(r.Start, r.End, semColumn, 0)
		}
		for _, sub := range q.Subs {
			walk(sub)
		}
		for _, b := range q.Branches {
			walk(b)
		}
	}
	walk(f.query())
	return sorted(toks)
}

// macroTokens adds the tokens of a body's macros: the @name, and for a ref
// the model it names.
func macroTokens(macros []project.Macro, add func(start, end, typ, mods int)) {
	for _, mc := range macros {
		if mc.Kind == project.MacroRef && mc.ArgEnd > mc.ArgStart {
			add(mc.Start, mc.Start+len("@ref"), semMacro, 0)
			add(mc.ArgStart, mc.ArgEnd, semModel, 0)
			continue
		}
		add(mc.Start, min(mc.Start+1+len(mc.Kind), mc.End), semMacro, 0)
	}
}

// sorted orders toks by start and drops a token that overlaps an earlier one.
func sorted(toks []semToken) []semToken {
	sort.SliceStable(toks, func(i, j int) bool { return toks[i].start < toks[j].start })
	out := toks[:0]
	last := -1
	for _, t := range toks {
		if t.start < last {
			continue
		}
		out = append(out, t)
		last = t.end
	}
	return out
}

// encodeSemantic is the LSP wire form: five integers per token (line delta,
// start delta, length, type, modifiers) in UTF-16 units. A token is never
// split across lines: none of ours spans one.
func encodeSemantic(mp *Mapper, toks []semToken) []uint32 {
	data := make([]uint32, 0, 5*len(toks))
	var line, char uint32
	for _, t := range toks {
		r := mp.Range(t.start, t.end)
		if r.End.Line != r.Start.Line {
			continue
		}
		dl, dc := r.Start.Line-line, r.Start.Character
		if dl == 0 {
			dc -= char
		}
		data = append(data, dl, dc, r.End.Character-r.Start.Character, uint32(t.typ), uint32(t.mods))
		line, char = r.Start.Line, r.Start.Character
	}
	return data
}
