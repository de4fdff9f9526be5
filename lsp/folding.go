package lsp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

func (s *Server) foldingRange(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.FoldingRangeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.document(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	return foldingRanges(d), nil
}

// foldingRanges is the folding feature of a SQL file: the MODEL header,
// each CTE (from its name to its closing parenthesis, or the line before
// when that parenthesis opens its line; nested ones too),
// and comments over several lines (a block comment, or consecutive line
// comments). A range on one line folds nothing and is left out.
func foldingRanges(d *docPos) []protocol.FoldingRange {
	f := d.f
	if f.model == nil && !strings.HasSuffix(d.rel, ".sql") {
		return nil
	}
	mp := f.Mapper()
	out := []protocol.FoldingRange{}
	add := func(start, end int, kind protocol.FoldingRangeKind) {
		if end <= start {
			return
		}
		s, e := mp.Position(start), mp.Position(end)
		if kind == protocol.RegionFoldingRange && e.Line > 0 && closesLine(f.src, end) {
			// A ")" that opens its line stays visible: it often starts the
			// next CTE ("), next AS (").
			e.Line--
		}
		if e.Line > s.Line {
			out = append(out, protocol.FoldingRange{StartLine: s.Line, EndLine: e.Line, Kind: kind})
		}
	}
	if m := f.model; m != nil {
		add(m.Header.Start.Offset, m.Header.End.Offset, protocol.RegionFoldingRange)
		sqlread.Walk(f.query(), func(q *sqlread.Query) {
			for _, c := range q.CTEs {
				add(c.NameStart, c.End, protocol.RegionFoldingRange)
			}
		})
	}
	// Comments: a run of line comments on consecutive lines folds as one.
	runStart, runEnd := -1, -1
	flush := func() {
		if runStart >= 0 {
			add(runStart, runEnd, protocol.CommentFoldingRange)
		}
		runStart, runEnd = -1, -1
	}
	for sc := sqlscan.NewScanner(f.src, 0); ; {
		t := sc.Next()
		if t.Kind == sqlscan.EOF {
			break
		}
		if t.Kind != sqlscan.Comment {
			flush()
			continue
		}
		if strings.HasPrefix(t.Text(f.src), "/*") {
			flush()
			add(t.Start, t.End, protocol.CommentFoldingRange)
			continue
		}
		// A line comment continues the run when it starts on the line
		// after the run's last one (and nothing else stands between).
		if runStart >= 0 && mp.Position(t.Start).Line != mp.Position(runEnd).Line+1 {
			flush()
		}
		if runStart < 0 {
			runStart = t.Start
		}
		runEnd = t.End
	}
	flush()
	slices.SortStableFunc(out, func(a, b protocol.FoldingRange) int { return int(a.StartLine) - int(b.StartLine) })
	return out
}

// closesLine reports whether the byte before end (a CTE's closing
// parenthesis) is the first non-blank of its line.
func closesLine(src []byte, end int) bool {
	i := min(end, len(src)) - 2
	for ; i >= 0 && (src[i] == ' ' || src[i] == '\t'); i-- {
	}
	return i < 0 || src[i] == '\n' || src[i] == '\r'
}
