package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

func (s *Server) documentHighlight(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DocumentHighlightParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	return highlightsAt(d), nil
}

// highlights collects the spans of one name in a file: the one that
// defines it (write) and its uses (read), each span once.
type highlights struct {
	f   *file
	out []protocol.DocumentHighlight
	at  map[[2]int]bool
}

func (h *highlights) add(start, end int, kind protocol.DocumentHighlightKind) {
	if end <= start || h.at[[2]int{start, end}] {
		return
	}
	h.at[[2]int{start, end}] = true
	h.out = append(h.out, protocol.DocumentHighlight{Range: h.f.Mapper().Range(start, end), Kind: kind})
}

// highlightsAt is the document highlight feature, on the tolerant reader's
// query of the body: on a CTE's name (where it is defined or read), the
// CTE and every FROM that reads it; on a relation's alias (or a column's
// qualifier), the alias and every qualifier naming it; on a column, the
// references that resolve to the same relation's column, and on a select
// item's output name, that name and the uses of it from the enclosing
// query. Outside the body, or on nothing of these, there are none.
func highlightsAt(d *docPos) []protocol.DocumentHighlight {
	m := d.f.model
	q := d.f.query()
	if m == nil || q == nil || inHeader(m, d.off) {
		return nil
	}
	h := &highlights{f: d.f, at: map[[2]int]bool{}}
	var queries []*sqlread.Query
	sqlread.Walk(q, func(s *sqlread.Query) { queries = append(queries, s) })
	refsOf := func(s *sqlread.Query) []sqlread.ColRef {
		refs := slices.Clone(s.Refs)
		for _, it := range s.Items {
			refs = append(refs, it.Refs...)
		}
		return refs
	}
	// qualifiers highlights every qualifier that names src.
	qualifiers := func(src *sqlread.Source) {
		for _, s := range queries {
			for _, r := range refsOf(s) {
				if r.Qual != "" && r.QualEnd > r.QualStart && s.SourceByAlias(r.Qual) == src {
					h.add(r.QualStart, r.QualEnd, protocol.DocumentHighlightKindRead)
				}
			}
		}
	}
	if cte := cteAt(queries, d.off); cte != nil {
		h.add(cte.NameStart, cte.NameEnd, protocol.DocumentHighlightKindWrite)
		for _, s := range queries {
			for _, src := range s.Sources {
				if src.CTE == cte {
					h.add(src.NameStart, src.NameEnd, protocol.DocumentHighlightKindRead)
					if src.AliasEnd <= src.AliasStart {
						// Read without an alias: cte.col qualifies by its name.
						qualifiers(src)
					}
				}
			}
		}
		return h.sorted()
	}
	if src, start, end := sourceAt(q, d.off); src != nil && start == src.AliasStart && end == src.AliasEnd {
		h.add(src.AliasStart, src.AliasEnd, protocol.DocumentHighlightKindWrite)
		qualifiers(src)
		return h.sorted()
	}
	scope, ref, onQual, found := refAt(q, d.off)
	if found && onQual {
		src := scope.SourceByAlias(ref.Qual)
		if src == nil {
			return nil
		}
		h.add(src.AliasStart, src.AliasEnd, protocol.DocumentHighlightKindWrite)
		if src.AliasEnd <= src.AliasStart {
			h.add(src.NameStart, src.NameEnd, protocol.DocumentHighlightKindWrite)
		}
		qualifiers(src)
		return h.sorted()
	}
	if found {
		want, name := d.w.resolveRef(scope, ref)
		for _, s := range queries {
			for _, r := range refsOf(s) {
				if !sqlscan.SameName(r.Name, name) {
					continue
				}
				// An unresolved name is matched within its own query only.
				if src, _ := d.w.resolveRef(s, r); src == want && (want != nil || s == scope) {
					h.add(r.Start, r.End, protocol.DocumentHighlightKindRead)
				}
			}
		}
		return h.sorted()
	}
	if scope, it := itemAt(q, d.off); it != nil {
		h.add(it.NameStart, it.NameEnd, protocol.DocumentHighlightKindWrite)
		// ORDER BY and the like may name the output in its own query;
		// an enclosing query reads it through the CTE or subquery.
		for _, r := range scope.Refs {
			if r.Qual == "" && sqlscan.SameName(r.Name, it.Name) {
				if src, _ := d.w.resolveRef(scope, r); src == nil {
					h.add(r.Start, r.End, protocol.DocumentHighlightKindRead)
				}
			}
		}
		for _, s := range queries {
			for _, r := range refsOf(s) {
				if !sqlscan.SameName(r.Name, it.Name) {
					continue
				}
				if src, _ := d.w.resolveRef(s, r); src != nil && (src.Sub == scope || src.CTE != nil && src.CTE.Query == scope) {
					h.add(r.Start, r.End, protocol.DocumentHighlightKindRead)
				}
			}
		}
		return h.sorted()
	}
	return nil
}

// cteAt finds the CTE whose name is written at off: where it is defined,
// or a FROM that reads it.
func cteAt(queries []*sqlread.Query, off int) *sqlread.CTE {
	for _, s := range queries {
		for _, c := range s.CTEs {
			if c.NameEnd > c.NameStart && off >= c.NameStart && off <= c.NameEnd {
				return c
			}
		}
		for _, src := range s.Sources {
			if src.CTE != nil && src.NameEnd > src.NameStart && off >= src.NameStart && off <= src.NameEnd {
				return src.CTE
			}
		}
	}
	return nil
}

func (h *highlights) sorted() []protocol.DocumentHighlight {
	slices.SortFunc(h.out, func(a, b protocol.DocumentHighlight) int {
		if a.Range.Start.Line != b.Range.Start.Line {
			return int(a.Range.Start.Line) - int(b.Range.Start.Line)
		}
		return int(a.Range.Start.Character) - int(b.Range.Start.Character)
	})
	return h.out
}
