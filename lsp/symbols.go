package lsp

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
)

func (s *Server) documentSymbol(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DocumentSymbolParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.document(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	return documentSymbols(d), nil
}

// documentSymbols is the outline of a model file: the model, its declared
// columns (or, without a contract, its output columns) and its CTEs.
func documentSymbols(d *docPos) []protocol.DocumentSymbol {
	m, w := d.f.model, d.w
	if m == nil || m.Name == "" {
		return []protocol.DocumentSymbol{}
	}
	mp := d.f.Mapper()
	whole := mp.Range(0, len(d.f.src))
	root := protocol.DocumentSymbol{
		Name:           m.Name,
		Detail:         string(m.Kind.Name),
		Kind:           protocol.SymbolKindClass,
		Range:          whole,
		SelectionRange: mp.Range(m.NameRange.Start.Offset, m.NameRange.End.Offset),
	}
	for _, c := range m.Columns {
		start, end, _ := declaredColumnName(w, d.rel, c.Name)
		root.Children = append(root.Children, protocol.DocumentSymbol{
			Name: c.Name, Detail: c.Type, Kind: protocol.SymbolKindField,
			Range: mp.Range(c.Range.Start.Offset, c.Range.End.Offset), SelectionRange: mp.Range(start, end),
		})
	}
	q := d.f.query()
	if q != nil && m.Columns == nil {
		types := map[string]string{}
		for _, c := range inferredColumns(w.res, m.Name) {
			types[strings.ToLower(c.Name)] = c.Type
		}
		for _, it := range q.Items {
			if it.Name == "" || it.NameEnd <= it.NameStart {
				continue
			}
			root.Children = append(root.Children, protocol.DocumentSymbol{
				Name: it.Name, Detail: types[it.Name], Kind: protocol.SymbolKindField,
				Range: mp.Range(it.Start, it.End), SelectionRange: mp.Range(it.NameStart, it.NameEnd),
			})
		}
	}
	if q != nil {
		for _, c := range q.CTEs {
			sym := protocol.DocumentSymbol{
				Name: c.Name, Detail: "CTE", Kind: protocol.SymbolKindStruct,
				Range: mp.Range(c.NameStart, max(c.Query.End, c.NameEnd)), SelectionRange: mp.Range(c.NameStart, c.NameEnd),
			}
			for _, it := range c.Query.Items {
				if it.Name != "" && it.NameEnd > it.NameStart {
					sym.Children = append(sym.Children, protocol.DocumentSymbol{
						Name: it.Name, Kind: protocol.SymbolKindField,
						Range: mp.Range(it.Start, it.End), SelectionRange: mp.Range(it.NameStart, it.NameEnd),
					})
				}
			}
			root.Children = append(root.Children, sym)
		}
	}
	return []protocol.DocumentSymbol{root}
}

func (s *Server) workspaceSymbol(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.WorkspaceSymbolParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	return s.workspaceSymbols(p.Query), nil
}

// maxSymbols bounds a workspace symbol answer.
const maxSymbols = 1000

// workspaceSymbols lists the models of every project whose name matches
// query (its letters in order, case-insensitively).
func (s *Server) workspaceSymbols(query string) []protocol.SymbolInformation {
	out := []protocol.SymbolInformation{}
	for _, v := range s.allViews() {
		snap, res := v.current()
		if snap.proj == nil {
			continue
		}
		w := &world{snap: snap, res: res}
		for _, m := range snap.proj.Models {
			if !fuzzyMatch(query, m.Name) {
				continue
			}
			out = append(out, protocol.SymbolInformation{
				Name:          m.Name,
				Kind:          protocol.SymbolKindClass,
				ContainerName: string(m.Kind.Name),
				Location:      w.location(m.File, m.NameRange.Start.Offset, m.NameRange.End.Offset),
			})
			if len(out) >= maxSymbols {
				return out
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// fuzzyMatch reports whether the characters of pattern appear in s in
// order, ignoring case.
func fuzzyMatch(pattern, s string) bool {
	p := []rune(strings.ToLower(pattern))
	i := 0
	for _, r := range strings.ToLower(s) {
		if i < len(p) && p[i] == r {
			i++
		}
	}
	return i == len(p)
}
